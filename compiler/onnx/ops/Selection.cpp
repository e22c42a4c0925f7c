//===- Selection.cpp - ONNX Compress and NonZero --------------------------===//
//
// Elements chosen by a bool condition: how many there are is data, so the
// output's extent is known per call only. Where the condition is a graph
// input (issue 19 item 4 through item 3's reads) the host counts its true
// elements per call, and the kernels place the chosen ones: a prefix count
// gives each true element its position in the output, and each output
// element picks the one element whose position it is (a reduction over the
// condition that selects, never adds, so the value is copied bit for bit).
// Both kernels cost the condition's length per element, which the
// condition's bound (kMaxConditionElements) keeps small. A condition
// computed inside the model would need the count read back from the device
// mid-call, which the runtime does not do yet.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ops/Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace kiln::onnx_import {
namespace {

/// The most condition elements the host counts per call (two shape nodes
/// each) and the kernels scan per output element.
constexpr int64_t kMaxConditionElements = 4096;

/// The bool graph input `i` flattened, with its true elements counted on
/// the host per call; failure after an error (or "unsupported").
struct Condition {
  Value Flat;  // tensor<n x i1>
  Value Count; // index, on the host
  int64_t Length = 0;
};

FailureOr<Condition> readCondition(NodeContext &ctx, size_t i) {
  if (ctx.inputDType(i) != Bool || !ctx.inputType(i).hasStaticShape())
    return ctx.emitError() << "condition must be bool of static shape, not "
                           << dtypeName(ctx.inputDType(i)) << " "
                           << shapeString(ctx.inputShape(i)),
           failure();
  int64_t n = ctx.inputType(i).getNumElements();
  if (!ctx.isGraphInput(i))
    return (void)ctx.unsupported(
               "condition computed inside the model (its count of true "
               "elements would be read back from the device mid-call; a "
               "condition given as a graph input is counted on the host)"),
           failure();
  if (n > kMaxConditionElements)
    return (void)ctx.unsupported("condition of " + std::to_string(n) +
                                 " elements (at most " +
                                 std::to_string(kMaxConditionElements) +
                                 " are counted per call)"),
           failure();
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Condition c;
  c.Length = n;
  c.Flat = reshapeTo(b, loc, ctx.input(i), {n});
  // Read from the argument itself: the host reads graph inputs only.
  Value count = arith::ConstantIndexOp::create(b, loc, 0);
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(i);
  for (int64_t k = 0; k < n; ++k) {
    llvm::SmallVector<Value> index;
    int64_t rest = k;
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      index.insert(index.begin(),
                   arith::ConstantIndexOp::create(b, loc, rest % shape[d]));
      rest /= shape[d];
    }
    Value e = tensor::ExtractOp::create(b, loc, ctx.input(i), index);
    count = arith::AddIOp::create(
        b, loc, count,
        arith::IndexCastUIOp::create(b, loc, b.getIndexType(), e));
  }
  c.Count = count;
  return c;
}

/// Per element of `flat` (bool [n]), how many true elements come before it
/// (i64): its position among the chosen ones.
Value prefixCount(OpBuilder &b, Location loc, Value flat, int64_t n) {
  MLIRContext *mctx = b.getContext();
  Type i64 = b.getI64Type();
  Value init =
      linalg::FillOp::create(
          b, loc,
          ValueRange{arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0))},
          ValueRange{tensor::EmptyOp::create(b, loc, {n}, i64)})
          .getResult(0);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{flat}, ValueRange{init},
             llvm::ArrayRef<AffineMap>{
                 AffineMap::get(2, 0, getAffineDimExpr(1, mctx)),
                 AffineMap::get(2, 0, getAffineDimExpr(0, mctx))},
             llvm::ArrayRef<utils::IteratorType>{
                 utils::IteratorType::parallel, utils::IteratorType::reduction},
             [&](OpBuilder &nb, Location l, ValueRange args) {
               Value before =
                   arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult,
                                         linalg::IndexOp::create(nb, l, 1),
                                         linalg::IndexOp::create(nb, l, 0));
               Value counts = arith::AndIOp::create(nb, l, before, args[0]);
               Value one = arith::ExtUIOp::create(nb, l, i64, counts);
               linalg::YieldOp::create(
                   nb, l, Value(arith::AddIOp::create(nb, l, args[1], one)));
             })
      .getResult(0);
}

/// A generic over `outShape` (dimension `pickDim` the chosen ones', of
/// extent the count) and a reduction over the condition's elements: each
/// output element takes `value(i)` of the element i whose position is its
/// index along `pickDim`.
Value pick(OpBuilder &b, Location loc, const Condition &c, Value prefix,
           llvm::ArrayRef<int64_t> outShape, int64_t pickDim, Type element,
           llvm::function_ref<Value(OpBuilder &, Location, Value,
                                    llvm::ArrayRef<Value>)>
               value) {
  MLIRContext *mctx = b.getContext();
  int64_t rank = outShape.size();
  Value flat = c.Flat, positions = prefix;
  llvm::SmallVector<Value> dynamicSizes;
  for (int64_t d = 0; d < rank; ++d)
    if (ShapedType::isDynamic(outShape[d]))
      dynamicSizes.push_back(c.Count);
  Value empty =
      tensor::EmptyOp::create(b, loc, outShape, element, dynamicSizes);
  Value init =
      linalg::FillOp::create(
          b, loc, ValueRange{scalarConstant(b, loc, element, 0)}, empty)
          .getResult(0);
  AffineMap byCondition =
      AffineMap::get(rank + 1, 0, getAffineDimExpr(rank, mctx));
  llvm::SmallVector<AffineExpr> outExprs;
  for (int64_t d = 0; d < rank; ++d)
    outExprs.push_back(getAffineDimExpr(d, mctx));
  llvm::SmallVector<utils::IteratorType> iterators(
      rank, utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{flat, positions},
             ValueRange{init},
             llvm::ArrayRef<AffineMap>{
                 byCondition, byCondition,
                 AffineMap::get(rank + 1, 0, outExprs, mctx)},
             iterators,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               llvm::SmallVector<Value> index;
               for (int64_t d = 0; d < rank; ++d)
                 index.push_back(linalg::IndexOp::create(nb, l, d));
               Value i = linalg::IndexOp::create(nb, l, rank);
               Value at = arith::IndexCastOp::create(nb, l, nb.getI64Type(),
                                                     index[pickDim]);
               Value match = arith::AndIOp::create(
                   nb, l, args[0],
                   arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                         args[1], at));
               linalg::YieldOp::create(
                   nb, l,
                   Value(arith::SelectOp::create(
                       nb, l, match, value(nb, l, i, index), args[2])));
             })
      .getResult(0);
}

LogicalResult convertNonZero(NodeContext &ctx) {
  FailureOr<Condition> c = readCondition(ctx, 0);
  if (failed(c))
    return failure();
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  int64_t rank = shape.size();
  Value prefix = prefixCount(b, loc, c->Flat, c->Length);
  // Output [rank, count]: row r holds coordinate r of each chosen element.
  Value result = pick(
      b, loc, *c, prefix, {rank, ShapedType::kDynamic}, 1, b.getI64Type(),
      [&](OpBuilder &nb, Location l, Value i, llvm::ArrayRef<Value> index) {
        Value coordinate =
            arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(0));
        int64_t stride = 1;
        for (int64_t d = rank - 1; d >= 0; --d) {
          Value along = arith::RemUIOp::create(
              nb, l,
              arith::DivUIOp::create(
                  nb, l, i, arith::ConstantIndexOp::create(nb, l, stride)),
              arith::ConstantIndexOp::create(nb, l, shape[d]));
          Value isRow =
              arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, index[0],
                                    arith::ConstantIndexOp::create(nb, l, d));
          coordinate = arith::SelectOp::create(
              nb, l, isRow,
              arith::IndexCastOp::create(nb, l, nb.getI64Type(), along),
              coordinate);
          stride *= shape[d];
        }
        return coordinate;
      });
  ctx.setOutput(0, result, Int64);
  return success();
}

LogicalResult convertCompress(NodeContext &ctx) {
  if (!ctx.inputType(0).hasStaticShape())
    return ctx.unsupported("an input of dynamic shape");
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  llvm::ArrayRef<int64_t> condShape = ctx.inputShape(1);
  if (condShape.size() != 1)
    return ctx.emitError() << "condition must be 1-D, not "
                           << shapeString(condShape);
  FailureOr<Condition> c = readCondition(ctx, 1);
  if (failed(c))
    return failure();
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  // Without an axis the input is flattened.
  Value x = ctx.input(0);
  llvm::SmallVector<int64_t> xShape(shape);
  int64_t axis = 0;
  if (ctx.hasAttr("axis")) {
    FailureOr<int64_t> a =
        ctx.normalizeAxis(ctx.attrInt("axis", 0), shape.size());
    if (failed(a))
      return failure();
    axis = *a;
  } else {
    xShape = {numElementsOf(shape)};
    x = reshapeTo(b, loc, x, xShape);
  }
  if (c->Length > xShape[axis])
    return ctx.emitError() << "condition of " << c->Length
                           << " elements is longer than axis " << axis << " of "
                           << shapeString(xShape);
  llvm::SmallVector<int64_t> outShape(xShape);
  outShape[axis] = ShapedType::kDynamic;
  Value prefix = prefixCount(b, loc, c->Flat, c->Length);
  Type element = ctx.inputType(0).getElementType();
  Value result = pick(
      b, loc, *c, prefix, outShape, axis, element,
      [&](OpBuilder &nb, Location l, Value i, llvm::ArrayRef<Value> index) {
        llvm::SmallVector<Value> position(index);
        position[axis] = i;
        return Value(tensor::ExtractOp::create(nb, l, x, position));
      });
  ctx.setOutput(0, result, ctx.inputDType(0));
  return success();
}

} // namespace

void registerSelectionOps(OpRegistry &registry) {
  registry.add("NonZero", convertNonZero);
  registry.add("Compress", convertCompress);
}

} // namespace kiln::onnx_import
