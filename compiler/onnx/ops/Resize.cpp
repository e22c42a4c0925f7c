//===- Resize.cpp - ONNX Resize and Upsample ------------------------------===//
//
// Where each output coordinate samples the input depends only on its index,
// so the importer computes it on the host in double, as ONNX's reference
// does, per resized dimension: for nearest one source index, for linear two
// and for cubic four (clamped, which is the reference's edge padding), each
// with a weight (exclude_outside renormalizes them over the taps inside the
// input), and for tf_crop_and_resize whether the sample is inside the input
// at all (else the output is extrapolation_value). The op is then one
// generic reading those tables and summing weight * element over the
// combinations of taps (1, 2^k or 4^k elements). Upsample is Resize with
// asymmetric coordinates and nearest rounding down.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ops/Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <array>
#include <cmath>

using namespace mlir;

namespace kiln::onnx_import {
namespace {

/// How the node resizes, read from its attributes (Resize) or fixed
/// (Upsample).
struct ResizeOptions {
  std::string Mode = "nearest";
  std::string Transform = "half_pixel";
  std::string NearestMode = "round_prefer_floor";
  double CubicA = -0.75;
  bool ExcludeOutside = false;
  /// tf_crop_and_resize: the region per dimension (fractions of the input)
  /// and the value of outputs sampling outside the input.
  llvm::SmallVector<double> RoiStart, RoiEnd;
  double Extrapolation = 0;
};

/// One dimension's sampling: per output index, the source index and weight
/// of each tap (one tap without weights for nearest, two for linear, four
/// for cubic), and whether the sample lies inside the input (only
/// tf_crop_and_resize's can fall outside; empty when all do).
struct Sampling {
  std::vector<std::vector<int64_t>> Index;
  std::vector<std::vector<double>> Weight;
  std::vector<bool> Inside;
  bool Identity = true;
};

/// Keys' cubic convolution weights of the taps at floor - 1 .. floor + 2
/// for a sample `ratio` past floor, with coefficient `a`.
std::array<double, 4> cubicWeights(double ratio, double a) {
  auto near = [&](double t) { return ((a + 2) * t - (a + 3)) * t * t + 1; };
  auto far = [&](double t) {
    return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
  };
  return {far(ratio + 1), near(ratio), near(1 - ratio), far(2 - ratio)};
}

/// Where each of `out` outputs samples an input of `in` elements, in double
/// as ONNX's reference computes it; `roiStart`/`roiEnd` are the dimension's
/// region for tf_crop_and_resize.
Sampling sample(const ResizeOptions &o, int64_t in, int64_t out, double scale,
                double roiStart, double roiEnd) {
  const std::string &t = o.Transform;
  int64_t taps = o.Mode == "nearest" ? 1 : o.Mode == "linear" ? 2 : 4;
  Sampling s;
  s.Index.resize(taps);
  if (o.Mode != "nearest")
    s.Weight.resize(taps);
  double outWidth = scale * in;
  bool anyOutside = false;
  for (int64_t x = 0; x < out; ++x) {
    double ori;
    bool inside = true;
    if (t == "align_corners") {
      ori = outWidth == 1 ? 0.0 : x * (in - 1) / (outWidth - 1);
    } else if (t == "asymmetric") {
      ori = x / scale;
    } else if (t == "pytorch_half_pixel") {
      ori = outWidth == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
    } else if (t == "tf_half_pixel_for_nn") {
      ori = (x + 0.5) / scale;
    } else if (t == "tf_crop_and_resize") {
      ori = out == 1 ? (roiEnd - roiStart) * (in - 1) / 2
                     : x * (roiEnd - roiStart) * (in - 1) / (out - 1);
      ori += roiStart * (in - 1);
      inside = ori >= 0 && ori <= in - 1;
    } else {
      ori = (x + 0.5) / scale - 0.5;
    }
    s.Inside.push_back(inside);
    anyOutside |= !inside;
    double lowD = std::floor(ori);
    int64_t low = static_cast<int64_t>(lowD);
    double ratio = ori - lowD;
    auto clampIndex = [&](int64_t i) {
      return std::clamp<int64_t>(i, 0, in - 1);
    };
    if (taps == 1) {
      bool up;
      if (ori == lowD)
        up = false;
      else if (o.NearestMode == "round_prefer_floor")
        up = ratio > 0.5;
      else if (o.NearestMode == "round_prefer_ceil")
        up = ratio >= 0.5;
      else
        up = o.NearestMode == "ceil";
      s.Index[0].push_back(clampIndex(up ? low + 1 : low));
      s.Identity &= in == out && s.Index[0].back() == x;
      continue;
    }
    // Taps from low (linear) or low - 1 (cubic); the reference reads
    // outside the input at the edge's element (clamped indices).
    int64_t first = taps == 2 ? low : low - 1;
    llvm::SmallVector<double, 4> w;
    if (taps == 2) {
      w = {1 - ratio, ratio};
    } else {
      std::array<double, 4> c = cubicWeights(ratio, o.CubicA);
      w.assign(c.begin(), c.end());
    }
    if (o.ExcludeOutside) {
      double total = 0;
      for (int64_t k = 0; k < taps; ++k) {
        if (first + k < 0 || first + k >= in)
          w[k] = 0;
        total += w[k];
      }
      if (total != 0)
        for (double &v : w)
          v /= total;
    }
    double onSelf = 0;
    for (int64_t k = 0; k < taps; ++k) {
      s.Index[k].push_back(clampIndex(first + k));
      s.Weight[k].push_back(w[k]);
      if (s.Index[k].back() == x)
        onSelf += w[k];
      else
        s.Identity &= w[k] == 0;
    }
    s.Identity &= in == out && onSelf == 1;
  }
  if (!anyOutside)
    s.Inside.clear();
  s.Identity &= !anyOutside;
  return s;
}

/// Output 0 = input 0 resized to `outShape`, each dimension's coordinates
/// divided by its scale: one generic reading per resized dimension its
/// tables (source index and weight per tap, inside flags) at that
/// dimension's output index and summing weight * element over the
/// combinations of taps.
LogicalResult emitResize(NodeContext &ctx, const ResizeOptions &o,
                         llvm::ArrayRef<int64_t> outShape,
                         llvm::ArrayRef<double> scales) {
  int32_t dtype = ctx.inputDType(0);
  if (o.Mode != "nearest" && !isFloatDType(dtype))
    return ctx.unsupported(o.Mode + " resize of " + dtypeName(dtype));
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  int64_t rank = shape.size();
  for (int64_t d = 0; d < rank; ++d)
    if (shape[d] == 0 && outShape[d] > 0)
      return ctx.emitError() << "resizes an empty dimension " << d;
  std::vector<Sampling> sampling;
  for (int64_t d = 0; d < rank; ++d)
    sampling.push_back(sample(o, shape[d], outShape[d], scales[d],
                              o.RoiStart.empty() ? 0.0 : o.RoiStart[d],
                              o.RoiEnd.empty() ? 1.0 : o.RoiEnd[d]));
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  MLIRContext *mctx = ctx.context();
  Type element = ctx.inputType(0).getElementType();
  Value source = ctx.input(0);
  // Table operands of each non-identity dimension, read at its output index.
  llvm::SmallVector<Value> operands;
  llvm::SmallVector<AffineMap> maps;
  struct Tables {
    int64_t Dim;
    llvm::SmallVector<int64_t, 4> Index, Weight;
    int64_t Inside = -1;
  };
  llvm::SmallVector<Tables> resized;
  auto table = [&](int64_t d, const HostTensor &t, llvm::StringRef what) {
    OnnxValue v{RankedTensorType(), t.dtype(), Value(), t,
                (ctx.name() + "_" + what + std::to_string(d)).str()};
    operands.push_back(materialize(b, v));
    maps.push_back(AffineMap::get(rank, 0, getAffineDimExpr(d, mctx)));
    return static_cast<int64_t>(operands.size()) - 1;
  };
  for (int64_t d = 0; d < rank; ++d) {
    const Sampling &s = sampling[d];
    if (s.Identity)
      continue;
    int64_t out = outShape[d];
    Tables t{d, {}, {}, -1};
    for (auto [k, index] : llvm::enumerate(s.Index))
      t.Index.push_back(table(d, HostTensor::fromInt64s(Int64, {out}, index),
                              "i" + std::to_string(k) + "_"));
    for (auto [k, weight] : llvm::enumerate(s.Weight))
      t.Weight.push_back(table(d, HostTensor::fromDoubles(dtype, {out}, weight),
                               "w" + std::to_string(k) + "_"));
    if (!s.Inside.empty()) {
      std::vector<int64_t> inside(s.Inside.begin(), s.Inside.end());
      t.Inside = table(d, HostTensor::fromInt64s(Bool, {out}, inside), "in_");
    }
    resized.push_back(std::move(t));
  }
  maps.push_back(b.getMultiDimIdentityMap(rank));
  Value init = tensor::EmptyOp::create(b, loc, outShape, element);
  Value result =
      linalg::GenericOp::create(
          b, loc, init.getType(), operands, init, maps,
          llvm::SmallVector<utils::IteratorType>(rank,
                                                 utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location l, ValueRange args) {
            auto asIndex = [&](Value v) {
              return Value(
                  arith::IndexCastOp::create(nb, l, nb.getIndexType(), v));
            };
            llvm::SmallVector<Value> base;
            for (int64_t d = 0; d < rank; ++d)
              base.push_back(linalg::IndexOp::create(nb, l, d));
            // Sum over the combinations of taps of weight * element.
            Value sum;
            int64_t combinations = 1;
            for (const Tables &t : resized)
              combinations *= t.Index.size();
            for (int64_t c = 0; c < combinations; ++c) {
              llvm::SmallVector<Value> position = base;
              Value weight;
              int64_t rest = c;
              for (const Tables &t : resized) {
                int64_t k = rest % t.Index.size();
                rest /= t.Index.size();
                position[t.Dim] = asIndex(args[t.Index[k]]);
                if (t.Weight.empty())
                  continue;
                Value w = args[t.Weight[k]];
                weight =
                    weight ? Value(arith::MulFOp::create(nb, l, weight, w)) : w;
              }
              Value v = tensor::ExtractOp::create(nb, l, source, position);
              Value term =
                  weight ? Value(arith::MulFOp::create(nb, l, v, weight)) : v;
              sum = sum ? Value(arith::AddFOp::create(nb, l, sum, term)) : term;
            }
            Value inside;
            for (const Tables &t : resized) {
              if (t.Inside < 0)
                continue;
              Value in = args[t.Inside];
              inside =
                  inside ? Value(arith::AndIOp::create(nb, l, inside, in)) : in;
            }
            if (inside)
              sum = arith::SelectOp::create(
                  nb, l, inside, sum,
                  scalarConstant(nb, l, element, o.Extrapolation));
            linalg::YieldOp::create(nb, l, sum);
          })
          .getResult(0);
  ctx.setOutput(0, result, dtype);
  return success();
}

LogicalResult convertResize(NodeContext &ctx) {
  if (ctx.opset() < 11)
    return ctx.unsupported("Resize before opset 11");
  ResizeOptions o;
  o.Mode = ctx.attrString("mode", o.Mode);
  o.Transform = ctx.attrString("coordinate_transformation_mode", o.Transform);
  o.NearestMode = ctx.attrString("nearest_mode", o.NearestMode);
  o.CubicA = ctx.attrFloat("cubic_coeff_a", -0.75f);
  o.ExcludeOutside = ctx.attrInt("exclude_outside", 0) != 0;
  o.Extrapolation = ctx.attrFloat("extrapolation_value", 0.0f);
  if (o.Mode != "nearest" && o.Mode != "linear" && o.Mode != "cubic")
    return ctx.unsupported("mode '" + o.Mode + "'");
  const std::string &transform = o.Transform;
  if (transform != "half_pixel" && transform != "pytorch_half_pixel" &&
      transform != "align_corners" && transform != "asymmetric" &&
      transform != "tf_half_pixel_for_nn" && transform != "tf_crop_and_resize")
    return ctx.unsupported("coordinate_transformation_mode '" + transform +
                           "'");
  const std::string &nearestMode = o.NearestMode;
  if (nearestMode != "round_prefer_floor" &&
      nearestMode != "round_prefer_ceil" && nearestMode != "floor" &&
      nearestMode != "ceil")
    return ctx.unsupported("nearest_mode '" + nearestMode + "'");
  if (ctx.attrInt("antialias", 0) != 0)
    return ctx.unsupported("antialias");
  if (ctx.attrString("keep_aspect_ratio_policy", "stretch") != "stretch")
    return ctx.unsupported("keep_aspect_ratio_policy '" +
                           ctx.attrString("keep_aspect_ratio_policy", "") +
                           "'");
  if (ctx.failedAttributes())
    return failure();
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  int64_t rank = shape.size();
  llvm::SmallVector<int64_t> axes = ctx.attrInts("axes");
  if (axes.empty())
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  for (int64_t &a : axes) {
    FailureOr<int64_t> axis = ctx.normalizeAxis(a, rank);
    if (failed(axis))
      return failure();
    a = *axis;
  }
  if (transform == "tf_crop_and_resize") {
    const HostTensor *roi = ctx.requireConstant(1, "roi");
    if (!roi)
      return failure();
    int64_t n = axes.size();
    if (roi->numElements() != 2 * n)
      return ctx.emitError() << "roi has " << roi->numElements()
                             << " values for " << n << " axes";
    o.RoiStart.assign(rank, 0.0);
    o.RoiEnd.assign(rank, 1.0);
    for (auto [i, a] : llvm::enumerate(axes)) {
      o.RoiStart[a] = roi->doubleAt(i);
      o.RoiEnd[a] = roi->doubleAt(n + i);
    }
  }
  // Output sizes and the scale each dimension's coordinates divide by.
  llvm::SmallVector<int64_t> outShape(shape);
  llvm::SmallVector<double> scales(rank, 1.0);
  bool haveSizes = ctx.hasInput(3) && numElementsOf(ctx.inputShape(3)) > 0;
  bool haveScales = ctx.hasInput(2) && numElementsOf(ctx.inputShape(2)) > 0;
  if (haveSizes == haveScales)
    return ctx.emitError() << "needs exactly one of scales and sizes";
  if (haveSizes) {
    FailureOr<llvm::SmallVector<int64_t>> sizes = ctx.constantInts(3, "sizes");
    if (failed(sizes))
      return failure();
    if (sizes->size() != axes.size())
      return ctx.emitError() << "sizes has " << sizes->size() << " values for "
                             << axes.size() << " axes";
    for (auto [a, s] : llvm::zip(axes, *sizes)) {
      outShape[a] = s;
      scales[a] = static_cast<double>(s) / shape[a];
    }
  } else {
    const HostTensor *s = ctx.requireConstant(2, "scales");
    if (!s)
      return failure();
    if (s->numElements() != static_cast<int64_t>(axes.size()))
      return ctx.emitError() << "scales has " << s->numElements()
                             << " values for " << axes.size() << " axes";
    for (auto [i, a] : llvm::enumerate(axes)) {
      scales[a] = s->doubleAt(i);
      if (scales[a] <= 0)
        return ctx.emitError() << "scale " << scales[a] << " is not positive";
      // A crop resizes its region of the input.
      double extent = o.RoiStart.empty() ? 1.0 : o.RoiEnd[a] - o.RoiStart[a];
      outShape[a] =
          static_cast<int64_t>(std::floor(shape[a] * extent * scales[a]));
    }
  }
  return emitResize(ctx, o, outShape, scales);
}

/// Upsample (opsets 7 to 9, Resize's predecessor): scales >= 1, output
/// floor(input * scale), coordinates x / scale (asymmetric), nearest
/// rounding down.
LogicalResult convertUpsample(NodeContext &ctx) {
  if (ctx.opset() < 7)
    return ctx.unsupported("Upsample before opset 7");
  ResizeOptions o;
  o.Mode = ctx.attrString("mode", "nearest");
  if (ctx.failedAttributes())
    return failure();
  if (o.Mode != "nearest" && o.Mode != "linear")
    return ctx.unsupported("mode '" + o.Mode + "'");
  o.Transform = "asymmetric";
  o.NearestMode = "floor";
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  int64_t rank = shape.size();
  llvm::SmallVector<double> scales;
  if (ctx.opset() < 9) {
    for (float f : ctx.attrFloats("scales"))
      scales.push_back(f);
    if (ctx.failedAttributes())
      return failure();
  } else {
    const HostTensor *s = ctx.requireConstant(1, "scales");
    if (!s)
      return failure();
    std::vector<double> values = s->toDoubles();
    scales.assign(values.begin(), values.end());
  }
  if (static_cast<int64_t>(scales.size()) != rank)
    return ctx.emitError() << "scales has " << scales.size()
                           << " values for rank " << rank;
  llvm::SmallVector<int64_t> outShape;
  for (auto [d, scale] : llvm::enumerate(scales)) {
    if (!(scale >= 1))
      return ctx.emitError() << "scale " << scale << " is less than 1";
    outShape.push_back(static_cast<int64_t>(std::floor(shape[d] * scale)));
  }
  return emitResize(ctx, o, outShape, scales);
}

} // namespace

void registerResizeOps(OpRegistry &registry) {
  registry.add("Resize", convertResize);
  registry.add("Upsample", convertUpsample);
}

} // namespace kiln::onnx_import
