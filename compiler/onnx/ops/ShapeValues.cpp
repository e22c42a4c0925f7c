//===- ShapeValues.cpp - Shapes computed from dynamic dimensions ----------===//
//
// Exporters compute a Reshape's target from the input's own shape
// (`x.view(x.size(0), -1)` is Shape -> Gather -> Unsqueeze -> Concat ->
// Reshape). With static shapes the constant folders evaluate that chain;
// with a dynamic dimension (issue 19) Shape yields a *shape value*
// (NodeContext.h): its elements are constants or host `index` values
// (tensor.dim), and these folders carry it through Gather, Unsqueeze,
// Squeeze, Reshape, Concat, Cast and Identity, so Reshape receives each target
// dimension as a constant or as the very tensor.dim it copies; through
// Add, Sub, Mul, Min and Max (and ReduceMin/Max/Sum/Prod over a 1-D
// shape value) as index arithmetic the host evaluates per call; through
// Equal and Where where the comparison is known at import (an extent is
// never -1). A chain
// whose elements all turn out constant (Gather of a static dimension)
// becomes a host tensor again, which the ordinary folders take. Range and
// ConstantOfShape over shape values make tensors of dynamic extent (a
// decoder's causal mask from its positions), and Range over scalars given
// at call time (graph inputs read on the host) one whose extent the host
// computes in double, as ONNX's count is defined.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ops/Common.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <algorithm>

using namespace mlir;

namespace kiln::onnx_import {
namespace {

using Elements = llvm::SmallVector<OpFoldResult>;

// A shape value is a shape: no longer than the largest rank a tensor may
// have, so a file cannot make one of a billion elements.
bool tooLong(NodeContext &ctx, int64_t elements) {
  return elements > ctx.limits().MaxRank;
}

// Shape of a tensor with dynamic dimensions: tensor.dim for each of them.
FailureOr<bool> foldShape(NodeContext &ctx) {
  if (ctx.constantInput(0) || ctx.inputType(0).hasStaticShape())
    return false;
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  int64_t rank = shape.size();
  // start/end (opset 15) slice the shape, clamped like Slice (as the
  // constant folder does).
  int64_t start = ctx.attrInt("start", 0);
  int64_t end = ctx.attrInt("end", rank);
  if (start < 0)
    start += rank;
  if (end < 0)
    end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, 0, rank);
  Elements elements;
  for (int64_t i = start; i < end; ++i)
    elements.push_back(
        dimSize(ctx.builder(), ctx.loc(), ctx.input(0), static_cast<int>(i)));
  ctx.setShapeValueOutput(0, elements, /*scalar=*/false);
  return true;
}

// Gather along axis 0 of a 1-D shape value at constant indices (a scalar
// index gives a scalar).
FailureOr<bool> foldGather(NodeContext &ctx) {
  const Elements *data = ctx.shapeValueInput(0);
  if (!data)
    return false;
  const HostTensor *indices = ctx.constantInput(1);
  if (!indices || ctx.inputRank(0) != 1 || indices->shape().size() > 1 ||
      tooLong(ctx, indices->numElements()))
    return false;
  FailureOr<int64_t> axis = ctx.normalizeAxis(ctx.attrInt("axis", 0), 1);
  if (failed(axis))
    return failure();
  int64_t size = data->size();
  Elements picked;
  for (int64_t k = 0; k < indices->numElements(); ++k) {
    int64_t index = indices->intAt(k);
    if (index < -size || index >= size)
      return ctx.emitError() << "index " << index << " is out of range for "
                             << size << " elements",
             failure();
    picked.push_back((*data)[index < 0 ? index + size : index]);
  }
  ctx.setShapeValueOutput(0, picked, indices->shape().empty());
  return true;
}

// A scalar shape value made 1-D (Unsqueeze at axis 0).
FailureOr<bool> foldUnsqueeze(NodeContext &ctx) {
  const Elements *data = ctx.shapeValueInput(0);
  if (!data || ctx.inputRank(0) != 0)
    return false;
  FailureOr<std::optional<llvm::SmallVector<int64_t>>> axes =
      ctx.intsFromAttrOrInput("axes", 1, 13);
  if (failed(axes))
    return failure();
  if (!*axes || (*axes)->size() != 1 || ((**axes)[0] != 0 && (**axes)[0] != -1))
    return false;
  ctx.setShapeValueOutput(0, *data, /*scalar=*/false);
  return true;
}

// A shape value reshaped to a scalar or 1-D shape of as many elements
// (a detector's min(k, candidates) made [1] for TopK).
FailureOr<bool> foldReshape(NodeContext &ctx) {
  const Elements *data = ctx.shapeValueInput(0);
  const HostTensor *target = ctx.hasInput(1) ? ctx.constantInput(1) : nullptr;
  if (!data || !target || target->numElements() > 1)
    return false;
  llvm::SmallVector<int64_t> dims = target->toInt64s();
  int64_t n = data->size();
  if (dims.empty() ? n != 1 : dims[0] != n && !(dims[0] == -1 && n > 0))
    return false;
  ctx.setShapeValueOutput(0, *data, /*scalar=*/dims.empty());
  return true;
}

// A one-element 1-D shape value made a scalar (Squeeze at axis 0).
FailureOr<bool> foldSqueeze(NodeContext &ctx) {
  const Elements *data = ctx.shapeValueInput(0);
  if (!data || ctx.inputRank(0) != 1 || data->size() != 1)
    return false;
  FailureOr<std::optional<llvm::SmallVector<int64_t>>> axes =
      ctx.intsFromAttrOrInput("axes", 1, 13);
  if (failed(axes))
    return failure();
  if (*axes &&
      ((*axes)->size() != 1 || ((**axes)[0] != 0 && (**axes)[0] != -1)))
    return false;
  ctx.setShapeValueOutput(0, *data, /*scalar=*/true);
  return true;
}

// 1-D shape values and int64 constants joined.
FailureOr<bool> foldConcat(NodeContext &ctx) {
  bool any = false;
  Elements joined;
  for (size_t i = 0; i < ctx.numInputs(); ++i) {
    if (!ctx.hasInput(i) || ctx.inputRank(i) != 1 || ctx.inputDType(i) != Int64)
      return false;
    if (const Elements *data = ctx.shapeValueInput(i)) {
      if (tooLong(ctx, static_cast<int64_t>(joined.size() + data->size())))
        return false;
      any = true;
      llvm::append_range(joined, *data);
      continue;
    }
    const HostTensor *c = ctx.constantInput(i);
    if (!c ||
        tooLong(ctx, static_cast<int64_t>(joined.size()) + c->numElements()))
      return false;
    for (int64_t k = 0; k < c->numElements(); ++k)
      joined.push_back(ctx.builder().getIndexAttr(c->intAt(k)));
  }
  if (!any)
    return false;
  ctx.setShapeValueOutput(0, joined, /*scalar=*/false);
  return true;
}

// Cast to int64 and Identity pass a shape value on.
FailureOr<bool> foldPassThrough(NodeContext &ctx) {
  const Elements *data = ctx.shapeValueInput(0);
  if (!data)
    return false;
  if (ctx.opType() == "Cast" && ctx.attrInt("to", 0) != Int64)
    return false;
  ctx.setShapeValueOutput(0, *data, ctx.inputRank(0) == 0);
  return true;
}

// `e` as an index value at the node.
Value indexValue(NodeContext &ctx, OpFoldResult e) {
  return getValueOrCreateConstantIndexOp(ctx.builder(), ctx.loc(), e);
}

// Input `i` as shape-value elements: a shape value's, a graph input's read
// at call time (NodeContext::intsReadAtCallTime), or an int64 constant's (a
// scalar or 1-D); nullopt otherwise.
std::optional<Elements> elementsOf(NodeContext &ctx, size_t i) {
  if (const Elements *data = ctx.shapeValueInput(i))
    return *data;
  if (std::optional<llvm::SmallVector<Value>> read = ctx.intsReadAtCallTime(i))
    return Elements(read->begin(), read->end());
  const HostTensor *c = ctx.constantInput(i);
  if (!c || c->dtype() != Int64 || c->shape().size() > 1 ||
      tooLong(ctx, c->numElements()))
    return std::nullopt;
  Elements elements;
  for (int64_t k = 0; k < c->numElements(); ++k)
    elements.push_back(ctx.builder().getIndexAttr(c->intAt(k)));
  return elements;
}

// Add, Sub and Mul of shape values (a sequence's length plus the cache's,
// as a decoder's mask computes its positions), elementwise, a one-element
// side broadcast; the host evaluates them per call (ShapeExpressions).
// x op y for Add, Sub, Mul, Min and Max on shape-value elements: a constant
// when both are, else index arithmetic on the host.
OpFoldResult combineIndices(NodeContext &ctx, StringRef op, OpFoldResult x,
                            OpFoldResult y) {
  std::optional<int64_t> cx = getConstantIntValue(x),
                         cy = getConstantIntValue(y);
  OpBuilder &builder = ctx.builder();
  // Constants a file gives may overflow: those are left to the host's
  // wrapping arithmetic rather than overflow here.
  if (cx && cy) {
    std::optional<int64_t> folded = op == "Add"   ? llvm::checkedAdd(*cx, *cy)
                                    : op == "Sub" ? llvm::checkedSub(*cx, *cy)
                                    : op == "Mul" ? llvm::checkedMul(*cx, *cy)
                                    : op == "Min" ? std::min(*cx, *cy)
                                                  : std::max(*cx, *cy);
    if (folded)
      return builder.getIndexAttr(*folded);
  }
  Value vx = indexValue(ctx, x), vy = indexValue(ctx, y);
  Location loc = ctx.loc();
  if (op == "Add")
    return arith::AddIOp::create(builder, loc, vx, vy).getResult();
  if (op == "Sub")
    return arith::SubIOp::create(builder, loc, vx, vy).getResult();
  if (op == "Mul")
    return arith::MulIOp::create(builder, loc, vx, vy).getResult();
  if (op == "Min")
    return arith::MinSIOp::create(builder, loc, vx, vy).getResult();
  return arith::MaxSIOp::create(builder, loc, vx, vy).getResult();
}

// Size of a tensor with dynamic dimensions: the product of its extents, a
// scalar (torchvision's batched_nms asks whether any box is left so).
FailureOr<bool> foldSize(NodeContext &ctx) {
  if (ctx.constantInput(0) || ctx.inputType(0).hasStaticShape())
    return false;
  OpFoldResult size = ctx.builder().getIndexAttr(1);
  for (int64_t i = 0; i < ctx.inputRank(0); ++i)
    size = combineIndices(
        ctx, "Mul", size,
        dimSize(ctx.builder(), ctx.loc(), ctx.input(0), static_cast<int>(i)));
  ctx.setShapeValueOutput(0, {size}, /*scalar=*/true);
  return true;
}

// A binary node's two inputs as elements where one is a shape value: of
// equal sizes, or one of them of one element (broadcast); nullopt where
// the node is not that.
std::optional<std::pair<Elements, Elements>> binaryElements(NodeContext &ctx) {
  if ((!ctx.shapeValueInput(0) && !ctx.shapeValueInput(1)) ||
      ctx.numInputs() != 2)
    return std::nullopt;
  std::optional<Elements> a = elementsOf(ctx, 0), b = elementsOf(ctx, 1);
  if (!a || !b || (a->size() != b->size() && a->size() != 1 && b->size() != 1))
    return std::nullopt;
  return std::pair{std::move(*a), std::move(*b)};
}

FailureOr<bool> foldArithmetic(NodeContext &ctx) {
  std::optional<std::pair<Elements, Elements>> inputs = binaryElements(ctx);
  if (!inputs)
    return false;
  const Elements *a = &inputs->first, *b = &inputs->second;
  StringRef op = ctx.opType();
  size_t n = std::max(a->size(), b->size());
  Elements result;
  for (size_t k = 0; k < n; ++k) {
    OpFoldResult x = (*a)[a->size() == 1 ? 0 : k];
    OpFoldResult y = (*b)[b->size() == 1 ? 0 : k];
    result.push_back(combineIndices(ctx, op, x, y));
  }
  ctx.setShapeValueOutput(0, result,
                          ctx.inputRank(0) == 0 && ctx.inputRank(1) == 0);
  return true;
}

// ReduceMin/Max/Sum/Prod over all of a 1-D shape value (a detector's
// min(k, candidates) for TopK): the elements combined on the host, a scalar
// or (keepdims) one element.
FailureOr<bool> foldReduce(NodeContext &ctx) {
  const Elements *data = ctx.shapeValueInput(0);
  if (!data || data->empty() || ctx.inputRank(0) != 1)
    return false;
  FailureOr<ImportAxes> axes = reducedAxesAtImport(ctx);
  if (failed(axes))
    return failure();
  if (!axes->Known || axes->Identity)
    return false;
  StringRef op = llvm::StringSwitch<StringRef>(ctx.opType())
                     .Case("ReduceMin", "Min")
                     .Case("ReduceMax", "Max")
                     .Case("ReduceSum", "Add")
                     .Default("Mul");
  OpFoldResult acc = data->front();
  for (OpFoldResult e : llvm::drop_begin(*data))
    acc = combineIndices(ctx, op, acc, e);
  ctx.setShapeValueOutput(0, {acc}, ctx.attrInt("keepdims", 1) == 0);
  return true;
}

// Whether a shape-value element is never negative: a constant at least 0,
// an extent, or sums, products, minima and maxima of such (as Size and
// the folders above build them). A difference may be negative.
bool knownNonNegative(OpFoldResult e, int depth = 0) {
  if (std::optional<int64_t> c = getConstantIntValue(e))
    return *c >= 0;
  auto value = dyn_cast<Value>(e);
  if (!value || depth > 16)
    return false;
  Operation *op = value.getDefiningOp();
  if (isa_and_nonnull<tensor::DimOp>(op))
    return true;
  if (!isa_and_nonnull<arith::AddIOp, arith::MulIOp, arith::MinSIOp,
                       arith::MaxSIOp>(op))
    return false;
  return llvm::all_of(op->getOperands(), [&](Value operand) {
    return knownNonNegative(operand, depth + 1);
  });
}

// Equal of a shape value with int64 elements, where every comparison is
// known at import: both sides constant, or an element never negative
// against a negative constant (torchvision's MultiScaleRoIAlign asks
// which of its Expand's dimensions are -1 so). A bool tensor of constants
// for Where to choose by; otherwise the node converts as a tensor.
FailureOr<bool> foldEqual(NodeContext &ctx) {
  std::optional<std::pair<Elements, Elements>> inputs = binaryElements(ctx);
  if (!inputs)
    return false;
  const Elements *a = &inputs->first, *b = &inputs->second;
  size_t n = std::max(a->size(), b->size());
  llvm::SmallVector<int64_t> equal;
  for (size_t k = 0; k < n; ++k) {
    OpFoldResult x = (*a)[a->size() == 1 ? 0 : k];
    OpFoldResult y = (*b)[b->size() == 1 ? 0 : k];
    std::optional<int64_t> cx = getConstantIntValue(x),
                           cy = getConstantIntValue(y);
    if (cx && cy) {
      equal.push_back(*cx == *cy);
      continue;
    }
    if ((cx && *cx < 0 && knownNonNegative(y)) ||
        (cy && *cy < 0 && knownNonNegative(x))) {
      equal.push_back(0);
      continue;
    }
    return false;
  }
  llvm::SmallVector<int64_t> shape;
  if (ctx.inputRank(0) != 0 || ctx.inputRank(1) != 0)
    shape.push_back(static_cast<int64_t>(n));
  ctx.setOutput(0, HostTensor::fromInt64s(Bool, shape, equal));
  return true;
}

// Where choosing between shape values (and int64 constants) by a
// condition known at import (foldEqual's): element by element, a side of
// one element broadcast.
FailureOr<bool> foldWhere(NodeContext &ctx) {
  const HostTensor *condition = ctx.constantInput(0);
  if (!condition || condition->dtype() != Bool ||
      condition->shape().size() > 1 ||
      (!ctx.shapeValueInput(1) && !ctx.shapeValueInput(2)))
    return false;
  std::optional<Elements> x = elementsOf(ctx, 1), y = elementsOf(ctx, 2);
  int64_t c = condition->numElements();
  if (!x || !y || c == 0)
    return false;
  size_t n = std::max({x->size(), y->size(), static_cast<size_t>(c)});
  for (size_t size : {x->size(), y->size(), static_cast<size_t>(c)})
    if (size != n && size != 1)
      return false;
  Elements result;
  for (size_t k = 0; k < n; ++k) {
    bool pick = condition->intAt(c == 1 ? 0 : static_cast<int64_t>(k)) != 0;
    const Elements &side = pick ? *x : *y;
    result.push_back(side[side.size() == 1 ? 0 : k]);
  }
  ctx.setShapeValueOutput(0, result,
                          ctx.inputRank(0) == 0 && ctx.inputRank(1) == 0 &&
                              ctx.inputRank(2) == 0);
  return true;
}

// Range over scalar shape values (positions 0 .. past + new): a tensor of
// max(ceil((limit - start) / delta), 0) int64 elements, its length computed
// on the host per call; delta a positive constant.
FailureOr<bool> foldRange(NodeContext &ctx) {
  if (!ctx.shapeValueInput(0) && !ctx.shapeValueInput(1))
    return false;
  std::optional<Elements> start = elementsOf(ctx, 0),
                          limit = elementsOf(ctx, 1);
  const HostTensor *delta = ctx.constantInput(2);
  if (!start || !limit || start->size() != 1 || limit->size() != 1 || !delta ||
      delta->dtype() != Int64 || delta->numElements() != 1 ||
      delta->intAt(0) <= 0)
    return false;
  OpBuilder &builder = ctx.builder();
  Location loc = ctx.loc();
  Value first = indexValue(ctx, start->front());
  Value last = indexValue(ctx, limit->front());
  Value step = arith::ConstantIndexOp::create(builder, loc, delta->intAt(0));
  // Unsigned-safe on the host: limit below start gives 0 elements.
  Value span = arith::SubIOp::create(
      builder, loc, arith::MaxSIOp::create(builder, loc, last, first), first);
  Value count = arith::CeilDivSIOp::create(builder, loc, span, step);
  Type i64 = builder.getI64Type();
  auto type = RankedTensorType::get({ShapedType::kDynamic}, i64);
  Value init = tensor::EmptyOp::create(builder, loc, type.getShape(), i64,
                                       ValueRange{count});
  auto generic = linalg::GenericOp::create(
      builder, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
      ArrayRef<AffineMap>{builder.getMultiDimIdentityMap(1)},
      ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
      [&](OpBuilder &b, Location l, ValueRange) {
        Value i = linalg::IndexOp::create(b, l, 0);
        Value at = arith::AddIOp::create(b, l, first,
                                         arith::MulIOp::create(b, l, i, step));
        linalg::YieldOp::create(
            b, l, arith::IndexCastOp::create(b, l, i64, at).getResult());
      });
  ctx.setOutput(0, generic.getResult(0), Int64);
  return true;
}

// Range whose start, limit and delta are scalars given at call time (graph
// inputs, which the converter runs for when the folders could not): its
// count max(ceil((limit - start) / delta), 0) computed on the host in
// double (the shape program's real nodes; a zero delta or NaN fails the
// call), its elements start + i * delta computed by the kernel reading the
// scalars as data: in double for floats, as the folder does, in wrapping
// int64 for integers (exact wherever the result fits).
LogicalResult convertRange(NodeContext &ctx) {
  int32_t dtype = ctx.inputDType(0);
  llvm::SmallVector<Value, 3> host;
  for (size_t i = 0; i < 3; ++i) {
    if (ctx.inputDType(i) != dtype)
      return ctx.emitError() << "start, limit and delta must have one type";
    if (!ctx.inputType(i).hasStaticShape() ||
        ctx.inputType(i).getNumElements() != 1)
      return ctx.emitError() << "start, limit and delta must be scalars";
    // Read on the host: a graph input's, or computed from those by the
    // arithmetic the host mirrors (a window's Cast of its size).
    std::optional<Value> value = ctx.realAtCallTime(i);
    if (!value)
      return ctx.unsupported(
          "Range over input " + std::to_string(i) +
          " computed inside the model (Range takes constants, graph inputs "
          "of type int32, int64, float or double, and float arithmetic on "
          "those)");
    host.push_back(*value);
  }
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Type f64 = b.getF64Type(), i64 = b.getI64Type();
  Value start = host[0], limit = host[1], delta = host[2];
  Value count = math::CeilOp::create(
      b, loc,
      arith::DivFOp::create(b, loc, arith::SubFOp::create(b, loc, limit, start),
                            delta));
  count = arith::MaximumFOp::create(
      b, loc, count, arith::ConstantOp::create(b, loc, b.getF64FloatAttr(0)));
  Value n = arith::IndexCastOp::create(
      b, loc, b.getIndexType(), arith::FPToSIOp::create(b, loc, i64, count));
  Type element = ctx.inputType(0).getElementType();
  auto type = RankedTensorType::get({ShapedType::kDynamic}, element);
  Value init =
      tensor::EmptyOp::create(b, loc, type.getShape(), element, ValueRange{n});
  // start and delta read by every element: maps with no loop dimension.
  auto scalarMap = [&](size_t i) {
    return AffineMap::get(
        1, 0,
        llvm::SmallVector<AffineExpr>(ctx.inputType(i).getRank(),
                                      getAffineConstantExpr(0, ctx.context())),
        ctx.context());
  };
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{type}, ValueRange{ctx.input(0), ctx.input(2)},
      ValueRange{init},
      ArrayRef<AffineMap>{scalarMap(0), scalarMap(2),
                          b.getMultiDimIdentityMap(1)},
      ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value i = arith::IndexCastOp::create(nb, l, i64,
                                             linalg::IndexOp::create(nb, l, 0));
        Value at;
        if (auto floatType = dyn_cast<FloatType>(element)) {
          auto wide = [&](Value v) -> Value {
            return floatType.isF64() ? v : arith::ExtFOp::create(nb, l, f64, v);
          };
          at = arith::AddFOp::create(
              nb, l, wide(args[0]),
              arith::MulFOp::create(nb, l,
                                    arith::SIToFPOp::create(nb, l, f64, i),
                                    wide(args[1])));
          if (!floatType.isF64())
            at = arith::TruncFOp::create(nb, l, element, at);
        } else {
          auto wide = [&](Value v) -> Value {
            return v.getType() == i64 ? v
                                      : arith::ExtSIOp::create(nb, l, i64, v);
          };
          at = arith::AddIOp::create(
              nb, l, wide(args[0]),
              arith::MulIOp::create(nb, l, i, wide(args[1])));
          if (element != i64)
            at = arith::TruncIOp::create(nb, l, element, at);
        }
        linalg::YieldOp::create(nb, l, at);
      });
  ctx.setOutput(0, generic.getResult(0), dtype);
  return success();
}

// ConstantOfShape of a shape value or of a shape given at call time: a
// splat of dynamic extents (a negative one fails the call).
FailureOr<bool> foldConstantOfShape(NodeContext &ctx) {
  if (ctx.constantInput(0) || ctx.inputRank(0) != 1)
    return false;
  std::optional<Elements> dims = elementsOf(ctx, 0);
  if (!dims)
    return false;
  HostTensor value = HostTensor::fromDoubles(Float, {1}, {0.0});
  FailureOr<std::optional<HostTensor>> attr = ctx.attrTensor("value");
  if (failed(attr))
    return failure();
  if (*attr) {
    if ((*attr)->numElements() != 1)
      return ctx.emitError() << "value must hold one element", failure();
    value = std::move(**attr);
  }
  Type element = elementTypeOf(ctx.builder().getContext(), value.dtype());
  if (!element || !(element.isIntOrFloat()))
    return false;
  OpBuilder &builder = ctx.builder();
  Location loc = ctx.loc();
  llvm::SmallVector<int64_t> shape;
  llvm::SmallVector<Value> dynamic;
  for (OpFoldResult d : *dims) {
    if (std::optional<int64_t> c = getConstantIntValue(d)) {
      if (*c < 0)
        return ctx.emitError() << "negative dimension " << *c, failure();
      shape.push_back(*c);
      continue;
    }
    shape.push_back(ShapedType::kDynamic);
    dynamic.push_back(indexValue(ctx, d));
  }
  if (failed(ctx.checkShape(staticPartOf(shape), value.dtype(), "output")))
    return failure();
  Value init = tensor::EmptyOp::create(builder, loc, shape, element, dynamic);
  TypedAttr scalar =
      element.isInteger()
          ? TypedAttr(builder.getIntegerAttr(element, value.intAt(0)))
          : TypedAttr(builder.getFloatAttr(element, value.doubleAt(0)));
  Value fill = linalg::FillOp::create(
                   builder, loc,
                   ValueRange{arith::ConstantOp::create(builder, loc, scalar)},
                   ValueRange{init})
                   .getResult(0);
  ctx.setOutput(0, fill, value.dtype());
  return true;
}

// Slice of a tensor along static dimensions at starts and ends computed
// from shape values (a decoder's causal-bias rows past .. past + new, as
// Hugging Face's GPT-2 slices its buffer): step 1, clamped as ONNX clamps
// (a constant's negatives counted from the end); the result's extents are
// computed on the host per call.
FailureOr<bool> foldSlice(NodeContext &ctx) {
  if (ctx.opset() < 10 || ctx.shapeValueInput(0) ||
      (ctx.constantInput(1) && ctx.constantInput(2)) ||
      (ctx.hasInput(3) && !ctx.constantInput(3)) ||
      (ctx.hasInput(4) && !ctx.constantInput(4)))
    return false;
  std::optional<Elements> starts = elementsOf(ctx, 1),
                          ends = elementsOf(ctx, 2);
  if (!starts || !ends || starts->size() != ends->size())
    return false;
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  int64_t rank = shape.size();
  llvm::SmallVector<int64_t> axes;
  if (ctx.hasInput(3)) {
    const HostTensor *a = ctx.constantInput(3);
    if (!a || a->numElements() != static_cast<int64_t>(starts->size()))
      return false;
    for (int64_t k = 0; k < a->numElements(); ++k)
      axes.push_back(a->intAt(k));
  } else {
    for (size_t k = 0; k < starts->size(); ++k)
      axes.push_back(static_cast<int64_t>(k));
  }
  if (ctx.hasInput(4)) {
    const HostTensor *steps = ctx.constantInput(4);
    if (!steps)
      return false;
    for (int64_t k = 0; k < steps->numElements(); ++k)
      if (steps->intAt(k) != 1)
        return false;
  }
  OpBuilder &builder = ctx.builder();
  Location loc = ctx.loc();
  Value source = ctx.input(0);
  SmallVector<OpFoldResult> offsets(rank, builder.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(builder, loc, source);
  SmallVector<OpFoldResult> strides(rank, builder.getIndexAttr(1));
  llvm::SmallVector<bool> seen(rank, false);
  for (auto [k, rawAxis] : llvm::enumerate(axes)) {
    FailureOr<int64_t> axis = ctx.normalizeAxis(rawAxis, rank);
    if (failed(axis))
      return failure();
    int64_t dim = shape[*axis];
    if (seen[*axis] || ShapedType::isDynamic(dim))
      return false;
    seen[*axis] = true;
    // A constant bound clamped at import; a host value clamped per call (a
    // negative one, given at call time, counted from the end).
    auto clampTo = [&](OpFoldResult bound, Value low,
                       bool givenAtCallTime) -> Value {
      if (std::optional<int64_t> c = getConstantIntValue(bound)) {
        int64_t v = *c < 0 ? *c + dim : *c;
        v = std::clamp<int64_t>(v, 0, dim);
        Value cv = arith::ConstantIndexOp::create(builder, loc, v);
        return low ? arith::MaxSIOp::create(builder, loc, cv, low).getResult()
                   : cv;
      }
      Value v = indexValue(ctx, bound);
      auto extent = [&] {
        return arith::ConstantIndexOp::create(builder, loc, dim);
      };
      if (givenAtCallTime)
        v = arith::MaxSIOp::create(
            builder, loc, countedFromEnd(builder, loc, v, extent()),
            arith::ConstantIndexOp::create(builder, loc, 0));
      if (low)
        v = arith::MaxSIOp::create(builder, loc, v, low);
      return arith::MinSIOp::create(builder, loc, v, extent());
    };
    Value start = clampTo((*starts)[k], nullptr, !ctx.shapeValueInput(1));
    Value end = clampTo((*ends)[k], start, !ctx.shapeValueInput(2));
    offsets[*axis] = start;
    sizes[*axis] = arith::SubIOp::create(builder, loc, end, start).getResult();
  }
  Value slice = tensor::ExtractSliceOp::create(builder, loc, source, offsets,
                                               sizes, strides);
  ctx.setOutput(0, slice, ctx.inputDType(0));
  return true;
}

} // namespace

void registerShapeValuesOps(OpRegistry &registry) {
  registry.addShapeValueFolder("Slice", foldSlice);
  registry.addShapeValueFolder("Add", foldArithmetic);
  registry.addShapeValueFolder("Sub", foldArithmetic);
  registry.addShapeValueFolder("Mul", foldArithmetic);
  registry.addShapeValueFolder("Min", foldArithmetic);
  registry.addShapeValueFolder("Max", foldArithmetic);
  registry.addShapeValueFolder("Equal", foldEqual);
  registry.addShapeValueFolder("Where", foldWhere);
  for (const char *reduce :
       {"ReduceMin", "ReduceMax", "ReduceSum", "ReduceProd"})
    registry.addShapeValueFolder(reduce, foldReduce);
  registry.addShapeValueFolder("Range", foldRange);
  registry.add("Range", convertRange);
  registry.addShapeValueFolder("ConstantOfShape", foldConstantOfShape);
  registry.addShapeValueFolder("Shape", foldShape);
  registry.addShapeValueFolder("Size", foldSize);
  registry.addShapeValueFolder("Gather", foldGather);
  registry.addShapeValueFolder("Unsqueeze", foldUnsqueeze);
  registry.addShapeValueFolder("Squeeze", foldSqueeze);
  registry.addShapeValueFolder("Reshape", foldReshape);
  registry.addShapeValueFolder("Concat", foldConcat);
  registry.addShapeValueFolder("Cast", foldPassThrough);
  registry.addShapeValueFolder("Identity", foldPassThrough);
}

} // namespace kiln::onnx_import
