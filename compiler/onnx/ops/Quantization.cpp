//===- Quantization.cpp - ONNX linear quantization ops --------------------===//
//
// QuantizeLinear and DequantizeLinear take a scale and zero point per tensor
// (one element) or per axis (a 1-D tensor along `axis`). Both are read as
// tensors, not host constants, because DynamicQuantizeLinear (and its
// expansion into primitive ops) computes them at run time. Quantizing
// divides, rounds half to even, adds the zero point and saturates in float,
// so the final float-to-integer conversion only ever sees in-range values.
//
// The integer products (MatMulInteger, ConvInteger) widen both operands to
// i32 while subtracting their zero points and run the float ops' builders
// (buildMatMul, buildConv) on i32, which accumulate exactly. QLinearMatMul
// and QLinearConv do the same, then requantize the i32 accumulator: times
// a_scale * b_scale / y_scale, rounded and saturated around y's zero point.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ops/Common.h"
#include "compiler/onnx/ops/ConvCommon.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;

namespace kiln::onnx_import {
namespace {

/// The element types quantized values may have.
constexpr int32_t kQuantizedDTypes[] = {UInt8, Int8, UInt16, Int16};
/// The operand types of the integer products.
constexpr int32_t kProductDTypes[] = {UInt8, Int8};

/// Input `i` (a scale or zero point called `what`) shaped to broadcast
/// against a tensor of `shape`: a lone element as a scalar (per tensor), else
/// a 1-D tensor of shape[axis] elements laid along `axis` (per axis; only
/// per tensor when `axis` is nullopt).
FailureOr<Value> quantParam(NodeContext &ctx, size_t i, llvm::StringRef what,
                            llvm::ArrayRef<int64_t> shape,
                            std::optional<int64_t> axis) {
  llvm::ArrayRef<int64_t> s = ctx.inputShape(i);
  OpBuilder &b = ctx.builder();
  if (numElementsOf(s) == 1)
    return reshapeTo(b, ctx.loc(), ctx.input(i), {});
  if (axis && s.size() == 1 && s[0] == shape[*axis]) {
    llvm::SmallVector<int64_t> laid = {s[0]};
    laid.append(shape.size() - 1 - *axis, 1);
    return reshapeTo(b, ctx.loc(), ctx.input(i), laid);
  }
  InFlightDiagnostic diag = ctx.emitError();
  diag << what << " " << shapeString(s) << " must have one element";
  if (axis)
    diag << " or " << shape[*axis] << " (along axis " << *axis << " of "
         << shapeString(shape) << ")";
  return failure();
}

/// The per-axis axis of a scale or zero point input `i` against `rank`
/// dimensions: nullopt for a lone element (per tensor), else the node's
/// `axis` attribute (opset 13 on) made non-negative.
FailureOr<std::optional<int64_t>> paramAxis(NodeContext &ctx, size_t i,
                                            int64_t rank) {
  if (numElementsOf(ctx.inputShape(i)) == 1 || ctx.opset() < 13)
    return std::optional<int64_t>();
  if (ctx.attrInt("block_size", 0) != 0)
    return (void)ctx.unsupported("blocked quantization (block_size)"),
           failure();
  FailureOr<int64_t> axis = ctx.normalizeAxis(ctx.attrInt("axis", 1), rank);
  if (failed(axis))
    return failure();
  return std::optional<int64_t>(*axis);
}

/// Fails with an error unless zero point input `zp` (when present) has
/// input `x`'s element type.
LogicalResult requireZeroPointDType(NodeContext &ctx, size_t x, size_t zp) {
  if (!ctx.hasInput(zp) || ctx.inputDType(zp) == ctx.inputDType(x))
    return success();
  return ctx.emitError() << "zero point (input " << zp << ") is "
                         << dtypeName(ctx.inputDType(zp)) << ", input " << x
                         << " " << dtypeName(ctx.inputDType(x));
}

/// The smallest and largest values of integer `dtype`.
std::pair<double, double> integerRange(int32_t dtype) {
  unsigned bits = dtypeByteSize(dtype) * 8;
  if (isUnsignedDType(dtype))
    return {0.0, std::ldexp(1.0, bits) - 1};
  return {-std::ldexp(1.0, bits - 1), std::ldexp(1.0, bits - 1) - 1};
}

/// `value` (f32) rounded half to even, plus `zeroPoint` (of `zpDType`; null
/// for 0), saturated to `dtype`'s range and converted to it. NaN saturates
/// to the smallest value (maxnumf picks the number).
Value roundAndSaturate(OpBuilder &b, Location loc, Value value, Value zeroPoint,
                       int32_t zpDType, int32_t dtype) {
  Value r = math::RoundEvenOp::create(b, loc, value);
  if (zeroPoint)
    r = arith::AddFOp::create(b, loc, r,
                              convertScalar(b, loc, zeroPoint, zpDType, Float));
  auto [lo, hi] = integerRange(dtype);
  Type f32 = b.getF32Type();
  r = arith::MaxNumFOp::create(b, loc, r, scalarConstant(b, loc, f32, lo));
  r = arith::MinNumFOp::create(b, loc, r, scalarConstant(b, loc, f32, hi));
  return convertScalar(b, loc, r, Float, dtype);
}

/// Input `x` (an integer product operand) widened to i32 minus its zero
/// point input `zp` (absent: 0), which is per tensor or per `zpAxis`.
FailureOr<Value> centered(NodeContext &ctx, size_t x, size_t zp,
                          llvm::StringRef zpName,
                          std::optional<int64_t> zpAxis) {
  if (failed(ctx.requireDType(x, kProductDTypes)) ||
      failed(requireZeroPointDType(ctx, x, zp)))
    return failure();
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  int32_t dtype = ctx.inputDType(x);
  llvm::SmallVector<Value> operands = {ctx.input(x)};
  if (ctx.hasInput(zp)) {
    FailureOr<Value> z = quantParam(ctx, zp, zpName, ctx.inputShape(x), zpAxis);
    if (failed(z))
      return failure();
    operands.push_back(*z);
  }
  return buildElementwise(
      b, loc, operands, ctx.inputShape(x), b.getI32Type(),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value wide = convertScalar(nb, l, args[0], dtype, Int32);
        if (args.size() == 1)
          return wide;
        return Value(arith::SubIOp::create(
            nb, l, wide, convertScalar(nb, l, args[1], dtype, Int32)));
      });
}

/// An error unless scale input `i` is present, and an "unsupported" one
/// unless it is a float.
LogicalResult requireFloatScale(NodeContext &ctx, size_t i) {
  if (!ctx.hasInput(i))
    return ctx.emitError() << "the scale (input " << i << ") is missing";
  if (isFloatDType(ctx.inputDType(i)))
    return success();
  return ctx.unsupported("scale (input " + llvm::Twine(i) + ") of type " +
                         dtypeName(ctx.inputDType(i)));
}

/// saturate(round(x / scale) + zeroPoint) as `yDType` (zeroPoint null: 0),
/// in f32 as ONNX's reference computes for float inputs.
Value quantizeScalar(OpBuilder &b, Location loc, Value x, int32_t xDType,
                     Value scale, int32_t scaleDType, Value zeroPoint,
                     int32_t yDType) {
  Value q =
      arith::DivFOp::create(b, loc, convertScalar(b, loc, x, xDType, Float),
                            convertScalar(b, loc, scale, scaleDType, Float));
  return roundAndSaturate(b, loc, q, zeroPoint, yDType, yDType);
}

LogicalResult convertQuantizeLinear(NodeContext &ctx) {
  int32_t xDType = ctx.inputDType(0);
  if (!isFloatDType(xDType))
    return ctx.unsupported("element type " + dtypeName(xDType) +
                           " of input 0 (floats are)");
  if (failed(requireFloatScale(ctx, 1)))
    return failure();
  int32_t scaleDType = ctx.inputDType(1);
  bool hasZeroPoint = ctx.hasInput(2);
  // Without a zero point the result is uint8, or opset 21's output_dtype.
  int32_t yDType = UInt8;
  if (hasZeroPoint)
    yDType = ctx.inputDType(2);
  else if (int64_t attr = ctx.attrInt("output_dtype", 0))
    yDType = attr;
  if (!llvm::is_contained(kQuantizedDTypes, yDType))
    return ctx.unsupported("output element type " + dtypeName(yDType) +
                           " (uint8, int8, uint16, int16 are)");
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  FailureOr<std::optional<int64_t>> axis = paramAxis(ctx, 1, shape.size());
  if (failed(axis))
    return failure();
  FailureOr<Value> scale = quantParam(ctx, 1, "y_scale", shape, *axis);
  if (failed(scale))
    return failure();
  llvm::SmallVector<Value> operands = {ctx.input(0), *scale};
  if (hasZeroPoint) {
    FailureOr<Value> zp = quantParam(ctx, 2, "y_zero_point", shape, *axis);
    if (failed(zp))
      return failure();
    operands.push_back(*zp);
  }
  Value y = buildElementwise(ctx.builder(), ctx.loc(), operands, shape,
                             elementTypeOf(ctx.context(), yDType),
                             [&](OpBuilder &b, Location l, ValueRange args) {
                               return quantizeScalar(
                                   b, l, args[0], xDType, args[1], scaleDType,
                                   args.size() > 2 ? args[2] : Value(), yDType);
                             });
  ctx.setOutput(0, y, yDType);
  return success();
}

LogicalResult convertDequantizeLinear(NodeContext &ctx) {
  int32_t xDType = ctx.inputDType(0);
  if (!llvm::is_contained(kQuantizedDTypes, xDType) && xDType != Int32)
    return ctx.unsupported("element type " + dtypeName(xDType) +
                           " of input 0 (uint8, int8, uint16, int16, int32 "
                           "are)");
  if (failed(requireFloatScale(ctx, 1)) ||
      failed(requireZeroPointDType(ctx, 0, 2)))
    return failure();
  int32_t scaleDType = ctx.inputDType(1);
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  FailureOr<std::optional<int64_t>> axis = paramAxis(ctx, 1, shape.size());
  if (failed(axis))
    return failure();
  FailureOr<Value> scale = quantParam(ctx, 1, "x_scale", shape, *axis);
  if (failed(scale))
    return failure();
  llvm::SmallVector<Value> operands = {ctx.input(0), *scale};
  if (ctx.hasInput(2)) {
    FailureOr<Value> zp = quantParam(ctx, 2, "x_zero_point", shape, *axis);
    if (failed(zp))
      return failure();
    operands.push_back(*zp);
  }
  // (x - zero point) * scale in f32, of the scale's type (opset 19's float16
  // scales make float16 results).
  Value y = buildElementwise(
      ctx.builder(), ctx.loc(), operands, shape,
      elementTypeOf(ctx.context(), scaleDType),
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value x = convertScalar(b, l, args[0], xDType, Float);
        if (args.size() > 2)
          x = arith::SubFOp::create(
              b, l, x, convertScalar(b, l, args[2], xDType, Float));
        Value y = arith::MulFOp::create(
            b, l, x, convertScalar(b, l, args[1], scaleDType, Float));
        return convertScalar(b, l, y, Float, scaleDType);
      });
  ctx.setOutput(0, y, scaleDType);
  return success();
}

/// y_scale = (max(0, max x) - min(0, min x)) / 255, y_zero_point =
/// saturate(round(-min / y_scale)), y = QuantizeLinear(x) with both: uint8.
LogicalResult convertDynamicQuantizeLinear(NodeContext &ctx) {
  if (ctx.inputDType(0) != Float)
    return ctx.unsupported("element type " + dtypeName(ctx.inputDType(0)) +
                           " of input 0 (float is)");
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Value x = ctx.input(0);
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  auto all = llvm::to_vector(llvm::seq<int64_t>(0, shape.size()));
  Type f32 = b.getF32Type(), i8 = b.getIntegerType(8);
  // Reductions from 0 include 0 in the range, as the definition does.
  Value lo =
      buildReduction(b, loc, x, all, false, scalarAttr(f32, 0),
                     [](OpBuilder &nb, Location l, Value v, Value acc) {
                       return Value(arith::MinimumFOp::create(nb, l, v, acc));
                     });
  Value hi =
      buildReduction(b, loc, x, all, false, scalarAttr(f32, 0),
                     [](OpBuilder &nb, Location l, Value v, Value acc) {
                       return Value(arith::MaximumFOp::create(nb, l, v, acc));
                     });
  auto [qmin, qmax] = integerRange(UInt8);
  Value scale = buildElementwise(
      b, loc, {hi, lo}, {}, f32, [&](OpBuilder &nb, Location l, ValueRange a) {
        Value range = arith::SubFOp::create(nb, l, a[0], a[1]);
        return Value(arith::DivFOp::create(
            nb, l, range, scalarConstant(nb, l, f32, qmax - qmin)));
      });
  Value zeroPoint = buildElementwise(
      b, loc, {lo, scale}, {}, i8,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value q =
            arith::SubFOp::create(nb, l, scalarConstant(nb, l, f32, qmin),
                                  arith::DivFOp::create(nb, l, a[0], a[1]));
        return roundAndSaturate(nb, l, q, Value(), UInt8, UInt8);
      });
  Value y = buildElementwise(b, loc, {x, scale, zeroPoint}, shape, i8,
                             [&](OpBuilder &nb, Location l, ValueRange a) {
                               return quantizeScalar(nb, l, a[0], Float, a[1],
                                                     Float, a[2], UInt8);
                             });
  ctx.setOutput(0, y, UInt8);
  if (ctx.hasOutput(1))
    ctx.setOutput(1, scale, Float);
  if (ctx.hasOutput(2))
    ctx.setOutput(2, zeroPoint, UInt8);
  return success();
}

/// The axes of a matmul's per-row (of A) and per-column (of B) parameters in
/// a tensor of `rank` dimensions holding A, B or the product; nullopt where
/// the operand is a vector (no rows or columns to index).
struct MatMulAxes {
  std::optional<int64_t> Row, Column;
};

MatMulAxes matmulAxes(int64_t aRank, int64_t bRank) {
  MatMulAxes axes;
  int64_t productRank = std::max(aRank, bRank) - (aRank == 1) - (bRank == 1);
  if (bRank >= 2)
    axes.Column = productRank - 1;
  if (aRank >= 2)
    axes.Row = productRank - (bRank >= 2 ? 2 : 1);
  return axes;
}

/// (A - a_zero_point) x (B - b_zero_point) in i32, the zero points per
/// tensor, per row of A or per column of B.
FailureOr<Value> integerMatMul(NodeContext &ctx, size_t a, size_t aZero,
                               size_t b, size_t bZero) {
  int64_t aRank = ctx.inputRank(a), bRank = ctx.inputRank(b);
  std::optional<int64_t> row, column;
  if (aRank >= 2)
    row = aRank - 2;
  if (bRank >= 2)
    column = bRank - 1;
  FailureOr<Value> lhs = centered(ctx, a, aZero, "a_zero_point", row);
  if (failed(lhs))
    return failure();
  FailureOr<Value> rhs = centered(ctx, b, bZero, "b_zero_point", column);
  if (failed(rhs))
    return failure();
  return buildMatMul(ctx, *lhs, *rhs);
}

LogicalResult convertMatMulInteger(NodeContext &ctx) {
  FailureOr<Value> product = integerMatMul(ctx, 0, 2, 1, 3);
  if (failed(product))
    return failure();
  ctx.setOutput(0, *product, Int32);
  return success();
}

/// The i32 accumulator of a convolution of input `x` by filter `w` less
/// their zero points (x's per tensor, w's per tensor or per output channel),
/// onto the bias input `bias` (int32) when present.
FailureOr<Value> integerConv(NodeContext &ctx, size_t x, size_t xZero, size_t w,
                             size_t wZero, std::optional<size_t> bias) {
  FailureOr<Value> input = centered(ctx, x, xZero, "x_zero_point", {});
  if (failed(input))
    return failure();
  FailureOr<Value> filter = centered(ctx, w, wZero, "w_zero_point", 0);
  if (failed(filter))
    return failure();
  Value b;
  if (bias && ctx.hasInput(*bias)) {
    if (ctx.inputDType(*bias) != Int32)
      return ctx.emitError()
                 << "bias (input " << *bias << ") is "
                 << dtypeName(ctx.inputDType(*bias)) << ", not int32",
             failure();
    b = ctx.input(*bias);
  }
  return buildConv(ctx, *input, *filter, b);
}

LogicalResult convertConvInteger(NodeContext &ctx) {
  FailureOr<Value> y = integerConv(ctx, 0, 2, 1, 3, std::nullopt);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y, Int32);
  return success();
}

/// Sets output 0 to the i32 accumulator `acc` requantized:
/// saturate(round(acc * (aScale * bScale / y_scale)) + y_zero_point), the
/// scales inputs `aScale` and `bScale` per tensor or along `aAxis` and
/// `bAxis` of the accumulator, y's per tensor (inputs 6 and 7).
LogicalResult requantize(NodeContext &ctx, Value acc, size_t aScale,
                         std::optional<int64_t> aAxis, size_t bScale,
                         std::optional<int64_t> bAxis) {
  const size_t yScale = 6, yZero = 7;
  for (size_t i : {aScale, bScale, yScale})
    if (failed(requireFloatScale(ctx, i)))
      return failure();
  int32_t yDType = ctx.hasInput(yZero) ? ctx.inputDType(yZero) : UInt8;
  if (!llvm::is_contained(kProductDTypes, yDType))
    return ctx.unsupported("output element type " + dtypeName(yDType) +
                           " (uint8 and int8 are)");
  llvm::ArrayRef<int64_t> shape =
      cast<RankedTensorType>(acc.getType()).getShape();
  llvm::SmallVector<Value> operands = {acc};
  for (auto [i, what, axis] :
       {std::tuple(aScale, "a_scale", aAxis),
        std::tuple(bScale, "b_scale", bAxis),
        std::tuple(yScale, "y_scale", std::optional<int64_t>()),
        std::tuple(yZero, "y_zero_point", std::optional<int64_t>())}) {
    if (!ctx.hasInput(i))
      continue;
    FailureOr<Value> p = quantParam(ctx, i, what, shape, axis);
    if (failed(p))
      return failure();
    operands.push_back(*p);
  }
  int32_t aDType = ctx.inputDType(aScale), bDType = ctx.inputDType(bScale),
          yScaleDType = ctx.inputDType(yScale);
  Value y = buildElementwise(
      ctx.builder(), ctx.loc(), operands, shape,
      elementTypeOf(ctx.context(), yDType),
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value sa = convertScalar(b, l, args[1], aDType, Float);
        Value sb = convertScalar(b, l, args[2], bDType, Float);
        Value sy = convertScalar(b, l, args[3], yScaleDType, Float);
        Value multiplier = arith::DivFOp::create(
            b, l, arith::MulFOp::create(b, l, sa, sb), sy);
        Value v = arith::MulFOp::create(
            b, l, convertScalar(b, l, args[0], Int32, Float), multiplier);
        return roundAndSaturate(b, l, v, args.size() > 4 ? args[4] : Value(),
                                yDType, yDType);
      });
  ctx.setOutput(0, y, yDType);
  return success();
}

/// Inputs: a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
/// y_zero_point.
LogicalResult convertQLinearMatMul(NodeContext &ctx) {
  FailureOr<Value> acc = integerMatMul(ctx, 0, 2, 3, 5);
  if (failed(acc))
    return failure();
  MatMulAxes axes = matmulAxes(ctx.inputRank(0), ctx.inputRank(3));
  return requantize(ctx, *acc, 1, axes.Row, 4, axes.Column);
}

/// Inputs: x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale,
/// y_zero_point, B (int32 bias).
LogicalResult convertQLinearConv(NodeContext &ctx) {
  FailureOr<Value> acc = integerConv(ctx, 0, 2, 3, 5, 8);
  if (failed(acc))
    return failure();
  // w_scale is per tensor or per output channel (axis 1 of the result).
  return requantize(ctx, *acc, 1, std::nullopt, 4, 1);
}

} // namespace

void registerQuantizationOps(OpRegistry &registry) {
  registry.add("QuantizeLinear", convertQuantizeLinear);
  registry.add("DequantizeLinear", convertDequantizeLinear);
  registry.add("DynamicQuantizeLinear", convertDynamicQuantizeLinear);
  registry.add("MatMulInteger", convertMatMulInteger);
  registry.add("ConvInteger", convertConvInteger);
  registry.add("QLinearMatMul", convertQLinearMatMul);
  registry.add("QLinearConv", convertQLinearConv);
}

} // namespace kiln::onnx_import
