//===- OpRegistry.h - ONNX op converters by domain and op type --*- C++ -*-===//
//
// Each op family lives in one file under compiler/onnx/ops/ that defines
// `void register<Family>Ops(OpRegistry &)`; ops/OpFamilies.def lists the
// families, so a new family is one file and one line there.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_ONNX_OPREGISTRY_H
#define KILN_COMPILER_ONNX_OPREGISTRY_H

#include "compiler/onnx/NodeContext.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <functional>

namespace kiln::onnx_import {

/// Emits the node's MLIR and sets every present output.
using Converter = std::function<mlir::LogicalResult(NodeContext &)>;
/// Import-time evaluation: success(true) once it set every present output
/// to a HostTensor, success(false) when it cannot (inputs not known, or
/// too large), after which the converter runs; failure after an error.
using Folder = std::function<mlir::FailureOr<bool>(NodeContext &)>;

class OpRegistry {
public:
  /// `domain` "" is the default domain (also spelled "ai.onnx").
  void add(llvm::StringRef opType, Converter converter,
           llvm::StringRef domain = "");
  void addFolder(llvm::StringRef opType, Folder folder,
                 llvm::StringRef domain = "");
  /// A folder of shape values (NodeContext::shapeValueInput), tried before
  /// anything else; success(false) when the node's inputs are not such.
  void addShapeValueFolder(llvm::StringRef opType, Folder folder,
                           llvm::StringRef domain = "");
  const Folder *shapeValueFolder(llvm::StringRef domain,
                                 llvm::StringRef opType) const;

  /// Marks op types whose converter and folder take inputs with dynamic
  /// dimensions (issue 19); the importer refuses a dynamic input to any
  /// other op type, naming the node and input.
  void acceptDynamicShapes(std::initializer_list<llvm::StringRef> opTypes,
                           llvm::StringRef domain = "");
  bool acceptsDynamicShapes(llvm::StringRef domain,
                            llvm::StringRef opType) const;

  const Converter *converter(llvm::StringRef domain,
                             llvm::StringRef opType) const;
  const Folder *folder(llvm::StringRef domain, llvm::StringRef opType) const;
  /// Default-domain op types with a converter or a folder, sorted.
  std::vector<std::string> opTypes() const;

  /// Every family of ops/OpFamilies.def, registered once.
  static const OpRegistry &get();

private:
  llvm::StringMap<Converter> Converters;
  llvm::StringMap<Folder> Folders;
  llvm::StringMap<Folder> ShapeValueFolders;
  llvm::StringSet<> Dynamic;
};

#define KILN_ONNX_OP_FAMILY(Family) void register##Family##Ops(OpRegistry &);
#include "compiler/onnx/ops/OpFamilies.def"

} // namespace kiln::onnx_import

#endif // KILN_COMPILER_ONNX_OPREGISTRY_H
