//===- Indexing.cpp - ONNX gathers, scatters, OneHot, Trilu, CumSum, TopK -===//
//
// Ops whose output element depends on its own index: generics that read
// linalg.index. CumSum and TopK are quadratic along their axis (a sum over
// the elements before each one; each element's rank among the others),
// which needs no sort or scan primitive and is cheap for the sizes models
// use them at (class scores, sequence positions).
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ops/Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>
#include <optional>

using namespace mlir;

namespace kiln::onnx_import {
namespace {

Value indexConst(OpBuilder &b, Location l, int64_t v) {
  return arith::ConstantIndexOp::create(b, l, v);
}

/// clampedIndex over a static extent.
Value normalizedIndex(OpBuilder &b, Location l, Value v, int64_t dim,
                      bool isUnsigned) {
  return clampedIndex(b, l, v, indexConst(b, l, dim), isUnsigned);
}

LogicalResult convertGatherElements(NodeContext &ctx) {
  llvm::ArrayRef<int64_t> data = ctx.inputShape(0), idx = ctx.inputShape(1);
  int64_t rank = data.size();
  if (!isIntegerDType(ctx.inputDType(1)))
    return ctx.emitError() << "indices must be integers";
  if (static_cast<int64_t>(idx.size()) != rank)
    return ctx.emitError() << "indices " << shapeString(idx) << " and data "
                           << shapeString(data) << " differ in rank";
  FailureOr<int64_t> axis = ctx.normalizeAxis(ctx.attrInt("axis", 0), rank);
  if (failed(axis))
    return failure();
  if (data[*axis] == 0 && numElementsOf(idx) > 0)
    return ctx.emitError() << "gathers from an empty dimension";
  // Off the axis the output's index reads the data directly.
  for (int64_t d = 0; d < rank; ++d)
    if (d != *axis && idx[d] > data[d])
      return ctx.emitError()
             << "indices " << shapeString(idx) << " are larger than data "
             << shapeString(data) << " in dimension " << d;
  if (const HostTensor *constant = ctx.constantInput(1))
    for (int64_t i = 0, e = constant->numElements(); i < e; ++i) {
      int64_t index = constant->intAt(i);
      if (index < -data[*axis] || index >= data[*axis])
        return ctx.emitError()
               << "index " << index << " is out of range for dimension "
               << *axis << " of size " << data[*axis];
    }
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Value source = ctx.input(0);
  Type element = ctx.inputType(0).getElementType();
  Value init = tensor::EmptyOp::create(b, loc, idx, element);
  bool isUnsigned = isUnsignedDType(ctx.inputDType(1));
  int64_t ax = *axis, dim = data[*axis];
  Value result =
      linalg::GenericOp::create(
          b, loc, init.getType(), ctx.input(1), init,
          llvm::ArrayRef<AffineMap>{b.getMultiDimIdentityMap(rank),
                                    b.getMultiDimIdentityMap(rank)},
          llvm::SmallVector<utils::IteratorType>(rank,
                                                 utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location l, ValueRange args) {
            llvm::SmallVector<Value> position;
            for (int64_t d = 0; d < rank; ++d)
              position.push_back(
                  d == ax ? normalizedIndex(nb, l, args[0], dim, isUnsigned)
                          : Value(linalg::IndexOp::create(nb, l, d)));
            linalg::YieldOp::create(
                nb, l,
                Value(tensor::ExtractOp::create(nb, l, source, position)));
          })
          .getResult(0);
  ctx.setOutput(0, result, ctx.inputDType(0));
  return success();
}

LogicalResult convertOneHot(NodeContext &ctx) {
  if (!isIntegerDType(ctx.inputDType(0)) && !isFloatDType(ctx.inputDType(0)))
    return ctx.unsupported("indices of element type " +
                           dtypeName(ctx.inputDType(0)));
  if (numElementsOf(ctx.inputShape(1)) != 1 ||
      numElementsOf(ctx.inputShape(2)) != 2)
    return ctx.emitError() << "depth must be a scalar and values hold two";
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  // The depth: a constant, or given at call time (read on the host,
  // truncated as ONNX casts it; the extent of the output's axis per call,
  // where a depth below 1 fails the call).
  int64_t depth = ShapedType::kDynamic;
  Value depthAtCallTime;
  if (std::optional<llvm::SmallVector<Value>> read =
          ctx.intsReadAtCallTime(1, /*truncateFloats=*/true)) {
    depthAtCallTime = read->front();
    Value positive =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                              depthAtCallTime, indexConst(b, loc, 1));
    cf::AssertOp::create(b, loc, positive,
                         ctx.describe() + ": depth must be at least 1");
  } else {
    const HostTensor *depthT = ctx.requireConstant(1, "depth");
    if (!depthT)
      return failure();
    // intAt truncates floats, NaN and infinities included, safely.
    depth = depthT->intAt(0);
    if (depth < 1)
      return ctx.emitError() << "depth " << depth << " is not positive";
  }
  llvm::ArrayRef<int64_t> idx = ctx.inputShape(0);
  int64_t outRank = idx.size() + 1;
  FailureOr<int64_t> axis = ctx.normalizeAxis(ctx.attrInt("axis", -1), outRank);
  if (failed(axis))
    return failure();
  llvm::SmallVector<int64_t> outShape(idx);
  outShape.insert(outShape.begin() + *axis, depth);
  MLIRContext *mctx = ctx.context();
  llvm::SmallVector<AffineExpr> idxExprs;
  for (int64_t d = 0; d < outRank; ++d)
    if (d != *axis)
      idxExprs.push_back(getAffineDimExpr(d, mctx));
  Value values = reshapeTo(b, loc, ctx.input(2), {2});
  Type element = ctx.inputType(2).getElementType();
  Value init = tensor::EmptyOp::create(
      b, loc, outShape, element,
      depthAtCallTime ? ValueRange{depthAtCallTime} : ValueRange{});
  int32_t idxType = ctx.inputDType(0);
  int64_t ax = *axis;
  Value result =
      linalg::GenericOp::create(
          b, loc, init.getType(), ctx.input(0), init,
          llvm::ArrayRef<AffineMap>{AffineMap::get(outRank, 0, idxExprs, mctx),
                                    b.getMultiDimIdentityMap(outRank)},
          llvm::SmallVector<utils::IteratorType>(outRank,
                                                 utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value i = args[0];
            if (isFloatDType(idxType))
              i = arith::FPToSIOp::create(nb, l, nb.getI64Type(), i);
            i = arith::IndexCastOp::create(nb, l, nb.getIndexType(), i);
            Value zero = indexConst(nb, l, 0);
            Value neg = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt,
                                              i, zero);
            Value d =
                depthAtCallTime ? depthAtCallTime : indexConst(nb, l, depth);
            i = arith::SelectOp::create(nb, l, neg,
                                        arith::AddIOp::create(nb, l, i, d), i);
            Value hit =
                arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, i,
                                      linalg::IndexOp::create(nb, l, ax));
            Value on = tensor::ExtractOp::create(
                nb, l, values, ValueRange{indexConst(nb, l, 1)});
            Value off = tensor::ExtractOp::create(
                nb, l, values, ValueRange{indexConst(nb, l, 0)});
            linalg::YieldOp::create(
                nb, l, Value(arith::SelectOp::create(nb, l, hit, on, off)));
          })
          .getResult(0);
  ctx.setOutput(0, result, ctx.inputDType(2));
  return success();
}

LogicalResult convertTrilu(NodeContext &ctx) {
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  int64_t rank = shape.size();
  if (rank < 2)
    return ctx.emitError() << "input must have at least 2 dimensions";
  bool upper = ctx.attrInt("upper", 1) != 0;
  Type element = ctx.inputType(0).getElementType();
  arith::CmpIPredicate keepIf =
      upper ? arith::CmpIPredicate::sge : arith::CmpIPredicate::sle;
  // Kept: j - i >= k (upper) or j - i <= k (lower), k as an index built
  // by `kIndex` right before the compare (where the constant k's
  // arith.constant has always been).
  auto masked = [&](OpBuilder &b, Location l, Value x,
                    llvm::function_ref<Value(OpBuilder &, Location)> kIndex) {
    Value i = linalg::IndexOp::create(b, l, rank - 2);
    Value j = linalg::IndexOp::create(b, l, rank - 1);
    Value diff = arith::SubIOp::create(b, l, j, i);
    Value keep = arith::CmpIOp::create(b, l, keepIf, diff, kIndex(b, l));
    return Value(arith::SelectOp::create(b, l, keep, x,
                                         scalarConstant(b, l, element, 0)));
  };
  if (ctx.hasInput(1) && !ctx.constantInput(1)) {
    // k computed at run time (a graph input, say) moves only the diagonal,
    // not any shape, so it is data: one more operand of the generic, 0-d
    // and read by every element, compared inside the body.
    int32_t kType = ctx.inputDType(1);
    if (!isIntegerDType(kType))
      return ctx.emitError()
             << "k must be an integer, not " << dtypeName(kType);
    llvm::ArrayRef<int64_t> kShape = ctx.inputShape(1);
    if (!ShapedType::isStaticShape(kShape) || numElementsOf(kShape) != 1)
      return ctx.emitError()
             << "k must be a scalar, not " << shapeString(kShape);
    OpBuilder &b = ctx.builder();
    Location loc = ctx.loc();
    // A one-element k of rank 1 or more (ONNX asks for 0-d) viewed as 0-d,
    // so its indexing map reads no loop dimension.
    Value k = reshapeTo(b, loc, ctx.input(1), {});
    bool isUnsigned = isUnsignedDType(kType);
    Value result = buildElementwise(
        b, loc, {ctx.input(0), k}, shape, element,
        [&](OpBuilder &nb, Location l, ValueRange a) {
          return masked(nb, l, a[0], [&](OpBuilder &cb, Location cl) {
            return isUnsigned ? Value(arith::IndexCastUIOp::create(
                                    cb, cl, cb.getIndexType(), a[1]))
                              : Value(arith::IndexCastOp::create(
                                    cb, cl, cb.getIndexType(), a[1]));
          });
        });
    ctx.setOutput(0, result, ctx.inputDType(0));
    return success();
  }
  int64_t k = 0;
  if (ctx.hasInput(1)) {
    FailureOr<llvm::SmallVector<int64_t>> kv = ctx.constantInts(1, "k");
    if (failed(kv))
      return failure();
    if (kv->size() != 1)
      return ctx.emitError() << "k must be a scalar";
    k = (*kv)[0];
  }
  return emitElementwise(
      ctx, {0}, ctx.inputDType(0), [&](OpBuilder &b, Location l, ValueRange a) {
        return masked(b, l, a[0], [&](OpBuilder &cb, Location cl) {
          return indexConst(cb, cl, k);
        });
      });
}

/// CumSum along an axis given at call time (a graph input read on the host):
/// the same sum over j, j running along the longest dimension, each output
/// reading the input where its index along the axis is replaced by j (the
/// axis compared per element: the dimension it names is data of the
/// kernel), j past that dimension taking nothing; an axis outside the rank
/// fails the call.
LogicalResult convertCumSumAtCallTime(NodeContext &ctx, Value given) {
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  int64_t rank = shape.size();
  if (!ctx.inputType(0).hasStaticShape() || rank == 0)
    return ctx.unsupported("CumSum along an axis given at call time of " +
                           shapeString(shape));
  bool exclusive = ctx.attrInt("exclusive", 0) != 0;
  bool reverse = ctx.attrInt("reverse", 0) != 0;
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Type element = ctx.inputType(0).getElementType();
  bool isFloat = isa<FloatType>(element);
  Value zero = indexConst(b, loc, 0), rankV = indexConst(b, loc, rank);
  Value axis = countedFromEnd(b, loc, given, rankV);
  Value inside = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, axis, zero),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, axis, rankV));
  cf::AssertOp::create(b, loc, inside,
                       ctx.describe() + ": axis must lie in [-" +
                           std::to_string(rank) + ", " + std::to_string(rank) +
                           ")");
  int64_t longest = *llvm::max_element(shape);
  llvm::SmallVector<int64_t> loops(shape);
  loops.push_back(longest);
  Value init = filledTensor(b, loc, shape, element, scalarAttr(element, 0));
  Value x = ctx.input(0);
  llvm::SmallVector<utils::IteratorType> iterators(
      rank, utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  // The reduction loop's extent comes from a shape-only operand of
  // [1, ..., 1, longest] (linalg needs an operand to size each loop).
  llvm::SmallVector<int64_t> span(rank, 1);
  span.push_back(longest);
  Value extent = tensor::EmptyOp::create(b, loc, span, b.getI1Type());
  llvm::SmallVector<AffineExpr> spanExprs;
  for (int64_t d = 0; d <= rank; ++d)
    spanExprs.push_back(d == rank ? b.getAffineDimExpr(rank)
                                  : b.getAffineConstantExpr(0));
  Value result =
      linalg::GenericOp::create(
          b, loc, init.getType(), extent, init,
          llvm::ArrayRef<AffineMap>{
              AffineMap::get(rank + 1, 0, spanExprs, ctx.context()),
              AffineMap::getMultiDimIdentityMap(rank + 1, ctx.context())
                  .getMajorSubMap(rank)},
          iterators,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value j = linalg::IndexOp::create(nb, l, rank);
            Value i = indexConst(nb, l, 0), n = indexConst(nb, l, 0);
            llvm::SmallVector<Value> position;
            for (int64_t d = 0; d < rank; ++d) {
              Value here = arith::CmpIOp::create(
                  nb, l, arith::CmpIPredicate::eq, axis, indexConst(nb, l, d));
              Value id = linalg::IndexOp::create(nb, l, d);
              i = arith::SelectOp::create(nb, l, here, id, i);
              n = arith::SelectOp::create(nb, l, here,
                                          indexConst(nb, l, shape[d]), n);
              Value clamped = arith::MinSIOp::create(
                  nb, l, j, indexConst(nb, l, shape[d] - 1));
              position.push_back(
                  arith::SelectOp::create(nb, l, here, clamped, id));
            }
            arith::CmpIPredicate pred =
                reverse ? (exclusive ? arith::CmpIPredicate::sgt
                                     : arith::CmpIPredicate::sge)
                        : (exclusive ? arith::CmpIPredicate::slt
                                     : arith::CmpIPredicate::sle);
            Value take = arith::AndIOp::create(
                nb, l, arith::CmpIOp::create(nb, l, pred, j, i),
                arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, j, n));
            Value v = arith::SelectOp::create(
                nb, l, take, tensor::ExtractOp::create(nb, l, x, position),
                scalarConstant(nb, l, element, 0));
            Value sum = isFloat
                            ? Value(arith::AddFOp::create(nb, l, v, args[1]))
                            : Value(arith::AddIOp::create(nb, l, v, args[1]));
            linalg::YieldOp::create(nb, l, sum);
          })
          .getResult(0);
  ctx.setOutput(0, result, ctx.inputDType(0));
  return success();
}

LogicalResult convertCumSum(NodeContext &ctx) {
  int32_t dtype = ctx.inputDType(0);
  if (!isFloatDType(dtype) && !isIntegerDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype));
  if (std::optional<llvm::SmallVector<Value>> given =
          ctx.intsReadAtCallTime(1)) {
    if (given->size() != 1)
      return ctx.emitError() << "axis must be a scalar";
    return convertCumSumAtCallTime(ctx, given->front());
  }
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  int64_t rank = shape.size();
  FailureOr<llvm::SmallVector<int64_t>> axisV = ctx.constantInts(1, "axis");
  if (failed(axisV))
    return failure();
  if (axisV->size() != 1)
    return ctx.emitError() << "axis must be a scalar";
  FailureOr<int64_t> axis = ctx.normalizeAxis((*axisV)[0], rank);
  if (failed(axis))
    return failure();
  bool exclusive = ctx.attrInt("exclusive", 0) != 0;
  bool reverse = ctx.attrInt("reverse", 0) != 0;
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  MLIRContext *mctx = ctx.context();
  Type element = ctx.inputType(0).getElementType();
  bool isFloat = isa<FloatType>(element);
  // Loops: the output's, then j along the axis (reduced).
  llvm::SmallVector<AffineExpr> inExprs;
  for (int64_t d = 0; d < rank; ++d)
    inExprs.push_back(getAffineDimExpr(d == *axis ? rank : d, mctx));
  llvm::SmallVector<utils::IteratorType> iterators(
      rank, utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  Value init = filledTensor(b, loc, shape, element, scalarAttr(element, 0));
  int64_t ax = *axis;
  Value result =
      linalg::GenericOp::create(
          b, loc, init.getType(), ctx.input(0), init,
          llvm::ArrayRef<AffineMap>{
              AffineMap::get(rank + 1, 0, inExprs, mctx),
              AffineMap::getMultiDimIdentityMap(rank + 1, mctx)
                  .getMajorSubMap(rank)},
          iterators,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value i = linalg::IndexOp::create(nb, l, ax);
            Value j = linalg::IndexOp::create(nb, l, rank);
            arith::CmpIPredicate pred =
                reverse ? (exclusive ? arith::CmpIPredicate::sgt
                                     : arith::CmpIPredicate::sge)
                        : (exclusive ? arith::CmpIPredicate::slt
                                     : arith::CmpIPredicate::sle);
            Value take = arith::CmpIOp::create(nb, l, pred, j, i);
            Value v = arith::SelectOp::create(
                nb, l, take, args[0], scalarConstant(nb, l, element, 0));
            Value sum = isFloat
                            ? Value(arith::AddFOp::create(nb, l, v, args[1]))
                            : Value(arith::AddIOp::create(nb, l, v, args[1]));
            linalg::YieldOp::create(nb, l, sum);
          })
          .getResult(0);
  ctx.setOutput(0, result, dtype);
  return success();
}

LogicalResult convertTopK(NodeContext &ctx) {
  int32_t dtype = ctx.inputDType(0);
  if (!isFloatDType(dtype) && !isIntegerDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype));
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  int64_t rank = shape.size();
  int64_t k;
  // k given at call time (issue 19): the outputs' extent along the axis is
  // computed per call (a negative k fails the call).
  std::optional<Value> kAtCallTime;
  if (ctx.opset() < 10) {
    k = ctx.attrInt("k", -1);
  } else if (std::optional<llvm::SmallVector<OpFoldResult>> known =
                 ctx.intsKnownPerCall(1)) {
    // Read from a graph input, or computed from dynamic dimensions (a
    // detector's min(k, candidates)).
    if (known->size() != 1)
      return ctx.emitError() << "k must hold one value";
    kAtCallTime = getValueOrCreateConstantIndexOp(ctx.builder(), ctx.loc(),
                                                  known->front());
    k = 0;
  } else {
    FailureOr<llvm::SmallVector<int64_t>> kv = ctx.constantInts(1, "k");
    if (failed(kv))
      return failure();
    if (kv->size() != 1)
      return ctx.emitError() << "k must hold one value";
    k = (*kv)[0];
  }
  FailureOr<int64_t> axis = ctx.normalizeAxis(ctx.attrInt("axis", -1), rank);
  if (failed(axis))
    return failure();
  int64_t n = shape[*axis];
  if (!kAtCallTime && (k < 0 || (!ShapedType::isDynamic(n) && k > n)))
    return ctx.emitError() << "k " << k << " is not in [0, " << n << "]";
  bool largest = ctx.attrInt("largest", 1) != 0;
  bool isFloat = isFloatDType(dtype), isUnsigned = isUnsignedDType(dtype);
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  // k per call, or the extent per call, is checked per call: a k past the
  // extent would be outputs no element ranks into.
  if (kAtCallTime || ShapedType::isDynamic(n)) {
    Value extent = tensor::DimOp::create(b, loc, ctx.input(0), *axis);
    Value kValue = kAtCallTime ? *kAtCallTime : indexConst(b, loc, k);
    cf::AssertOp::create(
        b, loc,
        arith::AndIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, kValue,
                                  indexConst(b, loc, 0)),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, kValue,
                                  extent)),
        ctx.describe() + ": k is not in [0, the extent of dimension " +
            std::to_string(*axis) + "]");
  }
  MLIRContext *mctx = ctx.context();
  Type element = ctx.inputType(0).getElementType();
  Value x = ctx.input(0);
  int64_t ax = *axis;
  // rank[i] = #{l : x[l] before x[i]}, "before" meaning larger (smaller),
  // or equal at a lower index: a stable descending (ascending) order.
  llvm::SmallVector<AffineExpr> iExprs, lExprs;
  for (int64_t d = 0; d < rank; ++d) {
    iExprs.push_back(getAffineDimExpr(d, mctx));
    lExprs.push_back(getAffineDimExpr(d == ax ? rank : d, mctx));
  }
  AffineMap iMap = AffineMap::get(rank + 1, 0, iExprs, mctx);
  AffineMap lMap = AffineMap::get(rank + 1, 0, lExprs, mctx);
  llvm::SmallVector<utils::IteratorType> iterators(
      rank, utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  Value rankInit = filledTensor(b, loc, shape, b.getI64Type(),
                                b.getI64IntegerAttr(0), ValueRange{x});
  Value ranks =
      linalg::GenericOp::create(
          b, loc, rankInit.getType(), ValueRange{x, x}, rankInit,
          llvm::ArrayRef<AffineMap>{iMap, lMap, iMap}, iterators,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value xi = args[0], xl = args[1];
            Value before, equal;
            if (isFloat) {
              before =
                  arith::CmpFOp::create(nb, l,
                                        largest ? arith::CmpFPredicate::OGT
                                                : arith::CmpFPredicate::OLT,
                                        xl, xi);
              equal = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ,
                                            xl, xi);
            } else {
              auto pred = largest ? (isUnsigned ? arith::CmpIPredicate::ugt
                                                : arith::CmpIPredicate::sgt)
                                  : (isUnsigned ? arith::CmpIPredicate::ult
                                                : arith::CmpIPredicate::slt);
              before = arith::CmpIOp::create(nb, l, pred, xl, xi);
              equal = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, xl,
                                            xi);
            }
            Value earlier =
                arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt,
                                      linalg::IndexOp::create(nb, l, rank),
                                      linalg::IndexOp::create(nb, l, ax));
            Value counts = arith::OrIOp::create(
                nb, l, before, arith::AndIOp::create(nb, l, equal, earlier));
            Value one = arith::ExtUIOp::create(nb, l, nb.getI64Type(), counts);
            linalg::YieldOp::create(
                nb, l, Value(arith::AddIOp::create(nb, l, args[2], one)));
          })
          .getResult(0);
  // out[..., r, ...] = the element (and index) whose rank is r.
  llvm::SmallVector<int64_t> outShape(shape);
  outShape[ax] = kAtCallTime ? ShapedType::kDynamic : k;
  // The outputs' dynamic extents: the input's, and k's along the axis.
  llvm::SmallVector<Value> dynamicK;
  for (int64_t d = 0; d < rank; ++d)
    if (ShapedType::isDynamic(outShape[d]))
      dynamicK.push_back(d == ax ? *kAtCallTime
                                 : Value(tensor::DimOp::create(b, loc, x, d)));
  auto filled = [&](Type type, TypedAttr zero) -> Value {
    Value init = tensor::EmptyOp::create(b, loc, outShape, type, dynamicK);
    Value scalar = arith::ConstantOp::create(b, loc, zero);
    return linalg::FillOp::create(b, loc, scalar, init).getResult(0);
  };
  // The index of rank r is the one l whose rank is r: an OR over l of l
  // where it matches (every other term 0), a reduction with a neutral
  // element, so a GPU shares each output among a workgroup (a select
  // keeping the match was a thread per output, k threads looping over the
  // whole axis). The values are then gathered at the indices, bit for bit.
  Value indexInit = filled(b.getI64Type(), b.getI64IntegerAttr(0));
  Value indices =
      linalg::GenericOp::create(
          b, loc, indexInit.getType(), ValueRange{ranks}, ValueRange{indexInit},
          llvm::ArrayRef<AffineMap>{lMap, iMap}, iterators,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value r = arith::IndexCastOp::create(
                nb, l, nb.getI64Type(), linalg::IndexOp::create(nb, l, ax));
            Value hit = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                              args[0], r);
            Value at = arith::IndexCastOp::create(
                nb, l, nb.getI64Type(), linalg::IndexOp::create(nb, l, rank));
            Value term = arith::SelectOp::create(
                nb, l, hit, at,
                arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(0)));
            linalg::YieldOp::create(
                nb, l, Value(arith::OrIOp::create(nb, l, args[1], term)));
          })
          .getResult(0);
  Value valueInit =
      tensor::EmptyOp::create(b, loc, outShape, element, dynamicK);
  AffineMap outMap = b.getMultiDimIdentityMap(rank);
  Value values =
      linalg::GenericOp::create(
          b, loc, valueInit.getType(), ValueRange{indices},
          ValueRange{valueInit}, llvm::ArrayRef<AffineMap>{outMap, outMap},
          llvm::SmallVector<utils::IteratorType>(rank,
                                                 utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location l, ValueRange args) {
            llvm::SmallVector<Value> at;
            for (int64_t d = 0; d < rank; ++d)
              at.push_back(d == ax ? Value(arith::IndexCastOp::create(
                                         nb, l, nb.getIndexType(), args[0]))
                                   : Value(linalg::IndexOp::create(nb, l, d)));
            linalg::YieldOp::create(
                nb, l, Value(tensor::ExtractOp::create(nb, l, x, at)));
          })
          .getResult(0);
  ctx.setOutput(0, values, dtype);
  if (ctx.hasOutput(1))
    ctx.setOutput(1, indices, Int64);
  return success();
}

LogicalResult convertGatherND(NodeContext &ctx) {
  llvm::ArrayRef<int64_t> data = ctx.inputShape(0), idx = ctx.inputShape(1);
  int64_t batch = ctx.attrInt("batch_dims", 0);
  int64_t r = data.size(), q = idx.size();
  if (!isIntegerDType(ctx.inputDType(1)))
    return ctx.emitError() << "indices must be integers";
  // Dynamic shapes (issue 19: a detector's picks from NonZero): the index
  // depth and the batch are static; the indices' other dimensions and the
  // data's trailing ones may be `?`, and a gathered dimension of the data
  // too (an empty one fails the call).
  if (q >= 1 && (ShapedType::isDynamic(idx.back()) ||
                 llvm::any_of(idx.take_front(std::min(batch, q)),
                              ShapedType::isDynamic) ||
                 llvm::any_of(data.take_front(std::min(batch, r)),
                              ShapedType::isDynamic)))
    return ctx.unsupported("GatherND over a dynamic batch or index depth: "
                           "indices " +
                           shapeString(idx) + ", data " + shapeString(data));
  if (q < 1 || batch < 0 || batch >= std::min(r, q) || idx.back() > r - batch ||
      idx.take_front(batch) != data.take_front(batch))
    return ctx.emitError() << "indices " << shapeString(idx)
                           << " do not fit data " << shapeString(data)
                           << " with batch_dims " << batch;
  int64_t depth = idx.back();
  // out[b..., i..., rest...] = data[b..., indices[b..., i..., :], rest...].
  llvm::SmallVector<int64_t> outShape(idx.drop_back());
  llvm::append_range(outShape, data.drop_front(batch + depth));
  int64_t outRank = outShape.size(), prefix = q - 1;
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Value source = ctx.input(0), indices = ctx.input(1);
  Type element = ctx.inputType(0).getElementType();
  bool isUnsigned = isUnsignedDType(ctx.inputDType(1));
  llvm::SmallVector<Value> sizes;
  for (int64_t d = 0; d < outRank; ++d)
    if (ShapedType::isDynamic(outShape[d]))
      sizes.push_back(d < prefix
                          ? tensor::DimOp::create(b, loc, indices, d)
                          : tensor::DimOp::create(b, loc, source,
                                                  d - prefix + batch + depth));
  // The gathered dimensions' dynamic extents; one of 0 with indices to
  // read fails the call rather than read outside the data.
  llvm::SmallVector<Value> extents;
  for (int64_t t = 0; t < depth; ++t) {
    if (!ShapedType::isDynamic(data[batch + t])) {
      extents.push_back(Value());
      continue;
    }
    extents.push_back(tensor::DimOp::create(b, loc, source, batch + t));
    assertGatheredExtent(ctx, extents.back(), indices, prefix,
                         "gathers from an empty dimension " +
                             std::to_string(batch + t));
  }
  Value init = tensor::EmptyOp::create(b, loc, outShape, element, sizes);
  Value result =
      linalg::GenericOp::create(
          b, loc, init.getType(), ValueRange{}, init,
          llvm::ArrayRef<AffineMap>{b.getMultiDimIdentityMap(outRank)},
          llvm::SmallVector<utils::IteratorType>(outRank,
                                                 utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location l, ValueRange) {
            llvm::SmallVector<Value> outIndex;
            for (int64_t d = 0; d < outRank; ++d)
              outIndex.push_back(linalg::IndexOp::create(nb, l, d));
            llvm::SmallVector<Value> position(outIndex.begin(),
                                              outIndex.begin() + batch);
            for (int64_t t = 0; t < depth; ++t) {
              llvm::SmallVector<Value> at(outIndex.begin(),
                                          outIndex.begin() + prefix);
              at.push_back(indexConst(nb, l, t));
              Value v = tensor::ExtractOp::create(nb, l, indices, at);
              position.push_back(
                  ShapedType::isDynamic(data[batch + t])
                      ? clampedIndex(nb, l, v, extents[t], isUnsigned)
                      : normalizedIndex(nb, l, v, data[batch + t], isUnsigned));
            }
            position.append(outIndex.begin() + prefix, outIndex.end());
            linalg::YieldOp::create(
                nb, l,
                Value(tensor::ExtractOp::create(nb, l, source, position)));
          })
          .getResult(0);
  ctx.setOutput(0, result, ctx.inputDType(0));
  return success();
}

/// How a scatter combines an update with what is there.
FailureOr<Value> combine(NodeContext &ctx, OpBuilder &b, Location l,
                         llvm::StringRef reduction, Value old, Value update,
                         bool isUnsigned) {
  bool isFloat = isa<FloatType>(old.getType());
  if (reduction == "none")
    return update;
  if (reduction == "add")
    return isFloat ? Value(arith::AddFOp::create(b, l, old, update))
                   : Value(arith::AddIOp::create(b, l, old, update));
  if (reduction == "mul")
    return isFloat ? Value(arith::MulFOp::create(b, l, old, update))
                   : Value(arith::MulIOp::create(b, l, old, update));
  if (reduction == "max")
    return isFloat      ? Value(arith::MaximumFOp::create(b, l, old, update))
           : isUnsigned ? Value(arith::MaxUIOp::create(b, l, old, update))
                        : Value(arith::MaxSIOp::create(b, l, old, update));
  if (reduction == "min")
    return isFloat      ? Value(arith::MinimumFOp::create(b, l, old, update))
           : isUnsigned ? Value(arith::MinUIOp::create(b, l, old, update))
                        : Value(arith::MinSIOp::create(b, l, old, update));
  return failure();
}

/// What both scatters check first: data, indices and updates' element
/// types, and the reduction, which it returns.
FailureOr<std::string> scatterReduction(NodeContext &ctx) {
  if (ctx.inputDType(2) != ctx.inputDType(0))
    return ctx.emitError() << "updates and data differ in element type",
           failure();
  if (!isIntegerDType(ctx.inputDType(1)))
    return ctx.emitError() << "indices must be integers", failure();
  std::string reduction = ctx.attrString("reduction", "none");
  if (reduction != "none" && reduction != "add" && reduction != "mul" &&
      reduction != "max" && reduction != "min")
    return (void)ctx.unsupported("reduction '" + reduction + "'"), failure();
  return reduction;
}

/// ScatterND as a gather: each output element starts as the data's and
/// folds in, in order, every update slice whose target is that element's (a
/// reduction over all update slices, so quadratic: for the small scatters
/// models make).
/// ScatterND's index depth (the indices' last extent: how many leading data
/// dimensions an index names), once the shapes are checked to fit.
FailureOr<int64_t> scatterNDDepth(NodeContext &ctx) {
  llvm::ArrayRef<int64_t> data = ctx.inputShape(0), idx = ctx.inputShape(1),
                          upd = ctx.inputShape(2);
  int64_t depth = idx.empty() ? 0 : idx.back();
  if (idx.empty() || depth > static_cast<int64_t>(data.size()) ||
      upd != llvm::ArrayRef<int64_t>([&] {
        llvm::SmallVector<int64_t> s(idx.drop_back());
        llvm::append_range(s, data.drop_front(depth));
        return s;
      }()))
    return ctx.emitError() << "indices " << shapeString(idx) << " and updates "
                           << shapeString(upd) << " do not fit data "
                           << shapeString(data),
           failure();
  return depth;
}

/// A constant index along a dimension of `dim` elements, made non-negative;
/// an error naming the node where it is out of range (the converters clamp
/// at run time, where an error cannot be raised).
FailureOr<int64_t> constantIndex(NodeContext &ctx, int64_t index, int64_t dim,
                                 int64_t axis) {
  if (index < -dim || index >= dim)
    return ctx.emitError() << "index " << index
                           << " is out of range for dimension " << axis
                           << " of size " << dim,
           failure();
  return index < 0 ? index + dim : index;
}

/// The scatters evaluated at import where data, indices and updates are all
/// constants (a shifted-window attention mask, written region by region
/// into a zero tensor: a dispatch each at run time otherwise). Updates apply
/// in order, each rounded to the data's type as the run time's would be,
/// so the last one to name an element wins and reductions round per step.
class ConstantScatter {
public:
  /// Null where the node is not such a scatter, holds strings, or combines
  /// values of a type it leaves to the run time (booleans, uint64); failure
  /// after an error about its types or reduction.
  static FailureOr<std::optional<ConstantScatter>> of(NodeContext &ctx) {
    FailureOr<std::string> reduction = scatterReduction(ctx);
    if (failed(reduction))
      return failure();
    for (size_t i = 0; i < 3; ++i)
      if (!ctx.constantInput(i))
        return std::optional<ConstantScatter>();
    const HostTensor &data = *ctx.constantInput(0);
    int32_t dtype = data.dtype();
    if (data.numElements() > kMaxFoldElements ||
        ctx.constantInput(1)->numElements() > kMaxFoldElements ||
        ctx.constantInput(2)->numElements() > kMaxFoldElements ||
        !dtypeByteSize(dtype) || dtype == String ||
        (*reduction != "none" && (dtype == Bool || dtype == UInt64)))
      return std::optional<ConstantScatter>();
    return std::optional<ConstantScatter>(
        ConstantScatter(data, *ctx.constantInput(2), *reduction));
  }

  /// Combines `count` elements of the updates from flat position `from`
  /// into the result from flat position `at`.
  void apply(int64_t at, int64_t from, int64_t count) {
    if (Reduction == "none") {
      std::copy_n(Updates.bytes().data() + from * ElementBytes,
                  count * ElementBytes, Bytes.data() + at * ElementBytes);
      return;
    }
    for (int64_t i = 0; i < count; ++i) {
      if (isFloatDType(DType))
        Doubles[at + i] = roundedToDType(
            DType, combined(Doubles[at + i], Updates.doubleAt(from + i)));
      else
        Ints[at + i] = wrappedToDType(
            DType, combined(Ints[at + i], Updates.intAt(from + i)));
    }
  }

  HostTensor result() const {
    llvm::SmallVector<int64_t> shape(Shape);
    if (Reduction == "none")
      return HostTensor(DType, shape, Bytes);
    return isFloatDType(DType) ? HostTensor::fromDoubles(DType, shape, Doubles)
                               : HostTensor::fromInt64s(DType, shape, Ints);
  }

private:
  ConstantScatter(const HostTensor &data, const HostTensor &updates,
                  llvm::StringRef reduction)
      : Updates(updates), Reduction(reduction), DType(data.dtype()),
        ElementBytes(dtypeByteSize(data.dtype())), Shape(data.shape()) {
    if (reduction == "none")
      Bytes.assign(data.bytes().begin(), data.bytes().end());
    else if (isFloatDType(DType))
      Doubles = data.toDoubles();
    else
      Ints = data.toInt64s();
  }

  double combined(double old, double update) const {
    if (Reduction == "add")
      return old + update;
    if (Reduction == "mul")
      return old * update;
    // arith.maximumf and minimumf: NaN wins.
    if (std::isnan(old) || std::isnan(update))
      return std::nan("");
    return Reduction == "max" ? std::max(old, update) : std::min(old, update);
  }
  int64_t combined(int64_t old, int64_t update) const {
    // Sums and products wrap, as the run time's integers do.
    if (Reduction == "add")
      return static_cast<int64_t>(static_cast<uint64_t>(old) +
                                  static_cast<uint64_t>(update));
    if (Reduction == "mul")
      return static_cast<int64_t>(static_cast<uint64_t>(old) *
                                  static_cast<uint64_t>(update));
    return Reduction == "max" ? std::max(old, update) : std::min(old, update);
  }

  HostTensor Updates;
  std::string Reduction;
  int32_t DType;
  int64_t ElementBytes;
  llvm::SmallVector<int64_t> Shape;
  std::vector<char> Bytes;
  std::vector<double> Doubles;
  llvm::SmallVector<int64_t> Ints;
};

/// A scatter of constants evaluated at import (false where it is not
/// one): `place(scatter, indices, shape)` checks the node's shapes and
/// applies each update where its indices put it in data of `shape`.
template <typename Place>
FailureOr<bool> foldConstantScatter(NodeContext &ctx, Place place) {
  FailureOr<std::optional<ConstantScatter>> scatter = ConstantScatter::of(ctx);
  if (failed(scatter) || !*scatter)
    return failed(scatter) ? FailureOr<bool>(failure()) : false;
  if (failed(place(**scatter, *ctx.constantInput(1),
                   ctx.constantInput(0)->shape())))
    return failure();
  ctx.setOutput(0, (*scatter)->result());
  return true;
}

FailureOr<bool> foldScatterND(NodeContext &ctx) {
  return foldConstantScatter(
      ctx,
      [&](ConstantScatter &scatter, const HostTensor &indices,
          llvm::ArrayRef<int64_t> shape) -> LogicalResult {
        FailureOr<int64_t> depth = scatterNDDepth(ctx);
        if (failed(depth))
          return failure();
        int64_t slice = numElementsOf(shape.drop_front(*depth));
        // Slice u of the updates goes to the data slice its depth indices name.
        for (int64_t u = 0, e = numElementsOf(indices.shape().drop_back());
             u < e; ++u) {
          int64_t offset = 0;
          for (int64_t t = 0; t < *depth; ++t) {
            FailureOr<int64_t> at =
                constantIndex(ctx, indices.intAt(u * *depth + t), shape[t], t);
            if (failed(at))
              return failure();
            offset = offset * shape[t] + *at;
          }
          scatter.apply(offset * slice, u * slice, slice);
        }
        return success();
      });
}

LogicalResult convertScatterND(NodeContext &ctx) {
  llvm::ArrayRef<int64_t> data = ctx.inputShape(0), idx = ctx.inputShape(1);
  int64_t r = data.size();
  int32_t dtype = ctx.inputDType(0);
  FailureOr<std::string> reduction = scatterReduction(ctx);
  if (failed(reduction))
    return failure();
  // Update loops: the indices' leading dimensions, each an update slice.
  FailureOr<int64_t> checkedDepth = scatterNDDepth(ctx);
  if (failed(checkedDepth))
    return failure();
  int64_t depth = *checkedDepth;
  llvm::SmallVector<int64_t> updateLoops(idx.begin(), idx.end() - 1);
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  MLIRContext *mctx = ctx.context();
  Type element = ctx.inputType(0).getElementType();
  Value indices = ctx.input(1), updates = ctx.input(2);
  bool isUnsigned = isUnsignedDType(dtype);
  bool indexUnsigned = isUnsignedDType(ctx.inputDType(1));
  int64_t u = updateLoops.size();
  llvm::SmallVector<utils::IteratorType> iterators(
      r, utils::IteratorType::parallel);
  iterators.append(u, utils::IteratorType::reduction);
  // The data is the accumulator's starting value (a copy, read in place).
  Value init = buildElementwise(
      b, loc, ctx.input(0), data, element,
      [](OpBuilder &, Location, ValueRange a) { return a[0]; });
  LogicalResult status = success();
  // An operand spanning the update loops gives linalg their sizes.
  Value span = tensor::EmptyOp::create(b, loc, updateLoops, b.getI8Type());
  llvm::SmallVector<AffineExpr> spanExprs;
  for (int64_t d = 0; d < u; ++d)
    spanExprs.push_back(getAffineDimExpr(r + d, mctx));
  Value result =
      linalg::GenericOp::create(
          b, loc, init.getType(), span, init,
          llvm::ArrayRef<AffineMap>{
              AffineMap::get(r + u, 0, spanExprs, mctx),
              AffineMap::getMultiDimIdentityMap(r + u, mctx).getMajorSubMap(r)},
          iterators,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            llvm::SmallVector<Value> out, up;
            for (int64_t d = 0; d < r; ++d)
              out.push_back(linalg::IndexOp::create(nb, l, d));
            for (int64_t d = 0; d < u; ++d)
              up.push_back(linalg::IndexOp::create(nb, l, r + d));
            Value match, update;
            auto same = [&](Value x, Value y) {
              Value eq =
                  arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, x, y);
              match =
                  match ? Value(arith::AndIOp::create(nb, l, match, eq)) : eq;
            };
            for (int64_t t = 0; t < depth; ++t) {
              llvm::SmallVector<Value> at(up);
              at.push_back(indexConst(nb, l, t));
              Value v = tensor::ExtractOp::create(nb, l, indices, at);
              same(out[t], normalizedIndex(nb, l, v, data[t], indexUnsigned));
            }
            llvm::SmallVector<Value> at(up);
            at.append(out.begin() + depth, out.end());
            update = tensor::ExtractOp::create(nb, l, updates, at);
            Value acc = args[1];
            FailureOr<Value> combined =
                combine(ctx, nb, l, *reduction, acc, update, isUnsigned);
            if (failed(combined)) {
              status = failure();
              combined = acc;
            }
            Value v = match ? Value(arith::SelectOp::create(nb, l, match,
                                                            *combined, acc))
                            : *combined;
            linalg::YieldOp::create(nb, l, v);
          })
          .getResult(0);
  if (failed(status))
    return ctx.unsupported("reduction '" + *reduction + "'");
  ctx.setOutput(0, result, dtype);
  return success();
}

/// Where ScatterElements' indices broadcast values that vary along the axis
/// only (torchvision's merge of pooled rows expands a [k, 1, 1, 1] column of
/// row numbers over each row's elements): the broadcast's source and how it
/// is read (its results are the axis or 0).
std::optional<std::pair<Value, AffineMap>> axisOnlyIndices(Value indices,
                                                           int64_t axis) {
  auto generic = indices.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || generic.getNumReductionLoops() != 0)
    return std::nullopt;
  Block &body = generic.getRegion().front();
  if (body.getOperations().size() != 1 ||
      body.getTerminator()->getOperand(0) != body.getArgument(0) ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
           .isIdentity())
    return std::nullopt;
  AffineMap map = generic.getMatchingIndexingMap(generic.getDpsInputOperand(0));
  for (AffineExpr e : map.getResults()) {
    if (auto c = dyn_cast<AffineConstantExpr>(e); c && c.getValue() == 0)
      continue;
    auto d = dyn_cast<AffineDimExpr>(e);
    if (!d || d.getPosition() != axis)
      return std::nullopt;
  }
  return std::pair{generic.getDpsInputOperand(0)->get(), map};
}

/// ScatterElements (and opset 9's Scatter): an update can only land on
/// the output element of its own coordinates off the axis, so each output
/// element folds in, in order along the axis, the updates of its
/// coordinates whose index names its position: a reduction over the
/// updates' axis alone (torchvision's MultiScaleRoIAlign merges its levels'
/// pooled rows so: over all updates it would be rows squared times 12544).
/// Any extent may be known per call only (rois counted per call): the
/// indices must then match the updates and not pass the data off the axis,
/// checked per call.
/// ScatterElements' axis, once the shapes known here are checked to fit
/// (extents known per call only are checked by the call).
FailureOr<int64_t> scatterElementsAxis(NodeContext &ctx) {
  llvm::ArrayRef<int64_t> data = ctx.inputShape(0), idx = ctx.inputShape(1),
                          upd = ctx.inputShape(2);
  int64_t r = data.size();
  FailureOr<int64_t> axis = ctx.normalizeAxis(ctx.attrInt("axis", 0), r);
  if (failed(axis))
    return failure();
  if (static_cast<int64_t>(idx.size()) != r ||
      static_cast<int64_t>(upd.size()) != r)
    return ctx.emitError() << "indices " << shapeString(idx) << " and updates "
                           << shapeString(upd) << " must have data's rank",
           failure();
  for (int64_t d = 0; d < r; ++d) {
    bool known =
        !ShapedType::isDynamic(idx[d]) && !ShapedType::isDynamic(upd[d]);
    if ((known && idx[d] != upd[d]) ||
        (d != *axis && !ShapedType::isDynamic(upd[d]) &&
         !ShapedType::isDynamic(data[d]) && upd[d] > data[d]))
      return ctx.emitError()
                 << "indices " << shapeString(idx) << " and updates "
                 << shapeString(upd) << " must match and fit data "
                 << shapeString(data) << " off axis " << *axis,
             failure();
  }
  return axis;
}

FailureOr<bool> foldScatterElements(NodeContext &ctx) {
  return foldConstantScatter(
      ctx,
      [&](ConstantScatter &scatter, const HostTensor &indices,
          llvm::ArrayRef<int64_t> shape) -> LogicalResult {
        FailureOr<int64_t> axis = scatterElementsAxis(ctx);
        if (failed(axis))
          return failure();
        llvm::ArrayRef<int64_t> updates = indices.shape();
        // Update element i goes to its own position in the data, but with the
        // axis coordinate its index names.
        int64_t rank = shape.size();
        for (int64_t i = 0, e = indices.numElements(); i < e; ++i) {
          int64_t rest = i, offset = 0, stride = 1;
          for (int64_t d = rank - 1; d >= 0; --d) {
            int64_t coordinate = rest % updates[d];
            rest /= updates[d];
            if (d == *axis) {
              FailureOr<int64_t> at =
                  constantIndex(ctx, indices.intAt(i), shape[d], d);
              if (failed(at))
                return failure();
              coordinate = *at;
            }
            offset += coordinate * stride;
            stride *= shape[d];
          }
          scatter.apply(offset, i, 1);
        }
        return success();
      });
}

LogicalResult convertScatterElements(NodeContext &ctx) {
  llvm::ArrayRef<int64_t> data = ctx.inputShape(0), idx = ctx.inputShape(1),
                          upd = ctx.inputShape(2);
  int64_t r = data.size();
  int32_t dtype = ctx.inputDType(0);
  FailureOr<std::string> reduction = scatterReduction(ctx);
  if (failed(reduction))
    return failure();
  FailureOr<int64_t> checkedAxis = scatterElementsAxis(ctx);
  if (failed(checkedAxis))
    return failure();
  const int64_t axis = *checkedAxis;
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  MLIRContext *mctx = ctx.context();
  Value input = ctx.input(0), indices = ctx.input(1), updates = ctx.input(2);
  auto extent = [&](Value t, int64_t d) {
    return getValueOrCreateConstantIndexOp(b, loc, dimSize(b, loc, t, int(d)));
  };
  // The checks a call makes where an extent is known per call only.
  for (int64_t d = 0; d < r; ++d) {
    if (ShapedType::isDynamic(idx[d]) || ShapedType::isDynamic(upd[d]))
      cf::AssertOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                extent(indices, d), extent(updates, d)),
          "ScatterElements indices and updates must have the same shape");
    if (d != axis &&
        (ShapedType::isDynamic(upd[d]) || ShapedType::isDynamic(data[d])))
      cf::AssertOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle,
                                extent(updates, d), extent(input, d)),
          "ScatterElements updates must not be larger than the data off the "
          "axis");
  }
  // The updates' extents, and the axis's for the reduction: none where any
  // other is empty (no update, and nothing to read).
  llvm::SmallVector<Value> updExtent;
  Value anyEmpty;
  for (int64_t d = 0; d < r; ++d) {
    updExtent.push_back(extent(updates, d));
    if (d == axis)
      continue;
    Value empty =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                              updExtent.back(), indexConst(b, loc, 0));
    anyEmpty =
        anyEmpty ? Value(arith::OrIOp::create(b, loc, anyEmpty, empty)) : empty;
  }
  Value along = updExtent[axis];
  if (anyEmpty)
    along =
        arith::SelectOp::create(b, loc, anyEmpty, indexConst(b, loc, 0), along);
  Value dataAxis = extent(input, axis);
  bool isUnsigned = isUnsignedDType(dtype);
  bool indexUnsigned = isUnsignedDType(ctx.inputDType(1));
  // An operand spanning the axis of the updates gives linalg its size.
  Value span = tensor::EmptyOp::create(
      b, loc, llvm::ArrayRef<int64_t>{ShapedType::kDynamic}, b.getI8Type(),
      ValueRange{along});
  // Indices that vary along the axis only, no reduction, and updates of
  // the data's static extents off the axis: whole slices move. Each output
  // slice finds the last update slice naming it (a max over the updates'
  // axis), then every element reads that update's or the data's, from the
  // two side by side (no read of an empty updates tensor): updates' axis
  // times data's instead of times every element.
  bool slicesMatch = true;
  for (int64_t d = 0; d < r; ++d)
    slicesMatch &=
        d == axis || (!ShapedType::isDynamic(data[d]) &&
                      !ShapedType::isDynamic(upd[d]) && data[d] == upd[d]);
  std::optional<std::pair<Value, AffineMap>> rows =
      axisOnlyIndices(indices, axis);
  if (rows && slicesMatch && *reduction == "none") {
    Type i64 = b.getI64Type();
    auto [source, map] = *rows;
    Value none =
        linalg::FillOp::create(
            b, loc, ValueRange{arith::ConstantIntOp::create(b, loc, 0, 64)},
            ValueRange{tensor::EmptyOp::create(
                b, loc, llvm::ArrayRef<int64_t>{data[axis]}, i64,
                ShapedType::isDynamic(data[axis]) ? ValueRange{dataAxis}
                                                  : ValueRange{})})
            .getResult(0);
    // last[o]: one past the last update slice whose index is o, or 0.
    Value last =
        linalg::GenericOp::create(
            b, loc, none.getType(), span, none,
            llvm::ArrayRef<AffineMap>{
                AffineMap::get(2, 0, getAffineDimExpr(1, mctx)),
                AffineMap::get(2, 0, getAffineDimExpr(0, mctx))},
            llvm::ArrayRef<utils::IteratorType>{utils::IteratorType::parallel,
                                                utils::IteratorType::reduction},
            [&](OpBuilder &nb, Location l, ValueRange args) {
              Value u = linalg::IndexOp::create(nb, l, 1);
              llvm::SmallVector<Value> at;
              for (AffineExpr e : map.getResults())
                at.push_back(isa<AffineDimExpr>(e) ? u : indexConst(nb, l, 0));
              Value target = clampedIndex(
                  nb, l, tensor::ExtractOp::create(nb, l, source, at), dataAxis,
                  indexUnsigned);
              Value hit =
                  arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, target,
                                        linalg::IndexOp::create(nb, l, 0));
              Value next = arith::IndexCastOp::create(
                  nb, l, i64,
                  arith::AddIOp::create(nb, l, u, indexConst(nb, l, 1)));
              Value candidate = arith::SelectOp::create(
                  nb, l, hit, next, arith::ConstantIntOp::create(nb, l, 0, 64));
              linalg::YieldOp::create(
                  nb, l,
                  Value(arith::MaxSIOp::create(nb, l, args[1], candidate)));
            })
            .getResult(0);
    Value both =
        tensor::ConcatOp::create(b, loc, axis, ValueRange{input, updates});
    Value init =
        tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, input),
                                ctx.inputType(0).getElementType());
    Value result =
        linalg::GenericOp::create(
            b, loc, init.getType(), ValueRange{}, init,
            llvm::ArrayRef<AffineMap>{
                AffineMap::getMultiDimIdentityMap(r, mctx)},
            llvm::SmallVector<utils::IteratorType>(
                r, utils::IteratorType::parallel),
            [&](OpBuilder &nb, Location l, ValueRange) {
              llvm::SmallVector<Value> at;
              for (int64_t d = 0; d < r; ++d)
                at.push_back(linalg::IndexOp::create(nb, l, d));
              Value found = arith::IndexCastOp::create(
                  nb, l, nb.getIndexType(),
                  tensor::ExtractOp::create(nb, l, last, ValueRange{at[axis]}));
              // Update slice found - 1 sits past the data's slices.
              Value fromUpdates = arith::SubIOp::create(
                  nb, l, arith::AddIOp::create(nb, l, dataAxis, found),
                  indexConst(nb, l, 1));
              Value any =
                  arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ugt, found,
                                        indexConst(nb, l, 0));
              at[axis] =
                  arith::SelectOp::create(nb, l, any, fromUpdates, at[axis]);
              linalg::YieldOp::create(
                  nb, l, Value(tensor::ExtractOp::create(nb, l, both, at)));
            })
            .getResult(0);
    ctx.setOutput(0, result, dtype);
    return success();
  }
  llvm::SmallVector<utils::IteratorType> iterators(
      r, utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  LogicalResult status = success();
  Value result =
      linalg::GenericOp::create(
          b, loc, input.getType(), span, input,
          llvm::ArrayRef<AffineMap>{
              AffineMap::get(r + 1, 0, getAffineDimExpr(r, mctx)),
              AffineMap::getMultiDimIdentityMap(r + 1, mctx).getMajorSubMap(r)},
          iterators,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            llvm::SmallVector<Value> at;
            Value inside;
            for (int64_t d = 0; d < r; ++d) {
              Value o = linalg::IndexOp::create(nb, l, d);
              if (d == axis) {
                at.push_back(linalg::IndexOp::create(nb, l, r));
                continue;
              }
              // Outputs past the updates off the axis get none (and read
              // the updates' first element, which exists where the
              // reduction runs at all).
              Value in = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult,
                                               o, updExtent[d]);
              inside =
                  inside ? Value(arith::AndIOp::create(nb, l, inside, in)) : in;
              at.push_back(
                  arith::SelectOp::create(nb, l, in, o, indexConst(nb, l, 0)));
            }
            Value target = clampedIndex(
                nb, l, tensor::ExtractOp::create(nb, l, indices, at), dataAxis,
                indexUnsigned);
            Value match =
                arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, target,
                                      linalg::IndexOp::create(nb, l, axis));
            if (inside)
              match = arith::AndIOp::create(nb, l, match, inside);
            Value acc = args[1];
            FailureOr<Value> combined = combine(
                ctx, nb, l, *reduction, acc,
                tensor::ExtractOp::create(nb, l, updates, at), isUnsigned);
            if (failed(combined)) {
              status = failure();
              combined = acc;
            }
            linalg::YieldOp::create(
                nb, l,
                Value(arith::SelectOp::create(nb, l, match, *combined, acc)));
          })
          .getResult(0);
  if (failed(status))
    return ctx.unsupported("reduction '" + *reduction + "'");
  ctx.setOutput(0, result, dtype);
  return success();
}

/// out[.., t, ..] = x[.., len[b] - 1 - t, ..] for t < len[b] (its batch
/// entry's length), else x itself: a gather along the time axis whose
/// index comes from the run-time lengths (clamped into [0, time]).
LogicalResult convertReverseSequence(NodeContext &ctx) {
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  int64_t rank = shape.size();
  if (rank < 2)
    return ctx.emitError() << "input " << shapeString(shape)
                           << " has fewer than 2 dimensions";
  int64_t batchAxis = ctx.attrInt("batch_axis", 1);
  int64_t timeAxis = ctx.attrInt("time_axis", 0);
  if (ctx.failedAttributes())
    return failure();
  if ((batchAxis != 0 && batchAxis != 1) || (timeAxis != 0 && timeAxis != 1) ||
      batchAxis == timeAxis)
    return ctx.emitError() << "batch_axis " << batchAxis << " and time_axis "
                           << timeAxis << " must be 0 and 1 in some order";
  if (!isIntegerDType(ctx.inputDType(1)))
    return ctx.emitError() << "sequence_lens must be integers";
  if (ctx.inputShape(1) != llvm::ArrayRef<int64_t>{shape[batchAxis]})
    return ctx.emitError() << "sequence_lens " << shapeString(ctx.inputShape(1))
                           << " is not [" << shape[batchAxis] << "]";
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Value source = ctx.input(0);
  Type element = ctx.inputType(0).getElementType();
  Value init = tensor::EmptyOp::create(b, loc, shape, element);
  int64_t time = shape[timeAxis];
  bool isUnsigned = isUnsignedDType(ctx.inputDType(1));
  Value result =
      linalg::GenericOp::create(
          b, loc, init.getType(), ctx.input(1), init,
          llvm::ArrayRef<AffineMap>{
              AffineMap::get(rank, 0, b.getAffineDimExpr(batchAxis)),
              b.getMultiDimIdentityMap(rank)},
          llvm::SmallVector<utils::IteratorType>(rank,
                                                 utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value len = isUnsigned ? Value(arith::IndexCastUIOp::create(
                                         nb, l, nb.getIndexType(), args[0]))
                                   : Value(arith::IndexCastOp::create(
                                         nb, l, nb.getIndexType(), args[0]));
            len = arith::MaxSIOp::create(nb, l, len, indexConst(nb, l, 0));
            len = arith::MinSIOp::create(nb, l, len, indexConst(nb, l, time));
            llvm::SmallVector<Value> position;
            for (int64_t d = 0; d < rank; ++d)
              position.push_back(linalg::IndexOp::create(nb, l, d));
            Value t = position[timeAxis];
            Value reversed = arith::SubIOp::create(
                nb, l, arith::SubIOp::create(nb, l, len, indexConst(nb, l, 1)),
                t);
            Value inside =
                arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, t, len);
            position[timeAxis] =
                arith::SelectOp::create(nb, l, inside, reversed, t);
            linalg::YieldOp::create(
                nb, l,
                Value(tensor::ExtractOp::create(nb, l, source, position)));
          })
          .getResult(0);
  ctx.setOutput(0, result, ctx.inputDType(0));
  return success();
}

} // namespace

void registerIndexingOps(OpRegistry &registry) {
  registry.add("GatherElements", convertGatherElements);
  registry.add("OneHot", convertOneHot);
  registry.add("Trilu", convertTrilu);
  // Elementwise over the indices (emitElementwise): dynamic dimensions too
  // (a prefill's causal mask over its tokens, issue 19); k stays constant.
  registry.acceptDynamicShapes(
      {"Trilu", "GatherND", "TopK", "ScatterElements", "Scatter"});
  registry.add("CumSum", convertCumSum);
  registry.add("TopK", convertTopK);
  registry.add("ReverseSequence", convertReverseSequence);
  registry.add("GatherND", convertGatherND);
  registry.add("ScatterElements", convertScatterElements);
  // Scatter (opsets 9 and 10) is ScatterElements under its older name.
  registry.add("Scatter", convertScatterElements);
  registry.add("ScatterND", convertScatterND);
  registry.addFolder("ScatterElements", foldScatterElements);
  registry.addFolder("Scatter", foldScatterElements);
  registry.addFolder("ScatterND", foldScatterND);
}

} // namespace kiln::onnx_import
