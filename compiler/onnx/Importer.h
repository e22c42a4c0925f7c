//===- Importer.h - ONNX models to Kiln's input MLIR ------------*- C++ -*-===//
//
// importOnnxFile reads a .onnx file and builds one func.func named after the
// graph, taking the graph's inputs and returning its outputs in their order
// (each argument and result carries its ONNX name as `kiln.name`), from
// func, arith, math, tensor, linalg and tosa ops on static shapes. Weights
// become constants built from their bytes (dense_resource blobs for large
// ones). Every node goes through OpRegistry; anything it cannot convert is
// an error naming the node, its op type and why.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_ONNX_IMPORTER_H
#define KILN_COMPILER_ONNX_IMPORTER_H

#include "compiler/onnx/TensorLimits.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

namespace kiln {

struct OnnxImportOptions {
  /// Shapes of graph inputs by name, for dimensions the file leaves
  /// symbolic (--input-shape=NAME:1x3x224x224).
  llvm::StringMap<llvm::SmallVector<int64_t>> InputShapes;
  /// Per pinned input, each dimension's bounds when given as MIN..MAX
  /// (--input-shape=NAME:1..64x3x224x224, issue 19): the dimension stays
  /// dynamic (-1 in InputShapes) and each call is checked against them.
  /// Empty for an input without ranges; (d, d) for a fixed dimension.
  llvm::StringMap<llvm::SmallVector<std::pair<int64_t, int64_t>>> InputBounds;
  /// Symbolic dimensions fixed by name (kiln-compile --specialize=NAME=N):
  /// every graph input dimension whose dim_param is NAME is N. Each name
  /// must be some input's.
  llvm::StringMap<int64_t> DimValues;
  /// The largest rank and byte size of any tensor of the model, graph
  /// inputs, weights and every intermediate value alike
  /// (--onnx-max-tensor-bytes).
  onnx_import::TensorLimits Limits;
};

/// Adds `spec` ("NAME:DxDx...", "NAME:" for a scalar; the last ':' splits,
/// so names may contain ':'; a dimension may be a range MIN..MAX) to
/// `options`.
llvm::Error parseOnnxInputShape(llvm::StringRef spec,
                                OnnxImportOptions &options);

/// The dialects the importer creates ops of.
void registerOnnxImportDialects(mlir::DialectRegistry &registry);

/// Imports the ONNX model at `path`; on failure, the errors were reported
/// through `context`'s diagnostics and the result is null.
mlir::OwningOpRef<mlir::ModuleOp>
importOnnxFile(mlir::MLIRContext &context, llvm::StringRef path,
               const OnnxImportOptions &options);

/// Whether `path` should be imported as ONNX rather than parsed as MLIR.
bool isOnnxFile(llvm::StringRef path);

/// The op types of the default domain the importer converts, sorted.
std::vector<std::string> supportedOnnxOpTypes();

} // namespace kiln

#endif // KILN_COMPILER_ONNX_IMPORTER_H
