//===- MatMul.cpp - ONNX MatMul and Gemm ----------------------------------===//
//
// MatMul follows numpy: 1-D operands gain and then lose a unit dimension,
// batch dimensions broadcast. A 2-D right operand (a linear layer) folds the
// left operand's batch into its rows, one linalg.matmul; otherwise both are
// broadcast to the full batch, collapsed to one batch dimension and
// multiplied by linalg.batch_matmul. Gemm transposes constant operands on
// the host and accumulates onto beta * C.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ops/Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace kiln::onnx_import {
namespace {

bool isF(Value v) { return isa<FloatType>(v.getType()); }

Value zeros(OpBuilder &b, Location loc, llvm::ArrayRef<int64_t> shape,
            Type element, ValueRange like = {}) {
  return filledTensor(b, loc, shape, element, scalarAttr(element, 0), like);
}

/// lhs [..., m, k] x rhs [k, n] (static) where lhs has dynamic dimensions
/// (issue 19): every row of lhs at once, [rows, k] x [k, n], rows computed
/// on the host, then the result viewed as [..., m, n].
Value linearRows(OpBuilder &b, Location loc, Value lhs, Value rhs, Type acc) {
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  int64_t rank = lhsType.getRank(), k = lhsType.getShape().back();
  int64_t n = cast<RankedTensorType>(rhs.getType()).getShape().back();
  llvm::SmallVector<OpFoldResult> outSizes;
  OpFoldResult rows = b.getIndexAttr(1);
  for (int64_t d = 0; d + 1 < rank; ++d) {
    OpFoldResult size = dimSize(b, loc, lhs, d);
    outSizes.push_back(size);
    rows = multiplySizes(b, loc, rows, size);
  }
  outSizes.push_back(b.getIndexAttr(n));
  Value a2 = reshapeToSizes(
      b, loc, lhs, llvm::ArrayRef<OpFoldResult>{rows, b.getIndexAttr(k)});
  Value init = zeros(
      b, loc, {getConstantIntValue(rows).value_or(ShapedType::kDynamic), n},
      acc, a2);
  Value product =
      linalg::MatmulOp::create(b, loc, ValueRange{a2, rhs}, init).getResult(0);
  return reshapeToSizes(
      b, loc, convertFloatElements(b, loc, product, lhsType.getElementType()),
      outSizes);
}

/// value materialized at `shape` (numpy broadcast); a no-op when equal.
Value broadcastValue(OpBuilder &b, Location loc, Value value,
                     llvm::ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  return buildElementwise(
      b, loc, value, shape, type.getElementType(),
      [](OpBuilder &, Location, ValueRange args) { return args[0]; });
}

} // namespace

/// lhs [batch..., m, k] x rhs [batch..., k, n] with dynamic dimensions
/// (issue 19: attention over a dynamic batch or sequence): one
/// linalg.batch_matmul over the batch collapsed to one dimension, then
/// viewed as lhs's batch. Each call checks that the operands' k and
/// collapsed batches agree (the host's shape checks).
static FailureOr<Value> batchedMatrices(NodeContext &ctx, Value lhs,
                                        Value rhs) {
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  int64_t rank = lhsType.getRank();
  int64_t k = lhsType.getDimSize(rank - 1);
  int64_t rhsK = rhsType.getDimSize(rank - 2);
  if (!ShapedType::isDynamic(k) && !ShapedType::isDynamic(rhsK) && rhsK != k)
    return ctx.emitError() << "inner dimensions differ: "
                           << shapeString(lhsType.getShape()) << " x "
                           << shapeString(rhsType.getShape()),
           failure();
  Type element = lhsType.getElementType();
  Type acc = accumulatorType(element);
  OpFoldResult m = dimSize(b, loc, lhs, rank - 2);
  OpFoldResult n = dimSize(b, loc, rhs, rank - 1);
  Value a3 = reshapeToSizes(b, loc, lhs,
                            {leadingProduct(b, loc, lhs, rank - 2), m,
                             dimSize(b, loc, lhs, rank - 1)});
  Value b3 = reshapeToSizes(b, loc, rhs,
                            {leadingProduct(b, loc, rhs, rank - 2),
                             dimSize(b, loc, rhs, rank - 2), n});
  Value empty = tensor::EmptyOp::create(
      b, loc, llvm::ArrayRef<OpFoldResult>{dimSize(b, loc, a3, 0), m, n}, acc);
  Value init =
      linalg::FillOp::create(
          b, loc, Value(arith::ConstantOp::create(b, loc, scalarAttr(acc, 0))),
          empty)
          .getResult(0);
  Value product =
      linalg::BatchMatmulOp::create(b, loc, ValueRange{a3, b3}, init)
          .getResult(0);
  llvm::SmallVector<OpFoldResult> outSizes;
  for (int64_t d = 0; d + 2 < rank; ++d)
    outSizes.push_back(dimSize(b, loc, lhs, d));
  outSizes.push_back(m);
  outSizes.push_back(n);
  return reshapeToSizes(b, loc, convertFloatElements(b, loc, product, element),
                        outSizes);
}

FailureOr<Value> buildMatMul(NodeContext &ctx, Value lhs, Value rhs) {
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  llvm::ArrayRef<int64_t> lhsShape =
      cast<RankedTensorType>(lhs.getType()).getShape();
  llvm::ArrayRef<int64_t> rhsShape =
      cast<RankedTensorType>(rhs.getType()).getShape();
  llvm::SmallVector<int64_t> aShape(lhsShape), bShape(rhsShape);
  if (aShape.empty() || bShape.empty())
    return ctx.emitError() << "operands must have at least one dimension",
           failure();
  bool dropM = aShape.size() == 1, dropN = bShape.size() == 1;
  if (!ShapedType::isStaticShape(lhsShape) ||
      !ShapedType::isStaticShape(rhsShape)) {
    // Dynamic batches of matrices (attention's scores and their product
    // with the values, issue 19): both operands [batch..., m|k, k|n] with
    // as many batch dimensions, any of m, k and n dynamic too (a dynamic
    // sequence); the batch dimensions are collapsed into one, which each
    // call checks they agree on, as it checks k.
    if (!dropM && !dropN && aShape.size() == bShape.size() &&
        aShape.size() >= 3) {
      int64_t rank = aShape.size();
      // Batch dimensions pairwise alike (both dynamic, or equal): then
      // the collapsed batches agree exactly when the dimensions do.
      bool sameBatch = true;
      for (int64_t d = 0; d + 2 < rank; ++d)
        sameBatch &= aShape[d] == bShape[d];
      if (sameBatch)
        return batchedMatrices(ctx, lhs, rhs);
    }
    // Dynamic shapes (issue 19): a linear layer, lhs [..., m, k] with any
    // of its dimensions but k dynamic times a static rhs [k, n].
    if (dropM || bShape.size() != 2 || !ShapedType::isStaticShape(rhsShape) ||
        ShapedType::isDynamic(aShape.back()))
      return (void)ctx.unsupported(
                 "dynamic dimensions in " + shapeString(lhsShape) + " x " +
                 shapeString(rhsShape) +
                 " (only a left operand's rows may be dynamic, times a "
                 "static matrix)"),
             failure();
    if (aShape.back() != bShape.front())
      return ctx.emitError()
                 << "inner dimensions differ: " << shapeString(lhsShape)
                 << " x " << shapeString(rhsShape),
             failure();
    return linearRows(
        b, loc, lhs, rhs,
        accumulatorType(
            cast<RankedTensorType>(lhs.getType()).getElementType()));
  }
  if (dropM) {
    aShape.insert(aShape.begin(), 1);
    lhs = reshapeTo(b, loc, lhs, aShape);
  }
  if (dropN) {
    bShape.push_back(1);
    rhs = reshapeTo(b, loc, rhs, bShape);
  }
  int64_t m = aShape[aShape.size() - 2], k = aShape.back();
  int64_t k2 = bShape[bShape.size() - 2], n = bShape.back();
  if (k != k2)
    return ctx.emitError() << "inner dimensions differ: "
                           << shapeString(lhsShape) << " x "
                           << shapeString(rhsShape),
           failure();
  llvm::ArrayRef<int64_t> aBatch = llvm::ArrayRef(aShape).drop_back(2);
  llvm::ArrayRef<int64_t> bBatch = llvm::ArrayRef(bShape).drop_back(2);
  std::optional<llvm::SmallVector<int64_t>> batch =
      broadcastShapes({aBatch, bBatch});
  if (!batch)
    return ctx.emitError() << "batch dimensions do not broadcast: "
                           << shapeString(lhsShape) << " x "
                           << shapeString(rhsShape),
           failure();
  Type element = cast<RankedTensorType>(lhs.getType()).getElementType();
  Type acc = accumulatorType(element);
  int64_t batchSize = numElementsOf(*batch);
  Value result;
  if (bBatch.empty() || numElementsOf(bBatch) == 1) {
    // Rows of every batch at once: [batch * m, k] x [k, n].
    Value a2 = reshapeTo(b, loc,
                         broadcastValue(b, loc, lhs,
                                        [&] {
                                          llvm::SmallVector<int64_t> s(*batch);
                                          s.push_back(m);
                                          s.push_back(k);
                                          return s;
                                        }()),
                         {batchSize * m, k});
    Value b2 = reshapeTo(b, loc, rhs, {k, n});
    Value init = zeros(b, loc, {batchSize * m, n}, acc);
    result =
        linalg::MatmulOp::create(b, loc, ValueRange{a2, b2}, init).getResult(0);
  } else {
    llvm::SmallVector<int64_t> aFull(*batch), bFull(*batch);
    aFull.append({m, k});
    bFull.append({k, n});
    Value a3 = reshapeTo(b, loc, broadcastValue(b, loc, lhs, aFull),
                         {batchSize, m, k});
    Value b3 = reshapeTo(b, loc, broadcastValue(b, loc, rhs, bFull),
                         {batchSize, k, n});
    Value init = zeros(b, loc, {batchSize, m, n}, acc);
    result = linalg::BatchMatmulOp::create(b, loc, ValueRange{a3, b3}, init)
                 .getResult(0);
  }
  llvm::SmallVector<int64_t> finalShape(*batch);
  if (!dropM)
    finalShape.push_back(m);
  if (!dropN)
    finalShape.push_back(n);
  return reshapeTo(b, loc, convertFloatElements(b, loc, result, element),
                   finalShape);
}

namespace {

LogicalResult convertMatMul(NodeContext &ctx) {
  if (failed(requireSameDType(ctx, 1)))
    return failure();
  int32_t dtype = ctx.inputDType(0);
  if (!isFloatDType(dtype) && !isIntegerDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype));
  FailureOr<Value> product = buildMatMul(ctx, ctx.input(0), ctx.input(1));
  if (failed(product))
    return failure();
  ctx.setOutput(0, *product, dtype);
  return success();
}

/// Input `i`, transposed if `transpose`.
Value maybeTransposed(NodeContext &ctx, size_t i, bool transposeIt) {
  return transposeIt ? transposedInput(ctx, i, {1, 0}) : ctx.input(i);
}

LogicalResult convertGemm(NodeContext &ctx) {
  if (failed(requireSameDType(ctx, 1)))
    return failure();
  int32_t dtype = ctx.inputDType(0);
  if (!isFloatDType(dtype) && !isIntegerDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype));
  if (ctx.inputRank(0) != 2 || ctx.inputRank(1) != 2)
    return ctx.emitError() << "A and B must be matrices";
  double alpha = ctx.attrFloat("alpha", 1.0f);
  double beta = ctx.attrFloat("beta", 1.0f);
  bool transA = ctx.attrInt("transA", 0) != 0;
  bool transB = ctx.attrInt("transB", 0) != 0;
  llvm::ArrayRef<int64_t> aShape = ctx.inputShape(0),
                          bShape = ctx.inputShape(1);
  // A dynamic M (a batch of rows, issue 19); K, N and C are known.
  if (failed(requireStaticDims(ctx, 0, {transA ? 1 : 0})) ||
      failed(requireStaticDims(ctx, 1)) || failed(requireStaticDims(ctx, 2)))
    return failure();
  int64_t m = transA ? aShape[1] : aShape[0];
  int64_t k = transA ? aShape[0] : aShape[1];
  int64_t k2 = transB ? bShape[1] : bShape[0];
  int64_t n = transB ? bShape[0] : bShape[1];
  if (k != k2)
    return ctx.emitError() << "inner dimensions differ: " << shapeString(aShape)
                           << (transA ? "^T" : "") << " x "
                           << shapeString(bShape) << (transB ? "^T" : "");
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Type element = accumulatorType(ctx.inputType(0).getElementType());
  Value a = maybeTransposed(ctx, 0, transA);
  Value bm = maybeTransposed(ctx, 1, transB);
  llvm::SmallVector<int64_t> shape = {m, n};
  bool hasC = ctx.hasInput(2) && beta != 0;
  if (hasC) {
    if (failed(requireSameDType(ctx, 2)))
      return failure();
    std::optional<llvm::SmallVector<int64_t>> s =
        broadcastShapes({ctx.inputShape(2), shape});
    if (!s || *s != llvm::ArrayRef<int64_t>(shape))
      return ctx.emitError() << "C " << shapeString(ctx.inputShape(2))
                             << " does not broadcast to " << shapeString(shape);
  }
  // With alpha = 1, beta * C is the accumulator the product adds onto.
  Value init;
  if (hasC && alpha == 1.0) {
    init = buildElementwise(
        b, loc, ctx.input(2), shape, element,
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          Value c = args[0];
          if (c.getType() != element)
            c = arith::ExtFOp::create(nb, l, element, c);
          if (beta == 1.0)
            return c;
          Value s = scalarConstant(nb, l, element, beta);
          return isF(c) ? Value(arith::MulFOp::create(nb, l, c, s))
                        : Value(arith::MulIOp::create(nb, l, c, s));
        },
        a);
  } else {
    init = zeros(b, loc, shape, element, a);
  }
  Value product =
      linalg::MatmulOp::create(b, loc, ValueRange{a, bm}, init).getResult(0);
  if (alpha != 1.0) {
    llvm::SmallVector<Value> operands = {product};
    if (hasC)
      operands.push_back(ctx.input(2));
    product = buildElementwise(
        b, loc, operands, shape, element,
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          bool f = isF(args[0]);
          auto mul = [&](Value x, double c) -> Value {
            Value s = scalarConstant(nb, l, element, c);
            return f ? Value(arith::MulFOp::create(nb, l, x, s))
                     : Value(arith::MulIOp::create(nb, l, x, s));
          };
          Value y = mul(args[0], alpha);
          if (args.size() > 1) {
            Value c = args[1];
            if (c.getType() != element)
              c = arith::ExtFOp::create(nb, l, element, c);
            c = mul(c, beta);
            y = f ? Value(arith::AddFOp::create(nb, l, y, c))
                  : Value(arith::AddIOp::create(nb, l, y, c));
          }
          return y;
        });
  }
  ctx.setOutput(
      0,
      convertFloatElements(b, loc, product, ctx.inputType(0).getElementType()),
      dtype);
  return success();
}

} // namespace

void registerMatMulOps(OpRegistry &registry) {
  registry.add("MatMul", convertMatMul);
  registry.add("Gemm", convertGemm);
  // Dynamic rows (issue 19); the converters refuse other dynamic
  // dimensions.
  registry.acceptDynamicShapes({"MatMul", "Gemm"});
}

} // namespace kiln::onnx_import
