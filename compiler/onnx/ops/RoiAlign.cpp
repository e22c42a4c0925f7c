//===- RoiAlign.cpp - ONNX RoiAlign ---------------------------------------===//
//
// Y[r, c, ph, pw] pools X[batch_indices[r], c] over bin (ph, pw) of ROI r:
// a grid of samples per bin, each bilinearly interpolated, averaged (avg)
// or the largest of its four weighted taps kept (max), as ONNX's reference
// (onnx/reference/ops/op_roi_align.py, ONNX Runtime's kernel) computes it.
// The ROIs and batch indices are data, so one generic computes the bins'
// coordinates in its body, in double as the reference does, over two
// reduction dimensions of samples; a second divides by the sample count
// (avg) or settles the max.
//
// With sampling_ratio > 0 the grid is that many samples per bin side, the
// reduction's extent. With 0 it is ceil(bin size) per side, known per call
// only, and Kiln's input has no loops of data-dependent length: samples of
// one bin are then at most one pixel and more than half a pixel apart, so
// at most H + 2 of them fall in the rows [-1, H] that can read X; the
// reduction covers H + 4 samples from just before the first of those (two
// more for the rounding of that first index), and those past the grid or
// outside X are skipped. Samples outside X add 0 to an average, which
// skipping gives; for max their value is 0, so the second generic takes
// max(result, 0) when the grid has a sample outside X (its first or last
// sample along an axis is, the samples being monotonic).
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ops/Common.h"
#include "compiler/onnx/ops/ScalarMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;

namespace kiln::onnx_import {
namespace {

/// Most samples per bin side a fixed sampling_ratio may ask for (each
/// output element sums the square of it).
constexpr int64_t kMaxSamplingRatio = 1024;

/// The bins of one ROI along one axis, in pixels of X (f64): bin p's
/// samples are Start + p Bin + (i + 0.5) Bin / Grid for i in [0, Grid).
struct AxisBins {
  Value Start, Bin, Grid;
};

/// The node's attributes and X's extents, and the coordinate arithmetic
/// both generics share (built in f64 in their bodies).
struct RoiAlignForm {
  bool HalfPixel;
  double SpatialScale;
  int64_t SamplingRatio;
  int64_t OutHeight, OutWidth;
  int64_t Height, Width;
  bool Max;

  /// Axis bins from the ROI's start and end coordinates (f64).
  AxisBins axis(ScalarMath &m, Value start, Value end, int64_t out) const {
    Value offset = m.cst(HalfPixel ? 0.5 : 0.0);
    Value first = m.sub(m.mul(start, m.cst(SpatialScale)), offset);
    Value last = m.sub(m.mul(end, m.cst(SpatialScale)), offset);
    Value size = m.sub(last, first);
    // output_half_pixel (RoiAlign-10's only mode) makes malformed ROIs 1x1.
    if (!HalfPixel)
      size = m.max(size, m.cst(1));
    Value bin = m.div(size, m.cst(out));
    Value grid = SamplingRatio > 0 ? m.cst(SamplingRatio) : m.ceil(bin);
    return {first, bin, grid};
  }

  /// Rows (`yx` 0) and columns (1) of the ROI whose four coordinates
  /// [x1, y1, x2, y2] are `roi` (X's element type).
  AxisBins bins(ScalarMath &m, ValueRange roi, int32_t dtype, int yx) const {
    auto coordinate = [&](int i) {
      return convertScalar(m.B, m.L, roi[i], dtype, Double);
    };
    return axis(m, coordinate(1 - yx), coordinate(3 - yx),
                yx == 0 ? OutHeight : OutWidth);
  }

  /// Sample `i` of bin `p` (f64), in the reference's order of operations.
  static Value sample(ScalarMath &m, const AxisBins &a, Value p, Value i) {
    Value base = m.add(a.Start, m.mul(p, a.Bin));
    return m.add(base, m.div(m.mul(m.add(i, m.cst(0.5)), a.Bin), a.Grid));
  }

  /// Whether `v` is a coordinate the reference samples X at: in
  /// [-1, size] (false for NaN, which the reference cannot sample).
  static Value inside(ScalarMath &m, Value v, int64_t size) {
    return arith::AndIOp::create(
        m.B, m.L, m.cmp(arith::CmpFPredicate::OGE, v, m.cst(-1)),
        m.cmp(arith::CmpFPredicate::OLE, v, m.cst(size)));
  }
};

/// The reference's bilinear taps along one axis at `v` (inside [-1, size]
/// where `in` holds; else a tap at 0): clamped at 0, and a coordinate at
/// or past the last pixel reads only it.
struct Taps {
  Value Low, High;             // index
  Value LowWeight, HighWeight; // f64

  static Taps at(ScalarMath &m, Value v, Value in, int64_t size) {
    Value zero = m.cst(0);
    Value c = m.select(in, m.max(v, zero), zero);
    Value low = m.floor(c);
    Value last = m.cst(size - 1);
    Value edge = m.cmp(arith::CmpFPredicate::OGE, low, last);
    low = m.select(edge, last, low);
    Value high = m.select(edge, last, m.add(low, m.cst(1)));
    c = m.select(edge, low, c);
    Value highWeight = m.sub(c, low);
    auto index = [&](Value f) {
      Value i = arith::FPToSIOp::create(m.B, m.L, m.B.getI64Type(), f);
      return Value(arith::IndexCastOp::create(m.B, m.L, m.B.getIndexType(), i));
    };
    return {index(low), index(high), m.sub(m.cst(1), highWeight), highWeight};
  }
};

LogicalResult convertRoiAlign(NodeContext &ctx) {
  int32_t dtype = ctx.inputDType(0);
  if (!isFloatDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype));
  if (!ctx.hasInput(1) || !ctx.hasInput(2))
    return ctx.emitError() << "needs X, rois and batch_indices";
  if (failed(requireSameDType(ctx, 1)) || failed(ctx.requireDType(2, {Int64})))
    return failure();
  llvm::ArrayRef<int64_t> xShape = ctx.inputShape(0), rois = ctx.inputShape(1),
                          indices = ctx.inputShape(2);
  if (xShape.size() != 4)
    return ctx.emitError() << "X is " << shapeString(xShape)
                           << ", not [N, C, H, W]";
  if (rois.size() != 2 || rois[1] != 4)
    return ctx.emitError() << "rois is " << shapeString(rois)
                           << ", not [num_rois, 4]";
  // The rois' count may be known per call (a detector's proposals): the
  // output's first extent then is too, checked against batch_indices'.
  bool perCall = ShapedType::isDynamic(rois[0]) ||
                 (indices.size() == 1 && ShapedType::isDynamic(indices[0]));
  if (indices.size() != 1 || (!perCall && indices[0] != rois[0]))
    return ctx.emitError() << "batch_indices is " << shapeString(indices)
                           << ", not [" << shapeString(rois.take_front())
                           << "] as rois";
  if (!ctx.inputType(0).hasStaticShape() || ShapedType::isDynamic(rois[1]))
    return ctx.unsupported("X or a roi's coordinates of dynamic shape (the "
                           "rois' count may be)");
  RoiAlignForm form;
  form.OutHeight = ctx.attrInt("output_height", 1);
  form.OutWidth = ctx.attrInt("output_width", 1);
  form.SamplingRatio = ctx.attrInt("sampling_ratio", 0);
  form.SpatialScale = ctx.attrFloat("spatial_scale", 1.0f);
  std::string mode = ctx.attrString("mode", "avg");
  // RoiAlign-10 has no coordinate_transformation_mode: its ROIs are what
  // RoiAlign-16 calls output_half_pixel.
  std::string transform =
      ctx.opset() >= 16
          ? ctx.attrString("coordinate_transformation_mode", "half_pixel")
          : "output_half_pixel";
  if (ctx.failedAttributes())
    return failure();
  if (form.OutHeight < 1 || form.OutWidth < 1)
    return ctx.emitError() << "output_height " << form.OutHeight
                           << " and output_width " << form.OutWidth
                           << " must be positive";
  if (form.SamplingRatio < 0)
    return ctx.emitError() << "sampling_ratio " << form.SamplingRatio
                           << " is negative";
  if (form.SamplingRatio > kMaxSamplingRatio)
    return ctx.unsupported("sampling_ratio " + llvm::Twine(form.SamplingRatio) +
                           " (at most " + llvm::Twine(kMaxSamplingRatio) + ")");
  if (mode != "avg" && mode != "max")
    return ctx.unsupported("mode '" + mode + "' (avg or max)");
  if (transform != "half_pixel" && transform != "output_half_pixel")
    return ctx.unsupported("coordinate_transformation_mode '" + transform +
                           "'");
  form.Max = mode == "max";
  form.HalfPixel = transform == "half_pixel";
  int64_t batch = xShape[0];
  form.Height = xShape[2];
  form.Width = xShape[3];
  llvm::SmallVector<int64_t> outShape = {
      ShapedType::isDynamic(rois[0]) ? indices[0] : rois[0], xShape[1],
      form.OutHeight, form.OutWidth};
  // A count known per call counts as one here; the runtime bounds each
  // call's sizes.
  llvm::SmallVector<int64_t> checked(outShape);
  if (ShapedType::isDynamic(checked[0]))
    checked[0] = 1;
  FailureOr<int64_t> elements = ctx.checkShape(checked, dtype, "output");
  if (failed(elements))
    return failure();
  if (*elements > 0 && (batch == 0 || form.Height == 0 || form.Width == 0))
    return ctx.emitError() << "samples an empty X " << shapeString(xShape);

  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  MLIRContext *mctx = ctx.context();
  Type element = ctx.inputType(0).getElementType();
  Type acc = accumulatorType(element);
  int32_t accDType = acc == element ? dtype : Float;
  Type f64 = b.getF64Type();
  Value source = ctx.input(0), roiTensor = ctx.input(1);
  llvm::SmallVector<Value, 1> outSizes;
  if (perCall) {
    Value count = tensor::DimOp::create(b, loc, roiTensor, 0);
    cf::AssertOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, count,
                              tensor::DimOp::create(b, loc, ctx.input(2), 0)),
        ctx.describe() + ": batch_indices must have one index per roi");
    if (ShapedType::isDynamic(outShape[0]))
      outSizes.push_back(count);
  }
  // Sample extents per bin side (see the file's comment).
  int64_t samplesY =
      form.SamplingRatio > 0 ? form.SamplingRatio : form.Height + 4;
  int64_t samplesX =
      form.SamplingRatio > 0 ? form.SamplingRatio : form.Width + 4;
  // rois[r, j] read by a generic over `loops` dimensions, r the first.
  auto roiMap = [&](unsigned loops, int64_t j) {
    return AffineMap::get(
        loops, 0, {getAffineDimExpr(0, mctx), getAffineConstantExpr(j, mctx)},
        mctx);
  };
  auto roiMaps = [&](unsigned loops) {
    llvm::SmallVector<AffineMap> maps;
    for (int64_t j = 0; j < 4; ++j)
      maps.push_back(roiMap(loops, j));
    return maps;
  };
  auto fourDims = [&](unsigned loops) {
    llvm::SmallVector<AffineExpr> dims;
    for (unsigned d = 0; d < 4; ++d)
      dims.push_back(getAffineDimExpr(d, mctx));
    return AffineMap::get(loops, 0, dims, mctx);
  };
  auto asF64 = [&](OpBuilder &nb, Location l, unsigned dim) {
    Value i = arith::IndexCastOp::create(nb, l, nb.getI64Type(),
                                         linalg::IndexOp::create(nb, l, dim));
    return Value(arith::SIToFPOp::create(nb, l, f64, i));
  };

  // Sums (avg) or maxima (max) over the samples inside X.
  double identity = form.Max ? -std::numeric_limits<double>::infinity() : 0.0;
  Value init =
      linalg::FillOp::create(
          b, loc,
          ValueRange{
              arith::ConstantOp::create(b, loc, scalarAttr(acc, identity))},
          ValueRange{tensor::EmptyOp::create(b, loc, outShape, acc, outSizes)})
          .getResult(0);
  llvm::SmallVector<AffineMap> maps = roiMaps(6);
  maps.push_back(AffineMap::get(6, 0, getAffineDimExpr(0, mctx)));
  // The samples' extents come from an operand that is read nowhere, as
  // linalg's pooling windows do.
  Value window =
      tensor::EmptyOp::create(b, loc, {samplesY, samplesX}, b.getI8Type());
  maps.push_back(AffineMap::get(
      6, 0, {getAffineDimExpr(4, mctx), getAffineDimExpr(5, mctx)}, mctx));
  maps.push_back(fourDims(6));
  llvm::SmallVector<utils::IteratorType> iterators(
      4, utils::IteratorType::parallel);
  iterators.append(2, utils::IteratorType::reduction);
  Value pooled =
      linalg::GenericOp::create(
          b, loc, init.getType(),
          ValueRange{roiTensor, roiTensor, roiTensor, roiTensor, ctx.input(2),
                     window},
          init, maps, iterators,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            ScalarMath m{nb, l, f64};
            ValueRange roi = args.take_front(4);
            // One axis' sample: its coordinate and whether it is in the
            // grid.
            auto axisSample = [&](int yx) -> std::pair<Value, Value> {
              AxisBins a = form.bins(m, roi, dtype, yx);
              Value p = asF64(nb, l, 2 + yx);
              Value k = asF64(nb, l, 4 + yx);
              if (form.SamplingRatio > 0)
                return {RoiAlignForm::sample(m, a, p, k),
                        arith::ConstantOp::create(nb, l, nb.getBoolAttr(true))};
              // The first sample at or past -1: (i + 0.5) step >= -1 - base,
              // less one for rounding, the window starting there.
              Value base = m.add(a.Start, m.mul(p, a.Bin));
              Value step = m.div(a.Bin, a.Grid);
              Value first =
                  m.sub(m.ceil(m.sub(m.div(m.sub(m.cst(-1), base), step),
                                     m.cst(0.5))),
                        m.cst(1));
              Value i = m.add(m.max(first, m.cst(0)), k);
              return {RoiAlignForm::sample(m, a, p, i),
                      m.cmp(arith::CmpFPredicate::OLT, i, a.Grid)};
            };
            auto [y, inGridY] = axisSample(0);
            auto [x, inGridX] = axisSample(1);
            Value inY = RoiAlignForm::inside(m, y, form.Height);
            Value inX = RoiAlignForm::inside(m, x, form.Width);
            Value use = arith::AndIOp::create(
                nb, l, arith::AndIOp::create(nb, l, inGridY, inGridX),
                arith::AndIOp::create(nb, l, inY, inX));
            Taps ty = Taps::at(m, y, inY, form.Height);
            Taps tx = Taps::at(m, x, inX, form.Width);
            // A batch index outside [0, N) reads the nearest image.
            Value n =
                arith::IndexCastOp::create(nb, l, nb.getIndexType(), args[4]);
            n = arith::MinSIOp::create(
                nb, l,
                arith::MaxSIOp::create(
                    nb, l, n, arith::ConstantIndexOp::create(nb, l, 0)),
                arith::ConstantIndexOp::create(nb, l, batch - 1));
            Value c = linalg::IndexOp::create(nb, l, 1);
            ScalarMath a{nb, l, acc};
            // weight * X[n, c, row, column], in the accumulator's type.
            auto tap = [&](Value wy, Value wx, Value row, Value column) {
              Value v = tensor::ExtractOp::create(
                  nb, l, source, ValueRange{n, c, row, column});
              Value w = convertScalar(nb, l, m.mul(wy, wx), Double, accDType);
              return a.mul(w, convertScalar(nb, l, v, dtype, accDType));
            };
            Value t1 = tap(ty.LowWeight, tx.LowWeight, ty.Low, tx.Low);
            Value t2 = tap(ty.LowWeight, tx.HighWeight, ty.Low, tx.High);
            Value t3 = tap(ty.HighWeight, tx.LowWeight, ty.High, tx.Low);
            Value t4 = tap(ty.HighWeight, tx.HighWeight, ty.High, tx.High);
            Value sum = args.back(), next;
            if (form.Max)
              next = a.max(sum, a.max(a.max(a.max(t1, t2), t3), t4));
            else
              next = a.add(sum, a.add(a.add(a.add(t1, t2), t3), t4));
            linalg::YieldOp::create(nb, l, a.select(use, next, sum));
          })
          .getResult(0);

  // Averages over the grid's samples (at least one), or maxima with the
  // samples outside X counted as 0; 0 for an empty grid.
  llvm::SmallVector<AffineMap> finishMaps = roiMaps(4);
  finishMaps.append(2, b.getMultiDimIdentityMap(4));
  Value result =
      linalg::GenericOp::create(
          b, loc, RankedTensorType::get(outShape, element),
          ValueRange{roiTensor, roiTensor, roiTensor, roiTensor, pooled},
          Value(tensor::EmptyOp::create(b, loc, outShape, element, outSizes)),
          finishMaps,
          llvm::SmallVector<utils::IteratorType>(4,
                                                 utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location l, ValueRange args) {
            ScalarMath m{nb, l, f64};
            ScalarMath a{nb, l, acc};
            ValueRange roi = args.take_front(4);
            AxisBins by = form.bins(m, roi, dtype, 0);
            AxisBins bx = form.bins(m, roi, dtype, 1);
            Value one = m.cst(1);
            Value nonEmpty = arith::AndIOp::create(
                nb, l, m.cmp(arith::CmpFPredicate::OGE, by.Grid, one),
                m.cmp(arith::CmpFPredicate::OGE, bx.Grid, one));
            Value pooledValue = args[4], value;
            if (!form.Max) {
              Value zero = m.cst(0);
              Value count = m.mul(m.max(by.Grid, zero), m.max(bx.Grid, zero));
              count = convertScalar(nb, l, m.max(count, one), Double, accDType);
              value = a.div(pooledValue, count);
            } else {
              // Whether the first or last sample along an axis is outside X.
              auto outside = [&](const AxisBins &bins, unsigned dim,
                                 int64_t size) {
                Value p = asF64(nb, l, dim);
                Value firstIn = RoiAlignForm::inside(
                    m, RoiAlignForm::sample(m, bins, p, m.cst(0)), size);
                Value lastIn = RoiAlignForm::inside(
                    m, RoiAlignForm::sample(m, bins, p, m.sub(bins.Grid, one)),
                    size);
                Value allIn = arith::AndIOp::create(nb, l, firstIn, lastIn);
                return Value(arith::XOrIOp::create(
                    nb, l, allIn,
                    arith::ConstantOp::create(nb, l, nb.getBoolAttr(true))));
              };
              Value someOutside =
                  arith::OrIOp::create(nb, l, outside(by, 2, form.Height),
                                       outside(bx, 3, form.Width));
              value = a.select(someOutside, a.max(pooledValue, a.cst(0)),
                               pooledValue);
            }
            value = a.select(nonEmpty, value, a.cst(0));
            linalg::YieldOp::create(
                nb, l, convertScalar(nb, l, value, accDType, dtype));
          })
          .getResult(0);
  ctx.setOutput(0, result, dtype);
  return success();
}

} // namespace

void registerRoiAlignOps(OpRegistry &registry) {
  registry.add("RoiAlign", convertRoiAlign);
  // Over a rois' count known per call.
  registry.acceptDynamicShapes({"RoiAlign"});
}

} // namespace kiln::onnx_import
