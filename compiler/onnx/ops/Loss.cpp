//===- Loss.cpp - ONNX NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss -===//
//
// One generic over the targets picks each -input[n, target, d...] and its
// class weight (0 for ignore_index), then sums reduce them: "none" keeps
// the per-element losses, "sum" adds them, "mean" divides by the summed
// weights. SoftmaxCrossEntropyLoss is that loss on log_softmax(scores)
// over the classes, whose log probabilities are its optional second output.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ops/Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace kiln::onnx_import {
namespace {

/// The loss of `logProb` [N, C, d...] against `target` [N, d...] (weights
/// [C] or null), reduced as `reduction` says.
FailureOr<Value> nllLoss(NodeContext &ctx, Value logProb, size_t targetInput,
                         size_t weightInput) {
  auto type = cast<RankedTensorType>(logProb.getType());
  llvm::ArrayRef<int64_t> shape = type.getShape();
  llvm::ArrayRef<int64_t> target = ctx.inputShape(targetInput);
  int64_t rank = shape.size();
  if (rank < 2 || static_cast<int64_t>(target.size()) != rank - 1 ||
      target[0] != shape[0] || target.drop_front() != shape.drop_front(2))
    return ctx.emitError() << "target " << shapeString(target)
                           << " does not fit input " << shapeString(shape),
           failure();
  if (!isIntegerDType(ctx.inputDType(targetInput)))
    return ctx.emitError() << "target must be integers", failure();
  int64_t classes = shape[1];
  bool hasWeight = ctx.hasInput(weightInput);
  if (hasWeight &&
      ctx.inputShape(weightInput) != llvm::ArrayRef<int64_t>{classes})
    return ctx.emitError() << "weight is not [" << classes << "]", failure();
  std::string reduction = ctx.attrString("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    return (void)ctx.unsupported("reduction '" + reduction + "'"), failure();
  std::optional<int64_t> ignore;
  if (ctx.hasAttr("ignore_index"))
    ignore = ctx.attrInt("ignore_index", 0);
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Type element = type.getElementType();
  Value weights = hasWeight ? ctx.input(weightInput) : Value();
  Value lossInit = tensor::EmptyOp::create(b, loc, target, element);
  Value weightInit = tensor::EmptyOp::create(b, loc, target, element);
  int64_t targetRank = target.size();
  auto picked = linalg::GenericOp::create(
      b, loc, TypeRange{lossInit.getType(), weightInit.getType()},
      ctx.input(targetInput), ValueRange{lossInit, weightInit},
      llvm::SmallVector<AffineMap>(3, b.getMultiDimIdentityMap(targetRank)),
      llvm::SmallVector<utils::IteratorType>(targetRank,
                                             utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value t = arith::IndexCastOp::create(nb, l, nb.getIndexType(), args[0]);
        Value zero = arith::ConstantIndexOp::create(nb, l, 0);
        Value last = arith::ConstantIndexOp::create(nb, l, classes - 1);
        // An ignored or out-of-range target reads class 0 with weight 0.
        Value c = arith::MinSIOp::create(
            nb, l, arith::MaxSIOp::create(nb, l, t, zero), last);
        llvm::SmallVector<Value> position = {linalg::IndexOp::create(nb, l, 0),
                                             c};
        for (int64_t d = 1; d < targetRank; ++d)
          position.push_back(linalg::IndexOp::create(nb, l, d));
        Value v = tensor::ExtractOp::create(nb, l, logProb, position);
        Value w = weights ? Value(tensor::ExtractOp::create(nb, l, weights,
                                                            ValueRange{c}))
                          : scalarConstant(nb, l, element, 1);
        if (ignore) {
          Value ign = arith::ConstantOp::create(
              nb, l, IntegerAttr::get(args[0].getType(), *ignore));
          Value skip = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                             args[0], ign);
          w = arith::SelectOp::create(nb, l, skip,
                                      scalarConstant(nb, l, element, 0), w);
        }
        Value loss =
            arith::NegFOp::create(nb, l, arith::MulFOp::create(nb, l, v, w));
        linalg::YieldOp::create(nb, l, ValueRange{loss, w});
      });
  Value loss = picked.getResult(0);
  if (reduction == "none")
    return loss;
  llvm::SmallVector<int64_t> all;
  for (int64_t d = 0; d < targetRank; ++d)
    all.push_back(d);
  auto sum = [&](Value v) {
    return buildReduction(b, loc, v, all, false, scalarAttr(element, 0),
                          [](OpBuilder &nb, Location l, Value x, Value acc) {
                            return Value(arith::AddFOp::create(nb, l, x, acc));
                          });
  };
  Value total = sum(loss);
  if (reduction == "sum")
    return total;
  return buildElementwise(b, loc, {total, sum(picked.getResult(1))}, {},
                          element, [](OpBuilder &nb, Location l, ValueRange a) {
                            return Value(
                                arith::DivFOp::create(nb, l, a[0], a[1]));
                          });
}

LogicalResult convertNegativeLogLikelihoodLoss(NodeContext &ctx) {
  int32_t dtype = ctx.inputDType(0);
  if (!isFloatDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype));
  FailureOr<Value> loss = nllLoss(ctx, ctx.input(0), 1, 2);
  if (failed(loss))
    return failure();
  ctx.setOutput(0, *loss, dtype);
  return success();
}

LogicalResult convertSoftmaxCrossEntropyLoss(NodeContext &ctx) {
  int32_t dtype = ctx.inputDType(0);
  if (!isFloatDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype));
  if (ctx.inputRank(0) < 2)
    return ctx.emitError() << "scores need a class dimension";
  Value logProb = buildLogSoftmax(ctx.builder(), ctx.loc(), ctx.input(0), 1);
  FailureOr<Value> loss = nllLoss(ctx, logProb, 1, 2);
  if (failed(loss))
    return failure();
  ctx.setOutput(0, *loss, dtype);
  if (ctx.hasOutput(1))
    ctx.setOutput(1, logProb, dtype);
  return success();
}

} // namespace

void registerLossOps(OpRegistry &registry) {
  registry.add("NegativeLogLikelihoodLoss", convertNegativeLogLikelihoodLoss);
  registry.add("SoftmaxCrossEntropyLoss", convertSoftmaxCrossEntropyLoss);
}

} // namespace kiln::onnx_import
