//===- Common.h - Helpers shared by the ONNX op families --------*- C++ -*-===//
#ifndef KILN_COMPILER_ONNX_OPS_COMMON_H
#define KILN_COMPILER_ONNX_OPS_COMMON_H

#include "compiler/onnx/Builders.h"
#include "compiler/onnx/OnnxTypes.h"
#include "compiler/onnx/OpRegistry.h"

namespace kiln::onnx_import {

/// Sets output 0 to an elementwise generic of the `inputs` (numpy
/// broadcasting; an error when they do not broadcast) of element type
/// `resultDType`; to a host tensor instead when every input is known at
/// import time and `body` folds on them (evaluateBody).
mlir::LogicalResult emitElementwise(NodeContext &ctx,
                                    llvm::ArrayRef<size_t> inputs,
                                    int32_t resultDType, ScalarBody body);

/// A unary op on floats: output 0 = body(input 0); other element types are
/// unsupported.
mlir::LogicalResult emitUnaryFloat(NodeContext &ctx, ScalarBody body);

/// Fails with an "unsupported" error naming the dimension when input `i`
/// has a dynamic dimension other than those `dynamicOk` lists (issue 19:
/// a converter that takes a dynamic batch but computes with the others).
mlir::LogicalResult requireStaticDims(NodeContext &ctx, size_t i,
                                      llvm::ArrayRef<int64_t> dynamicOk = {});

/// Input `i`'s element type is the same as input 0's, or an error.
mlir::LogicalResult requireSameDType(NodeContext &ctx, size_t i);

/// A host tensor broadcast to `shape` (numpy rules; shape must be the
/// broadcast of both).
HostTensor broadcastHost(const HostTensor &tensor,
                         llvm::ArrayRef<int64_t> shape);

/// Every set of `count` positions among [0, rank) that `valid` accepts
/// (each sorted; none where rank is past 16): axes read off a declared
/// output shape (NodeContext::axesAtCallTime).
llvm::SmallVector<llvm::SmallVector<int64_t>>
validAxes(int64_t rank, int64_t count,
          llvm::function_ref<bool(llvm::ArrayRef<int64_t>)> valid);

/// validAxes' one set, or nullopt when none or several.
std::optional<llvm::SmallVector<int64_t>>
uniqueAxes(int64_t rank, int64_t count,
           llvm::function_ref<bool(llvm::ArrayRef<int64_t>)> valid);

llvm::SmallVector<int64_t> withoutAxes(llvm::ArrayRef<int64_t> shape,
                                       llvm::ArrayRef<int64_t> axes);

/// The shape as a string for messages: "1x3x224x224", "a scalar".
std::string shapeString(llvm::ArrayRef<int64_t> shape);

/// numpy's matmul of two tensors of one element type (1-D operands, batch
/// broadcasting); errors name the node.
mlir::FailureOr<mlir::Value> buildMatMul(NodeContext &ctx, mlir::Value lhs,
                                         mlir::Value rhs);

/// An activation the recurrent ops (RNN, GRU, LSTM) name in their
/// `activations` attribute: its element function, and the defaults of the
/// alpha and beta it takes (nullopt for a parameter it does not take).
struct NamedActivation {
  using Fn = mlir::Value (*)(mlir::OpBuilder &, mlir::Location, mlir::Value x,
                             double alpha, double beta);
  Fn Apply;
  std::optional<double> Alpha, Beta;
};

/// Relu, Tanh, Sigmoid, Affine, LeakyRelu, ThresholdedRelu, ScaledTanh,
/// HardSigmoid, Elu, Softsign or Softplus (any case); nullopt otherwise.
std::optional<NamedActivation> namedActivation(llvm::StringRef name);

/// Input `i` with its dimensions permuted (numpy's transpose): on the host
/// when it is a constant, so weights stay constants.
mlir::Value transposedInput(NodeContext &ctx, size_t i,
                            llvm::ArrayRef<int64_t> perm);

/// Fails the call in one line naming the node (`what` after its name) when
/// a gather along a dynamic `extent` of 0 has reads to make: the product
/// of the first `countDims` dimensions of `indices` is not 0. Clamping an
/// index into an empty dimension cannot make the read safe.
void assertGatheredExtent(NodeContext &ctx, mlir::Value extent,
                          mlir::Value indices, int64_t countDims,
                          llvm::StringRef what);

/// The axes a Reduce* node reduces, when known at import (an attribute, or
/// a constant input: since opset 13 for ReduceSum, 18 for the others):
/// `Axes` sorted and normalized, every axis when the node names none, or
/// `Identity` for "return the input" (empty axes with
/// noop_with_empty_axes). Not `Known` when they are given at run time.
struct ImportAxes {
  bool Known = false;
  bool Identity = false;
  llvm::SmallVector<int64_t> Axes;
};
mlir::FailureOr<ImportAxes> reducedAxesAtImport(NodeContext &ctx);

/// Largest folded tensor the importer computes on the host (elements).
inline constexpr int64_t kMaxFoldElements = int64_t(1) << 20;

/// Sets output `i` to a tensor of `shape` whose every element is `scalar`'s
/// one element: a host tensor when small enough to fold, else a splat
/// constant in the IR, so a file asking for a huge fill costs no memory.
/// `shape` must have passed NodeContext::checkShape.
void setSplatOutput(NodeContext &ctx, size_t i, llvm::ArrayRef<int64_t> shape,
                    const HostTensor &scalar);

/// A size computed in double from a model's numbers (floor(dim * scale))
/// as an int64, or failure after an error naming `what` when it is NaN,
/// negative or past the largest tensor dimension.
mlir::FailureOr<int64_t> sizeFromDouble(NodeContext &ctx, double size,
                                        llvm::StringRef what);

/// Most steps of a recurrent op (RNN, GRU, LSTM) the importer unrolls.
inline constexpr int64_t kMaxRecurrentSteps = 4096;

} // namespace kiln::onnx_import

#endif // KILN_COMPILER_ONNX_OPS_COMMON_H
