//===- Softmax.cpp - ONNX Softmax, LogSoftmax and Hardmax -----------------===//
//
// Before opset 13 both normalize over the input flattened to 2-D at `axis`
// (every dimension from it on); from 13 over `axis` alone. Softmax is
// linalg.softmax (kiln-decompose-ops expands it); LogSoftmax is
// (x - max) - log(sum(exp(x - max))), which stays finite where
// log(softmax) would underflow to -inf.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ops/Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace kiln::onnx_import {
namespace {

/// The operand of Softmax, LogSoftmax or Hardmax and the dimension they
/// normalize: before opset 13 the input is flattened to 2-D at `axis` and the
/// second dimension is normalized (unless `axis` is already the last one).
struct AxisOperand {
  Value X;
  int64_t Dim;
};

FailureOr<AxisOperand> axisOperand(NodeContext &ctx) {
  int32_t dtype = ctx.inputDType(0);
  if (!isFloatDType(dtype)) {
    (void)ctx.unsupported("element type " + dtypeName(dtype));
    return failure();
  }
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  int64_t rank = shape.size();
  if (rank == 0) {
    ctx.emitError() << "input is a scalar";
    return failure();
  }
  bool legacy = ctx.opset() < 13;
  FailureOr<int64_t> axis =
      ctx.normalizeAxis(ctx.attrInt("axis", legacy ? 1 : -1), rank);
  if (failed(axis))
    return failure();
  Value x = ctx.input(0);
  if (!legacy || *axis == rank - 1)
    return AxisOperand{x, *axis};
  if (!ctx.inputType(0).hasStaticShape()) {
    (void)ctx.unsupported("a dynamic input flattened at axis " +
                          std::to_string(*axis) + " (opset " +
                          std::to_string(ctx.opset()) + ")");
    return failure();
  }
  return AxisOperand{reshapeTo(ctx.builder(), ctx.loc(), x,
                               {numElementsOf(shape.take_front(*axis)),
                                numElementsOf(shape.drop_front(*axis))}),
                     1};
}

LogicalResult convertSoftmax(NodeContext &ctx, bool log) {
  FailureOr<AxisOperand> operand = axisOperand(ctx);
  if (failed(operand))
    return failure();
  int32_t dtype = ctx.inputDType(0);
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Value x = operand->X;
  int64_t dim = operand->Dim;
  Value result;
  if (log) {
    result = buildLogSoftmax(b, loc, x, dim);
  } else {
    auto type = cast<RankedTensorType>(x.getType());
    // Sized as the input (tensor.dim where dynamic, issue 19).
    Value init = tensor::EmptyOp::create(
        b, loc, tensor::getMixedSizes(b, loc, x), type.getElementType());
    result =
        linalg::SoftmaxOp::create(b, loc, type, x, init, dim).getResult()[0];
  }
  ctx.setOutput(0, reshapeTo(b, loc, result, shape), dtype);
  return success();
}

/// 1 at the first largest element along the axis, 0 elsewhere.
LogicalResult convertHardmax(NodeContext &ctx) {
  FailureOr<AxisOperand> operand = axisOperand(ctx);
  if (failed(operand))
    return failure();
  int32_t dtype = ctx.inputDType(0);
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Value x = operand->X;
  int64_t dim = operand->Dim;
  auto type = cast<RankedTensorType>(x.getType());
  if (type.getDimSize(dim) == 0) {
    ctx.setOutput(0, ctx.input(0), dtype);
    return success();
  }
  llvm::SmallVector<int64_t> kept(type.getShape());
  kept[dim] = 1;
  Value best = reshapeTo(
      b, loc, buildArgReduction(b, loc, x, dim, true, false, false), kept);
  Type element = type.getElementType();
  Value result = buildElementwise(
      b, loc, best, type.getShape(), element,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value i = arith::IndexCastOp::create(
            nb, l, nb.getI64Type(), linalg::IndexOp::create(nb, l, dim));
        Value hit =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, i, a[0]);
        return Value(arith::SelectOp::create(
            nb, l, hit, scalarConstant(nb, l, element, 1),
            scalarConstant(nb, l, element, 0)));
      });
  ctx.setOutput(0, reshapeTo(b, loc, result, shape), dtype);
  return success();
}

} // namespace

void registerSoftmaxOps(OpRegistry &registry) {
  registry.add("Softmax",
               [](NodeContext &ctx) { return convertSoftmax(ctx, false); });
  registry.add("Hardmax", convertHardmax);
  registry.add("LogSoftmax",
               [](NodeContext &ctx) { return convertSoftmax(ctx, true); });
  // Over dynamic shapes too (issue 19), except an input flattened at a
  // legacy axis, which convertSoftmax refuses.
  registry.acceptDynamicShapes({"Softmax", "LogSoftmax"});
}

} // namespace kiln::onnx_import
