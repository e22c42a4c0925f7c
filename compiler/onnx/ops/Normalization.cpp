//===- Normalization.cpp - ONNX Batch/Layer/Instance/GroupNormalization ---===//
//
// Inference-mode batch normalization is y = x * a + c per channel. With the
// statistics known at import time (always, for exported models) a and c are
// computed on the host in double and the op is one fused multiply-add;
// otherwise the whole formula is one elementwise generic. Layer, instance
// and group normalization compute the mean and variance over their axes
// with two reductions (of x, then of (x - mean)^2), in f32 for f16 and
// bf16 inputs (LayerNormalization's stash_type); so do
// MeanVarianceNormalization and batch normalization's training mode (over
// every axis but the channel's, updating the running statistics).
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ops/Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;

namespace kiln::onnx_import {
namespace {

LogicalResult convertBatchNormalizationTraining(NodeContext &ctx);

LogicalResult convertBatchNormalization(NodeContext &ctx) {
  int32_t dtype = ctx.inputDType(0);
  if (!isFloatDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype));
  if (ctx.opset() >= 14 && ctx.attrInt("training_mode", 0) != 0) {
    if (failed(requireStaticDims(ctx, 0)))
      return failure();
    return convertBatchNormalizationTraining(ctx);
  }
  if (ctx.opset() < 7 && ctx.attrInt("is_test", 0) == 0)
    return ctx.unsupported("training mode (is_test = 0)");
  if (ctx.opset() < 9 && ctx.attrInt("spatial", 1) != 1)
    return ctx.unsupported("spatial = 0");
  for (size_t i = 1; i < ctx.numOutputs(); ++i)
    if (ctx.hasOutput(i))
      return ctx.unsupported("training outputs (running mean and variance)");
  llvm::ArrayRef<int64_t> x = ctx.inputShape(0);
  if (x.size() < 2)
    return ctx.emitError() << "input " << shapeString(x)
                           << " has no channel dimension";
  // The batch and spatial sizes may be dynamic: per-channel factors
  // broadcast over them.
  if (ShapedType::isDynamic(x[1]))
    return ctx.unsupported("dynamic channel dimension (" + shapeString(x) +
                           ")");
  int64_t c = x[1];
  for (size_t i = 1; i <= 4; ++i) {
    if (!ctx.hasInput(i))
      return ctx.emitError() << "needs scale, B, mean and var";
    if (ctx.inputShape(i) != llvm::ArrayRef<int64_t>{c})
      return ctx.emitError()
             << "input " << i << " " << shapeString(ctx.inputShape(i))
             << " is not [" << c << "]";
  }
  double epsilon = ctx.attrFloat("epsilon", 1e-5f);
  // Per-channel operands are read as [C, 1, ...] against [N, C, ...].
  llvm::SmallVector<int64_t> channelShape = {c};
  channelShape.append(x.size() - 2, 1);
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Type element = ctx.inputType(0).getElementType();

  const HostTensor *scale = ctx.constantInput(1), *bias = ctx.constantInput(2),
                   *mean = ctx.constantInput(3), *var = ctx.constantInput(4);
  if (scale && bias && mean && var) {
    std::vector<double> a(c), shift(c);
    for (int64_t i = 0; i < c; ++i) {
      a[i] = scale->doubleAt(i) / std::sqrt(var->doubleAt(i) + epsilon);
      shift[i] = bias->doubleAt(i) - mean->doubleAt(i) * a[i];
    }
    OnnxValue av{RankedTensorType(), dtype, Value(),
                 HostTensor::fromDoubles(dtype, channelShape, a),
                 ctx.name().str() + "_scale"};
    OnnxValue cv{RankedTensorType(), dtype, Value(),
                 HostTensor::fromDoubles(dtype, channelShape, shift),
                 ctx.name().str() + "_shift"};
    Value operands[] = {ctx.input(0), materialize(b, av), materialize(b, cv)};
    ctx.setOutput(
        0,
        buildElementwise(b, loc, operands, x, element,
                         [](OpBuilder &nb, Location l, ValueRange v) {
                           Value m = arith::MulFOp::create(nb, l, v[0], v[1]);
                           return Value(arith::AddFOp::create(nb, l, m, v[2]));
                         }),
        dtype);
    return success();
  }
  llvm::SmallVector<Value> operands = {ctx.input(0)};
  for (size_t i = 1; i <= 4; ++i) {
    if (failed(requireSameDType(ctx, i)))
      return failure();
    operands.push_back(reshapeTo(b, loc, ctx.input(i), channelShape));
  }
  ctx.setOutput(0,
                buildElementwise(
                    b, loc, operands, x, element,
                    [&](OpBuilder &nb, Location l, ValueRange v) {
                      Value eps = scalarConstant(nb, l, element, epsilon);
                      Value sd = math::SqrtOp::create(
                          nb, l, arith::AddFOp::create(nb, l, v[4], eps));
                      Value centered = arith::SubFOp::create(nb, l, v[0], v[3]);
                      Value scaled = arith::MulFOp::create(
                          nb, l, centered,
                          arith::DivFOp::create(nb, l, v[1], sd));
                      return Value(arith::AddFOp::create(nb, l, scaled, v[2]));
                    }),
                dtype);
  return success();
}

/// Normalizes `x` over `axes` (sorted): returns (x - mean) / sqrt(var + eps)
/// (or / (sqrt(var) + eps) with `epsOnStdDev`, MeanVarianceNormalization's
/// form), and the mean, the (population) variance and 1 / sqrt(var + eps)
/// kept as 1s over those axes; computes in `compute` (f32 for halfs).
struct Normalized {
  Value Y, Mean, Var, InvStdDev;
};

Normalized normalize(OpBuilder &b, Location loc, Value x,
                     llvm::ArrayRef<int64_t> axes, double epsilon, Type compute,
                     bool epsOnStdDev = false) {
  auto type = cast<RankedTensorType>(x.getType());
  llvm::ArrayRef<int64_t> shape = type.getShape();
  if (type.getElementType() != compute)
    x = buildElementwise(b, loc, x, shape, compute,
                         [&](OpBuilder &nb, Location l, ValueRange a) {
                           return Value(
                               arith::ExtFOp::create(nb, l, compute, a[0]));
                         });
  double count = 1;
  for (int64_t d : axes)
    count *= shape[d];
  auto sum = [&](Value v) {
    return buildReduction(b, loc, v, axes, true, scalarAttr(compute, 0),
                          [](OpBuilder &nb, Location l, Value e, Value acc) {
                            return Value(arith::AddFOp::create(nb, l, e, acc));
                          });
  };
  auto divide = [&](OpBuilder &nb, Location l, Value v) {
    return Value(
        arith::DivFOp::create(nb, l, v, scalarConstant(nb, l, compute, count)));
  };
  Value total = sum(x);
  llvm::ArrayRef<int64_t> keptShape =
      cast<RankedTensorType>(total.getType()).getShape();
  Value mean = buildElementwise(b, loc, total, keptShape, compute,
                                [&](OpBuilder &nb, Location l, ValueRange a) {
                                  return divide(nb, l, a[0]);
                                });
  Value centered =
      buildElementwise(b, loc, {x, mean}, shape, compute,
                       [](OpBuilder &nb, Location l, ValueRange a) {
                         return Value(arith::SubFOp::create(nb, l, a[0], a[1]));
                       });
  Value squares =
      buildElementwise(b, loc, centered, shape, compute,
                       [](OpBuilder &nb, Location l, ValueRange a) {
                         return Value(arith::MulFOp::create(nb, l, a[0], a[0]));
                       });
  Value var = buildElementwise(b, loc, sum(squares), keptShape, compute,
                               [&](OpBuilder &nb, Location l, ValueRange a) {
                                 return divide(nb, l, a[0]);
                               });
  Value inv = buildElementwise(
      b, loc, var, keptShape, compute,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value eps = scalarConstant(nb, l, compute, epsilon);
        if (epsOnStdDev)
          return Value(arith::DivFOp::create(
              nb, l, scalarConstant(nb, l, compute, 1),
              arith::AddFOp::create(nb, l, math::SqrtOp::create(nb, l, a[0]),
                                    eps)));
        return Value(math::RsqrtOp::create(
            nb, l, arith::AddFOp::create(nb, l, a[0], eps)));
      });
  Value y =
      buildElementwise(b, loc, {centered, inv}, shape, compute,
                       [](OpBuilder &nb, Location l, ValueRange a) {
                         return Value(arith::MulFOp::create(nb, l, a[0], a[1]));
                       });
  return {y, mean, var, inv};
}

/// The axes from `first` to the last of a rank-`rank` tensor.
llvm::SmallVector<int64_t> trailingAxes(int64_t first, int64_t rank) {
  llvm::SmallVector<int64_t> axes;
  for (int64_t d = first; d < rank; ++d)
    axes.push_back(d);
  return axes;
}

/// y * scale (+ bias), converted back to `element`; scale and bias are read
/// through `paramShape` (broadcast against y).
Value scaleAndShift(OpBuilder &b, Location loc, Value y, Value scale,
                    Value bias, Type element) {
  llvm::SmallVector<Value> operands = {y, scale};
  if (bias)
    operands.push_back(bias);
  auto shape = cast<RankedTensorType>(y.getType()).getShape();
  return buildElementwise(
      b, loc, operands, shape, element,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value v = a[0];
        Type compute = v.getType();
        auto widen = [&](Value p) {
          return p.getType() == compute
                     ? p
                     : Value(arith::ExtFOp::create(nb, l, compute, p));
        };
        v = arith::MulFOp::create(nb, l, v, widen(a[1]));
        if (a.size() > 2)
          v = arith::AddFOp::create(nb, l, v, widen(a[2]));
        if (compute != element)
          v = arith::TruncFOp::create(nb, l, element, v);
        return v;
      });
}

Type computeType(OpBuilder &b, Type element) {
  return element.getIntOrFloatBitWidth() < 32 ? b.getF32Type() : element;
}

/// `value` (of the compute type) converted to `element`.
Value narrowTo(OpBuilder &b, Location loc, Value value, Type element) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getElementType() == element)
    return value;
  return buildElementwise(b, loc, value, type.getShape(), element,
                          [&](OpBuilder &nb, Location l, ValueRange a) {
                            return Value(
                                arith::TruncFOp::create(nb, l, element, a[0]));
                          });
}

/// Opset 14's training mode: normalizes with the batch's own statistics
/// (over every axis but the channel's, population variance) and returns
/// the running statistics updated by them:
/// running = input * momentum + batch * (1 - momentum).
LogicalResult convertBatchNormalizationTraining(NodeContext &ctx) {
  int32_t dtype = ctx.inputDType(0);
  llvm::ArrayRef<int64_t> x = ctx.inputShape(0);
  if (x.size() < 2)
    return ctx.emitError() << "input " << shapeString(x)
                           << " has no channel dimension";
  int64_t c = x[1];
  for (size_t i = 1; i <= 4; ++i) {
    if (!ctx.hasInput(i))
      return ctx.emitError() << "needs scale, B, mean and var";
    if (ctx.inputShape(i) != llvm::ArrayRef<int64_t>{c})
      return ctx.emitError()
             << "input " << i << " " << shapeString(ctx.inputShape(i))
             << " is not [" << c << "]";
    if (failed(requireSameDType(ctx, i)))
      return failure();
  }
  double epsilon = ctx.attrFloat("epsilon", 1e-5f);
  double momentum = ctx.attrFloat("momentum", 0.9f);
  if (ctx.failedAttributes())
    return failure();
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Type element = ctx.inputType(0).getElementType();
  Type compute = computeType(b, element);
  llvm::SmallVector<int64_t> axes = {0};
  for (int64_t d = 2; d < static_cast<int64_t>(x.size()); ++d)
    axes.push_back(d);
  Normalized n = normalize(b, loc, ctx.input(0), axes, epsilon, compute);
  llvm::SmallVector<int64_t> channelShape = {c};
  channelShape.append(x.size() - 2, 1);
  ctx.setOutput(
      0,
      scaleAndShift(b, loc, n.Y, reshapeTo(b, loc, ctx.input(1), channelShape),
                    reshapeTo(b, loc, ctx.input(2), channelShape), element),
      dtype);
  auto running = [&](size_t input, Value batch) {
    Value current = reshapeTo(b, loc, batch, {c});
    return buildElementwise(
        b, loc, {ctx.input(input), current}, {c}, element,
        [&](OpBuilder &nb, Location l, ValueRange a) {
          Value old = a[0];
          if (old.getType() != compute)
            old = arith::ExtFOp::create(nb, l, compute, old);
          Value kept = arith::MulFOp::create(
              nb, l, old, scalarConstant(nb, l, compute, momentum));
          Value added = arith::MulFOp::create(
              nb, l, a[1], scalarConstant(nb, l, compute, 1 - momentum));
          Value v = arith::AddFOp::create(nb, l, kept, added);
          if (compute != element)
            v = arith::TruncFOp::create(nb, l, element, v);
          return v;
        });
  };
  if (ctx.hasOutput(1))
    ctx.setOutput(1, running(3, n.Mean), dtype);
  if (ctx.hasOutput(2))
    ctx.setOutput(2, running(4, n.Var), dtype);
  return success();
}

/// (x - mean) / (sqrt(var) + 1e-9) over `axes` (default N, H, W), as
/// ONNX's function body for the op computes it.
LogicalResult convertMeanVarianceNormalization(NodeContext &ctx) {
  int32_t dtype = ctx.inputDType(0);
  if (!isFloatDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype));
  int64_t rank = ctx.inputRank(0);
  llvm::SmallVector<int64_t> axes = ctx.attrInts("axes", {0, 2, 3});
  if (ctx.failedAttributes())
    return failure();
  for (int64_t &a : axes) {
    FailureOr<int64_t> axis = ctx.normalizeAxis(a, rank, "axes value");
    if (failed(axis))
      return failure();
    a = *axis;
  }
  llvm::sort(axes);
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Type element = ctx.inputType(0).getElementType();
  Normalized n = normalize(b, loc, ctx.input(0), axes, 1e-9,
                           computeType(b, element), /*epsOnStdDev=*/true);
  ctx.setOutput(0, narrowTo(b, loc, n.Y, element), dtype);
  return success();
}

LogicalResult convertLayerNormalization(NodeContext &ctx) {
  int32_t dtype = ctx.inputDType(0);
  if (!isFloatDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype));
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  int64_t rank = shape.size();
  FailureOr<int64_t> axis = ctx.normalizeAxis(ctx.attrInt("axis", -1), rank);
  if (failed(axis))
    return failure();
  llvm::ArrayRef<int64_t> normalized = shape.drop_front(*axis);
  // The leading dimensions may be dynamic (a batch, issue 19); the
  // normalized ones are counted, so known.
  if (!ShapedType::isStaticShape(normalized))
    return ctx.unsupported("normalizing over dynamic dimensions (" +
                           shapeString(shape) + " from axis " +
                           std::to_string(*axis) + ")");
  for (size_t i : {size_t(1), size_t(2)}) {
    if (ctx.hasInput(i) && failed(requireStaticDims(ctx, i)))
      return failure();
    if (!ctx.hasInput(i))
      continue;
    std::optional<llvm::SmallVector<int64_t>> s =
        broadcastShapes({ctx.inputShape(i), normalized});
    if (!s || *s != normalized)
      return ctx.emitError()
             << (i == 1 ? "Scale " : "B ") << shapeString(ctx.inputShape(i))
             << " does not broadcast to " << shapeString(normalized);
  }
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Type element = ctx.inputType(0).getElementType();
  Type compute = computeType(b, element);
  Normalized n = normalize(b, loc, ctx.input(0), trailingAxes(*axis, rank),
                           ctx.attrFloat("epsilon", 1e-5f), compute);
  ctx.setOutput(0,
                scaleAndShift(b, loc, n.Y, ctx.input(1),
                              ctx.hasInput(2) ? ctx.input(2) : Value(),
                              element),
                dtype);
  // Mean and InvStdDev are in the stash type (float).
  int32_t stash = compute == element ? dtype : Float;
  if (ctx.hasOutput(1))
    ctx.setOutput(1, n.Mean, stash);
  if (ctx.hasOutput(2))
    ctx.setOutput(2, n.InvStdDev, stash);
  return success();
}

LogicalResult convertInstanceNormalization(NodeContext &ctx) {
  int32_t dtype = ctx.inputDType(0);
  if (!isFloatDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype));
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  if (shape.size() < 3)
    return ctx.emitError() << "input " << shapeString(shape)
                           << " has no spatial dimensions";
  int64_t c = shape[1];
  // Over a dynamic batch (issue 19): the channels and the normalized
  // spatial dimensions must be known.
  for (size_t d = 1; d < shape.size(); ++d)
    if (ShapedType::isDynamic(shape[d]))
      return ctx.unsupported("dynamic dimension " + std::to_string(d) + " of " +
                             shapeString(shape) +
                             " (only the batch may be dynamic)");
  for (size_t i : {size_t(1), size_t(2)})
    if (ctx.inputShape(i) != llvm::ArrayRef<int64_t>{c})
      return ctx.emitError() << "input " << i << " is not [" << c << "]";
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Type element = ctx.inputType(0).getElementType();
  Normalized n =
      normalize(b, loc, ctx.input(0), trailingAxes(2, shape.size()),
                ctx.attrFloat("epsilon", 1e-5f), computeType(b, element));
  llvm::SmallVector<int64_t> channel = {c};
  channel.append(shape.size() - 2, 1);
  ctx.setOutput(
      0,
      scaleAndShift(b, loc, n.Y, reshapeTo(b, loc, ctx.input(1), channel),
                    reshapeTo(b, loc, ctx.input(2), channel), element),
      dtype);
  return success();
}

LogicalResult convertGroupNormalization(NodeContext &ctx) {
  int32_t dtype = ctx.inputDType(0);
  if (!isFloatDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype));
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  if (shape.size() < 2)
    return ctx.emitError() << "input " << shapeString(shape)
                           << " has no channel dimension";
  int64_t n = shape[0], c = shape[1];
  int64_t groups = ctx.attrInt("num_groups", 0);
  if (groups < 1 || c % groups != 0)
    return ctx.emitError() << "num_groups " << groups << " does not divide "
                           << c << " channels";
  // Opset 18 scales per group, 21 per channel.
  int64_t params = ctx.opset() >= 21 ? c : groups;
  for (size_t i : {size_t(1), size_t(2)})
    if (ctx.inputShape(i) != llvm::ArrayRef<int64_t>{params})
      return ctx.emitError() << "input " << i << " is not [" << params
                             << "] at opset " << ctx.opset();
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Type element = ctx.inputType(0).getElementType();
  int64_t spatial = numElementsOf(shape.drop_front(2));
  Value grouped =
      reshapeTo(b, loc, ctx.input(0), {n, groups, c / groups * spatial});
  Normalized norm =
      normalize(b, loc, grouped, {2}, ctx.attrFloat("epsilon", 1e-5f),
                computeType(b, element));
  // Scale and bias per [group, channel-in-group] (or [group, 1]).
  Value y = reshapeTo(b, loc, norm.Y, {n, groups, c / groups, spatial});
  llvm::SmallVector<int64_t> paramShape = {groups, params / groups, 1};
  Value out =
      scaleAndShift(b, loc, y, reshapeTo(b, loc, ctx.input(1), paramShape),
                    reshapeTo(b, loc, ctx.input(2), paramShape), element);
  ctx.setOutput(0, reshapeTo(b, loc, out, shape), dtype);
  return success();
}

/// Local response normalization across channels:
/// y = x / (bias + alpha / size * sum of x^2 over the channel window)^beta.
LogicalResult convertLRN(NodeContext &ctx) {
  int32_t dtype = ctx.inputDType(0);
  if (!isFloatDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype));
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  int64_t rank = shape.size();
  if (rank < 2)
    return ctx.emitError() << "input has no channel dimension";
  int64_t size = ctx.attrInt("size", 0);
  if (size < 1)
    return ctx.emitError() << "size must be positive";
  double alpha = ctx.attrFloat("alpha", 1e-4f);
  double beta = ctx.attrFloat("beta", 0.75f);
  double bias = ctx.attrFloat("bias", 1.0f);
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  MLIRContext *mctx = ctx.context();
  Type element = ctx.inputType(0).getElementType();
  Value x = ctx.input(0);
  Value squares = buildElementwise(
      b, loc, x, shape, element, [](OpBuilder &nb, Location l, ValueRange a) {
        return Value(arith::MulFOp::create(nb, l, a[0], a[0]));
      });
  llvm::SmallVector<int64_t> low(rank, 0), high(rank, 0);
  low[1] = (size - 1) / 2;
  high[1] = size - 1 - low[1];
  Value padded =
      padConstant(b, loc, squares, low, high, scalarAttr(element, 0));
  // sums[n, c, ...] = sum over k < size of padded[n, c + k, ...].
  llvm::SmallVector<AffineExpr> inExprs;
  for (int64_t d = 0; d < rank; ++d)
    inExprs.push_back(d == 1 ? getAffineDimExpr(1, mctx) +
                                   getAffineDimExpr(rank, mctx)
                             : getAffineDimExpr(d, mctx));
  llvm::SmallVector<utils::IteratorType> iterators(
      rank, utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  Value window = tensor::EmptyOp::create(b, loc, {size}, element);
  Value init = filledTensor(b, loc, shape, element, scalarAttr(element, 0));
  Value sums =
      linalg::GenericOp::create(
          b, loc, init.getType(), ValueRange{padded, window}, init,
          llvm::ArrayRef<AffineMap>{
              AffineMap::get(rank + 1, 0, inExprs, mctx),
              AffineMap::get(rank + 1, 0, getAffineDimExpr(rank, mctx)),
              AffineMap::getMultiDimIdentityMap(rank + 1, mctx)
                  .getMajorSubMap(rank)},
          iterators,
          [](OpBuilder &nb, Location l, ValueRange args) {
            linalg::YieldOp::create(
                nb, l, Value(arith::AddFOp::create(nb, l, args[0], args[2])));
          })
          .getResult(0);
  ctx.setOutput(0,
                buildElementwise(
                    b, loc, {x, sums}, shape, element,
                    [&](OpBuilder &nb, Location l, ValueRange a) {
                      Value scaled = arith::MulFOp::create(
                          nb, l, a[1],
                          scalarConstant(nb, l, element, alpha / size));
                      Value base = arith::AddFOp::create(
                          nb, l, scaled, scalarConstant(nb, l, element, bias));
                      Value denom = math::PowFOp::create(
                          nb, l, base, scalarConstant(nb, l, element, beta));
                      return Value(arith::DivFOp::create(nb, l, a[0], denom));
                    }),
                dtype);
  return success();
}

} // namespace

void registerNormalizationOps(OpRegistry &registry) {
  registry.add("BatchNormalization", convertBatchNormalization);
  registry.acceptDynamicShapes(
      {"BatchNormalization", "LayerNormalization", "InstanceNormalization"});
  registry.add("LayerNormalization", convertLayerNormalization);
  registry.add("InstanceNormalization", convertInstanceNormalization);
  registry.add("GroupNormalization", convertGroupNormalization);
  registry.add("LRN", convertLRN);
  registry.add("MeanVarianceNormalization", convertMeanVarianceNormalization);
}

} // namespace kiln::onnx_import
