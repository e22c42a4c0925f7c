//===- Slicing.cpp - ONNX Slice, Split and Pad ----------------------------===//
//
// Slices with positive steps are tensor.extract_slice; negative steps (and
// every Pad other than constant non-negative padding, a tensor.pad) are
// generics that compute each output element's source index and extract it.
// Slice folds on host tensors, Split's and Pad's operands must be known at
// import time.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ops/Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

#include <limits>

using namespace mlir;

namespace kiln::onnx_import {
namespace {

/// What a Slice takes from each dimension: start, step and size.
struct SliceSpec {
  llvm::SmallVector<int64_t> Start, Step, Size;
};

/// Fails after an error, or with `*dynamicAxis` set and no error where an
/// axis it slices is known per call only (convertSliceAtCallTime takes it).
FailureOr<SliceSpec> sliceSpec(NodeContext &ctx, bool *dynamicAxis) {
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  int64_t rank = shape.size();
  llvm::SmallVector<int64_t> starts, ends, axes, steps;
  if (ctx.opset() < 10) {
    starts = ctx.attrInts("starts");
    ends = ctx.attrInts("ends");
    axes = ctx.attrInts("axes");
  } else {
    auto read = [&](size_t i, llvm::StringRef what,
                    llvm::SmallVector<int64_t> &out) -> LogicalResult {
      if (!ctx.hasInput(i))
        return success();
      FailureOr<llvm::SmallVector<int64_t>> v = ctx.constantInts(i, what);
      if (failed(v))
        return failure();
      out = *v;
      return success();
    };
    if (failed(read(1, "starts", starts)) || failed(read(2, "ends", ends)) ||
        failed(read(3, "axes", axes)) || failed(read(4, "steps", steps)))
      return failure();
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (starts.size() != ends.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    return ctx.emitError() << "starts, ends, axes and steps differ in length",
           failure();
  SliceSpec spec;
  spec.Start.assign(rank, 0);
  spec.Step.assign(rank, 1);
  spec.Size.assign(shape.begin(), shape.end());
  llvm::SmallVector<bool> seen(rank, false);
  for (size_t i = 0; i < axes.size(); ++i) {
    FailureOr<int64_t> axis = ctx.normalizeAxis(axes[i], rank);
    if (failed(axis))
      return failure();
    if (seen[*axis])
      return ctx.emitError() << "axis " << *axis << " sliced twice", failure();
    seen[*axis] = true;
    // A dynamic dimension passes through unsliced (issue 19); slicing one
    // needs its size, which only the call knows.
    if (ShapedType::isDynamic(shape[*axis])) {
      if (ctx.opset() >= 10) {
        *dynamicAxis = true;
        return failure();
      }
      return (void)ctx.unsupported("slicing dynamic dimension " +
                                   std::to_string(*axis) + " of " +
                                   shapeString(shape)),
             failure();
    }
    int64_t dim = shape[*axis], step = steps[i];
    if (step == 0)
      return ctx.emitError() << "step is 0", failure();
    int64_t start = starts[i], end = ends[i];
    // INT64_MIN/MAX mean "from the very end"; adding dim must not overflow.
    if (start < 0)
      start = start < -dim ? -1 : start + dim;
    if (end < 0)
      end = end < -dim ? -1 : end + dim;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
    } else {
      start = std::clamp<int64_t>(start, -1, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
    }
    // ceil(distance / |step|) without forming distance + |step| - 1, which
    // overflows for steps near INT64_MAX (and -INT64_MIN does not exist).
    int64_t distance = step > 0 ? end - start : start - end;
    uint64_t magnitude = step > 0 ? static_cast<uint64_t>(step)
                                  : 0 - static_cast<uint64_t>(step);
    int64_t size =
        distance <= 0
            ? 0
            : static_cast<int64_t>(
                  (static_cast<uint64_t>(distance) - 1) / magnitude + 1);
    spec.Start[*axis] = start;
    // With at most one element taken the step does not matter; 1 keeps
    // huge strides out of the IR's index arithmetic.
    spec.Step[*axis] = size <= 1 ? (step > 0 ? 1 : -1) : step;
    spec.Size[*axis] = size;
  }
  return spec;
}

/// out[i...] = source[index_d(i_d)...] where `index` maps an output index
/// of dimension d to the source's (an index value); with `inside`, elements
/// it says are outside the source take `padValue`, or the element of
/// `padTensor` (0-d, a value given at call time) when there is one. The
/// output's sizes may be host values (pads given at call time).
Value gatherGeneric(
    OpBuilder &b, Location loc, Value source,
    llvm::ArrayRef<OpFoldResult> shape,
    llvm::function_ref<Value(OpBuilder &, Location, int64_t, Value)> index,
    llvm::function_ref<Value(OpBuilder &, Location, int64_t, Value)> inside,
    TypedAttr padValue, Value padTensor = nullptr) {
  auto type = cast<RankedTensorType>(source.getType());
  int64_t rank = shape.size();
  Value init = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
  llvm::SmallVector<Value> ins;
  llvm::SmallVector<AffineMap> maps;
  if (padTensor) {
    ins.push_back(padTensor);
    maps.push_back(AffineMap::get(rank, 0, {}, b.getContext()));
  }
  maps.push_back(b.getMultiDimIdentityMap(rank));
  return linalg::GenericOp::create(
             b, loc, init.getType(), ins, init, maps,
             llvm::SmallVector<utils::IteratorType>(
                 rank, utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location l, ValueRange args) {
               llvm::SmallVector<Value> position;
               Value ok;
               for (int64_t d = 0; d < rank; ++d) {
                 Value i = linalg::IndexOp::create(nb, l, d);
                 if (inside) {
                   Value in = inside(nb, l, d, i);
                   ok = ok ? Value(arith::AndIOp::create(nb, l, ok, in)) : in;
                 }
                 position.push_back(index(nb, l, d, i));
               }
               Value v = tensor::ExtractOp::create(nb, l, source, position);
               if (ok) {
                 Value pad =
                     padTensor
                         ? args[0]
                         : Value(arith::ConstantOp::create(nb, l, padValue));
                 v = arith::SelectOp::create(nb, l, ok, v, pad);
               }
               linalg::YieldOp::create(nb, l, v);
             })
      .getResult(0);
}

Value idx(OpBuilder &b, Location l, int64_t v) {
  return arith::ConstantIndexOp::create(b, l, v);
}

Value extractSlice(OpBuilder &b, Location loc, Value source,
                   const SliceSpec &spec) {
  llvm::SmallVector<OpFoldResult> offsets, sizes, strides;
  for (size_t d = 0; d < spec.Start.size(); ++d) {
    offsets.push_back(b.getIndexAttr(spec.Start[d]));
    // A dynamic dimension is taken whole.
    sizes.push_back(ShapedType::isDynamic(spec.Size[d])
                        ? dimSize(b, loc, source, d)
                        : b.getIndexAttr(spec.Size[d]));
    strides.push_back(b.getIndexAttr(spec.Step[d]));
  }
  return tensor::ExtractSliceOp::create(b, loc, source, offsets, sizes,
                                        strides);
}

/// Slice with starts, ends, axes or steps given at call time (graph inputs
/// read on the host; ONNX's backend tests give them so), or of an input
/// whose sliced extent is known per call (its size read on the host):
/// per dimension the start, end and step of the axis naming it (selected
/// per call; 0, the extent and 1 for one no axis names), clamped as ONNX
/// clamps for the step's sign; each output index reads start + i * step,
/// the step passed as its positive and negative parts (push constants are
/// never negative). A zero step fails the call.
LogicalResult convertSliceAtCallTime(NodeContext &ctx) {
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  int64_t rank = shape.size();
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  // Input k's integers as host index values: read per call or constant.
  auto ints = [&](size_t k) -> FailureOr<llvm::SmallVector<Value>> {
    if (std::optional<llvm::SmallVector<Value>> read =
            ctx.intsReadAtCallTime(k))
      return *read;
    // A shape value (a count known per call: torchvision's box heads keep
    // `[:n]` of their proposals' rows).
    if (const llvm::SmallVector<OpFoldResult> *elements =
            ctx.shapeValueInput(k)) {
      llvm::SmallVector<Value> values;
      for (OpFoldResult e : *elements)
        values.push_back(getValueOrCreateConstantIndexOp(b, loc, e));
      return values;
    }
    FailureOr<llvm::SmallVector<int64_t>> c =
        ctx.constantInts(k, k == 1   ? "starts"
                            : k == 2 ? "ends"
                            : k == 3 ? "axes"
                                     : "steps");
    if (failed(c))
      return failure();
    llvm::SmallVector<Value> values;
    for (int64_t v : *c)
      values.push_back(idx(b, loc, v));
    return values;
  };
  FailureOr<llvm::SmallVector<Value>> starts = ints(1), ends = ints(2);
  if (failed(starts) || failed(ends))
    return failure();
  size_t n = starts->size();
  // Axes default to 0 .. n - 1, steps to 1.
  llvm::SmallVector<Value> defaultAxes, defaultSteps(n, idx(b, loc, 1));
  for (size_t j = 0; j < n; ++j)
    defaultAxes.push_back(idx(b, loc, j));
  FailureOr<llvm::SmallVector<Value>> axes =
      ctx.hasInput(3) ? ints(3) : defaultAxes;
  FailureOr<llvm::SmallVector<Value>> steps =
      ctx.hasInput(4) ? ints(4) : defaultSteps;
  if (failed(axes) || failed(steps))
    return failure();
  if (ends->size() != n || axes->size() != n || steps->size() != n)
    return ctx.emitError() << "starts, ends, axes and steps differ in length";
  // A dimension no axis names is copied whole; with the axes known at
  // import that is known there, and its extent stays static.
  llvm::SmallVector<bool> named(rank, true);
  if (llvm::all_of(*axes, [](Value a) { return getConstantIntValue(a); })) {
    named.assign(rank, false);
    for (Value a : *axes) {
      int64_t at = *getConstantIntValue(a);
      at = at < 0 ? at + rank : at;
      if (at >= 0 && at < rank)
        named[at] = true;
    }
  }
  for (Value &axis : *axes)
    axis = countedFromEnd(b, loc, axis, idx(b, loc, rank));
  auto cmp = [&](arith::CmpIPredicate p, Value x, Value y) -> Value {
    return arith::CmpIOp::create(b, loc, p, x, y);
  };
  auto select = [&](Value c, Value x, Value y) -> Value {
    return arith::SelectOp::create(b, loc, c, x, y);
  };
  auto clamp = [&](Value v, Value lo, Value hi) -> Value {
    return arith::MinSIOp::create(b, loc, arith::MaxSIOp::create(b, loc, v, lo),
                                  hi);
  };
  Value zero = idx(b, loc, 0), one = idx(b, loc, 1);
  Value stepsValid;
  llvm::SmallVector<OpFoldResult> sizes;
  llvm::SmallVector<Value> first, stepPos, stepNeg;
  for (int64_t d = 0; d < rank; ++d) {
    if (!named[d] && !ShapedType::isDynamic(shape[d])) {
      sizes.push_back(b.getIndexAttr(shape[d]));
      first.push_back(zero);
      stepPos.push_back(one);
      stepNeg.push_back(zero);
      continue;
    }
    Value dim = ShapedType::isDynamic(shape[d])
                    ? Value(tensor::DimOp::create(b, loc, ctx.input(0), d))
                    : idx(b, loc, shape[d]);
    // The axis naming d (the last one, if several do).
    Value start = zero, end = dim, step = one;
    for (size_t j = 0; j < n; ++j) {
      Value named = cmp(arith::CmpIPredicate::eq, (*axes)[j], idx(b, loc, d));
      start = select(named, (*starts)[j], start);
      end = select(named, (*ends)[j], end);
      step = select(named, (*steps)[j], step);
    }
    Value nonZero = cmp(arith::CmpIPredicate::ne, step, zero);
    stepsValid = stepsValid
                     ? Value(arith::AndIOp::create(b, loc, stepsValid, nonZero))
                     : nonZero;
    Value forward = cmp(arith::CmpIPredicate::sgt, step, zero);
    auto fromEnd = [&](Value v) { return countedFromEnd(b, loc, v, dim); };
    // Forward: start and end in [0, dim]; backward: start in [0, dim - 1],
    // end in [-1, dim - 1].
    Value last = arith::SubIOp::create(b, loc, dim, one);
    Value minusOne = idx(b, loc, -1);
    Value s = select(forward, clamp(fromEnd(start), zero, dim),
                     clamp(fromEnd(start), zero, last));
    Value e = select(forward, clamp(fromEnd(end), zero, dim),
                     clamp(fromEnd(end), minusOne, last));
    Value span = select(forward, arith::SubIOp::create(b, loc, e, s),
                        arith::SubIOp::create(b, loc, s, e));
    Value magnitude =
        select(forward, step, arith::SubIOp::create(b, loc, zero, step));
    // max(ceil(span / |step|), 0), |step| at least 1 (a zero step fails).
    Value count = arith::CeilDivSIOp::create(
        b, loc, arith::MaxSIOp::create(b, loc, span, zero),
        arith::MaxSIOp::create(b, loc, magnitude, one));
    sizes.push_back(count);
    first.push_back(s);
    stepPos.push_back(arith::MaxSIOp::create(b, loc, step, zero));
    stepNeg.push_back(arith::MaxSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, zero, step), zero));
  }
  if (stepsValid)
    cf::AssertOp::create(b, loc, stepsValid,
                         ctx.describe() + ": steps must not be 0");
  Value result = gatherGeneric(
      b, loc, ctx.input(0), sizes,
      [&](OpBuilder &nb, Location l, int64_t d, Value i) -> Value {
        Value forward = arith::MulIOp::create(nb, l, i, stepPos[d]);
        Value backward = arith::MulIOp::create(nb, l, i, stepNeg[d]);
        return arith::SubIOp::create(
            nb, l, arith::AddIOp::create(nb, l, first[d], forward), backward);
      },
      nullptr, TypedAttr());
  ctx.setOutput(0, result, ctx.inputDType(0));
  return success();
}

LogicalResult convertSlice(NodeContext &ctx) {
  if (ctx.opset() >= 10 && llvm::any_of(llvm::seq<size_t>(1, 5), [&](size_t k) {
        return ctx.shapeValueInput(k) ||
               (ctx.inputType(0).hasStaticShape() && ctx.readableAtCallTime(k));
      }))
    return convertSliceAtCallTime(ctx);
  bool dynamicAxis = false;
  FailureOr<SliceSpec> spec = sliceSpec(ctx, &dynamicAxis);
  if (dynamicAxis)
    return convertSliceAtCallTime(ctx);
  if (failed(spec))
    return failure();
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Value source = ctx.input(0);
  Value result;
  bool positive = llvm::all_of(spec->Step, [](int64_t s) { return s > 0; });
  bool dynamic = !ctx.inputType(0).hasStaticShape();
  if (dynamic && !positive)
    return ctx.unsupported("a negative step over a dynamic input");
  if (positive || (!dynamic && numElementsOf(spec->Size) == 0)) {
    SliceSpec s = *spec;
    for (size_t d = 0; d < s.Step.size(); ++d)
      if (s.Size[d] == 0)
        s.Start[d] = 0, s.Step[d] = 1;
    result = extractSlice(b, loc, source, s);
  } else {
    result = gatherGeneric(
        b, loc, source, getAsIndexOpFoldResult(ctx.context(), spec->Size),
        [&](OpBuilder &nb, Location l, int64_t d, Value i) -> Value {
          if (spec->Start[d] == 0 && spec->Step[d] == 1)
            return i;
          Value scaled =
              arith::MulIOp::create(nb, l, i, idx(nb, l, spec->Step[d]));
          return arith::AddIOp::create(nb, l, scaled,
                                       idx(nb, l, spec->Start[d]));
        },
        nullptr, TypedAttr());
  }
  ctx.setOutput(0, result, ctx.inputDType(0));
  return success();
}

FailureOr<bool> foldSlice(NodeContext &ctx) {
  const HostTensor *c = ctx.constantInput(0);
  if (!c)
    return false;
  bool dynamicAxis = false; // a constant's shape is static
  FailureOr<SliceSpec> spec = sliceSpec(ctx, &dynamicAxis);
  if (failed(spec))
    return failure();
  int64_t n = numElementsOf(spec->Size);
  if (n > kMaxFoldElements)
    return false;
  llvm::ArrayRef<int64_t> shape = c->shape();
  int64_t rank = shape.size();
  llvm::SmallVector<int64_t> strides(rank, 1), position(rank, 0), flat;
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  for (int64_t i = 0; i < n; ++i) {
    int64_t f = 0;
    for (int64_t d = 0; d < rank; ++d)
      f += (spec->Start[d] + position[d] * spec->Step[d]) * strides[d];
    flat.push_back(f);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++position[d] < spec->Size[d])
        break;
      position[d] = 0;
    }
  }
  ctx.setOutput(0, c->gathered(spec->Size, flat));
  return true;
}

LogicalResult convertSplit(NodeContext &ctx) {
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  int64_t rank = shape.size();
  FailureOr<int64_t> axis = ctx.normalizeAxis(ctx.attrInt("axis", 0), rank);
  if (failed(axis))
    return failure();
  // Other dimensions may be dynamic (issue 19): each part takes them whole.
  if (ShapedType::isDynamic(shape[*axis]))
    return ctx.unsupported("splitting dynamic dimension " +
                           std::to_string(*axis) + " of " + shapeString(shape));
  int64_t dim = shape[*axis];
  int64_t outputs = ctx.numOutputs();
  // Sizes given at call time (a graph input read on the host): each part
  // sliced at the sum of those before it, the sizes checked per call to
  // add up to the dimension.
  if (ctx.opset() >= 13)
    if (std::optional<llvm::SmallVector<Value>> parts =
            ctx.intsReadAtCallTime(1)) {
      if (static_cast<int64_t>(parts->size()) != outputs)
        return ctx.emitError() << "split has " << parts->size() << " sizes for "
                               << outputs << " outputs";
      OpBuilder &b = ctx.builder();
      Location loc = ctx.loc();
      Value offset = idx(b, loc, 0);
      for (auto [i, size] : llvm::enumerate(*parts)) {
        llvm::SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
        llvm::SmallVector<OpFoldResult> sizes =
            tensor::getMixedSizes(b, loc, ctx.input(0));
        llvm::SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
        offsets[*axis] = offset;
        sizes[*axis] = size;
        if (ctx.hasOutput(i))
          ctx.setOutput(i,
                        tensor::ExtractSliceOp::create(b, loc, ctx.input(0),
                                                       offsets, sizes, strides),
                        ctx.inputDType(0));
        offset = arith::AddIOp::create(b, loc, offset, size);
      }
      Value adds = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         offset, idx(b, loc, dim));
      cf::AssertOp::create(
          b, loc, adds,
          ctx.describe() + ": input 1 '" + ctx.inputInfo(1).Name +
              "' must add up to dimension " + std::to_string(*axis) + "'s " +
              std::to_string(dim));
      return success();
    }
  FailureOr<std::optional<llvm::SmallVector<int64_t>>> given =
      ctx.intsFromAttrOrInput("split", 1, 13);
  if (failed(given))
    return failure();
  llvm::SmallVector<int64_t> sizes;
  if (*given) {
    sizes = **given;
  } else {
    // Opset 18's num_outputs: ceil-sized parts, the last one smaller.
    int64_t parts =
        ctx.opset() >= 18 ? ctx.attrInt("num_outputs", outputs) : outputs;
    if (parts != outputs || parts < 1)
      return ctx.emitError()
             << "num_outputs " << parts << " but " << outputs << " outputs";
    int64_t each = ctx.opset() >= 18 ? (dim + parts - 1) / parts : dim / parts;
    if (ctx.opset() < 18 && dim % parts != 0)
      return ctx.emitError()
             << "dimension " << dim << " does not split evenly into " << parts;
    for (int64_t i = 0; i < parts; ++i)
      sizes.push_back(std::min(each, dim - i * each));
  }
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0)
      return ctx.emitError() << "negative split size " << s;
    total += s;
  }
  if (total != dim || static_cast<int64_t>(sizes.size()) != outputs)
    return ctx.emitError() << "split sizes do not add up to dimension " << dim
                           << " in " << outputs << " parts";
  int64_t offset = 0;
  for (int64_t i = 0; i < outputs; ++i) {
    SliceSpec spec;
    spec.Start.assign(rank, 0);
    spec.Step.assign(rank, 1);
    spec.Size.assign(shape.begin(), shape.end());
    spec.Start[*axis] = offset;
    spec.Size[*axis] = sizes[i];
    offset += sizes[i];
    if (!ctx.hasOutput(i))
      continue;
    ctx.setOutput(i, extractSlice(ctx.builder(), ctx.loc(), ctx.input(0), spec),
                  ctx.inputDType(0));
  }
  return success();
}

/// The source index output index `o` of a dimension of `n` elements padded
/// by `low` reads in `mode` (constant: clamped, the caller masks it).
Value padSourceIndex(OpBuilder &nb, Location l, llvm::StringRef mode, Value o,
                     Value low, int64_t n) {
  Value i = matchPattern(low, m_Zero())
                ? o
                : Value(arith::SubIOp::create(nb, l, o, low));
  Value zero = idx(nb, l, 0), last = idx(nb, l, n - 1);
  if (mode == "edge" || mode == "constant") {
    i = arith::MaxSIOp::create(nb, l, i, zero);
    return arith::MinSIOp::create(nb, l, i, last);
  }
  if (mode == "wrap") {
    Value nn = idx(nb, l, n);
    Value r = arith::RemSIOp::create(nb, l, i, nn);
    Value neg =
        arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, r, zero);
    return arith::SelectOp::create(nb, l, neg,
                                   arith::AddIOp::create(nb, l, r, nn), r);
  }
  // reflect: -i below 0, 2(n-1) - i above n - 1.
  Value neg = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, i, zero);
  i = arith::SelectOp::create(nb, l, neg, arith::SubIOp::create(nb, l, zero, i),
                              i);
  Value over = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sgt, i, last);
  Value mirrored = arith::SubIOp::create(nb, l, idx(nb, l, 2 * (n - 1)), i);
  return arith::SelectOp::create(nb, l, over, mirrored, i);
}

/// Whether output index `o` of a dimension of `n` elements padded by `low`
/// reads the source (constant mode: else it is the pad value).
Value insidePadSource(OpBuilder &nb, Location l, Value o, Value low,
                      int64_t n) {
  Value i = arith::SubIOp::create(nb, l, o, low);
  Value ge =
      arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sge, i, idx(nb, l, 0));
  Value lt =
      arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, i, idx(nb, l, n));
  return arith::AndIOp::create(nb, l, ge, lt);
}

/// Pad by pads given at call time (a graph input read on the host; ONNX's
/// backend tests give them so), and a pad value given as data: each
/// dimension's extent is n + low + high per call (below zero fails the
/// call), each output index reads as the static modes read; reflect
/// needs pads below n, which each call checks.
LogicalResult convertPadAtCallTime(NodeContext &ctx, llvm::StringRef mode,
                                   llvm::ArrayRef<Value> pads) {
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  int64_t rank = shape.size();
  if (!ctx.inputType(0).hasStaticShape())
    return ctx.unsupported("pads given at call time over a dynamic input");
  if (ctx.hasInput(3))
    return ctx.unsupported("axes with pads given at call time");
  if (static_cast<int64_t>(pads.size()) != 2 * rank)
    return ctx.emitError() << "pads has " << pads.size() << " values for rank "
                           << rank;
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Type element = ctx.inputType(0).getElementType();
  // The pad value: a constant, or an element given at call time (data).
  double value = 0;
  Value padTensor;
  if (ctx.hasInput(2)) {
    if (numElementsOf(ctx.inputShape(2)) != 1)
      return ctx.emitError() << "constant_value must be a scalar";
    if (const HostTensor *v = ctx.constantInput(2))
      value = v->doubleAt(0);
    else
      padTensor = reshapeTo(b, loc, ctx.input(2), {});
  }
  llvm::SmallVector<OpFoldResult> outShape;
  for (int64_t d = 0; d < rank; ++d) {
    if (mode != "constant" && shape[d] == 0)
      return ctx.unsupported("mode '" + mode.str() +
                             "' with pads given at call time on an empty "
                             "dimension");
    Value size = arith::AddIOp::create(
        b, loc, arith::AddIOp::create(b, loc, idx(b, loc, shape[d]), pads[d]),
        pads[rank + d]);
    outShape.push_back(size);
    if (mode == "reflect") {
      Value inside = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, pads[d],
                                idx(b, loc, shape[d])),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                pads[rank + d], idx(b, loc, shape[d])));
      cf::AssertOp::create(b, loc, inside,
                           ctx.describe() + ": reflect pads of dimension " +
                               std::to_string(d) + " must be below " +
                               std::to_string(shape[d]));
    }
  }
  Value result = gatherGeneric(
      b, loc, ctx.input(0), outShape,
      [&](OpBuilder &nb, Location l, int64_t d, Value o) -> Value {
        return padSourceIndex(nb, l, mode, o, pads[d], shape[d]);
      },
      mode == "constant"
          ? llvm::function_ref<Value(OpBuilder &, Location, int64_t, Value)>(
                [&](OpBuilder &nb, Location l, int64_t d, Value o) -> Value {
                  return insidePadSource(nb, l, o, pads[d], shape[d]);
                })
          : nullptr,
      scalarAttr(element, value), padTensor);
  ctx.setOutput(0, result, ctx.inputDType(0));
  return success();
}

LogicalResult convertPad(NodeContext &ctx) {
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  int64_t rank = shape.size();
  int32_t dtype = ctx.inputDType(0);
  std::string mode = ctx.attrString("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge" &&
      mode != "wrap")
    return ctx.unsupported("mode '" + mode + "'");
  if (ctx.opset() >= 11)
    if (std::optional<llvm::SmallVector<Value>> pads =
            ctx.intsReadAtCallTime(1))
      return convertPadAtCallTime(ctx, mode, *pads);
  llvm::SmallVector<int64_t> pads;
  double value = 0;
  llvm::SmallVector<int64_t> axes;
  if (ctx.opset() < 11) {
    pads = ctx.attrInts(ctx.opset() < 2 ? "paddings" : "pads");
    value = ctx.attrFloat("value", 0.0f);
  } else {
    FailureOr<llvm::SmallVector<int64_t>> p = ctx.constantInts(1, "pads");
    if (failed(p))
      return failure();
    pads = *p;
    if (ctx.hasInput(2)) {
      if (numElementsOf(ctx.inputShape(2)) != 1)
        return ctx.emitError() << "constant_value must be a scalar";
      const HostTensor *v = ctx.requireConstant(2, "constant_value");
      if (!v)
        return failure();
      value = v->doubleAt(0);
    }
    if (ctx.hasInput(3)) {
      FailureOr<llvm::SmallVector<int64_t>> a = ctx.constantInts(3, "axes");
      if (failed(a))
        return failure();
      axes = *a;
    }
  }
  if (axes.empty())
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  if (pads.size() != 2 * axes.size())
    return ctx.emitError() << "pads has " << pads.size() << " values for "
                           << axes.size() << " axes";
  llvm::SmallVector<int64_t> low(rank, 0), high(rank, 0), outShape;
  for (size_t i = 0; i < axes.size(); ++i) {
    FailureOr<int64_t> axis = ctx.normalizeAxis(axes[i], rank);
    if (failed(axis))
      return failure();
    low[*axis] = pads[i];
    high[*axis] = pads[axes.size() + i];
  }
  for (int64_t d = 0; d < rank; ++d) {
    // A dynamic dimension passes through unpadded (issue 19).
    if (ShapedType::isDynamic(shape[d])) {
      if (low[d] != 0 || high[d] != 0)
        return ctx.unsupported("padding dynamic dimension " +
                               std::to_string(d) + " of " + shapeString(shape));
      outShape.push_back(ShapedType::kDynamic);
      continue;
    }
    std::optional<int64_t> padded = checkedAdd(shape[d], low[d]);
    if (padded)
      padded = checkedAdd(*padded, high[d]);
    if (!padded)
      return ctx.emitError() << "pads of dimension " << d << " overflow";
    int64_t size = *padded;
    if (size < 0)
      return ctx.emitError()
             << "pads remove more than dimension " << d << " holds";
    if (mode != "constant" && shape[d] == 0 && size > 0)
      return ctx.emitError()
             << "cannot " << mode << "-pad empty dimension " << d;
    if (mode == "reflect" && (low[d] >= shape[d] || high[d] >= shape[d]) &&
        (low[d] > 0 || high[d] > 0))
      return ctx.unsupported("reflect padding wider than the dimension");
    outShape.push_back(size);
  }
  if (failed(ctx.checkShape(staticPartOf(outShape), dtype, "output")))
    return failure();
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Type element = ctx.inputType(0).getElementType();
  Value source = ctx.input(0);
  bool nonNegative = llvm::all_of(low, [](int64_t p) { return p >= 0; }) &&
                     llvm::all_of(high, [](int64_t p) { return p >= 0; });
  if (!ctx.inputType(0).hasStaticShape() &&
      !(mode == "constant" && nonNegative))
    return ctx.unsupported("mode '" + mode +
                           "' or negative pads over a dynamic input");
  Value result;
  if (mode == "constant" && nonNegative) {
    result = padConstant(b, loc, source, low, high, scalarAttr(element, value));
  } else {
    // Each output index o reads source index o - low, mapped into range.
    result = gatherGeneric(
        b, loc, source, getAsIndexOpFoldResult(ctx.context(), outShape),
        [&](OpBuilder &nb, Location l, int64_t d, Value o) -> Value {
          if (high[d] <= 0 && low[d] <= 0)
            return low[d] ? Value(arith::SubIOp::create(nb, l, o,
                                                        idx(nb, l, low[d])))
                          : o;
          return padSourceIndex(nb, l, mode, o, idx(nb, l, low[d]), shape[d]);
        },
        mode == "constant"
            ? llvm::function_ref<Value(OpBuilder &, Location, int64_t, Value)>(
                  [&](OpBuilder &nb, Location l, int64_t d, Value o) -> Value {
                    return insidePadSource(nb, l, o, idx(nb, l, low[d]),
                                           shape[d]);
                  })
            : nullptr,
        scalarAttr(element, value));
  }
  ctx.setOutput(0, result, dtype);
  return success();
}

} // namespace

void registerSlicingOps(OpRegistry &registry) {
  registry.add("Slice", convertSlice);
  // Slices of static dimensions of a dynamic input (issue 19).
  registry.acceptDynamicShapes({"Slice", "Pad", "Split"});
  registry.addFolder("Slice", foldSlice);
  registry.add("Split", convertSplit);
  registry.add("Pad", convertPad);
}

} // namespace kiln::onnx_import
