//===- Selection.cpp - ONNX Compress, NonZero and Unique ------------------===//
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
// computed inside the model is counted by a kernel and the count read on
// the host, which splits the function into phases (compiler/host/Phases.h):
// the kernels placing the chosen elements run in the next one. Unique
// chooses the first of each set of equal slices the same way: kernels
// compare every slice with every other (their first difference), mark the
// first of each value and its place among them, and the host reads how
// many there are.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ops/Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <array>
#include <limits>

using namespace mlir;

namespace kiln::onnx_import {
namespace {

constexpr utils::IteratorType kParallel = utils::IteratorType::parallel;
constexpr utils::IteratorType kReduction = utils::IteratorType::reduction;

Value i64Constant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(value));
}

/// A tensor of `shape` (static) and `element` filled with `value`.
Value filled(OpBuilder &b, Location loc, llvm::ArrayRef<int64_t> shape,
             Type element, Value value) {
  return linalg::FillOp::create(
             b, loc, ValueRange{value},
             ValueRange{tensor::EmptyOp::create(b, loc, shape, element)})
      .getResult(0);
}

/// A generic over `iterators.size()` loops writing `init` (its map `outMap`)
/// from `inputs` (their maps `inMaps`), the body given.
Value generic(OpBuilder &b, Location loc, ValueRange inputs,
              llvm::ArrayRef<AffineMap> inMaps, Value init, AffineMap outMap,
              llvm::ArrayRef<utils::IteratorType> iterators,
              function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  llvm::SmallVector<AffineMap> maps(inMaps);
  maps.push_back(outMap);
  return linalg::GenericOp::create(
             b, loc, init.getType(), inputs, ValueRange{init}, maps, iterators,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l, body(nb, l, args));
             })
      .getResult(0);
}

/// The most condition elements the host counts per call (two shape nodes
/// each) and the kernels scan per output element.
constexpr int64_t kMaxConditionElements = 4096;

/// The bool input `i` flattened, with its true elements counted per call
/// on the host (a graph input) or by a kernel whose count the host reads
/// (a computed condition); failure after an error (or "unsupported").
struct Condition {
  Value Flat;  // tensor<n x i1>, or of i8 flags (asBool)
  Value Count; // index, on the host
  int64_t Length = 0;
};

/// A flag as a bool: an i1, or an i8 of 0 or 1 (NonMaxSuppression keeps
/// its flags in bytes, as buffers hold booleans anyway: no conversion
/// around each of its steps' kernels).
Value asBool(OpBuilder &b, Location loc, Value flag) {
  if (flag.getType().isInteger(1))
    return flag;
  return arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ne, flag,
      arith::ConstantOp::create(b, loc, b.getIntegerAttr(flag.getType(), 0)));
}

/// How many elements of `flat` (bool [n]) are true, counted by a kernel and
/// read on the host as an index.
Value countOnDevice(OpBuilder &b, Location loc, Value flat) {
  MLIRContext *mctx = b.getContext();
  Type i64 = b.getI64Type();
  Value init = filled(b, loc, {}, i64, i64Constant(b, loc, 0));
  Value count =
      linalg::GenericOp::create(
          b, loc, init.getType(), ValueRange{flat}, ValueRange{init},
          llvm::ArrayRef<AffineMap>{
              AffineMap::get(1, 0, getAffineDimExpr(0, mctx)),
              AffineMap::get(1, 0, mctx)},
          llvm::ArrayRef<utils::IteratorType>{utils::IteratorType::reduction},
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value one = arith::ExtUIOp::create(nb, l, i64, args[0]);
            linalg::YieldOp::create(
                nb, l, Value(arith::AddIOp::create(nb, l, args[1], one)));
          })
          .getResult(0);
  Value read = tensor::ExtractOp::create(b, loc, count, ValueRange{});
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), read);
}

FailureOr<Condition> readCondition(NodeContext &ctx, size_t i) {
  if (ctx.inputDType(i) != Bool)
    return ctx.emitError() << "condition must be bool, not "
                           << dtypeName(ctx.inputDType(i)) << " "
                           << shapeString(ctx.inputShape(i)),
           failure();
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Condition c;
  // Of a shape known per call (issue 19): as byte flags (buffers hold
  // booleans as bytes; a kernel converting a whole i1 tensor of dynamic
  // shape would need a temporary), flattened, counted by a kernel, its
  // length checked per call.
  if (!ctx.inputType(i).hasStaticShape()) {
    Value x = ctx.input(i);
    auto type = cast<RankedTensorType>(x.getType());
    Type i8 = b.getI8Type();
    Value bytes = buildElementwise(
        b, loc, ValueRange{x}, type.getShape(), i8,
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          return arith::ExtUIOp::create(nb, l, i8, args[0]);
        });
    ReassociationIndices all;
    for (int64_t d = 0; d < type.getRank(); ++d)
      all.push_back(d);
    c.Length = ShapedType::kDynamic;
    c.Flat = tensor::CollapseShapeOp::create(
        b, loc, bytes, llvm::ArrayRef<ReassociationIndices>{all});
    Value n = tensor::DimOp::create(b, loc, c.Flat, 0);
    Value fits = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::sle, n,
        arith::ConstantIndexOp::create(b, loc, kMaxConditionElements));
    cf::AssertOp::create(b, loc, fits,
                         (ctx.opType() + " condition must have at most " +
                          std::to_string(kMaxConditionElements) + " elements")
                             .str());
    c.Count = countOnDevice(b, loc, c.Flat);
    return c;
  }
  int64_t n = ctx.inputType(i).getNumElements();
  if (n > kMaxConditionElements)
    return (void)ctx.unsupported("condition of " + std::to_string(n) +
                                 " elements (at most " +
                                 std::to_string(kMaxConditionElements) +
                                 " are counted per call)"),
           failure();
  c.Length = n;
  c.Flat = reshapeTo(b, loc, ctx.input(i), {n});
  if (!ctx.isGraphInput(i)) {
    c.Count = countOnDevice(b, loc, c.Flat);
    return c;
  }
  // Read from the argument itself: one read per element, no kernel.
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
      ShapedType::isDynamic(n)
          ? linalg::FillOp::create(
                b, loc, ValueRange{i64Constant(b, loc, 0)},
                ValueRange{tensor::EmptyOp::create(
                    b, loc, llvm::ArrayRef<int64_t>{n}, i64,
                    ValueRange{tensor::DimOp::create(b, loc, flat, 0)})})
                .getResult(0)
          : filled(b, loc, {n}, i64, i64Constant(b, loc, 0));
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
               Value counts =
                   arith::AndIOp::create(nb, l, before, asBool(nb, l, args[0]));
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
               value,
           llvm::ArrayRef<Value> sizes = {}) {
  MLIRContext *mctx = b.getContext();
  int64_t rank = outShape.size();
  Value flat = c.Flat, positions = prefix;
  // The chosen dimension's extent is the count; another dynamic one's is
  // given in `sizes` (by dimension).
  llvm::SmallVector<Value> dynamicSizes;
  for (int64_t d = 0; d < rank; ++d)
    if (ShapedType::isDynamic(outShape[d]))
      dynamicSizes.push_back(d == pickDim ? c.Count : sizes[d]);
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
                   nb, l, asBool(nb, l, args[0]),
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
  // A dimension known per call is a host index the kernel takes (its
  // strides computed from them in the body).
  llvm::SmallVector<Value> dims(rank);
  for (int64_t d = 0; d < rank; ++d)
    if (ShapedType::isDynamic(shape[d]))
      dims[d] = tensor::DimOp::create(b, loc, ctx.input(0), d);
  // Output [rank, count]: row r holds coordinate r of each chosen element.
  Value result = pick(
      b, loc, *c, prefix, {rank, ShapedType::kDynamic}, 1, b.getI64Type(),
      [&](OpBuilder &nb, Location l, Value i, llvm::ArrayRef<Value> index) {
        Value coordinate =
            arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(0));
        int64_t stride = 1;
        Value strideValue; // once a dimension is known per call
        for (int64_t d = rank - 1; d >= 0; --d) {
          Value extent =
              dims[d] ? dims[d]
                      : Value(arith::ConstantIndexOp::create(nb, l, shape[d]));
          Value by = strideValue
                         ? strideValue
                         : Value(arith::ConstantIndexOp::create(nb, l, stride));
          Value along = arith::RemUIOp::create(
              nb, l, arith::DivUIOp::create(nb, l, i, by), extent);
          Value isRow =
              arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, index[0],
                                    arith::ConstantIndexOp::create(nb, l, d));
          coordinate = arith::SelectOp::create(
              nb, l, isRow,
              arith::IndexCastOp::create(nb, l, nb.getI64Type(), along),
              coordinate);
          if (strideValue || dims[d])
            strideValue = arith::MulIOp::create(nb, l, by, extent);
          else
            stride *= shape[d];
        }
        return coordinate;
      });
  ctx.setOutput(0, result, Int64);
  return success();
}

LogicalResult convertCompress(NodeContext &ctx) {
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
  } else if (ctx.inputType(0).hasStaticShape()) {
    xShape = {numElementsOf(shape)};
    x = reshapeTo(b, loc, x, xShape);
  } else {
    ReassociationIndices all;
    for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
      all.push_back(d);
    xShape = {ShapedType::kDynamic};
    x = tensor::CollapseShapeOp::create(
        b, loc, x, llvm::ArrayRef<ReassociationIndices>{all});
  }
  if (!ShapedType::isDynamic(c->Length) &&
      !ShapedType::isDynamic(xShape[axis])) {
    if (c->Length > xShape[axis])
      return ctx.emitError()
             << "condition of " << c->Length << " elements is longer than axis "
             << axis << " of " << shapeString(xShape);
  } else {
    // Lengths known per call: checked per call.
    Value length = tensor::DimOp::create(b, loc, c->Flat, 0);
    Value extent = tensor::DimOp::create(b, loc, x, axis);
    cf::AssertOp::create(b, loc,
                         arith::CmpIOp::create(
                             b, loc, arith::CmpIPredicate::sle, length, extent),
                         "Compress condition must be no longer than axis " +
                             std::to_string(axis) + " of its input");
  }
  llvm::SmallVector<int64_t> outShape(xShape);
  outShape[axis] = ShapedType::kDynamic;
  // The input's other extents known per call, by dimension.
  llvm::SmallVector<Value> sizes(xShape.size());
  for (size_t d = 0; d < xShape.size(); ++d)
    if (ShapedType::isDynamic(xShape[d]) && static_cast<int64_t>(d) != axis)
      sizes[d] = tensor::DimOp::create(b, loc, x, d);
  Value prefix = prefixCount(b, loc, c->Flat, c->Length);
  Type element = ctx.inputType(0).getElementType();
  Value result = pick(
      b, loc, *c, prefix, outShape, axis, element,
      [&](OpBuilder &nb, Location l, Value i, llvm::ArrayRef<Value> index) {
        llvm::SmallVector<Value> position(index);
        position[axis] = i;
        return Value(tensor::ExtractOp::create(nb, l, x, position));
      },
      sizes);
  ctx.setOutput(0, result, ctx.inputDType(0));
  return success();
}

/// The most slice comparisons Unique makes (slices squared times a slice's
/// elements): its kernels compare every slice with every other.
constexpr int64_t kMaxUniqueComparisons = int64_t(1) << 28;

LogicalResult convertUnique(NodeContext &ctx) {
  if (!ctx.inputType(0).hasStaticShape())
    return ctx.unsupported("an input of dynamic shape");
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  int64_t rank = shape.size();
  bool sorted = ctx.attrInt("sorted", 1) != 0;
  // Without an axis the input is flattened: slices are its elements.
  std::optional<int64_t> axis;
  if (ctx.hasAttr("axis")) {
    FailureOr<int64_t> a = ctx.normalizeAxis(ctx.attrInt("axis", 0), rank);
    if (failed(a))
      return failure();
    axis = *a;
  }
  int64_t total = numElementsOf(shape);
  int64_t n = axis ? shape[*axis] : total;
  int64_t outer = 1, inner = 1;
  if (axis) {
    for (int64_t d = 0; d < *axis; ++d)
      outer *= shape[d];
    for (int64_t d = *axis + 1; d < rank; ++d)
      inner *= shape[d];
  }
  if (n > kMaxConditionElements ||
      n * n > kMaxUniqueComparisons / std::max<int64_t>(outer * inner, 1))
    return ctx.unsupported("Unique of " + std::to_string(n) + " slices of " +
                           std::to_string(outer * inner) +
                           " elements (each is compared with every other; at "
                           "most " +
                           std::to_string(kMaxConditionElements) + " slices)");
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  MLIRContext *mctx = b.getContext();
  Type i64 = b.getI64Type();
  Type element = ctx.inputType(0).getElementType();
  bool isFloat = isa<FloatType>(element);
  auto d = [&](unsigned i) { return getAffineDimExpr(i, mctx); };
  const auto par = kParallel, red = kReduction;
  const auto cst = i64Constant;
  auto idx = [&](OpBuilder &nb, Location l, unsigned dim) -> Value {
    return arith::IndexCastOp::create(nb, l, nb.getI64Type(),
                                      linalg::IndexOp::create(nb, l, dim));
  };
  // Slice k is x[o, k, i].
  Value x = reshapeTo(b, loc, ctx.input(0), {outer, n, inner});
  // order[j, k]: how slice j compares with slice k, as the least of
  // 3 p + 1 (j's element p is less) and 3 p + 2 (greater) over the
  // elements p where they differ, kEqual where none does. A least value
  // is the first difference whatever order the reduction takes.
  constexpr int64_t kEqual = std::numeric_limits<int64_t>::max();
  Value order = generic(
      b, loc, ValueRange{x, x},
      {AffineMap::get(4, 0, {d(2), d(0), d(3)}, mctx),
       AffineMap::get(4, 0, {d(2), d(1), d(3)}, mctx)},
      filled(b, loc, {n, n}, i64, cst(b, loc, kEqual)),
      AffineMap::get(4, 0, {d(0), d(1)}, mctx), {par, par, red, red},
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value less, greater;
        if (isFloat) {
          less = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OLT,
                                       args[0], args[1]);
          greater = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT,
                                          args[0], args[1]);
        } else {
          less = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt,
                                       args[0], args[1]);
          greater = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sgt,
                                          args[0], args[1]);
        }
        Value p = arith::AddIOp::create(
            nb, l,
            arith::MulIOp::create(nb, l, idx(nb, l, 2), cst(nb, l, inner)),
            idx(nb, l, 3));
        Value at = arith::MulIOp::create(nb, l, p, cst(nb, l, 3));
        Value code = arith::SelectOp::create(
            nb, l, less, arith::AddIOp::create(nb, l, at, cst(nb, l, 1)),
            arith::SelectOp::create(
                nb, l, greater, arith::AddIOp::create(nb, l, at, cst(nb, l, 2)),
                cst(nb, l, kEqual)));
        return arith::MinSIOp::create(nb, l, args[2], code);
      });
  // first[k]: no slice before k equals it. firstAt[k]: the first slice
  // equal to k.
  AffineMap jk = AffineMap::get(2, 0, {d(1), d(0)}, mctx);
  AffineMap k1 = AffineMap::get(2, 0, {d(0)}, mctx);
  AffineMap j1 = AffineMap::get(2, 0, {d(1)}, mctx);
  Value first = generic(
      b, loc, ValueRange{order}, {jk},
      filled(b, loc, {n}, b.getI1Type(),
             arith::ConstantOp::create(b, loc, b.getBoolAttr(true))),
      k1, {par, red}, [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value before = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt,
                                             idx(nb, l, 1), idx(nb, l, 0));
        Value equal = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                            args[0], cst(nb, l, kEqual));
        Value repeats = arith::AndIOp::create(nb, l, before, equal);
        return arith::AndIOp::create(
            nb, l, args[1],
            arith::XOrIOp::create(
                nb, l, repeats,
                arith::ConstantOp::create(nb, l, nb.getBoolAttr(true))));
      });
  Value firstAt = generic(
      b, loc, ValueRange{order}, {jk}, filled(b, loc, {n}, i64, cst(b, loc, n)),
      k1, {par, red}, [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value equal = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                            args[0], cst(nb, l, kEqual));
        return arith::MinSIOp::create(nb, l, args[1],
                                      arith::SelectOp::create(nb, l, equal,
                                                              idx(nb, l, 1),
                                                              cst(nb, l, n)));
      });
  // inverse[k]: the place of k's value among the unique ones: how many
  // first slices come before it, in value order (sorted) or in order of
  // first appearance.
  Value inverse = generic(
      b, loc, ValueRange{first, order, firstAt}, {j1, jk, k1},
      filled(b, loc, {n}, i64, cst(b, loc, 0)), k1, {par, red},
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value before;
        if (sorted) {
          Value rem = arith::RemSIOp::create(nb, l, args[1], cst(nb, l, 3));
          Value differs = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ne,
                                                args[1], cst(nb, l, kEqual));
          before = arith::AndIOp::create(
              nb, l, differs,
              arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, rem,
                                    cst(nb, l, 1)));
        } else {
          before = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt,
                                         idx(nb, l, 1), args[2]);
        }
        Value counts = arith::AndIOp::create(nb, l, args[0], before);
        return arith::AddIOp::create(
            nb, l, args[3], arith::ExtUIOp::create(nb, l, i64, counts));
      });
  Condition c;
  c.Flat = first;
  c.Length = n;
  c.Count = countOnDevice(b, loc, first);
  // Y: the first slices, each at its place.
  if (ctx.hasOutput(0)) {
    llvm::SmallVector<int64_t> outShape =
        axis ? llvm::SmallVector<int64_t>(shape)
             : llvm::SmallVector<int64_t>{n};
    int64_t at = axis.value_or(0);
    outShape[at] = ShapedType::kDynamic;
    Value source = ctx.input(0);
    if (!axis)
      source = reshapeTo(b, loc, source, {n});
    Value y = pick(
        b, loc, c, inverse, outShape, at, element,
        [&](OpBuilder &nb, Location l, Value i, llvm::ArrayRef<Value> index) {
          llvm::SmallVector<Value> position(index);
          position[at] = i;
          return Value(tensor::ExtractOp::create(nb, l, source, position));
        });
    ctx.setOutput(0, y, ctx.inputDType(0));
  }
  // indices: where each first slice is.
  if (ctx.hasOutput(1))
    ctx.setOutput(
        1,
        pick(b, loc, c, inverse, {ShapedType::kDynamic}, 0, i64,
             [&](OpBuilder &nb, Location l, Value i, llvm::ArrayRef<Value>) {
               return Value(
                   arith::IndexCastOp::create(nb, l, nb.getI64Type(), i));
             }),
        Int64);
  if (ctx.hasOutput(2))
    ctx.setOutput(2, inverse, Int64);
  // counts: how many slices have each place.
  if (ctx.hasOutput(3)) {
    Value empty = tensor::EmptyOp::create(
        b, loc, llvm::ArrayRef<int64_t>{ShapedType::kDynamic}, i64,
        ValueRange{c.Count});
    Value zeros = linalg::FillOp::create(b, loc, ValueRange{cst(b, loc, 0)},
                                         ValueRange{empty})
                      .getResult(0);
    Value counts =
        generic(b, loc, ValueRange{inverse}, {j1}, zeros, k1, {par, red},
                [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
                  Value here = arith::CmpIOp::create(
                      nb, l, arith::CmpIPredicate::eq, args[0], idx(nb, l, 0));
                  return arith::AddIOp::create(
                      nb, l, args[1], arith::ExtUIOp::create(nb, l, i64, here));
                });
    ctx.setOutput(3, counts, Int64);
  }
  return success();
}

/// The most boxes NonMaxSuppression takes per batch and class: it decides
/// them one at a time, two small kernels each.
constexpr int64_t kMaxSuppressedBoxes = 512;
/// The most boxes over all batches and classes: each output row is picked
/// from all of them.
constexpr int64_t kMaxSuppressionCandidates = 65536;

/// Element 0 of `t` (an optional input of one element, null where the
/// node leaves it out) read inside a kernel body, or `absent`.
Value scalarInput(OpBuilder &nb, Location l, Value t, Value absent) {
  if (!t)
    return absent;
  llvm::SmallVector<Value> zeros(cast<RankedTensorType>(t.getType()).getRank(),
                                 arith::ConstantIndexOp::create(nb, l, 0));
  return tensor::ExtractOp::create(nb, l, t, zeros);
}

LogicalResult convertNonMaxSuppression(NodeContext &ctx) {
  for (size_t i = 0; i < ctx.numInputs(); ++i)
    if (ctx.hasInput(i) && !ctx.inputType(i).hasStaticShape())
      return ctx.unsupported("an input of dynamic shape");
  llvm::ArrayRef<int64_t> boxShape = ctx.inputShape(0);
  llvm::ArrayRef<int64_t> scoreShape = ctx.inputShape(1);
  if (boxShape.size() != 3 || boxShape[2] != 4 || scoreShape.size() != 3 ||
      scoreShape[0] != boxShape[0] || scoreShape[2] != boxShape[1])
    return ctx.emitError() << "boxes must be [batches, boxes, 4] and scores "
                              "[batches, classes, boxes], not "
                           << shapeString(boxShape) << " and "
                           << shapeString(scoreShape);
  for (size_t i = 2; i < 5; ++i)
    if (ctx.hasInput(i) && ctx.inputType(i).getNumElements() != 1)
      return ctx.emitError() << "input " << i << " must hold one value, not "
                             << shapeString(ctx.inputShape(i));
  if (ctx.inputDType(0) != Float || ctx.inputDType(1) != Float ||
      (ctx.hasInput(2) && ctx.inputDType(2) != Int64) ||
      (ctx.hasInput(3) && ctx.inputDType(3) != Float) ||
      (ctx.hasInput(4) && ctx.inputDType(4) != Float))
    return ctx.unsupported("inputs other than float boxes, scores and "
                           "thresholds and an int64 count");
  int64_t corners = ctx.attrInt("center_point_box", 0);
  if (corners != 0 && corners != 1)
    return ctx.emitError() << "center_point_box must be 0 or 1, not "
                           << corners;
  const int64_t B = boxShape[0], C = scoreShape[1], N = boxShape[1];
  if (N > kMaxSuppressedBoxes)
    return ctx.unsupported(std::to_string(N) +
                           " boxes (boxes are decided one at a time; at most " +
                           std::to_string(kMaxSuppressedBoxes) + ")");
  // The output picks each kept box from all of them.
  if (B * C * N > kMaxSuppressionCandidates)
    return ctx.unsupported(std::to_string(B * C * N) +
                           " boxes over all batches and classes (at most " +
                           std::to_string(kMaxSuppressionCandidates) + ")");
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  MLIRContext *mctx = b.getContext();
  Type i64 = b.getI64Type(), i8 = b.getI8Type();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, mctx); };
  const auto par = kParallel, red = kReduction;
  const auto cst = i64Constant;
  auto idx = [&](OpBuilder &nb, Location l, unsigned dim) -> Value {
    return linalg::IndexOp::create(nb, l, dim);
  };
  auto toIndex = [](OpBuilder &nb, Location l, Value v) -> Value {
    return arith::IndexCastOp::create(nb, l, nb.getIndexType(), v);
  };
  // No box, class or batch: nothing is kept.
  if (B * C * N == 0) {
    auto type = RankedTensorType::get({0, 3}, i64);
    ctx.setOutput(
        0,
        arith::ConstantOp::create(
            b, loc, DenseElementsAttr::get(type, ArrayRef<int64_t>{})),
        Int64);
    return success();
  }
  Value boxes = ctx.input(0), scores = ctx.input(1);
  // The optional scalars, made values here: a constant input materializes
  // where it is first asked for, which must not be inside a kernel body.
  std::array<Value, 5> given;
  for (size_t i = 2; i < 5; ++i)
    if (ctx.hasInput(i))
      given[i] = ctx.input(i);
  // A box's candidacy: its score above the threshold, where one is given.
  Value valid = generic(
      b, loc, ValueRange{scores}, {AffineMap::getMultiDimIdentityMap(3, mctx)},
      tensor::EmptyOp::create(b, loc, {B, C, N}, i8),
      AffineMap::getMultiDimIdentityMap(3, mctx), {par, par, par},
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        if (!given[4])
          return arith::ConstantOp::create(nb, l, nb.getI8IntegerAttr(1));
        return arith::ExtUIOp::create(
            nb, l, i8,
            arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT, args[0],
                                  scalarInput(nb, l, given[4], Value())));
      });
  // rank[b, c, i]: the boxes before box i, higher scores first and the
  // lower index first among equal ones.
  Value rank = generic(
      b, loc, ValueRange{scores, scores},
      {AffineMap::get(4, 0, {d(0), d(1), d(3)}, mctx),
       AffineMap::get(4, 0, {d(0), d(1), d(2)}, mctx)},
      filled(b, loc, {B, C, N}, i64, cst(b, loc, 0)),
      AffineMap::get(4, 0, {d(0), d(1), d(2)}, mctx), {par, par, par, red},
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value higher = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT,
                                             args[0], args[1]);
        Value tie = arith::AndIOp::create(
            nb, l,
            arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ, args[0],
                                  args[1]),
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult,
                                  idx(nb, l, 3), idx(nb, l, 2)));
        Value before = arith::OrIOp::create(nb, l, higher, tie);
        return arith::AddIOp::create(
            nb, l, args[2], arith::ExtUIOp::create(nb, l, i64, before));
      });
  // order[b, c, k]: the box of rank k.
  Value order = generic(
      b, loc, ValueRange{rank},
      {AffineMap::get(4, 0, {d(0), d(1), d(3)}, mctx)},
      filled(b, loc, {B, C, N}, i64, cst(b, loc, 0)),
      AffineMap::get(4, 0, {d(0), d(1), d(2)}, mctx), {par, par, par, red},
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value here = arith::CmpIOp::create(
            nb, l, arith::CmpIPredicate::eq, args[0],
            arith::IndexCastOp::create(nb, l, i64, idx(nb, l, 2)));
        return arith::SelectOp::create(
            nb, l, here, arith::IndexCastOp::create(nb, l, i64, idx(nb, l, 3)),
            args[1]);
      });
  // A box's corners (x0, x1, y0, y1), each pair ordered.
  auto cornersOf = [&](OpBuilder &nb, Location l, Value batch, Value box) {
    auto at = [&](int64_t coordinate) -> Value {
      return tensor::ExtractOp::create(
          nb, l, boxes,
          ValueRange{batch, box,
                     arith::ConstantIndexOp::create(nb, l, coordinate)});
    };
    std::array<Value, 4> c;
    if (corners == 0) {
      // [y1, x1, y2, x2], any diagonal pair.
      c = {arith::MinimumFOp::create(nb, l, at(1), at(3)),
           arith::MaximumFOp::create(nb, l, at(1), at(3)),
           arith::MinimumFOp::create(nb, l, at(0), at(2)),
           arith::MaximumFOp::create(nb, l, at(0), at(2))};
    } else {
      // [x_center, y_center, width, height].
      Value half = arith::ConstantOp::create(nb, l, nb.getF32FloatAttr(0.5f));
      Value w = arith::MulFOp::create(nb, l, at(2), half);
      Value h = arith::MulFOp::create(nb, l, at(3), half);
      c = {arith::SubFOp::create(nb, l, at(0), w),
           arith::AddFOp::create(nb, l, at(0), w),
           arith::SubFOp::create(nb, l, at(1), h),
           arith::AddFOp::create(nb, l, at(1), h)};
    }
    return c;
  };
  // Whether two boxes overlap by more than the threshold (ONNX's test: an
  // empty intersection, box or union never does).
  auto suppresses = [&](OpBuilder &nb, Location l, std::array<Value, 4> p,
                        std::array<Value, 4> q) -> Value {
    using P = arith::CmpFPredicate;
    Value zero = arith::ConstantOp::create(nb, l, nb.getF32FloatAttr(0.0f));
    Value x0 = arith::MaximumFOp::create(nb, l, p[0], q[0]);
    Value x1 = arith::MinimumFOp::create(nb, l, p[1], q[1]);
    Value y0 = arith::MaximumFOp::create(nb, l, p[2], q[2]);
    Value y1 = arith::MinimumFOp::create(nb, l, p[3], q[3]);
    Value inter =
        arith::MulFOp::create(nb, l, arith::SubFOp::create(nb, l, x1, x0),
                              arith::SubFOp::create(nb, l, y1, y0));
    auto area = [&](std::array<Value, 4> r) -> Value {
      return arith::MulFOp::create(nb, l,
                                   arith::SubFOp::create(nb, l, r[1], r[0]),
                                   arith::SubFOp::create(nb, l, r[3], r[2]));
    };
    Value a = area(p), c2 = area(q);
    Value uni = arith::SubFOp::create(
        nb, l, arith::AddFOp::create(nb, l, a, c2), inter);
    Value ok = arith::CmpFOp::create(nb, l, P::OGT, x1, x0);
    for (auto [lhs, rhs] :
         {std::pair{y1, y0}, std::pair{inter, zero}, std::pair{a, zero},
          std::pair{c2, zero}, std::pair{uni, zero}})
      ok = arith::AndIOp::create(
          nb, l, ok, arith::CmpFOp::create(nb, l, P::OGT, lhs, rhs));
    Value iou = arith::DivFOp::create(nb, l, inter, uni);
    Value threshold = scalarInput(nb, l, given[3], zero);
    return arith::AndIOp::create(
        nb, l, ok, arith::CmpFOp::create(nb, l, P::OGT, iou, threshold));
  };
  // The boxes decided in rank order. state[b, c, p] for the box of rank
  // p: bit 1 once it is kept, bit 0 once a kept one overlaps it too much.
  // Step k decides rank k (a candidate, not suppressed, fewer than the
  // limit kept so far) in every thread that needs it, and marks it kept or
  // the later ranks it suppresses, all ranks at once; count[b, c] is how
  // many are kept. No step loops over the boxes, so each is a few
  // microseconds of launches. count[b, C] is the rank decided next,
  // counted on the device: every step reads it from there rather than as
  // a constant, so the steps are equal dispatches, compiled once
  // (kiln-dedupe-dispatches), two per rank.
  Value state =
      filled(b, loc, {B, C, N}, i8,
             arith::ConstantOp::create(b, loc, b.getI8IntegerAttr(0)));
  Value count = filled(b, loc, {B, C + 1}, i64, cst(b, loc, 0));
  AffineMap bcp = AffineMap::get(3, 0, {d(0), d(1), d(2)}, mctx);
  AffineMap bc2 = AffineMap::get(2, 0, {d(0), d(1)}, mctx);
  for (int64_t k = 0; k < N; ++k) {
    Value countNow = count, stateNow = state;
    auto rankK = [&](OpBuilder &nb, Location l, Value batch) -> Value {
      return toIndex(
          nb, l,
          tensor::ExtractOp::create(
              nb, l, countNow,
              ValueRange{batch, arith::ConstantIndexOp::create(nb, l, C)}));
    };
    // Whether rank k is kept, given how many are kept before it.
    auto keeps = [&](OpBuilder &nb, Location l, Value batch, Value cls,
                     Value kept) -> Value {
      Value rank = rankK(nb, l, batch);
      Value box = toIndex(nb, l,
                          tensor::ExtractOp::create(
                              nb, l, order, ValueRange{batch, cls, rank}));
      Value candidate = asBool(
          nb, l,
          tensor::ExtractOp::create(nb, l, valid, ValueRange{batch, cls, box}));
      Value bits = tensor::ExtractOp::create(nb, l, stateNow,
                                             ValueRange{batch, cls, rank});
      Value free = arith::CmpIOp::create(
          nb, l, arith::CmpIPredicate::eq,
          arith::AndIOp::create(
              nb, l, bits,
              arith::ConstantOp::create(nb, l, nb.getI8IntegerAttr(1))),
          arith::ConstantOp::create(nb, l, nb.getI8IntegerAttr(0)));
      Value limit = arith::MaxSIOp::create(
          nb, l, scalarInput(nb, l, given[2], cst(nb, l, 0)), cst(nb, l, 0));
      Value under =
          arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, kept, limit);
      return arith::AndIOp::create(nb, l, candidate,
                                   arith::AndIOp::create(nb, l, free, under));
    };
    state = generic(
        b, loc, ValueRange{stateNow}, {bcp},
        tensor::EmptyOp::create(b, loc, {B, C, N}, i8), bcp, {par, par, par},
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          Value batch = idx(nb, l, 0), cls = idx(nb, l, 1), p = idx(nb, l, 2);
          Value rank = rankK(nb, l, batch);
          Value kept = keeps(nb, l, batch, cls,
                             tensor::ExtractOp::create(nb, l, countNow,
                                                       ValueRange{batch, cls}));
          Value keptBox =
              toIndex(nb, l,
                      tensor::ExtractOp::create(nb, l, order,
                                                ValueRange{batch, cls, rank}));
          Value box = toIndex(nb, l,
                              tensor::ExtractOp::create(
                                  nb, l, order, ValueRange{batch, cls, p}));
          Value over = suppresses(nb, l, cornersOf(nb, l, batch, keptBox),
                                  cornersOf(nb, l, batch, box));
          Value later =
              arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ugt, p, rank);
          Value here =
              arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, p, rank);
          auto bit = [&](Value on, int64_t value) -> Value {
            return arith::SelectOp::create(
                nb, l, on,
                arith::ConstantOp::create(nb, l, nb.getI8IntegerAttr(value)),
                arith::ConstantOp::create(nb, l, nb.getI8IntegerAttr(0)));
          };
          Value keptHere = arith::AndIOp::create(nb, l, kept, here);
          Value suppressed = arith::AndIOp::create(
              nb, l, kept, arith::AndIOp::create(nb, l, later, over));
          return arith::OrIOp::create(nb, l, args[0],
                                      arith::OrIOp::create(nb, l,
                                                           bit(keptHere, 2),
                                                           bit(suppressed, 1)));
        });
    // The counts, and in column C the next rank.
    count = generic(
        b, loc, ValueRange{countNow}, {bc2},
        tensor::EmptyOp::create(b, loc, {B, C + 1}, i64), bc2, {par, par},
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          Value batch = idx(nb, l, 0), column = idx(nb, l, 1);
          Value isRank =
              arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, column,
                                    arith::ConstantIndexOp::create(nb, l, C));
          // Column C is no class: read class C - 1 there, then discard it.
          Value cls = arith::MinUIOp::create(
              nb, l, column, arith::ConstantIndexOp::create(nb, l, C - 1));
          Value kept = keeps(nb, l, batch, cls, args[0]);
          Value add =
              arith::SelectOp::create(nb, l, isRank, cst(nb, l, 1),
                                      arith::ExtUIOp::create(nb, l, i64, kept));
          return arith::AddIOp::create(nb, l, args[0], add);
        });
  }
  // selected[b, c, k]: rank k kept (bit 1).
  Value selected = generic(
      b, loc, ValueRange{state}, {bcp},
      tensor::EmptyOp::create(b, loc, {B, C, N}, i8), bcp, {par, par, par},
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        return arith::ShRUIOp::create(
            nb, l, args[0],
            arith::ConstantOp::create(nb, l, nb.getI8IntegerAttr(1)));
      });
  // Places in the output: by batch, class, then rank.
  const int64_t G = B * C, T = G * N;
  Value flat = reshapeTo(b, loc, selected, {G, N});
  Value groupCount = generic(
      b, loc, ValueRange{flat}, {AffineMap::get(2, 0, {d(0), d(1)}, mctx)},
      filled(b, loc, {G}, i64, cst(b, loc, 0)),
      AffineMap::get(2, 0, {d(0)}, mctx), {par, red},
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        return arith::AddIOp::create(
            nb, l, args[1], arith::ExtUIOp::create(nb, l, i64, args[0]));
      });
  Value groupStart = generic(
      b, loc, ValueRange{groupCount}, {AffineMap::get(2, 0, {d(1)}, mctx)},
      filled(b, loc, {G}, i64, cst(b, loc, 0)),
      AffineMap::get(2, 0, {d(0)}, mctx), {par, red},
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value earlier = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult,
                                              idx(nb, l, 1), idx(nb, l, 0));
        return arith::AddIOp::create(
            nb, l, args[1],
            arith::SelectOp::create(nb, l, earlier, args[0], cst(nb, l, 0)));
      });
  Value place = generic(
      b, loc, ValueRange{flat, groupStart},
      {AffineMap::get(3, 0, {d(0), d(2)}, mctx),
       AffineMap::get(3, 0, {d(0)}, mctx)},
      filled(b, loc, {G, N}, i64, cst(b, loc, 0)),
      AffineMap::get(3, 0, {d(0), d(1)}, mctx), {par, par, red},
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        // The group's start once, plus the selected ranks before this one.
        Value first = arith::CmpIOp::create(
            nb, l, arith::CmpIPredicate::eq, idx(nb, l, 2),
            arith::ConstantIndexOp::create(nb, l, 0));
        Value earlier = arith::AndIOp::create(
            nb, l, asBool(nb, l, args[0]),
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult,
                                  idx(nb, l, 2), idx(nb, l, 1)));
        Value add = arith::AddIOp::create(
            nb, l, arith::ExtUIOp::create(nb, l, i64, earlier),
            arith::SelectOp::create(nb, l, first, args[1], cst(nb, l, 0)));
        return arith::AddIOp::create(nb, l, args[2], add);
      });
  Condition c;
  c.Flat = reshapeTo(b, loc, selected, {T});
  c.Length = T;
  c.Count = countOnDevice(b, loc, c.Flat);
  Value orderFlat = reshapeTo(b, loc, order, {T});
  Value result = pick(
      b, loc, c, reshapeTo(b, loc, place, {T}), {ShapedType::kDynamic, 3}, 0,
      i64,
      [&](OpBuilder &nb, Location l, Value i, llvm::ArrayRef<Value> index) {
        Value flatAt = arith::IndexCastOp::create(nb, l, i64, i);
        Value batch = arith::DivUIOp::create(nb, l, flatAt, cst(nb, l, C * N));
        Value cls = arith::RemUIOp::create(
            nb, l, arith::DivUIOp::create(nb, l, flatAt, cst(nb, l, N)),
            cst(nb, l, C));
        Value box = tensor::ExtractOp::create(nb, l, orderFlat, ValueRange{i});
        Value column = index[1];
        auto is = [&](int64_t k) -> Value {
          return arith::CmpIOp::create(
              nb, l, arith::CmpIPredicate::eq, column,
              arith::ConstantIndexOp::create(nb, l, k));
        };
        return Value(arith::SelectOp::create(
            nb, l, is(0), batch,
            arith::SelectOp::create(nb, l, is(1), cls, box)));
      });
  ctx.setOutput(0, result, Int64);
  return success();
}

} // namespace

void registerSelectionOps(OpRegistry &registry) {
  registry.add("NonZero", convertNonZero);
  registry.add("Compress", convertCompress);
  registry.add("Unique", convertUnique);
  registry.add("NonMaxSuppression", convertNonMaxSuppression);
  // A condition, and Compress's input, of any shape: counted by a kernel,
  // their lengths checked per call.
  registry.acceptDynamicShapes({"NonZero", "Compress"});
}

} // namespace kiln::onnx_import
