//===- Conv.cpp - ONNX Conv -----------------------------------------------===//
//
// Convolutions stay in ONNX's channels-first layout as linalg's named NC...
// ops (1-, 2- and 3-D), depthwise ones (one filter per channel) as the
// depthwise NC... ops, 2-D grouped ones as conv_2d_ngchw_gfchw, other
// grouped ones as one convolution per group joined by a concat. Padding is
// a tensor.pad of zeros; the bias broadcast is the accumulator the
// convolution adds onto (dispatch formation keeps it with the convolution).
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ops/Common.h"
#include "compiler/onnx/ops/ConvCommon.h"

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
/// [G, F/G] when `groups` > 0): the bias broadcast, or zeros.
Value accumulator(OpBuilder &b, Location loc, llvm::ArrayRef<int64_t> shape,
                  Type element, Value bias, int64_t channels,
                  int64_t groups = 0) {
  if (!bias)
    return filledTensor(b, loc, shape, element, scalarAttr(element, 0));
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
      [](OpBuilder &, Location, ValueRange args) { return args[0]; });
}

Value slice(OpBuilder &b, Location loc, Value value, int64_t dim,
            int64_t offset, int64_t size) {
  auto type = cast<RankedTensorType>(value.getType());
  llvm::SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0)),
      sizes, strides(type.getRank(), b.getIndexAttr(1));
  for (int64_t d = 0; d < type.getRank(); ++d)
    sizes.push_back(b.getIndexAttr(d == dim ? size : type.getDimSize(d)));
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

LogicalResult convertConv(NodeContext &ctx) {
  int32_t dtype = ctx.inputDType(0);
  if (!isFloatDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype));
  if (failed(requireSameDType(ctx, 1)) ||
      (ctx.hasInput(2) && failed(requireSameDType(ctx, 2))))
    return failure();
  llvm::ArrayRef<int64_t> x = ctx.inputShape(0), w = ctx.inputShape(1);
  int64_t rank = x.size();
  if (rank < 3 || rank > 5)
    return ctx.unsupported(std::to_string(rank - 2) +
                           "-D convolution (1-D to 3-D are)");
  if (static_cast<int64_t>(w.size()) != rank)
    return ctx.emitError() << "filter " << shapeString(w)
                           << " does not match input " << shapeString(x);
  int64_t n = x[0], c = x[1], f = w[0];
  int64_t groups = ctx.attrInt("group", 1);
  if (groups < 1 || c % groups != 0 || f % groups != 0 || w[1] * groups != c)
    return ctx.emitError() << "group " << groups << " does not fit input "
                           << shapeString(x) << " and filter "
                           << shapeString(w);
  if (ctx.hasInput(2) && ctx.inputShape(2) != llvm::ArrayRef<int64_t>{f})
    return ctx.emitError() << "bias " << shapeString(ctx.inputShape(2))
                           << " is not [" << f << "]";
  FailureOr<WindowGeometry> g =
      windowGeometry(ctx, x.drop_front(2), w.drop_front(2), false);
  if (failed(g))
    return failure();
  if (g->Kernel != w.drop_front(2))
    return ctx.emitError() << "kernel_shape does not match the filter "
                           << shapeString(w);
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Type element = ctx.inputType(0).getElementType();
  llvm::SmallVector<int64_t> low = {0, 0}, high = {0, 0};
  llvm::append_range(low, g->PadLow);
  llvm::append_range(high, g->PadHigh);
  Value input =
      padConstant(b, loc, ctx.input(0), low, high, scalarAttr(element, 0));
  Value filter = ctx.input(1);
  Value bias = ctx.hasInput(2) ? ctx.input(2) : Value();
  llvm::SmallVector<int64_t> outShape = {n, f};
  llvm::append_range(outShape, g->Output);
  llvm::ArrayRef<int64_t> spatialOut = g->Output;
  Value result;
  if (groups == 1) {
    Value init = accumulator(b, loc, outShape, element, bias, f);
    result = plainConv(b, loc, input, filter, init, *g);
  } else if (groups == c && f == c) {
    // Depthwise: filter [C, 1, k...] -> [C, k...].
    llvm::SmallVector<int64_t> dwShape = {c};
    llvm::append_range(dwShape, w.drop_front(2));
    Value dw = reshapeTo(b, loc, filter, dwShape);
    Value init = accumulator(b, loc, outShape, element, bias, f);
    switch (rank) {
    case 3:
      result = namedConv<linalg::DepthwiseConv1DNcwCwOp>(b, loc, input, dw,
                                                         init, *g);
      break;
    case 4:
      result = namedConv<linalg::DepthwiseConv2DNchwChwOp>(b, loc, input, dw,
                                                           init, *g);
      break;
    default:
      result = namedConv<linalg::DepthwiseConv3DNcdhwCdhwOp>(b, loc, input, dw,
                                                             init, *g);
      break;
    }
  } else if (rank == 4) {
    // [N, G, C/G, H, W] x [G, F/G, C/G, kh, kw] -> [N, G, F/G, OH, OW].
    auto paddedShape = cast<RankedTensorType>(input.getType()).getShape();
    Value in5 = reshapeTo(
        b, loc, input, {n, groups, c / groups, paddedShape[2], paddedShape[3]});
    Value w5 =
        reshapeTo(b, loc, filter, {groups, f / groups, w[1], w[2], w[3]});
    llvm::SmallVector<int64_t> out5 = {n, groups, f / groups, spatialOut[0],
                                       spatialOut[1]};
    Value init = accumulator(b, loc, out5, element, bias, f, groups);
    Value grouped =
        namedConv<linalg::Conv2DNgchwGfchwOp>(b, loc, in5, w5, init, *g);
    result = reshapeTo(b, loc, grouped, outShape);
  } else {
    // One convolution per group, joined along the channels.
    llvm::SmallVector<Value> parts;
    int64_t cg = c / groups, fg = f / groups;
    llvm::SmallVector<int64_t> partShape = outShape;
    partShape[1] = fg;
    for (int64_t i = 0; i < groups; ++i) {
      Value in = slice(b, loc, input, 1, i * cg, cg);
      Value wt = slice(b, loc, filter, 0, i * fg, fg);
      Value bs = bias ? slice(b, loc, bias, 0, i * fg, fg) : Value();
      Value init = accumulator(b, loc, partShape, element, bs, fg);
      parts.push_back(plainConv(b, loc, in, wt, init, *g));
    }
    result = tensor::ConcatOp::create(b, loc, 1, parts);
  }
  ctx.setOutput(0, result, dtype);
  return success();
}

} // namespace

void registerConvOps(OpRegistry &registry) {
  registry.add("Conv", convertConv);
}

} // namespace kiln::onnx_import
