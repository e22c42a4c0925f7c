//===- Selection.cpp - ONNX Compress, NonZero and Unique ------------------===//
//
// Elements chosen by a bool condition: how many there are is data, so the
// output's extent is known per call only. Where the condition is a graph
// input (issue 19 item 4 through item 3's reads) the host counts its true
// elements per call, and the kernels place the chosen ones: a prefix count
// gives each true element its position in the output, and each output
// element finds the one element whose position it is by bisection over
// the prefix count (the value copied bit for bit). The prefix count costs
// the condition's length per element, which the condition's bound
// (kMaxConditionElements where the host counts, more where a kernel does)
// keeps in reach. A condition
// computed inside the model is counted by a kernel and the count read on
// the host, which splits the function into phases (compiler/host/Phases.h):
// the kernels placing the chosen elements run in the next one. Unique
// chooses the first of each set of equal slices the same way: kernels
// compare every slice with every other (their first difference), mark the
// first of each value and its place among them, and the host reads how
// many there are.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ops/Selection.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <array>
#include <limits>

using namespace mlir;

namespace kiln::onnx_import::selection {

Value i64Constant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(value));
}

Value filled(OpBuilder &b, Location loc, llvm::ArrayRef<int64_t> shape,
             Type element, Value value, ValueRange sizes) {
  return linalg::FillOp::create(
             b, loc, ValueRange{value},
             ValueRange{tensor::EmptyOp::create(b, loc, shape, element, sizes)})
      .getResult(0);
}

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

Value asBool(OpBuilder &b, Location loc, Value flag) {
  if (flag.getType().isInteger(1))
    return flag;
  return arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ne, flag,
      arith::ConstantOp::create(b, loc, b.getIntegerAttr(flag.getType(), 0)));
}

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

Value firstPast(OpBuilder &b, Location loc, Value lo, Value hi, int64_t steps,
                function_ref<Value(OpBuilder &, Location, Value)> past) {
  Value end = hi;
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  for (int64_t k = 0; k < steps; ++k) {
    Value mid = arith::AddIOp::create(
        b, loc, lo,
        arith::ShRUIOp::create(b, loc, arith::SubIOp::create(b, loc, hi, lo),
                               index(1)));
    Value open =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lo, hi);
    // Once closed, index 0 is read and ignored.
    Value at = arith::SelectOp::create(b, loc, open, mid, index(0));
    Value yes = arith::AndIOp::create(b, loc, open, past(b, loc, at));
    Value no = arith::AndIOp::create(
        b, loc, open,
        arith::XOrIOp::create(
            b, loc, yes,
            arith::ConstantOp::create(b, loc, b.getBoolAttr(true))));
    hi = arith::SelectOp::create(b, loc, yes, mid, hi);
    lo = arith::SelectOp::create(
        b, loc, no, arith::AddIOp::create(b, loc, mid, index(1)), lo);
  }
  return arith::MinUIOp::create(b, loc, lo,
                                arith::SubIOp::create(b, loc, end, index(1)));
}

namespace {

/// The picked output, empty: the chosen dimension's extent is the count;
/// another dynamic one's is given in `sizes` (by dimension).
Value pickedEmpty(OpBuilder &b, Location loc, const Condition &c,
                  llvm::ArrayRef<int64_t> outShape, int64_t pickDim,
                  Type element, llvm::ArrayRef<Value> sizes) {
  llvm::SmallVector<Value> dynamicSizes;
  for (int64_t d = 0; d < static_cast<int64_t>(outShape.size()); ++d)
    if (ShapedType::isDynamic(outShape[d]))
      dynamicSizes.push_back(d == pickDim ? c.Count : sizes[d]);
  return tensor::EmptyOp::create(b, loc, outShape, element, dynamicSizes);
}

} // namespace

Value pick(OpBuilder &b, Location loc, const Condition &c, Value prefix,
           llvm::ArrayRef<int64_t> outShape, int64_t pickDim, Type element,
           llvm::function_ref<Value(OpBuilder &, Location, Value,
                                    llvm::ArrayRef<Value>)>
               value,
           llvm::ArrayRef<Value> sizes) {
  MLIRContext *mctx = b.getContext();
  int64_t rank = outShape.size();
  Value flat = c.Flat, positions = prefix;
  Value empty = pickedEmpty(b, loc, c, outShape, pickDim, element, sizes);
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
               // One element matches: for integers, an OR of its value
               // with zeros, a reduction with a neutral element that a GPU
               // shares among a workgroup per output (a select keeping the
               // match is a thread per output looping over the condition).
               Value v = value(nb, l, i, index);
               Value picked = isa<IntegerType>(element)
                                  ? Value(arith::OrIOp::create(
                                        nb, l, args[2],
                                        arith::SelectOp::create(
                                            nb, l, match, v,
                                            scalarConstant(nb, l, element, 0))))
                                  : Value(arith::SelectOp::create(nb, l, match,
                                                                  v, args[2]));
               linalg::YieldOp::create(nb, l, picked);
             })
      .getResult(0);
}

Value pickInOrder(OpBuilder &b, Location loc, const Condition &c, Value prefix,
                  llvm::ArrayRef<int64_t> outShape, int64_t pickDim,
                  Type element,
                  llvm::function_ref<Value(OpBuilder &, Location, Value,
                                           llvm::ArrayRef<Value>)>
                      value,
                  llvm::ArrayRef<Value> sizes) {
  int64_t rank = outShape.size();
  Value init = pickedEmpty(b, loc, c, outShape, pickDim, element, sizes);
  // Output position p takes the first element whose true ones up to and
  // including it are more than p: a bisection over the prefix count, a few
  // reads per output (a reduction over the whole condition per output was
  // a thread per output on GPUs, whose reduction kernel takes static
  // outputs only: 0.5 ms for a detector's class of 3234 anchors).
  bool dynamic = ShapedType::isDynamic(c.Length);
  int64_t longest = dynamic ? kMaxCountedConditionElements : c.Length;
  int64_t steps = llvm::Log2_64_Ceil(std::max<int64_t>(longest, 1)) + 1;
  Value n = dynamic ? Value(tensor::DimOp::create(b, loc, c.Flat, 0))
                    : Value(arith::ConstantIndexOp::create(b, loc, c.Length));
  Value flat = c.Flat;
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{}, ValueRange{init},
             llvm::ArrayRef<AffineMap>{b.getMultiDimIdentityMap(rank)},
             llvm::SmallVector<utils::IteratorType>(
                 rank, utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location l, ValueRange) {
               llvm::SmallVector<Value> index;
               for (int64_t d = 0; d < rank; ++d)
                 index.push_back(linalg::IndexOp::create(nb, l, d));
               Value p = arith::IndexCastOp::create(nb, l, nb.getI64Type(),
                                                    index[pickDim]);
               Value i = firstPast(
                   nb, l, arith::ConstantIndexOp::create(nb, l, 0), n, steps,
                   [&](OpBuilder &nb, Location l, Value at) -> Value {
                     Value flag = asBool(
                         nb, l, tensor::ExtractOp::create(nb, l, flat, at));
                     Value upTo = arith::AddIOp::create(
                         nb, l, tensor::ExtractOp::create(nb, l, prefix, at),
                         arith::ExtUIOp::create(nb, l, nb.getI64Type(), flag));
                     return arith::CmpIOp::create(
                         nb, l, arith::CmpIPredicate::sgt, upTo, p);
                   });
               linalg::YieldOp::create(nb, l, value(nb, l, i, index));
             })
      .getResult(0);
}

} // namespace kiln::onnx_import::selection

namespace kiln::onnx_import {
namespace {

using namespace selection;

/// The bool input `i` flattened, with its true elements counted per call
/// on the host (a graph input) or by a kernel whose count the host reads
/// (a computed condition); failure after an error (or "unsupported").
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
        arith::ConstantIndexOp::create(b, loc, kMaxCountedConditionElements));
    cf::AssertOp::create(b, loc, fits,
                         (ctx.opType() + " condition must have at most " +
                          std::to_string(kMaxCountedConditionElements) +
                          " elements")
                             .str());
    c.Count = countOnDevice(b, loc, c.Flat);
    return c;
  }
  int64_t n = ctx.inputType(i).getNumElements();
  int64_t most = ctx.isGraphInput(i) ? kMaxConditionElements
                                     : kMaxCountedConditionElements;
  if (n > most)
    return (void)ctx.unsupported("condition of " + std::to_string(n) +
                                 " elements (at most " + std::to_string(most) +
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
/// (i64): its position among the chosen ones. Up to kPrefixBlock elements,
/// each element counts all before it; past that (or a length known per
/// call) in blocks: each block's count, the blocks' counts before each
/// block, then each element adds the ones before it in its own block. So
/// the work is n times the block, not n squared (a Faster R-CNN's 13,500
/// score flags took 1.7 ms counted whole on an H200).
constexpr int64_t kPrefixBlock = 256;

Value prefixCount(OpBuilder &b, Location loc, Value flat, int64_t n) {
  MLIRContext *mctx = b.getContext();
  Type i64 = b.getI64Type();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, mctx); };
  Value length = ShapedType::isDynamic(n)
                     ? Value(tensor::DimOp::create(b, loc, flat, 0))
                     : Value(arith::ConstantIndexOp::create(b, loc, n));
  // A zero-filled i64 tensor of `extent` elements (a Value where `size` is
  // dynamic).
  auto zeros = [&](int64_t size, Value extent) -> Value {
    if (!ShapedType::isDynamic(size))
      return filled(b, loc, {size}, i64, i64Constant(b, loc, 0));
    return linalg::FillOp::create(b, loc, ValueRange{i64Constant(b, loc, 0)},
                                  ValueRange{tensor::EmptyOp::create(
                                      b, loc, llvm::ArrayRef<int64_t>{size},
                                      i64, ValueRange{extent})})
        .getResult(0);
  };
  // out[i] += flag(at(i, j)) for j of `extent` (the reduction), where
  // `counts(i, j)` holds.
  auto count =
      [&](Value init, int64_t extent,
          llvm::function_ref<Value(OpBuilder &, Location, Value, Value)> at,
          llvm::function_ref<Value(OpBuilder &, Location, Value, Value)> counts)
      -> Value {
    // An operand spanning the reduction gives linalg its extent.
    Value span = tensor::EmptyOp::create(
        b, loc, llvm::ArrayRef<int64_t>{extent}, b.getI8Type());
    return linalg::GenericOp::create(
               b, loc, init.getType(), ValueRange{span}, ValueRange{init},
               llvm::ArrayRef<AffineMap>{AffineMap::get(2, 0, d(1)),
                                         AffineMap::get(2, 0, d(0))},
               llvm::ArrayRef<utils::IteratorType>{
                   utils::IteratorType::parallel,
                   utils::IteratorType::reduction},
               [&](OpBuilder &nb, Location l, ValueRange args) {
                 Value i = linalg::IndexOp::create(nb, l, 0);
                 Value j = linalg::IndexOp::create(nb, l, 1);
                 Value position = at(nb, l, i, j);
                 Value inside = arith::AndIOp::create(
                     nb, l, counts(nb, l, i, j),
                     arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult,
                                           position, length));
                 Value safe = arith::SelectOp::create(
                     nb, l, inside, position,
                     arith::ConstantIndexOp::create(nb, l, 0));
                 Value flag = asBool(
                     nb, l, tensor::ExtractOp::create(nb, l, flat, safe));
                 Value one = arith::ExtUIOp::create(
                     nb, l, i64, arith::AndIOp::create(nb, l, inside, flag));
                 linalg::YieldOp::create(
                     nb, l, Value(arith::AddIOp::create(nb, l, args[1], one)));
               })
        .getResult(0);
  };
  auto ult = [](OpBuilder &nb, Location l, Value x, Value y) -> Value {
    return arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, x, y);
  };
  auto yes = [](OpBuilder &nb, Location l, Value, Value) -> Value {
    return arith::ConstantIntOp::create(nb, l, 1, 1);
  };
  if (!ShapedType::isDynamic(n) && n <= kPrefixBlock)
    return count(
        zeros(n, length), n,
        [](OpBuilder &, Location, Value, Value j) { return j; },
        [&](OpBuilder &nb, Location l, Value i, Value j) {
          return ult(nb, l, j, i);
        });
  auto block = [](OpBuilder &nb, Location l) -> Value {
    return arith::ConstantIndexOp::create(nb, l, kPrefixBlock);
  };
  // Each block's true elements.
  int64_t blocks = ShapedType::isDynamic(n) ? ShapedType::kDynamic
                                            : llvm::divideCeil(n, kPrefixBlock);
  Value blockCount = arith::CeilDivUIOp::create(b, loc, length, block(b, loc));
  Value perBlock = count(
      zeros(blocks, blockCount), kPrefixBlock,
      [&](OpBuilder &nb, Location l, Value k, Value t) -> Value {
        return arith::AddIOp::create(
            nb, l, arith::MulIOp::create(nb, l, k, block(nb, l)), t);
      },
      yes);
  // The true elements of the blocks before each block.
  Value before =
      linalg::GenericOp::create(
          b, loc, perBlock.getType(), ValueRange{perBlock},
          ValueRange{zeros(blocks, blockCount)},
          llvm::ArrayRef<AffineMap>{AffineMap::get(2, 0, d(1)),
                                    AffineMap::get(2, 0, d(0))},
          llvm::ArrayRef<utils::IteratorType>{utils::IteratorType::parallel,
                                              utils::IteratorType::reduction},
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value earlier = ult(nb, l, linalg::IndexOp::create(nb, l, 1),
                                linalg::IndexOp::create(nb, l, 0));
            Value add = arith::SelectOp::create(nb, l, earlier, args[0],
                                                i64Constant(nb, l, 0));
            linalg::YieldOp::create(
                nb, l, Value(arith::AddIOp::create(nb, l, args[1], add)));
          })
          .getResult(0);
  // Each element: its block's, plus those before it in its block.
  Value startInit = zeros(n, length);
  Value start =
      linalg::GenericOp::create(
          b, loc, startInit.getType(), ValueRange{}, ValueRange{startInit},
          llvm::ArrayRef<AffineMap>{AffineMap::get(1, 0, d(0))},
          llvm::ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
          [&](OpBuilder &nb, Location l, ValueRange) {
            Value k = arith::DivUIOp::create(
                nb, l, linalg::IndexOp::create(nb, l, 0), block(nb, l));
            linalg::YieldOp::create(
                nb, l, Value(tensor::ExtractOp::create(nb, l, before, k)));
          })
          .getResult(0);
  return count(
      start, kPrefixBlock,
      [&](OpBuilder &nb, Location l, Value i, Value t) -> Value {
        Value first = arith::MulIOp::create(
            nb, l, arith::DivUIOp::create(nb, l, i, block(nb, l)),
            block(nb, l));
        return arith::AddIOp::create(nb, l, first, t);
      },
      [&](OpBuilder &nb, Location l, Value i, Value t) {
        return ult(nb, l, t, arith::RemUIOp::create(nb, l, i, block(nb, l)));
      });
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
  Value result = pickInOrder(
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
  Value result = pickInOrder(
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

} // namespace

void registerSelectionOps(OpRegistry &registry) {
  registry.add("NonZero", convertNonZero);
  registry.add("Compress", convertCompress);
  registry.add("Unique", convertUnique);
  // A condition, and Compress's input, of any shape: counted by a kernel,
  // their lengths checked per call.
  registry.acceptDynamicShapes({"NonZero", "Compress"});
}

} // namespace kiln::onnx_import
