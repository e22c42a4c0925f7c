//===- GraphChecks.h - A model's structure checked before conversion -*-===//
//
// Converters trust their node: that its required inputs are there, that it
// has no more outputs than its op defines, that its attributes have the
// types the op says, that every name has one producer. A hostile or broken
// file breaks each of these, so the importer checks them here, once,
// against ONNX's own operator schemas (libonnx, which knows opsets up to
// its release's; newer nodes are checked against the newest schema it has
// for what did not change since: which inputs are required).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_ONNX_GRAPHCHECKS_H
#define KILN_COMPILER_ONNX_GRAPHCHECKS_H

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace onnx {
class GraphProto;
class ModelProto;
class NodeProto;
} // namespace onnx

namespace kiln::onnx_import {

/// The oldest and newest opset of the default domain the importer reads.
/// Opsets before 7 are read where the op has not changed since.
inline constexpr int64_t kOldestOpset = 1;
inline constexpr int64_t kNewestOpset = 21;

/// The model's opset imports by domain ("" for the default one, also
/// spelled "ai.onnx"): an error for a default-domain opset outside
/// [kOldestOpset, kNewestOpset], a domain imported twice, or a model of IR
/// version 3 or later importing none.
llvm::Expected<llvm::StringMap<int64_t>>
readOpsetImports(const onnx::ModelProto &model);

/// `node` (of the default domain, at `opset`) against its op's schema: the
/// op exists at that opset, its number of inputs and outputs is in range,
/// required inputs are not empty, attributes are known and of their type.
/// For opsets newer than libonnx knows, only the required inputs are
/// checked. The error is one line without the node's name.
llvm::Error checkNodeSchema(const onnx::NodeProto &node, int64_t opset);

/// Every name has at most one producer: graph inputs, initializers (an
/// initializer listed as an input too is one value, and must agree with
/// the input's declared type) and node outputs are distinct.
llvm::Error checkGraphNames(const onnx::GraphProto &graph);

} // namespace kiln::onnx_import

#endif // KILN_COMPILER_ONNX_GRAPHCHECKS_H
