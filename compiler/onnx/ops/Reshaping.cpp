//===- Reshaping.cpp - ONNX reshaping, transposing, joining, gathering ----===//
//
// Reshape, Flatten, Squeeze and Unsqueeze are collapse/expand aliases;
// Transpose a linalg.transpose; Concat a tensor.concat; Gather a generic
// that extracts from the data (indices clamped into range: ONNX calls an
// out-of-range index an error, which must not read outside the tensor).
// Every one of them also folds on host tensors, so shape subgraphs
// (Shape -> Gather -> Unsqueeze -> Concat -> Reshape) disappear at import.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ops/Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace kiln::onnx_import {
namespace {

/// Sets output 0 to input 0 under `shape`: a host tensor stays one.
LogicalResult setReshaped(NodeContext &ctx, llvm::ArrayRef<int64_t> shape) {
  if (const HostTensor *c = ctx.constantInput(0)) {
    ctx.setOutput(0, c->reshaped(shape));
    return success();
  }
  ctx.setOutput(0, reshapeTo(ctx.builder(), ctx.loc(), ctx.input(0), shape),
                ctx.inputDType(0));
  return success();
}

/// Sets output 0 to input 0 (with dynamic dimensions, issue 19) viewed at
/// `sizes`, dynamic ones computed on the host.
LogicalResult setReshapedDynamic(NodeContext &ctx,
                                 llvm::ArrayRef<OpFoldResult> sizes) {
  ctx.setOutput(0,
                reshapeToSizes(ctx.builder(), ctx.loc(), ctx.input(0), sizes),
                ctx.inputDType(0));
  return success();
}

/// The product of `value`'s dimensions [from, to) on the host: a constant
/// when they are static.
OpFoldResult dimProduct(OpBuilder &b, Location loc, Value value, int64_t from,
                        int64_t to) {
  int64_t known = 1;
  Value dynamic;
  for (int64_t d = from; d < to; ++d) {
    OpFoldResult size = dimSize(b, loc, value, d);
    if (std::optional<int64_t> c = getConstantIntValue(size)) {
      known *= *c;
      continue;
    }
    Value v = cast<Value>(size);
    dynamic =
        dynamic ? arith::MulIOp::create(b, loc, dynamic, v).getResult() : v;
  }
  if (!dynamic)
    return b.getIndexAttr(known);
  if (known == 1)
    return dynamic;
  return arith::MulIOp::create(b, loc, dynamic,
                               arith::ConstantIndexOp::create(b, loc, known))
      .getResult();
}

// Identity and Dropout in inference (or training at ratio 0) pass their
// input on.
LogicalResult convertIdentity(NodeContext &ctx) {
  return setReshaped(ctx, ctx.inputShape(0));
}

LogicalResult convertDropout(NodeContext &ctx) {
  if (ctx.opset() < 7 && ctx.attrInt("is_test", 0) == 0)
    return ctx.unsupported("training mode (is_test = 0)");
  if (ctx.opset() >= 12 && ctx.hasInput(2)) {
    const HostTensor *training = ctx.requireConstant(2, "training_mode");
    if (!training)
      return failure();
    if (training->numElements() == 1 && training->intAt(0) != 0) {
      // Training drops elements at random, except at ratio 0 (the default
      // is 0.5), where it keeps them all, as inference does.
      double ratio = 0.5;
      if (ctx.hasInput(1)) {
        const HostTensor *r = ctx.requireConstant(1, "ratio");
        if (!r)
          return failure();
        if (r->numElements() != 1)
          return ctx.emitError() << "ratio must be a scalar";
        ratio = r->doubleAt(0);
      }
      if (ratio != 0)
        return ctx.emitError()
               << "unsupported training mode (training_mode = true) with ratio "
               << ratio << " (random; only 0 is)";
    }
  }
  if (ctx.hasOutput(1) && failed(requireStaticDims(ctx, 0)))
    return failure();
  if (failed(convertIdentity(ctx)))
    return failure();
  // In inference every element is kept.
  if (ctx.hasOutput(1))
    setSplatOutput(ctx, 1, ctx.inputShape(0),
                   HostTensor::fromInt64s(Bool, {}, {1}));
  return success();
}

FailureOr<llvm::SmallVector<int64_t>> reshapeTarget(NodeContext &ctx) {
  llvm::SmallVector<int64_t> requested;
  if (ctx.opset() < 5) {
    requested = ctx.attrInts("shape");
  } else {
    FailureOr<llvm::SmallVector<int64_t>> shape = ctx.constantInts(1, "shape");
    if (failed(shape))
      return failure();
    requested = *shape;
  }
  bool allowZero = ctx.attrInt("allowzero", 0) != 0;
  llvm::ArrayRef<int64_t> in = ctx.inputShape(0);
  llvm::SmallVector<int64_t> out;
  int64_t infer = -1, known = 1;
  for (auto [i, d] : llvm::enumerate(requested)) {
    if (d == 0 && !allowZero) {
      if (i >= in.size()) {
        ctx.emitError() << "shape copies dimension " << i << " of a rank-"
                        << in.size() << " input";
        return failure();
      }
      d = in[i];
    } else if (d == -1) {
      if (infer >= 0) {
        ctx.emitError() << "shape has more than one -1";
        return failure();
      }
      infer = i;
      out.push_back(1);
      continue;
    } else if (d < -1) {
      ctx.emitError() << "shape has dimension " << d;
      return failure();
    }
    out.push_back(d);
    std::optional<int64_t> product = checkedMul(known, d);
    if (!product) {
      ctx.emitError() << "shape " << shapeString(requested)
                      << " has more elements than int64 counts";
      return failure();
    }
    known = *product;
  }
  int64_t total = numElementsOf(in);
  if (infer >= 0) {
    if (known == 0 || total % known != 0) {
      ctx.emitError() << "cannot infer the -1 of shape for " << shapeString(in);
      return failure();
    }
    out[infer] = total / known;
  }
  if (numElementsOf(out) != total) {
    ctx.emitError() << "cannot reshape " << shapeString(in) << " into "
                    << shapeString(out);
    return failure();
  }
  return out;
}

/// Reshape of an input with dynamic dimensions (issue 19) to a constant
/// target, or to a shape value (ShapeValues.cpp) whose dynamic elements are
/// the input's own tensor.dim: a 0 or such an element copies a dimension
/// (dynamic or not), a -1 takes what the others leave, computed on the
/// host. Every dynamic input dimension must be copied, or be part of what
/// the -1 takes, so the element count holds at every size without a check
/// per call.
LogicalResult convertDynamicReshape(NodeContext &ctx) {
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  llvm::SmallVector<OpFoldResult> target;
  if (const llvm::SmallVector<OpFoldResult> *shape = ctx.shapeValueInput(1)) {
    target = *shape;
  } else {
    const HostTensor *given = ctx.requireConstant(1, "shape");
    if (!given)
      return failure();
    // A target is a shape: its rank is checked before its dimensions are
    // read (a file may hold a huge one).
    if (given->numElements() > ctx.limits().MaxRank)
      return ctx.emitError() << "shape has " << given->numElements()
                             << " dimensions, more than the "
                             << ctx.limits().MaxRank << " a tensor may have";
    FailureOr<llvm::SmallVector<int64_t>> requested =
        ctx.constantInts(1, "shape");
    if (failed(requested))
      return failure();
    for (int64_t d : *requested)
      target.push_back(b.getIndexAttr(d));
  }
  if (ctx.attrInt("allowzero", 0) != 0)
    return ctx.unsupported("allowzero = 1 on a dynamic input");
  llvm::ArrayRef<int64_t> in = ctx.inputShape(0);
  Value input = ctx.input(0);
  auto targetString = [&] {
    std::string out;
    for (auto [i, t] : llvm::enumerate(target)) {
      std::optional<int64_t> c = getConstantIntValue(t);
      out += (i ? "x" : "") + (c ? std::to_string(*c) : std::string("?"));
    }
    return out;
  };
  llvm::SmallVector<OpFoldResult> sizes;
  llvm::SmallVector<bool> copied(in.size(), false);
  int64_t infer = -1, knownStatic = 1;
  // Sizes read from other tensors' dimensions (Shape of the attention's
  // input, reshaping its query): their element count cannot be related to
  // the input's at import.
  bool foreign = false;
  for (size_t i = 0; i < target.size(); ++i) {
    std::optional<int64_t> constant = getConstantIntValue(target[i]);
    if (!constant) {
      // A dimension of the input itself, read by Shape, copies it.
      auto dim = cast<Value>(target[i]).getDefiningOp<tensor::DimOp>();
      std::optional<int64_t> index =
          dim ? dim.getConstantIndex() : std::nullopt;
      if (dim && dim.getSource() == input && index && !copied[*index])
        copied[*index] = true;
      else
        foreign = true;
      sizes.push_back(target[i]);
      continue;
    }
    int64_t d = *constant;
    if (d == 0) {
      if (i >= in.size())
        return ctx.emitError() << "shape copies dimension " << i
                               << " of a rank-" << in.size() << " input";
      if (copied[i])
        return ctx.unsupported("reshape copying dimension " +
                               std::to_string(i) + " twice");
      copied[i] = true;
      sizes.push_back(dimSize(b, loc, input, i));
      if (!ShapedType::isDynamic(in[i]))
        knownStatic *= in[i];
      continue;
    }
    if (d == -1) {
      if (infer >= 0)
        return ctx.emitError() << "shape has more than one -1";
      infer = i;
      sizes.push_back(b.getIndexAttr(1));
      continue;
    }
    if (d < -1 || d > (int64_t(1) << 40))
      return ctx.emitError() << "shape has dimension " << d;
    std::optional<int64_t> product = checkedMul(knownStatic, d);
    if (!product || *product > (int64_t(1) << 40))
      return ctx.emitError()
             << "shape " << targetString() << " has too many elements";
    knownStatic = *product;
    sizes.push_back(b.getIndexAttr(d));
  }
  if (foreign) {
    // A -1 takes the input's elements over the others' product, and each
    // call checks that the view holds as many bytes as the input (the host
    // plan's reshape check): a wrong size is an error there.
    if (infer >= 0) {
      Value total = getValueOrCreateConstantIndexOp(
          b, loc, dimProduct(b, loc, input, 0, in.size()));
      for (size_t i = 0; i < sizes.size(); ++i)
        if (static_cast<int64_t>(i) != infer)
          total = arith::DivUIOp::create(
              b, loc, total, getValueOrCreateConstantIndexOp(b, loc, sizes[i]));
      sizes[infer] = total;
    }
    ctx.setOutput(0, reshapeThroughFlat(b, loc, input, sizes),
                  ctx.inputDType(0));
    return success();
  }
  // The static elements the target's copies and constants do not cover,
  // and the dynamic dimensions not copied: what -1 takes.
  int64_t inStatic = 1;
  Value rest;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!ShapedType::isDynamic(in[i])) {
      inStatic *= in[i];
      continue;
    }
    if (copied[i])
      continue;
    Value v = tensor::DimOp::create(b, loc, input, i);
    rest = rest ? arith::MulIOp::create(b, loc, rest, v).getResult() : v;
  }
  if (knownStatic == 0 || inStatic % knownStatic != 0 ||
      (infer < 0 && (rest || inStatic != knownStatic)))
    return ctx.unsupported("reshape of " + shapeString(in) + " into " +
                           targetString() +
                           " (a dynamic input dimension must be copied by "
                           "0 or taken by -1)");
  if (infer >= 0) {
    int64_t quotient = inStatic / knownStatic;
    if (!rest)
      sizes[infer] = b.getIndexAttr(quotient);
    else if (quotient == 1)
      sizes[infer] = rest;
    else
      sizes[infer] =
          arith::MulIOp::create(
              b, loc, rest, arith::ConstantIndexOp::create(b, loc, quotient))
              .getResult();
  }
  return setReshapedDynamic(ctx, sizes);
}

/// Reshape to a target given at call time (a graph input, ONNX's backend
/// tests give every input so): each element's 0 (copying the input's
/// dimension, unless allowzero) and -1 (taking what the others leave) are
/// decided per call on the host, and the view's per-call byte check (the
/// host plan's) refuses a target of another element count.
LogicalResult convertReshapeAtCallTime(NodeContext &ctx,
                                       llvm::ArrayRef<Value> target) {
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Value input = ctx.input(0);
  int64_t rank = ctx.inputRank(0);
  bool allowZero = ctx.attrInt("allowzero", 0) != 0;
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto equals = [&](Value v, int64_t c) -> Value {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, v, index(c));
  };
  llvm::SmallVector<Value> known, inferHere;
  Value product = index(1);
  for (auto [k, v] : llvm::enumerate(target)) {
    Value size = v;
    if (!allowZero && static_cast<int64_t>(k) < rank)
      size = arith::SelectOp::create(
          b, loc, equals(v, 0),
          getValueOrCreateConstantIndexOp(b, loc, dimSize(b, loc, input, k)),
          v);
    Value infer = equals(v, -1);
    known.push_back(size);
    inferHere.push_back(infer);
    product = arith::MulIOp::create(
        b, loc, product,
        arith::SelectOp::create(b, loc, infer, index(1), size));
  }
  // A target with a 0 and no -1 (allowzero) must not divide by zero.
  Value total = getValueOrCreateConstantIndexOp(
      b, loc, leadingProduct(b, loc, input, rank));
  Value inferred = arith::DivSIOp::create(
      b, loc, total, arith::MaxSIOp::create(b, loc, product, index(1)));
  llvm::SmallVector<OpFoldResult> sizes;
  for (auto [size, infer] : llvm::zip(known, inferHere))
    sizes.push_back(
        arith::SelectOp::create(b, loc, infer, inferred, size).getResult());
  ctx.setOutput(0, reshapeThroughFlat(b, loc, input, sizes), ctx.inputDType(0));
  return success();
}

LogicalResult convertReshape(NodeContext &ctx) {
  if (ctx.opset() >= 5)
    if (std::optional<llvm::SmallVector<Value>> target =
            ctx.intsReadAtCallTime(1))
      return convertReshapeAtCallTime(ctx, *target);
  if (!ctx.inputType(0).hasStaticShape() || ctx.shapeValueInput(1)) {
    if (ctx.opset() < 5)
      return ctx.unsupported("Reshape-1 on a dynamic input");
    return convertDynamicReshape(ctx);
  }
  FailureOr<llvm::SmallVector<int64_t>> shape = reshapeTarget(ctx);
  if (failed(shape))
    return failure();
  return setReshaped(ctx, *shape);
}

LogicalResult convertFlatten(NodeContext &ctx) {
  llvm::ArrayRef<int64_t> in = ctx.inputShape(0);
  int64_t rank = in.size();
  int64_t axis = ctx.attrInt("axis", 1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank)
    return ctx.emitError() << "axis " << ctx.attrInt("axis", 1)
                           << " is out of range for rank " << rank;
  if (!ctx.inputType(0).hasStaticShape()) {
    OpBuilder &b = ctx.builder();
    Location loc = ctx.loc();
    return setReshapedDynamic(ctx,
                              {dimProduct(b, loc, ctx.input(0), 0, axis),
                               dimProduct(b, loc, ctx.input(0), axis, rank)});
  }
  int64_t outer = numElementsOf(in.take_front(axis));
  int64_t inner = numElementsOf(in.drop_front(axis));
  return setReshaped(ctx, {outer, inner});
}

// Axes given at call time for Squeeze and Unsqueeze (opset 13's input):
// the one set the declared output shape allows, checked per call.
std::optional<llvm::SmallVector<int64_t>>
squeezeAxesAtCallTime(NodeContext &ctx, bool unsqueeze) {
  if (ctx.opset() < 13 || !ctx.hasInput(1) || ctx.constantInput(1) ||
      !ctx.inputType(0).hasStaticShape() || ctx.inputRank(1) != 1)
    return std::nullopt;
  llvm::ArrayRef<int64_t> in = ctx.inputShape(0);
  int64_t count = ctx.inputShape(1)[0];
  int64_t rank = unsqueeze ? in.size() + count : in.size();
  return ctx.axesAtCallTime(
      1, rank,
      [&](llvm::ArrayRef<int64_t> declared)
          -> llvm::SmallVector<llvm::SmallVector<int64_t>> {
        // Unsqueeze: ones inserted at the axes of the output give it;
        // Squeeze: ones dropped from the input at the axes give it. Every
        // such set gives the same result (a reshape to the declared shape),
        // so a call may give any of them.
        llvm::ArrayRef<int64_t> full = unsqueeze ? declared : in;
        llvm::ArrayRef<int64_t> part = unsqueeze ? in : declared;
        if (static_cast<int64_t>(full.size()) != rank)
          return {};
        return validAxes(rank, count, [&](llvm::ArrayRef<int64_t> axes) {
          for (int64_t a : axes)
            if (full[a] != 1)
              return false;
          return withoutAxes(full, axes) == llvm::SmallVector<int64_t>(part);
        });
      });
}

// Squeeze's or Unsqueeze's axes: given at call time, else the attribute's
// or the constant input's (nullopt for none).
FailureOr<std::optional<llvm::SmallVector<int64_t>>>
squeezeAxes(NodeContext &ctx, bool unsqueeze) {
  if (std::optional<llvm::SmallVector<int64_t>> atCallTime =
          squeezeAxesAtCallTime(ctx, unsqueeze))
    return std::optional<llvm::SmallVector<int64_t>>(*atCallTime);
  return ctx.intsFromAttrOrInput("axes", 1, 13);
}

LogicalResult convertSqueeze(NodeContext &ctx) {
  FailureOr<std::optional<llvm::SmallVector<int64_t>>> axes =
      squeezeAxes(ctx, /*unsqueeze=*/false);
  if (failed(axes))
    return failure();
  llvm::ArrayRef<int64_t> in = ctx.inputShape(0);
  int64_t rank = in.size();
  llvm::SmallVector<int64_t> drop;
  if (*axes) {
    for (int64_t axis : **axes) {
      FailureOr<int64_t> a = ctx.normalizeAxis(axis, rank);
      if (failed(a))
        return failure();
      if (in[*a] != 1)
        return ctx.emitError()
               << "cannot squeeze dimension " << *a << " of size "
               << (ShapedType::isDynamic(in[*a]) ? std::string("?")
                                                 : std::to_string(in[*a]));
      drop.push_back(*a);
    }
  } else {
    for (int64_t i = 0; i < rank; ++i)
      if (in[i] == 1)
        drop.push_back(i);
  }
  if (!ctx.inputType(0).hasStaticShape()) {
    llvm::SmallVector<OpFoldResult> sizes;
    for (int64_t i = 0; i < rank; ++i)
      if (!llvm::is_contained(drop, i))
        sizes.push_back(dimSize(ctx.builder(), ctx.loc(), ctx.input(0), i));
    return setReshapedDynamic(ctx, sizes);
  }
  return setReshaped(ctx, dropAxes(in, drop));
}

LogicalResult convertUnsqueeze(NodeContext &ctx) {
  FailureOr<std::optional<llvm::SmallVector<int64_t>>> axes =
      squeezeAxes(ctx, /*unsqueeze=*/true);
  if (failed(axes))
    return failure();
  if (!*axes)
    return ctx.emitError() << "needs axes";
  llvm::ArrayRef<int64_t> in = ctx.inputShape(0);
  int64_t outRank = in.size() + (*axes)->size();
  llvm::SmallVector<bool> inserted(outRank, false);
  for (int64_t axis : **axes) {
    FailureOr<int64_t> a = ctx.normalizeAxis(axis, outRank);
    if (failed(a))
      return failure();
    if (inserted[*a])
      return ctx.emitError() << "axis " << *a << " given twice";
    inserted[*a] = true;
  }
  if (!ctx.inputType(0).hasStaticShape()) {
    llvm::SmallVector<OpFoldResult> sizes;
    size_t next = 0;
    for (int64_t i = 0; i < outRank; ++i)
      sizes.push_back(inserted[i] ? ctx.builder().getIndexAttr(1)
                                  : dimSize(ctx.builder(), ctx.loc(),
                                            ctx.input(0), next++));
    return setReshapedDynamic(ctx, sizes);
  }
  llvm::SmallVector<int64_t> out;
  size_t next = 0;
  for (int64_t i = 0; i < outRank; ++i)
    out.push_back(inserted[i] ? 1 : in[next++]);
  return setReshaped(ctx, out);
}

FailureOr<llvm::SmallVector<int64_t>> transposePerm(NodeContext &ctx) {
  int64_t rank = ctx.inputRank(0);
  llvm::SmallVector<int64_t> perm;
  for (int64_t i = rank - 1; i >= 0; --i)
    perm.push_back(i);
  perm = ctx.attrInts("perm", perm);
  llvm::SmallVector<bool> seen(rank, false);
  if (static_cast<int64_t>(perm.size()) != rank)
    return ctx.emitError() << "perm has " << perm.size() << " entries for rank "
                           << rank,
           failure();
  for (int64_t &p : perm) {
    if (p < 0)
      p += rank;
    if (p < 0 || p >= rank || seen[p])
      return ctx.emitError() << "perm is not a permutation", failure();
    seen[p] = true;
  }
  return perm;
}

LogicalResult convertTranspose(NodeContext &ctx) {
  FailureOr<llvm::SmallVector<int64_t>> perm = transposePerm(ctx);
  if (failed(perm))
    return failure();
  ctx.setOutput(0, transpose(ctx.builder(), ctx.loc(), ctx.input(0), *perm),
                ctx.inputDType(0));
  return success();
}

FailureOr<bool> foldTranspose(NodeContext &ctx) {
  const HostTensor *c = ctx.constantInput(0);
  if (!c)
    return false;
  FailureOr<llvm::SmallVector<int64_t>> perm = transposePerm(ctx);
  if (failed(perm))
    return failure();
  ctx.setOutput(0, c->transposed(*perm));
  return true;
}

// Result shape of Concat, checking the inputs agree off the axis.
FailureOr<std::pair<int64_t, llvm::SmallVector<int64_t>>>
concatShape(NodeContext &ctx) {
  if (ctx.numInputs() == 0)
    return ctx.emitError() << "needs an input", failure();
  llvm::SmallVector<int64_t> shape(ctx.inputShape(0));
  int64_t rank = shape.size();
  FailureOr<int64_t> axis = ctx.normalizeAxis(ctx.attrInt("axis", 0), rank);
  if (failed(axis))
    return failure();
  for (size_t i = 1; i < ctx.numInputs(); ++i) {
    if (failed(requireSameDType(ctx, i)))
      return failure();
    llvm::ArrayRef<int64_t> s = ctx.inputShape(i);
    bool agrees = static_cast<int64_t>(s.size()) == rank;
    // A dynamic dimension off the axis agrees with any (the host checks
    // per call that they are equal); the result keeps a static one.
    for (int64_t d = 0; agrees && d < rank; ++d) {
      if (d != *axis && ShapedType::isDynamic(shape[d]))
        shape[d] = s[d];
      agrees = d == *axis || s[d] == shape[d] || ShapedType::isDynamic(s[d]);
    }
    if (!agrees)
      return ctx.emitError()
                 << "input " << i << " " << shapeString(s)
                 << " does not fit input 0 " << shapeString(ctx.inputShape(0))
                 << " on axis " << *axis,
             failure();
    // Along a dynamic dimension (a key/value cache grown by the new
    // positions, issue 19) the result's extent is the host's sum.
    if (ShapedType::isDynamic(shape[*axis]) ||
        ShapedType::isDynamic(s[*axis])) {
      shape[*axis] = ShapedType::kDynamic;
      continue;
    }
    std::optional<int64_t> sum = checkedAdd(shape[*axis], s[*axis]);
    if (!sum)
      return ctx.emitError() << "the inputs' sizes along axis " << *axis
                             << " overflow when added",
             failure();
    shape[*axis] = *sum;
  }
  if (failed(ctx.checkShape(staticPartOf(shape), ctx.inputDType(0), "output")))
    return failure();
  return std::make_pair(*axis, shape);
}

LogicalResult convertConcat(NodeContext &ctx) {
  auto shape = concatShape(ctx);
  if (failed(shape))
    return failure();
  llvm::SmallVector<Value> operands;
  for (size_t i = 0; i < ctx.numInputs(); ++i)
    if (!ctx.inputType(i).hasStaticShape() ||
        numElementsOf(ctx.inputShape(i)) > 0 || ctx.numInputs() == 1)
      operands.push_back(ctx.input(i));
  Value result;
  if (operands.empty())
    result = tensor::EmptyOp::create(ctx.builder(), ctx.loc(), shape->second,
                                     ctx.inputType(0).getElementType());
  else if (operands.size() == 1)
    result = operands[0];
  else
    result = tensor::ConcatOp::create(
        ctx.builder(), ctx.loc(),
        RankedTensorType::get(shape->second, ctx.inputType(0).getElementType()),
        shape->first, operands);
  ctx.setOutput(0, result, ctx.inputDType(0));
  return success();
}

FailureOr<bool> foldConcat(NodeContext &ctx) {
  for (size_t i = 0; i < ctx.numInputs(); ++i)
    if (!ctx.constantInput(i))
      return false;
  auto shape = concatShape(ctx);
  if (failed(shape))
    return failure();
  auto [axis, outShape] = *shape;
  if (numElementsOf(outShape) > kMaxFoldElements)
    return false;
  // Bytes of the inner block per input, copied in turn for each outer index.
  int64_t outer = numElementsOf(llvm::ArrayRef(outShape).take_front(axis));
  int64_t elementSize = dtypeByteSize(ctx.inputDType(0));
  std::vector<char> bytes;
  bytes.reserve(numElementsOf(outShape) * elementSize);
  for (int64_t o = 0; o < outer; ++o)
    for (size_t i = 0; i < ctx.numInputs(); ++i) {
      const HostTensor *c = ctx.constantInput(i);
      int64_t inner = numElementsOf(c->shape().drop_front(axis)) * elementSize;
      const char *begin = c->bytes().data() + o * inner;
      bytes.insert(bytes.end(), begin, begin + inner);
    }
  ctx.setOutput(0, HostTensor(ctx.inputDType(0), outShape, std::move(bytes)));
  return true;
}

FailureOr<int64_t> gatherAxis(NodeContext &ctx) {
  if (!isIntegerDType(ctx.inputDType(1)))
    return ctx.emitError() << "indices must be integers", failure();
  return ctx.normalizeAxis(ctx.attrInt("axis", 0), ctx.inputRank(0));
}

llvm::SmallVector<int64_t> gatherShape(NodeContext &ctx, int64_t axis) {
  llvm::ArrayRef<int64_t> data = ctx.inputShape(0);
  llvm::SmallVector<int64_t> out(data.take_front(axis));
  llvm::append_range(out, ctx.inputShape(1));
  llvm::append_range(out, data.drop_front(axis + 1));
  return out;
}

FailureOr<bool> foldGather(NodeContext &ctx) {
  const HostTensor *data = ctx.constantInput(0);
  const HostTensor *indices = ctx.constantInput(1);
  if (!data || !indices)
    return false;
  FailureOr<int64_t> axis = gatherAxis(ctx);
  if (failed(axis))
    return failure();
  llvm::SmallVector<int64_t> shape = gatherShape(ctx, *axis);
  if (numElementsOf(shape) > kMaxFoldElements)
    return false;
  llvm::ArrayRef<int64_t> in = data->shape();
  int64_t outer = numElementsOf(in.take_front(*axis));
  int64_t inner = numElementsOf(in.drop_front(*axis + 1));
  int64_t dim = in[*axis];
  llvm::SmallVector<int64_t> flat;
  llvm::SmallVector<int64_t> idx = indices->toInt64s();
  for (int64_t &i : idx) {
    if (i < -dim || i >= dim) {
      ctx.emitError() << "index " << i << " is out of range for dimension "
                      << *axis << " of size " << dim;
      return failure();
    }
    if (i < 0)
      i += dim;
  }
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i : idx)
      for (int64_t k = 0; k < inner; ++k)
        flat.push_back((o * dim + i) * inner + k);
  ctx.setOutput(0, data->gathered(shape, flat));
  return true;
}

LogicalResult convertGather(NodeContext &ctx) {
  FailureOr<int64_t> axis = gatherAxis(ctx);
  if (failed(axis))
    return failure();
  llvm::SmallVector<int64_t> shape = gatherShape(ctx, *axis);
  int64_t dim = ctx.inputShape(0)[*axis];
  // Indices are clamped to the gathered dimension; any dimension of the
  // data or the indices may be dynamic (a decoder's token ids over a `?`
  // sequence, a detector's boxes picked by TopK, issue 19). A dynamic
  // gathered dimension of 0 with indices to read fails the call.
  if (dim == 0 && numElementsOf(shape) > 0)
    return ctx.emitError() << "gathers from an empty dimension";
  int64_t dataRank = ctx.inputRank(0);
  int64_t indexRank = ctx.inputRank(1);
  int64_t rank = shape.size();
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  const HostTensor *constant = ctx.constantInput(1);
  if (constant && !ShapedType::isDynamic(dim)) {
    // Constant indices out of range are the model's error, found here
    // rather than clamped at run time (along a dynamic dimension, as any
    // index, per call).
    for (int64_t i = 0, e = constant->numElements(); i < e; ++i) {
      int64_t index = constant->intAt(i);
      if (index < -dim || index >= dim)
        return ctx.emitError()
               << "index " << index << " is out of range for dimension "
               << *axis << " of size " << dim;
    }
    // One constant index (x[:, 0]): a slice of the data, dropping the axis
    // when the index is a scalar.
    if (constant->numElements() == 1 && indexRank <= 1) {
      int64_t index = constant->intAt(0);
      llvm::SmallVector<OpFoldResult> offsets(dataRank, b.getIndexAttr(0)),
          strides(dataRank, b.getIndexAttr(1)), sizes;
      for (int64_t d = 0; d < dataRank; ++d)
        sizes.push_back(dimSize(b, loc, ctx.input(0), d));
      offsets[*axis] = b.getIndexAttr(index < 0 ? index + dim : index);
      sizes[*axis] = b.getIndexAttr(1);
      auto type =
          RankedTensorType::get(shape, ctx.inputType(0).getElementType());
      Value slice = tensor::ExtractSliceOp::create(b, loc, type, ctx.input(0),
                                                   offsets, sizes, strides);
      ctx.setOutput(0, slice, ctx.inputDType(0));
      return success();
    }
  }
  Value data = ctx.input(0);
  Value indices = ctx.input(1);
  MLIRContext *mctx = ctx.context();
  llvm::SmallVector<AffineExpr> indexExprs;
  for (int64_t i = 0; i < indexRank; ++i)
    indexExprs.push_back(getAffineDimExpr(*axis + i, mctx));
  llvm::SmallVector<AffineMap> maps = {
      AffineMap::get(rank, 0, indexExprs, mctx),
      b.getMultiDimIdentityMap(rank)};
  Type element = ctx.inputType(0).getElementType();
  // Each dynamic dimension sized by the data's or the indices' own.
  llvm::SmallVector<Value> sizes;
  for (int64_t d = 0; d < rank; ++d) {
    if (!ShapedType::isDynamic(shape[d]))
      continue;
    if (d < *axis)
      sizes.push_back(tensor::DimOp::create(b, loc, data, d));
    else if (d < *axis + indexRank)
      sizes.push_back(tensor::DimOp::create(b, loc, indices, d - *axis));
    else
      sizes.push_back(tensor::DimOp::create(b, loc, data, d - indexRank + 1));
  }
  Value init = tensor::EmptyOp::create(b, loc, shape, element, sizes);
  bool isUnsigned = isUnsignedDType(ctx.inputDType(1));
  int64_t ax = *axis;
  Value extent;
  if (ShapedType::isDynamic(dim)) {
    extent = tensor::DimOp::create(b, loc, data, ax);
    assertGatheredExtent(ctx, extent, indices, indexRank,
                         "gathers from an empty dimension");
  }
  Value result =
      linalg::GenericOp::create(
          b, loc, init.getType(), indices, init, maps,
          llvm::SmallVector<utils::IteratorType>(rank,
                                                 utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value i = clampedIndex(
                nb, l, args[0],
                extent ? extent : arith::ConstantIndexOp::create(nb, l, dim),
                isUnsigned);
            llvm::SmallVector<Value> position;
            for (int64_t d = 0; d < ax; ++d)
              position.push_back(linalg::IndexOp::create(nb, l, d));
            position.push_back(i);
            for (int64_t d = ax + 1; d < dataRank; ++d)
              position.push_back(
                  linalg::IndexOp::create(nb, l, d - 1 + indexRank));
            Value v = tensor::ExtractOp::create(nb, l, data, position);
            linalg::YieldOp::create(nb, l, v);
          })
          .getResult(0);
  ctx.setOutput(0, result, ctx.inputDType(0));
  return success();
}

/// DepthToSpace and SpaceToDepth (DCR and CRD): a reshape, a transpose and a
/// reshape.
LogicalResult convertBlockRearrangement(NodeContext &ctx, bool toSpace) {
  llvm::ArrayRef<int64_t> x = ctx.inputShape(0);
  if (x.size() != 4)
    return ctx.emitError() << "input " << shapeString(x) << " is not 4-D";
  int64_t bs = ctx.attrInt("blocksize", 0);
  int64_t n = x[0], c = x[1], h = x[2], w = x[3];
  // A block never exceeds what it divides (even for empty dimensions), so
  // the sizes below stay those of the tensor and cannot overflow.
  std::optional<int64_t> block = checkedMul(bs, bs);
  if (bs < 1 || !block ||
      (toSpace
           ? *block > std::max<int64_t>(c, 1)
           : bs > std::max<int64_t>(h, 1) || bs > std::max<int64_t>(w, 1)) ||
      (toSpace ? c % *block : h % bs + w % bs) != 0)
    return ctx.emitError() << "blocksize " << bs << " does not fit "
                           << shapeString(x);
  std::string mode = ctx.attrString("mode", "DCR");
  if (mode != "DCR" && mode != "CRD")
    return ctx.unsupported("mode '" + mode + "'");
  llvm::SmallVector<int64_t> split, perm, out;
  if (toSpace) {
    int64_t cc = c / (bs * bs);
    if (mode == "DCR") {
      split = {n, bs, bs, cc, h, w};
      perm = {0, 3, 4, 1, 5, 2};
    } else {
      split = {n, cc, bs, bs, h, w};
      perm = {0, 1, 4, 2, 5, 3};
    }
    out = {n, cc, h * bs, w * bs};
  } else {
    split = {n, c, h / bs, bs, w / bs, bs};
    perm = {0, 3, 5, 1, 2, 4};
    out = {n, c * bs * bs, h / bs, w / bs};
  }
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Value v = reshapeTo(b, loc, ctx.input(0), split);
  v = transpose(b, loc, v, perm);
  ctx.setOutput(0, reshapeTo(b, loc, v, out), ctx.inputDType(0));
  return success();
}

// Reshape-like ops fold for free: the bytes are shared.
template <LogicalResult (*Convert)(NodeContext &)>
FailureOr<bool> foldReshapeLike(NodeContext &ctx) {
  if (!ctx.constantInput(0))
    return false;
  if (failed(Convert(ctx)))
    return failure();
  return true;
}

} // namespace

void registerReshapingOps(OpRegistry &registry) {
  registry.add("Identity", convertIdentity);
  registry.add("Dropout", convertDropout);
  registry.add("Reshape", convertReshape);
  registry.addFolder("Reshape", foldReshapeLike<convertReshape>);
  registry.add("Flatten", convertFlatten);
  registry.addFolder("Flatten", foldReshapeLike<convertFlatten>);
  registry.add("Squeeze", convertSqueeze);
  registry.addFolder("Squeeze", foldReshapeLike<convertSqueeze>);
  registry.add("Unsqueeze", convertUnsqueeze);
  registry.addFolder("Unsqueeze", foldReshapeLike<convertUnsqueeze>);
  registry.add("Transpose", convertTranspose);
  registry.addFolder("Transpose", foldTranspose);
  registry.add("Concat", convertConcat);
  registry.addFolder("Concat", foldConcat);
  registry.add("Gather", convertGather);
  registry.add("DepthToSpace", [](NodeContext &ctx) {
    return convertBlockRearrangement(ctx, true);
  });
  registry.add("SpaceToDepth", [](NodeContext &ctx) {
    return convertBlockRearrangement(ctx, false);
  });
  registry.addFolder("Gather", foldGather);
  // Views and transposes of dynamic shapes (issue 19); Reshape's target
  // must be a constant, each converter refuses what it cannot follow.
  registry.acceptDynamicShapes({"Gather"});
  registry.acceptDynamicShapes({"Identity", "Dropout", "Reshape", "Flatten",
                                "Squeeze", "Unsqueeze", "Transpose", "Concat"});
}

} // namespace kiln::onnx_import
