//===- Conv.cpp - ONNX Conv and ConvTranspose -----------------------------===//
//
// Convolutions stay in ONNX's channels-first layout as linalg's named NC...
// ops (1-, 2- and 3-D), depthwise ones (one filter per channel) as the
// depthwise NC... ops, 2-D grouped ones as conv_2d_ngchw_gfchw, other
// grouped ones as one convolution per group joined by a concat. Padding is
// a tensor.pad of zeros; the bias broadcast is the accumulator the
// convolution adds onto (dispatch formation keeps it with the convolution).
// ConvTranspose is the convolution of the input spread out by its strides
// (zeros between elements) and padded by the kernel's extent less the pads,
// with the filter's channel dimensions swapped and its window flipped.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ops/Common.h"
#include "compiler/onnx/ops/ConvCommon.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace kiln::onnx_import {
namespace {

template <typename OpTy>
Value namedConv(OpBuilder &b, Location loc, Value input, Value filter,
                Value init, const WindowGeometry &g) {
  return OpTy::create(b, loc, TypeRange{init.getType()},
                      ValueRange{input, filter}, ValueRange{init},
                      b.getI64TensorAttr(g.Strides),
                      b.getI64TensorAttr(g.Dilations))
      .getResult(0);
}

/// The accumulator of shape `shape` (channels at `channelDim`, split as
/// [G, F/G] when `groups` > 0) in `element`: the bias broadcast (converted
/// to it), or zeros.
Value accumulator(OpBuilder &b, Location loc, llvm::ArrayRef<int64_t> shape,
                  Type element, Value bias, int64_t channels, Value input,
                  int64_t groups = 0) {
  // A dynamic batch takes its size from the input's.
  if (!bias)
    return filledTensor(b, loc, shape, element, scalarAttr(element, 0), input);
  // bias [F] read as [F, 1, ...] (or [G, F/G, 1, ...]) against
  // [N, F, spatial...] (or [N, G, F/G, spatial...]).
  llvm::SmallVector<int64_t> biasShape;
  size_t spatial = shape.size() - (groups ? 3 : 2);
  if (groups)
    biasShape = {groups, channels / groups};
  else
    biasShape = {channels};
  biasShape.append(spatial, 1);
  Value shaped = reshapeTo(b, loc, bias, biasShape);
  return buildElementwise(
      b, loc, shaped, shape, element,
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        if (args[0].getType() == element)
          return args[0];
        return arith::ExtFOp::create(nb, l, element, args[0]);
      },
      input);
}

Value slice(OpBuilder &b, Location loc, Value value, int64_t dim,
            int64_t offset, int64_t size) {
  auto type = cast<RankedTensorType>(value.getType());
  llvm::SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0)),
      sizes, strides(type.getRank(), b.getIndexAttr(1));
  for (int64_t d = 0; d < type.getRank(); ++d)
    sizes.push_back(d == dim ? b.getIndexAttr(size)
                             : dimSize(b, loc, value, d));
  offsets[dim] = b.getIndexAttr(offset);
  return tensor::ExtractSliceOp::create(b, loc, value, offsets, sizes, strides);
}

/// An ungrouped convolution of any supported rank.
Value plainConv(OpBuilder &b, Location loc, Value input, Value filter,
                Value init, const WindowGeometry &g) {
  switch (g.Kernel.size()) {
  case 1:
    return namedConv<linalg::Conv1DNcwFcwOp>(b, loc, input, filter, init, g);
  case 2:
    return namedConv<linalg::Conv2DNchwFchwOp>(b, loc, input, filter, init, g);
  default:
    return namedConv<linalg::Conv3DNcdhwFcdhwOp>(b, loc, input, filter, init,
                                                 g);
  }
}

/// The convolution of `input` (already padded) [N, C, spatial...] with
/// `filter` [F, C/groups, k...] (and `bias` [F] or null) over `g`'s
/// strides and dilations: [N, F, g.Output...] of accumulatorType(input's
/// element type).
Value convolveInAccumulatorType(OpBuilder &b, Location loc, Value input,
                                Value filter, Value bias, int64_t groups,
                                const WindowGeometry &g) {
  auto inType = cast<RankedTensorType>(input.getType());
  auto wType = cast<RankedTensorType>(filter.getType());
  llvm::ArrayRef<int64_t> x = inType.getShape(), w = wType.getShape();
  Type element = accumulatorType(inType.getElementType());
  int64_t rank = x.size(), n = x[0], c = x[1], f = w[0];
  llvm::SmallVector<int64_t> outShape = {n, f};
  llvm::append_range(outShape, g.Output);
  if (groups == 1)
    return plainConv(b, loc, input, filter,
                     accumulator(b, loc, outShape, element, bias, f, input), g);
  if (groups == c && f == c) {
    // Depthwise: filter [C, 1, k...] -> [C, k...].
    llvm::SmallVector<int64_t> dwShape = {c};
    llvm::append_range(dwShape, w.drop_front(2));
    Value dw = reshapeTo(b, loc, filter, dwShape);
    Value init = accumulator(b, loc, outShape, element, bias, f, input);
    switch (rank) {
    case 3:
      return namedConv<linalg::DepthwiseConv1DNcwCwOp>(b, loc, input, dw, init,
                                                       g);
    case 4:
      return namedConv<linalg::DepthwiseConv2DNchwChwOp>(b, loc, input, dw,
                                                         init, g);
    default:
      return namedConv<linalg::DepthwiseConv3DNcdhwCdhwOp>(b, loc, input, dw,
                                                           init, g);
    }
  }
  if (rank == 4) {
    // [N, G, C/G, H, W] x [G, F/G, C/G, kh, kw] -> [N, G, F/G, OH, OW].
    OpFoldResult batch = dimSize(b, loc, input, 0);
    Value in5 = reshapeToSizes(b, loc, input,
                               llvm::ArrayRef<OpFoldResult>{
                                   batch, b.getIndexAttr(groups),
                                   b.getIndexAttr(c / groups),
                                   b.getIndexAttr(x[2]), b.getIndexAttr(x[3])});
    Value w5 =
        reshapeTo(b, loc, filter, {groups, f / groups, w[1], w[2], w[3]});
    llvm::SmallVector<int64_t> out5 = {n, groups, f / groups, g.Output[0],
                                       g.Output[1]};
    Value init = accumulator(b, loc, out5, element, bias, f, in5, groups);
    Value grouped =
        namedConv<linalg::Conv2DNgchwGfchwOp>(b, loc, in5, w5, init, g);
    return reshapeToSizes(
        b, loc, grouped,
        llvm::ArrayRef<OpFoldResult>{batch, b.getIndexAttr(f),
                                     b.getIndexAttr(g.Output[0]),
                                     b.getIndexAttr(g.Output[1])});
  }
  // One convolution per group, joined along the channels.
  llvm::SmallVector<Value> parts;
  int64_t cg = c / groups, fg = f / groups;
  llvm::SmallVector<int64_t> partShape = outShape;
  partShape[1] = fg;
  for (int64_t i = 0; i < groups; ++i) {
    Value in = slice(b, loc, input, 1, i * cg, cg);
    Value wt = slice(b, loc, filter, 0, i * fg, fg);
    Value bs = bias ? slice(b, loc, bias, 0, i * fg, fg) : Value();
    Value init = accumulator(b, loc, partShape, element, bs, fg, in);
    parts.push_back(plainConv(b, loc, in, wt, init, g));
  }
  return tensor::ConcatOp::create(b, loc, 1, parts);
}

/// convolveInAccumulatorType's result in the input's element type.
Value convolve(OpBuilder &b, Location loc, Value input, Value filter,
               Value bias, int64_t groups, const WindowGeometry &g) {
  Type element = cast<RankedTensorType>(input.getType()).getElementType();
  return convertFloatElements(
      b, loc, convolveInAccumulatorType(b, loc, input, filter, bias, groups, g),
      element);
}

/// Shared check of Conv and ConvTranspose: float operands of one type.
LogicalResult checkConvDTypes(NodeContext &ctx) {
  int32_t dtype = ctx.inputDType(0);
  if (!isFloatDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype));
  if (failed(requireSameDType(ctx, 1)) ||
      (ctx.hasInput(2) && failed(requireSameDType(ctx, 2))))
    return failure();
  return success();
}

/// Shared check of the convolutions: input rank 3 to 5, a filter of as many
/// dimensions.
LogicalResult checkConvRanks(NodeContext &ctx, llvm::ArrayRef<int64_t> x,
                             llvm::ArrayRef<int64_t> w) {
  int64_t rank = x.size();
  if (rank < 3 || rank > 5)
    return ctx.unsupported(std::to_string(rank - 2) +
                           "-D convolution (1-D to 3-D are)");
  if (static_cast<int64_t>(w.size()) != rank)
    return ctx.emitError() << "filter " << shapeString(w)
                           << " does not match input " << shapeString(x);
  return success();
}

} // namespace

FailureOr<Value> buildConv(NodeContext &ctx, Value input, Value filter,
                           Value bias) {
  llvm::ArrayRef<int64_t> x =
      cast<RankedTensorType>(input.getType()).getShape();
  llvm::ArrayRef<int64_t> w =
      cast<RankedTensorType>(filter.getType()).getShape();
  if (failed(checkConvRanks(ctx, x, w)))
    return failure();
  // A dynamic batch (issue 19) passes through: channels, spatial sizes and
  // the filter's shape decide the geometry and must be known.
  auto staticExceptBatch = [](llvm::ArrayRef<int64_t> shape, bool batchOk) {
    for (auto [d, size] : llvm::enumerate(shape))
      if (ShapedType::isDynamic(size) && !(batchOk && d == 0))
        return false;
    return true;
  };
  if (!staticExceptBatch(x, true) || !staticExceptBatch(w, false) ||
      (bias && !cast<RankedTensorType>(bias.getType()).hasStaticShape()))
    return ctx.unsupported("dynamic dimension other than the batch (input " +
                           shapeString(x) + ", filter " + shapeString(w) + ")");
  int64_t c = x[1], f = w[0];
  int64_t groups = ctx.attrInt("group", 1);
  if (groups < 1 || c % groups != 0 || f % groups != 0 || w[1] * groups != c)
    return ctx.emitError() << "group " << groups << " does not fit input "
                           << shapeString(x) << " and filter "
                           << shapeString(w),
           failure();
  if (bias && cast<RankedTensorType>(bias.getType()).getShape() !=
                  llvm::ArrayRef<int64_t>{f})
    return ctx.emitError()
               << "bias "
               << shapeString(cast<RankedTensorType>(bias.getType()).getShape())
               << " is not [" << f << "]",
           failure();
  FailureOr<WindowGeometry> g =
      windowGeometry(ctx, x.drop_front(2), w.drop_front(2), false);
  if (failed(g))
    return failure();
  if (g->Kernel != w.drop_front(2))
    return ctx.emitError() << "kernel_shape does not match the filter "
                           << shapeString(w),
           failure();
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Type element = cast<RankedTensorType>(input.getType()).getElementType();
  llvm::SmallVector<int64_t> low = {0, 0}, high = {0, 0};
  llvm::append_range(low, g->PadLow);
  llvm::append_range(high, g->PadHigh);
  Value padded = padConstant(b, loc, input, low, high, scalarAttr(element, 0));
  return convolve(b, loc, padded, filter, bias, groups, *g);
}

namespace {

LogicalResult convertConv(NodeContext &ctx) {
  if (failed(checkConvDTypes(ctx)))
    return failure();
  Value bias = ctx.hasInput(2) ? ctx.input(2) : Value();
  FailureOr<Value> y = buildConv(ctx, ctx.input(0), ctx.input(1), bias);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y, ctx.inputDType(0));
  return success();
}

/// ConvTranspose's filter [C, F/G, k...] as a convolution filter
/// [F, C/G, k...], flipped in space: on the host for a constant, else a
/// generic.
Value transposedFilter(NodeContext &ctx, int64_t groups) {
  llvm::ArrayRef<int64_t> w = ctx.inputShape(1);
  int64_t rank = w.size(), c = w[0], fg = w[1], cg = c / groups;
  llvm::SmallVector<int64_t> shape = {fg * groups, cg};
  llvm::append_range(shape, w.drop_front(2));
  int64_t spatial = numElementsOf(w.drop_front(2));
  if (const HostTensor *t = ctx.constantInput(1)) {
    llvm::SmallVector<int64_t> flat;
    flat.reserve(numElementsOf(shape));
    for (int64_t f = 0; f < fg * groups; ++f)
      for (int64_t ci = 0; ci < cg; ++ci)
        for (int64_t k = 0; k < spatial; ++k) {
          int64_t g = f / fg;
          int64_t src = ((g * cg + ci) * fg + f % fg) * spatial;
          flat.push_back(src + spatial - 1 - k);
        }
    OnnxValue value{RankedTensorType(), t->dtype(), Value(),
                    t->gathered(shape, flat),
                    ctx.inputInfo(1).Name + "_flipped"};
    return materialize(ctx.builder(), value);
  }
  // out[f, c, k...] = w[(f / fg) * cg + c, f mod fg, K - 1 - k...], read
  // with tensor.extract: linalg cannot infer loop bounds through the
  // flipped (negative) indexing of a map.
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Type element = ctx.inputType(1).getElementType();
  Value source = ctx.input(1);
  Value init = tensor::EmptyOp::create(b, loc, shape, element);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{}, init,
             llvm::ArrayRef<AffineMap>{b.getMultiDimIdentityMap(rank)},
             llvm::SmallVector<utils::IteratorType>(
                 rank, utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location l, ValueRange) {
               auto cst = [&](int64_t v) {
                 return Value(arith::ConstantIndexOp::create(nb, l, v));
               };
               Value f = linalg::IndexOp::create(nb, l, 0);
               Value c = linalg::IndexOp::create(nb, l, 1);
               Value g = arith::DivUIOp::create(nb, l, f, cst(fg));
               llvm::SmallVector<Value> position = {
                   arith::AddIOp::create(
                       nb, l, arith::MulIOp::create(nb, l, g, cst(cg)), c),
                   arith::RemUIOp::create(nb, l, f, cst(fg))};
               for (int64_t d = 2; d < rank; ++d)
                 position.push_back(arith::SubIOp::create(
                     nb, l, cst(w[d] - 1), linalg::IndexOp::create(nb, l, d)));
               linalg::YieldOp::create(
                   nb, l,
                   Value(tensor::ExtractOp::create(nb, l, source, position)));
             })
      .getResult(0);
}

LogicalResult convertConvTranspose(NodeContext &ctx) {
  llvm::ArrayRef<int64_t> x = ctx.inputShape(0), w = ctx.inputShape(1);
  if (failed(checkConvDTypes(ctx)) || failed(checkConvRanks(ctx, x, w)))
    return failure();
  int64_t rank = x.size(), nsp = rank - 2, n = x[0], c = x[1];
  int64_t groups = ctx.attrInt("group", 1);
  if (groups < 1 || c % groups != 0 || w[0] != c)
    return ctx.emitError() << "group " << groups << " does not fit input "
                           << shapeString(x) << " and filter "
                           << shapeString(w);
  int64_t f = w[1] * groups;
  if (ctx.hasInput(2) && ctx.inputShape(2) != llvm::ArrayRef<int64_t>{f})
    return ctx.emitError() << "bias " << shapeString(ctx.inputShape(2))
                           << " is not [" << f << "]";
  llvm::SmallVector<int64_t> kernel =
      ctx.attrInts("kernel_shape", w.drop_front(2));
  llvm::SmallVector<int64_t> strides =
      ctx.attrInts("strides", llvm::SmallVector<int64_t>(nsp, 1));
  llvm::SmallVector<int64_t> dilations =
      ctx.attrInts("dilations", llvm::SmallVector<int64_t>(nsp, 1));
  llvm::SmallVector<int64_t> outputPadding =
      ctx.attrInts("output_padding", llvm::SmallVector<int64_t>(nsp, 0));
  llvm::SmallVector<int64_t> pads =
      ctx.attrInts("pads", llvm::SmallVector<int64_t>(2 * nsp, 0));
  llvm::SmallVector<int64_t> outputShape = ctx.attrInts("output_shape");
  std::string autoPad = ctx.attrString("auto_pad", "NOTSET");
  if (autoPad != "NOTSET" && autoPad != "VALID" && autoPad != "SAME_UPPER" &&
      autoPad != "SAME_LOWER")
    return ctx.unsupported("auto_pad '" + autoPad + "'");
  if (kernel != w.drop_front(2) ||
      static_cast<int64_t>(strides.size()) != nsp ||
      static_cast<int64_t>(dilations.size()) != nsp ||
      static_cast<int64_t>(outputPadding.size()) != nsp ||
      static_cast<int64_t>(pads.size()) != 2 * nsp)
    return ctx.emitError()
           << "kernel_shape, strides, dilations, output_padding and pads "
              "must match the filter's "
           << nsp << " spatial dimensions";
  // output_shape may list the spatial sizes only, or N and C too.
  if (outputShape.size() == static_cast<size_t>(rank))
    outputShape.erase(outputShape.begin(), outputShape.begin() + 2);
  if (!outputShape.empty() && static_cast<int64_t>(outputShape.size()) != nsp)
    return ctx.emitError() << "output_shape has " << outputShape.size()
                           << " values for " << nsp << " spatial dimensions";
  // Each parameter in [0, 2^31) (strides and dilations from 1), and the
  // products below checked, so no size overflows (a stretched input or an
  // output past the limits is refused by checkShape and setOutput).
  auto inRange = [](llvm::ArrayRef<int64_t> values, int64_t least) {
    return llvm::all_of(values, [&](int64_t v) {
      return v >= least && v < (int64_t(1) << 31);
    });
  };
  if (!inRange(strides, 1) || !inRange(dilations, 1) ||
      !inRange(outputPadding, 0) || !inRange(pads, 0) ||
      !inRange(outputShape, 0))
    return ctx.emitError() << "strides and dilations must be in [1, 2^31), "
                              "output_padding, pads and output_shape in "
                              "[0, 2^31)";
  WindowGeometry g;
  llvm::SmallVector<int64_t> low = {0, 0}, high = {0, 0};
  llvm::SmallVector<int64_t> stretched = {n, c};
  for (int64_t i = 0; i < nsp; ++i) {
    std::optional<int64_t> spread = checkedMul(kernel[i] - 1, dilations[i]);
    std::optional<int64_t> stretch =
        checkedMul(strides[i], std::max<int64_t>(x[2 + i] - 1, 0));
    if (!spread || !stretch || *spread > (int64_t(1) << 50) ||
        *stretch > (int64_t(1) << 50))
      return ctx.emitError() << "the window or the strided input of spatial "
                                "dimension "
                             << i << " is too large";
    int64_t extent = *spread + 1;
    int64_t full = *stretch + outputPadding[i] + extent;
    int64_t pb = pads[i], pe = pads[nsp + i];
    if (!outputShape.empty() || autoPad == "SAME_UPPER" ||
        autoPad == "SAME_LOWER") {
      int64_t out =
          outputShape.empty() ? x[2 + i] * strides[i] : outputShape[i];
      int64_t total = full - out;
      // A larger output_shape (a negative total) extends the output at
      // the end.
      bool upper = autoPad == "SAME_UPPER";
      pb = total < 0 ? 0 : upper ? total / 2 : total - total / 2;
      pe = total - pb;
    } else if (autoPad == "VALID") {
      pb = pe = 0;
    }
    int64_t out = full - pb - pe;
    if (out < 1)
      return ctx.emitError() << "pads leave no output";
    // The input with strides - 1 zeros between elements, padded by
    // extent - 1 - pad on each side (output_padding at the end).
    low.push_back(extent - 1 - pb);
    high.push_back(extent - 1 - pe + outputPadding[i]);
    stretched.push_back((x[2 + i] - 1) * strides[i] + 1);
    g.Kernel.push_back(kernel[i]);
    g.Strides.push_back(1);
    g.Dilations.push_back(dilations[i]);
    g.Output.push_back(out);
  }
  if (failed(ctx.checkShape(stretched, ctx.inputDType(0), "stretched input")))
    return failure();
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Type element = ctx.inputType(0).getElementType();
  // Zeros of the stretched and padded size, the input inserted with strides;
  // negative padding (pads beyond the kernel) is cut off afterwards.
  llvm::SmallVector<int64_t> paddedShape;
  llvm::SmallVector<OpFoldResult> offsets, sizes, steps;
  for (int64_t d = 0; d < rank; ++d) {
    paddedShape.push_back(std::max<int64_t>(low[d], 0) + stretched[d] +
                          std::max<int64_t>(high[d], 0));
    offsets.push_back(b.getIndexAttr(std::max<int64_t>(low[d], 0)));
    sizes.push_back(b.getIndexAttr(x[d]));
    steps.push_back(b.getIndexAttr(d < 2 ? 1 : strides[d - 2]));
  }
  Value zeros =
      filledTensor(b, loc, paddedShape, element, scalarAttr(element, 0));
  Value input = tensor::InsertSliceOp::create(b, loc, ctx.input(0), zeros,
                                              offsets, sizes, steps);
  if (llvm::any_of(low, [](int64_t p) { return p < 0; }) ||
      llvm::any_of(high, [](int64_t p) { return p < 0; })) {
    llvm::SmallVector<OpFoldResult> cutOffsets, cutSizes,
        ones(rank, b.getIndexAttr(1));
    for (int64_t d = 0; d < rank; ++d) {
      int64_t from = low[d] < 0 ? -low[d] : 0;
      int64_t to = paddedShape[d] - (high[d] < 0 ? -high[d] : 0);
      cutOffsets.push_back(b.getIndexAttr(from));
      cutSizes.push_back(b.getIndexAttr(to - from));
    }
    input = tensor::ExtractSliceOp::create(b, loc, input, cutOffsets, cutSizes,
                                           ones);
  }
  Value filter = transposedFilter(ctx, groups);
  Value bias = ctx.hasInput(2) ? ctx.input(2) : Value();
  ctx.setOutput(0, convolve(b, loc, input, filter, bias, groups, g),
                ctx.inputDType(0));
  return success();
}

} // namespace

void registerConvOps(OpRegistry &registry) {
  registry.add("Conv", convertConv);
  // A dynamic batch; buildConv refuses any other dynamic dimension.
  registry.acceptDynamicShapes({"Conv"});
  registry.add("ConvTranspose", convertConvTranspose);
}

} // namespace kiln::onnx_import
