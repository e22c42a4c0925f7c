//===- Softmax.cpp - ONNX Softmax and LogSoftmax --------------------------===//
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

Value logSoftmax(OpBuilder &b, Location loc, Value x, int64_t axis) {
  auto type = cast<RankedTensorType>(x.getType());
  Type element = type.getElementType();
  auto f = cast<FloatType>(element);
  TypedAttr lowest =
      FloatAttr::get(f, APFloat::getInf(f.getFloatSemantics(), true));
  Value max =
      buildReduction(b, loc, x, {axis}, true, lowest,
                     [](OpBuilder &nb, Location l, Value v, Value acc) {
                       return Value(arith::MaximumFOp::create(nb, l, v, acc));
                     });
  llvm::ArrayRef<int64_t> shape = type.getShape();
  Value shifted =
      buildElementwise(b, loc, {x, max}, shape, element,
                       [](OpBuilder &nb, Location l, ValueRange a) {
                         return Value(arith::SubFOp::create(nb, l, a[0], a[1]));
                       });
  Value sum =
      buildReduction(b, loc, shifted, {axis}, true, scalarAttr(element, 0),
                     [](OpBuilder &nb, Location l, Value v, Value acc) {
                       return Value(arith::AddFOp::create(
                           nb, l, math::ExpOp::create(nb, l, v), acc));
                     });
  return buildElementwise(b, loc, {shifted, sum}, shape, element,
                          [](OpBuilder &nb, Location l, ValueRange a) {
                            return Value(arith::SubFOp::create(
                                nb, l, a[0], math::LogOp::create(nb, l, a[1])));
                          });
}

LogicalResult convertSoftmax(NodeContext &ctx, bool log) {
  int32_t dtype = ctx.inputDType(0);
  if (!isFloatDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype));
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  int64_t rank = shape.size();
  if (rank == 0)
    return ctx.emitError() << "input is a scalar";
  bool legacy = ctx.opset() < 13;
  FailureOr<int64_t> axis =
      ctx.normalizeAxis(ctx.attrInt("axis", legacy ? 1 : -1), rank);
  if (failed(axis))
    return failure();
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Value x = ctx.input(0);
  int64_t dim = *axis;
  if (legacy && *axis != rank - 1) {
    x = reshapeTo(b, loc, x,
                  {numElementsOf(shape.take_front(*axis)),
                   numElementsOf(shape.drop_front(*axis))});
    dim = 1;
  }
  Value result;
  if (log) {
    result = logSoftmax(b, loc, x, dim);
  } else {
    auto type = cast<RankedTensorType>(x.getType());
    Value init =
        tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
    result =
        linalg::SoftmaxOp::create(b, loc, type, x, init, dim).getResult()[0];
  }
  ctx.setOutput(0, reshapeTo(b, loc, result, shape), dtype);
  return success();
}

} // namespace

void registerSoftmaxOps(OpRegistry &registry) {
  registry.add("Softmax",
               [](NodeContext &ctx) { return convertSoftmax(ctx, false); });
  registry.add("LogSoftmax",
               [](NodeContext &ctx) { return convertSoftmax(ctx, true); });
}

} // namespace kiln::onnx_import
