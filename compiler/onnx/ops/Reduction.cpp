//===- Reduction.cpp - ONNX Reduce* and ArgMax/ArgMin ---------------------===//
//
// Reductions are linalg.reduce (with elementwise pre- and post-steps for
// L1, L2, LogSum, LogSumExp, SumSquare, Mean), reshaped to keep the reduced
// dimensions as 1s with keepdims. Axes are an attribute before opset 13
// (ReduceSum) or 18 (the others) and an input after. ArgMax/ArgMin are one
// generic reducing to a value and an index.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/BodyEvaluation.h"
#include "compiler/onnx/ops/Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace kiln::onnx_import {
namespace {

enum class Kind {
  Sum,
  Mean,
  Max,
  Min,
  Prod,
  L1,
  L2,
  LogSum,
  LogSumExp,
  SumSquare
};

// Each Reduce* op, its kind and the opset from which its axes are an input
// rather than an attribute.
struct Entry {
  const char *Name;
  Kind K;
  int64_t AxesInputSince;
};
constexpr Entry kReductions[] = {
    {"ReduceSum", Kind::Sum, 13},
    {"ReduceMean", Kind::Mean, 18},
    {"ReduceMax", Kind::Max, 18},
    {"ReduceMin", Kind::Min, 18},
    {"ReduceProd", Kind::Prod, 18},
    {"ReduceL1", Kind::L1, 18},
    {"ReduceL2", Kind::L2, 18},
    {"ReduceLogSum", Kind::LogSum, 18},
    {"ReduceLogSumExp", Kind::LogSumExp, 18},
    {"ReduceSumSquare", Kind::SumSquare, 18},
};

/// Axes given at call time (a graph input): the one set the declared output
/// shape allows, checked per call; with keepdims a dimension of 1 may be
/// named or not, reducing it changes nothing. Without keepdims, one axis
/// among several of one extent (removing any of them gives the declared
/// shape) is chosen per call: `x` becomes x with the first of them and the
/// one given swapped (a generic reading the axis as data), and that first
/// one is reduced.
std::optional<llvm::SmallVector<int64_t>>
axesAtCallTime(NodeContext &ctx, int64_t axesInputSince, Value &x) {
  if (ctx.opset() < axesInputSince || !ctx.hasInput(1) ||
      ctx.constantInput(1) || !ctx.inputType(0).hasStaticShape() ||
      ctx.inputRank(1) != 1)
    return std::nullopt;
  llvm::ArrayRef<int64_t> in = ctx.inputShape(0);
  int64_t rank = in.size(), count = ctx.inputShape(1)[0];
  bool keepDims = ctx.attrInt("keepdims", 1) != 0;
  llvm::SmallVector<int64_t> ones;
  for (int64_t i = 0; i < rank; ++i)
    if (in[i] == 1)
      ones.push_back(i);
  // One set at most: reducing other axes would give other sums.
  auto deduce = [&](llvm::ArrayRef<int64_t> declared)
      -> std::optional<llvm::SmallVector<int64_t>> {
    if (keepDims) {
      // The dimensions the output keeps as 1 that were not.
      if (static_cast<int64_t>(declared.size()) != rank)
        return std::nullopt;
      llvm::SmallVector<int64_t> reduced;
      for (int64_t i = 0; i < rank; ++i) {
        if (declared[i] == in[i])
          continue;
        if (declared[i] != 1)
          return std::nullopt;
        reduced.push_back(i);
      }
      if (static_cast<int64_t>(reduced.size()) > count || reduced.empty())
        return std::nullopt;
      return reduced;
    }
    if (static_cast<int64_t>(declared.size()) != rank - count)
      return std::nullopt;
    return uniqueAxes(rank, count, [&](llvm::ArrayRef<int64_t> axes) {
      return withoutAxes(in, axes) == llvm::SmallVector<int64_t>(declared);
    });
  };
  // One axis of several without keepdims: each reduces the same extent.
  llvm::SmallVector<int64_t> swappable;
  std::optional<llvm::SmallVector<int64_t>> axes = ctx.axesAtCallTime(
      1, rank,
      [&](llvm::ArrayRef<int64_t> declared) {
        llvm::SmallVector<llvm::SmallVector<int64_t>> sets;
        if (std::optional<llvm::SmallVector<int64_t>> axes = deduce(declared))
          sets.push_back(std::move(*axes));
        else if (!keepDims && count == 1 &&
                 static_cast<int64_t>(declared.size()) == rank - 1)
          sets = validAxes(rank, 1, [&](llvm::ArrayRef<int64_t> axes) {
            return withoutAxes(in, axes) ==
                   llvm::SmallVector<int64_t>(declared);
          });
        if (sets.size() > 1)
          for (const llvm::SmallVector<int64_t> &set : sets)
            swappable.push_back(set.front());
        return sets;
      },
      keepDims ? llvm::ArrayRef<int64_t>(ones) : llvm::ArrayRef<int64_t>());
  if (!axes || swappable.empty())
    return axes;
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  // The axis is data of the kernel: a 0-d operand (a host value captured
  // in the body would take its comparisons out to the host).
  Value axis = reshapeTo(b, loc, ctx.input(1), {});
  int64_t first = swappable.front();
  Value source = x;
  x = buildElementwise(
      b, loc, {axis}, in, ctx.inputType(0).getElementType(),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value given = countedFromEnd(
            nb, l,
            arith::IndexCastOp::create(nb, l, nb.getIndexType(), args[0]),
            arith::ConstantIndexOp::create(nb, l, rank));
        llvm::SmallVector<Value> index;
        for (int64_t d = 0; d < rank; ++d)
          index.push_back(linalg::IndexOp::create(nb, l, d));
        llvm::SmallVector<Value> position = index;
        auto is = [&](int64_t d) -> Value {
          return arith::CmpIOp::create(
              nb, l, arith::CmpIPredicate::eq, given,
              arith::ConstantIndexOp::create(nb, l, d));
        };
        // Dimension `first` reads the given axis's index, the given axis
        // `first`'s; the others their own.
        for (int64_t d : llvm::drop_begin(swappable)) {
          position[first] =
              arith::SelectOp::create(nb, l, is(d), index[d], position[first]);
          position[d] =
              arith::SelectOp::create(nb, l, is(d), index[first], index[d]);
        }
        return Value(tensor::ExtractOp::create(nb, l, source, position));
      });
  return axes;
}

/// The axes `given` names, normalized and sorted (all of them when none
/// are named), or nullopt for "return the input" (empty axes with
/// noop_with_empty_axes).
FailureOr<std::optional<llvm::SmallVector<int64_t>>>
normalizedAxes(NodeContext &ctx,
               const std::optional<llvm::SmallVector<int64_t>> &given) {
  int64_t rank = ctx.inputRank(0);
  llvm::SmallVector<int64_t> axes;
  if (given && !given->empty()) {
    for (int64_t a : *given) {
      FailureOr<int64_t> axis = ctx.normalizeAxis(a, rank);
      if (failed(axis))
        return failure();
      if (!llvm::is_contained(axes, *axis))
        axes.push_back(*axis);
    }
    llvm::sort(axes);
  } else {
    if (ctx.attrInt("noop_with_empty_axes", 0) != 0)
      return std::optional<llvm::SmallVector<int64_t>>();
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  }
  return std::optional<llvm::SmallVector<int64_t>>(axes);
}

/// The reduced axes (sorted), or nullopt for "return the input" (empty axes
/// with noop_with_empty_axes).
FailureOr<std::optional<llvm::SmallVector<int64_t>>>
reducedAxes(NodeContext &ctx, int64_t axesInputSince, Value &x) {
  if (std::optional<llvm::SmallVector<int64_t>> atCallTime =
          axesAtCallTime(ctx, axesInputSince, x))
    return normalizedAxes(ctx, *atCallTime);
  FailureOr<std::optional<llvm::SmallVector<int64_t>>> given =
      ctx.intsFromAttrOrInput("axes", 1, axesInputSince);
  if (failed(given))
    return failure();
  return normalizedAxes(ctx, *given);
}

} // namespace

FailureOr<ImportAxes> reducedAxesAtImport(NodeContext &ctx) {
  const Entry *entry = llvm::find_if(
      kReductions, [&](const Entry &e) { return ctx.opType() == e.Name; });
  assert(entry != std::end(kReductions) && "not a Reduce* node");
  int64_t since = entry->AxesInputSince;
  if (ctx.opset() >= since && ctx.hasInput(1) && !ctx.constantInput(1))
    return ImportAxes{};
  FailureOr<std::optional<llvm::SmallVector<int64_t>>> given =
      ctx.intsFromAttrOrInput("axes", 1, since);
  if (failed(given))
    return failure();
  FailureOr<std::optional<llvm::SmallVector<int64_t>>> axes =
      normalizedAxes(ctx, *given);
  if (failed(axes))
    return failure();
  ImportAxes result;
  result.Known = true;
  result.Identity = !*axes;
  if (*axes)
    result.Axes = std::move(**axes);
  return result;
}

namespace {

/// The reductions integers take: Sum, Max, Min, Prod, L1 and SumSquare.
bool takesIntegers(Kind kind) {
  return kind == Kind::Sum || kind == Kind::Max || kind == Kind::Min ||
         kind == Kind::Prod || kind == Kind::L1 || kind == Kind::SumSquare;
}

/// The accumulator's first value: -inf (or the lowest integer) for Max,
/// +inf (or the highest) for Min, 1 for Prod, else 0.
TypedAttr reductionInit(Kind kind, Type element, bool isUnsigned) {
  if (kind == Kind::Max || kind == Kind::Min) {
    bool isMax = kind == Kind::Max;
    if (auto f = dyn_cast<FloatType>(element))
      return FloatAttr::get(f, APFloat::getInf(f.getFloatSemantics(), isMax));
    unsigned w = element.getIntOrFloatBitWidth();
    APInt v = isUnsigned
                  ? (isMax ? APInt::getMinValue(w) : APInt::getMaxValue(w))
                  : (isMax ? APInt::getSignedMinValue(w)
                           : APInt::getSignedMaxValue(w));
    return IntegerAttr::get(element, v);
  }
  return scalarAttr(element, kind == Kind::Prod ? 1 : 0);
}

/// One step of the reduction: the accumulator `acc` after element `v`.
Value combine(OpBuilder &b, Location loc, Kind kind, bool isUnsigned, Value v,
              Value acc) {
  bool isFloat = isa<FloatType>(v.getType());
  auto add = [&](Value x, Value y) -> Value {
    return isFloat ? Value(arith::AddFOp::create(b, loc, x, y))
                   : Value(arith::AddIOp::create(b, loc, x, y));
  };
  auto mul = [&](Value x, Value y) -> Value {
    return isFloat ? Value(arith::MulFOp::create(b, loc, x, y))
                   : Value(arith::MulIOp::create(b, loc, x, y));
  };
  switch (kind) {
  case Kind::Max:
    if (isFloat)
      return arith::MaximumFOp::create(b, loc, v, acc);
    return isUnsigned ? Value(arith::MaxUIOp::create(b, loc, v, acc))
                      : Value(arith::MaxSIOp::create(b, loc, v, acc));
  case Kind::Min:
    if (isFloat)
      return arith::MinimumFOp::create(b, loc, v, acc);
    return isUnsigned ? Value(arith::MinUIOp::create(b, loc, v, acc))
                      : Value(arith::MinSIOp::create(b, loc, v, acc));
  case Kind::Prod:
    return mul(v, acc);
  case Kind::L1:
    return add(isFloat ? Value(math::AbsFOp::create(b, loc, v))
                       : Value(math::AbsIOp::create(b, loc, v)),
               acc);
  case Kind::L2:
  case Kind::SumSquare:
    return add(mul(v, v), acc);
  default:
    return add(v, acc);
  }
}

/// Whether the reduced value takes a last elementwise step (finish).
bool hasFinish(Kind kind) {
  return kind == Kind::Mean || kind == Kind::L2 || kind == Kind::LogSum ||
         kind == Kind::LogSumExp;
}

/// That step on the reduced value a[0] (and, for LogSumExp, the maximum
/// a[1] subtracted before): Mean divides by the `count` elements reduced.
Value finish(OpBuilder &b, Location loc, Kind kind, int64_t count,
             ValueRange a) {
  switch (kind) {
  case Kind::Mean:
    return arith::DivFOp::create(b, loc, a[0],
                                 scalarConstant(b, loc, a[0].getType(), count));
  case Kind::L2:
    return math::SqrtOp::create(b, loc, a[0]);
  case Kind::LogSum:
    return math::LogOp::create(b, loc, a[0]);
  default:
    return arith::AddFOp::create(b, loc, math::LogOp::create(b, loc, a[0]),
                                 a[1]);
  }
}

LogicalResult convertReduce(NodeContext &ctx, Kind kind, int64_t since) {
  int32_t dtype = ctx.inputDType(0);
  bool isFloat = isFloatDType(dtype);
  if (!isFloat && !(takesIntegers(kind) && isIntegerDType(dtype)))
    return ctx.unsupported("element type " + dtypeName(dtype));
  Value x = ctx.input(0);
  auto axes = reducedAxes(ctx, since, x);
  if (failed(axes))
    return failure();
  bool keepDims = ctx.attrInt("keepdims", 1) != 0;
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  Type element = ctx.inputType(0).getElementType();
  if (!*axes) {
    ctx.setOutput(0, x, dtype);
    return success();
  }
  // Over a dynamic shape (issue 19) a mean's reduced dimensions are static
  // (it divides by their count); other reductions take any.
  if (!ctx.inputType(0).hasStaticShape()) {
    for (int64_t a : **axes)
      if (ShapedType::isDynamic(shape[a]) && kind == Kind::Mean)
        return ctx.unsupported("ReduceMean of dynamic dimension " +
                               std::to_string(a) + " of " + shapeString(shape));
    if (kind == Kind::LogSumExp)
      return ctx.unsupported("ReduceLogSumExp over a dynamic shape");
  }
  bool isUnsigned = isUnsignedDType(dtype);
  // LogSumExp subtracts the maximum first so exp cannot overflow.
  Value max;
  if (kind == Kind::LogSumExp) {
    max = buildReduction(b, loc, x, **axes, true,
                         reductionInit(Kind::Max, element, isUnsigned),
                         [](OpBuilder &nb, Location l, Value v, Value acc) {
                           return combine(nb, l, Kind::Max, false, v, acc);
                         });
    // A row of -inf would give -inf - -inf = NaN: shift by 0 there.
    max = buildElementwise(
        b, loc, max, cast<RankedTensorType>(max.getType()).getShape(), element,
        [](OpBuilder &nb, Location l, ValueRange a) {
          Value finite = math::IsFiniteOp::create(nb, l, a[0]);
          Value zero = scalarConstant(nb, l, a[0].getType(), 0);
          return Value(arith::SelectOp::create(nb, l, finite, a[0], zero));
        });
    x = buildElementwise(
        b, loc, {x, max}, shape, element,
        [](OpBuilder &nb, Location l, ValueRange a) {
          return Value(math::ExpOp::create(
              nb, l, arith::SubFOp::create(nb, l, a[0], a[1])));
        });
  }
  Value reduced = buildReduction(
      b, loc, x, **axes, keepDims, reductionInit(kind, element, isUnsigned),
      [&](OpBuilder &nb, Location l, Value v, Value acc) {
        return combine(nb, l, kind, isUnsigned, v, acc);
      });
  llvm::ArrayRef<int64_t> outShape =
      cast<RankedTensorType>(reduced.getType()).getShape();
  int64_t count = 1;
  for (int64_t a : **axes)
    count *= shape[a];
  if (hasFinish(kind)) {
    Value maxKept = max;
    llvm::SmallVector<Value> operands = {reduced};
    if (kind == Kind::LogSumExp) {
      if (!keepDims)
        maxKept = reshapeTo(b, loc, max, outShape);
      operands.push_back(maxKept);
    }
    reduced = buildElementwise(b, loc, operands, outShape, element,
                               [&](OpBuilder &nb, Location l, ValueRange a) {
                                 return finish(nb, l, kind, count, a);
                               });
  }
  ctx.setOutput(0, reduced, dtype);
  return success();
}

/// A reduction of a constant over constant axes, evaluated while importing
/// by the converter's own steps (BodyEvaluation.h), element after element
/// in the kernel's order: shape arithmetic stays known (a detector's
/// largest image side, ReduceMax of a constant, then Ceil and Sub into
/// Pad's pads). LogSumExp, and whatever does not fold, is left to run time.
FailureOr<bool> foldReduce(NodeContext &ctx, Kind kind) {
  const HostTensor *x = ctx.constantInput(0);
  if (!x || x->numElements() > kMaxBodyFoldElements || kind == Kind::LogSumExp)
    return false;
  int32_t dtype = x->dtype();
  if (!isFloatDType(dtype) && !(isIntegerDType(dtype) && takesIntegers(kind)))
    return false;
  FailureOr<ImportAxes> axes = reducedAxesAtImport(ctx);
  if (failed(axes))
    return failure();
  if (!axes->Known)
    return false;
  if (axes->Identity) {
    ctx.setOutput(0, *x);
    return true;
  }
  // The output's shape, and for each reduced position in order (row-major
  // over the reduced dimensions) the input's flat index of each output.
  bool keepDims = ctx.attrInt("keepdims", 1) != 0;
  llvm::ArrayRef<int64_t> shape = x->shape();
  llvm::SmallVector<int64_t> outShape, kept, reduced;
  for (auto [d, extent] : llvm::enumerate(shape)) {
    bool isReduced = llvm::is_contained(axes->Axes, static_cast<int64_t>(d));
    (isReduced ? reduced : kept).push_back(d);
    if (!isReduced || keepDims)
      outShape.push_back(isReduced ? 1 : extent);
  }
  int64_t outputs = numElementsOf(outShape);
  int64_t count = x->numElements() / std::max<int64_t>(outputs, 1);
  if (outputs == 0)
    count = 0;
  llvm::SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  // Flat input offset of output o, and of reduced position r.
  auto offsets = [&](llvm::ArrayRef<int64_t> dims) {
    llvm::SmallVector<int64_t> extents;
    for (int64_t d : dims)
      extents.push_back(shape[d]);
    llvm::SmallVector<int64_t> result(numElementsOf(extents), 0);
    llvm::SmallVector<int64_t> at(dims.size(), 0);
    for (int64_t &offset : result) {
      for (size_t k = 0; k < dims.size(); ++k)
        offset += at[k] * strides[dims[k]];
      for (size_t k = dims.size(); k-- > 0;) {
        if (++at[k] < extents[k])
          break;
        at[k] = 0;
      }
    }
    return result;
  };
  llvm::SmallVector<int64_t> outputOffsets = offsets(kept);
  llvm::SmallVector<int64_t> reducedOffsets = offsets(reduced);
  MLIRContext *context = ctx.context();
  Type element = elementTypeOf(context, dtype);
  bool isUnsigned = isUnsignedDType(dtype);
  TypedAttr init = reductionInit(kind, element, isUnsigned);
  APInt initInt =
      isa<IntegerAttr>(init) ? cast<IntegerAttr>(init).getValue() : APInt();
  HostTensor acc =
      isa<FloatType>(element)
          ? HostTensor::fromDoubles(dtype, {},
                                    {cast<FloatAttr>(init).getValueAsDouble()})
          : HostTensor::fromInt64s(
                dtype, {},
                {isUnsigned ? static_cast<int64_t>(initInt.getZExtValue())
                            : initInt.getSExtValue()});
  auto step = [&](OpBuilder &b, Location l, ValueRange a) {
    return combine(b, l, kind, isUnsigned, a[0], a[1]);
  };
  llvm::SmallVector<int64_t> flat(outputOffsets.size());
  for (int64_t r : reducedOffsets) {
    for (auto [o, offset] : llvm::enumerate(outputOffsets))
      flat[o] = offset + r;
    std::optional<HostTensor> next =
        evaluateBody(context, ctx.loc(), {x->gathered(outShape, flat), acc},
                     outShape, dtype, step);
    if (!next)
      return false;
    acc = std::move(*next);
  }
  if (hasFinish(kind)) {
    std::optional<HostTensor> done =
        evaluateBody(context, ctx.loc(), {acc}, outShape, dtype,
                     [&](OpBuilder &b, Location l, ValueRange a) {
                       return finish(b, l, kind, count, a);
                     });
    if (!done)
      return false;
    acc = std::move(*done);
  }
  // With nothing reduced over, or no outputs, the accumulator is still the
  // splat of its first value.
  ctx.setOutput(0, acc.rank() == static_cast<int64_t>(outShape.size())
                       ? acc
                       : broadcastHost(acc, outShape));
  return true;
}

LogicalResult convertArg(NodeContext &ctx, bool isMax) {
  int32_t dtype = ctx.inputDType(0);
  bool isFloat = isFloatDType(dtype);
  if (!isFloat && !isIntegerDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype));
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  int64_t rank = shape.size();
  FailureOr<int64_t> axis = ctx.normalizeAxis(ctx.attrInt("axis", 0), rank);
  if (failed(axis))
    return failure();
  if (shape[*axis] == 0)
    return ctx.emitError() << "reduces an empty dimension";
  // Over a dynamic shape (issue 19) the other dimensions pass through; the
  // reduced one must be known not to be empty.
  if (ShapedType::isDynamic(shape[*axis]))
    return ctx.unsupported("reducing dynamic dimension " +
                           std::to_string(*axis) + " of " + shapeString(shape));
  bool keepDims = ctx.attrInt("keepdims", 1) != 0;
  bool last = ctx.attrInt("select_last_index", 0) != 0;
  bool isUnsigned = isUnsignedDType(dtype);
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Value result =
      buildArgReduction(b, loc, ctx.input(0), *axis, isMax, last, isUnsigned);
  if (keepDims) {
    llvm::SmallVector<OpFoldResult> kept;
    for (int64_t d = 0; d < rank; ++d)
      kept.push_back(d == *axis ? b.getIndexAttr(1)
                                : dimSize(b, loc, ctx.input(0), d));
    result = reshapeToSizes(b, loc, result, kept);
  }
  ctx.setOutput(0, result, Int64);
  return success();
}

} // namespace

void registerReductionOps(OpRegistry &registry) {
  for (const Entry &e : kReductions) {
    registry.add(e.Name, [&e](NodeContext &ctx) {
      return convertReduce(ctx, e.K, e.AxesInputSince);
    });
    registry.addFolder(e.Name,
                       [&e](NodeContext &ctx) { return foldReduce(ctx, e.K); });
    // Static reduced dimensions of a dynamic input (convertReduce refuses
    // the rest).
    registry.acceptDynamicShapes({e.Name});
  }
  registry.acceptDynamicShapes({"ArgMax", "ArgMin"});
  registry.add("ArgMax",
               [](NodeContext &ctx) { return convertArg(ctx, true); });
  registry.add("ArgMin",
               [](NodeContext &ctx) { return convertArg(ctx, false); });
}

} // namespace kiln::onnx_import
