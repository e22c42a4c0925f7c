//===- BodyEvaluation.h - Elementwise bodies folded at import ---*- C++ -*-===//
//
// An elementwise converter describes its op once, as the scalar body of a
// linalg.generic (ScalarBody). When every operand is known at import time,
// evaluateBody runs that same body on the host: it builds the body's ops
// once in a detached block and, element by element, folds them with MLIR's
// own folders (arith, math), so the folded values are those the ops define
// and no op's semantics is written twice. linalg.index reads the element's
// position. Whatever does not fold (an op without a folder, math on f16 or
// bf16, an integer division by zero, poison) leaves the op to run time.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_ONNX_BODYEVALUATION_H
#define KILN_COMPILER_ONNX_BODYEVALUATION_H

#include "compiler/onnx/Builders.h"
#include "compiler/onnx/HostTensor.h"

#include <optional>

namespace kiln::onnx_import {

/// Most elements evaluateBody computes: every element's intermediate values
/// are uniqued MLIR attributes, which live as long as the context.
inline constexpr int64_t kMaxBodyFoldElements = int64_t(1) << 16;

/// body(operands...) at every position of `shape`, each operand broadcast
/// to it numpy-style, as a host tensor of `resultDType`; nullopt when some
/// element does not fold or `shape` has more than kMaxBodyFoldElements
/// elements.
std::optional<HostTensor> evaluateBody(mlir::MLIRContext *context,
                                       mlir::Location loc,
                                       llvm::ArrayRef<HostTensor> operands,
                                       llvm::ArrayRef<int64_t> shape,
                                       int32_t resultDType, ScalarBody body);

} // namespace kiln::onnx_import

#endif // KILN_COMPILER_ONNX_BODYEVALUATION_H
