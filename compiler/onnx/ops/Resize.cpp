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
// asymmetric coordinates and nearest rounding down. GridSample reads its
// coordinates at run time, so its generic computes them in the body.
//
// Scales, sizes or a roi given at call time (issue 19 item 3) leave the
// tables unknown at import: the output extents are computed on the host per
// call (sizes read as they are; floor(dim * scale) in double, as the
// reference's numpy does, through the shape program's real nodes), and a
// small generic per such dimension computes its tables over its output
// extent, in double with the same formulas, reading the scale, size and roi
// as data; the resize's generic reads those tables as it reads constant
// ones.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ops/Common.h"
#include "compiler/onnx/ops/ScalarMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
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

/// A dimension resized by values given at call time: its extents and where
/// its scale and region come from (elements of the node's scales and roi
/// inputs, read by the generic as data).
struct PerCallDim {
  Value In, Out; // index extents (Out the host's, for the output's shape)
  /// Element of the sizes input (which the tables' kernel reads too: an
  /// extent captured from the host would fold back into the host's read of
  /// it); else element of the scales input.
  std::optional<int64_t> SizeElement, ScaleElement;
  /// Elements of the roi input (tf_crop_and_resize); none: the options'
  /// constant region (or the whole input).
  std::optional<int64_t> RoiStartElement, RoiEndElement;
};

struct PerCall {
  Value Sizes, Scales, Roi;
  /// Per dimension; none where the import-time tables hold.
  llvm::SmallVector<std::optional<PerCallDim>> Dims;
};

/// The taps of one dimension at one output index: source index (index) and,
/// but for nearest, weight (the element type) of each, and whether the
/// sample lies inside the input (tf_crop_and_resize's; null otherwise).
struct Taps {
  llvm::SmallVector<Value, 4> Index, Weight;
  Value Inside;
};

/// `sample`'s arithmetic for one output index `x` in the generic's body, in
/// double, for a dimension whose scale or region is known per call only;
/// `in` is an index, `out`, `scale`, `roiStart`, `roiEnd` f64 values (the
/// roi's and out null but for tf_crop_and_resize).
Taps computedTaps(OpBuilder &b, Location l, const ResizeOptions &o,
                  Type element, Value x, Value in, Value outR, Value scale,
                  Value roiStart, Value roiEnd) {
  Type f64 = b.getF64Type();
  Type i64 = b.getI64Type();
  ScalarMath m{b, l, f64};
  auto toReal = [&](Value index) -> Value {
    return arith::SIToFPOp::create(
        b, l, f64, arith::IndexCastOp::create(b, l, i64, index));
  };
  Value xr = toReal(x), inR = toReal(in);
  Value inLast = m.sub(inR, m.cst(1));
  const std::string &t = o.Transform;
  Value ori;
  Taps taps;
  // Each as `sample` computes it, operation for operation, so the double
  // results agree with the import-time tables'.
  if (t == "align_corners") {
    Value outWidth = m.mul(scale, inR);
    ori =
        m.select(m.cmp(arith::CmpFPredicate::OEQ, outWidth, m.cst(1)), m.cst(0),
                 m.div(m.mul(xr, inLast), m.sub(outWidth, m.cst(1))));
  } else if (t == "asymmetric") {
    ori = m.div(xr, scale);
  } else if (t == "pytorch_half_pixel") {
    Value outWidth = m.mul(scale, inR);
    ori = m.select(m.cmp(arith::CmpFPredicate::OEQ, outWidth, m.cst(1)),
                   m.cst(-0.5),
                   m.sub(m.div(m.add(xr, m.cst(0.5)), scale), m.cst(0.5)));
  } else if (t == "tf_half_pixel_for_nn") {
    ori = m.div(m.add(xr, m.cst(0.5)), scale);
  } else if (t == "tf_crop_and_resize") {
    Value extent = m.sub(roiEnd, roiStart);
    ori = m.select(
        m.cmp(arith::CmpFPredicate::OEQ, outR, m.cst(1)),
        m.div(m.mul(extent, inLast), m.cst(2)),
        m.div(m.mul(m.mul(xr, extent), inLast), m.sub(outR, m.cst(1))));
    ori = m.add(ori, m.mul(roiStart, inLast));
    taps.Inside = arith::AndIOp::create(
        b, l, m.cmp(arith::CmpFPredicate::OGE, ori, m.cst(0)),
        m.cmp(arith::CmpFPredicate::OLE, ori, inLast));
  } else {
    ori = m.sub(m.div(m.add(xr, m.cst(0.5)), scale), m.cst(0.5));
  }
  Value lowD = math::FloorOp::create(b, l, ori);
  Value low = arith::IndexCastOp::create(
      b, l, b.getIndexType(), arith::FPToSIOp::create(b, l, i64, lowD));
  Value ratio = m.sub(ori, lowD);
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, l, v);
  };
  Value last = arith::SubIOp::create(b, l, in, index(1));
  auto clampIndex = [&](Value i) -> Value {
    return arith::MinSIOp::create(
        b, l, arith::MaxSIOp::create(b, l, i, index(0)), last);
  };
  if (o.Mode == "nearest") {
    Value up;
    if (o.NearestMode == "round_prefer_floor")
      up = m.cmp(arith::CmpFPredicate::OGT, ratio, m.cst(0.5));
    else if (o.NearestMode == "round_prefer_ceil")
      up = m.cmp(arith::CmpFPredicate::OGE, ratio, m.cst(0.5));
    else
      up = arith::ConstantIntOp::create(b, l, o.NearestMode == "ceil", 1);
    // An integral coordinate is its own sample.
    up = arith::AndIOp::create(b, l, up,
                               m.cmp(arith::CmpFPredicate::ONE, ori, lowD));
    taps.Index.push_back(clampIndex(
        m.select(up, arith::AddIOp::create(b, l, low, index(1)), low)));
    return taps;
  }
  int64_t count = o.Mode == "linear" ? 2 : 4;
  Value first = count == 2 ? low : arith::SubIOp::create(b, l, low, index(1));
  llvm::SmallVector<Value, 4> w;
  if (count == 2) {
    w = {m.sub(m.cst(1), ratio), ratio};
  } else {
    // cubicWeights's polynomials.
    double a = o.CubicA;
    auto near = [&](Value v) {
      return m.add(
          m.mul(m.mul(m.sub(m.mul(m.cst(a + 2), v), m.cst(a + 3)), v), v),
          m.cst(1));
    };
    auto far = [&](Value v) {
      return m.sub(
          m.mul(m.add(m.mul(m.sub(m.mul(m.cst(a), v), m.cst(5 * a)), v),
                      m.cst(8 * a)),
                v),
          m.cst(4 * a));
    };
    w = {far(m.add(ratio, m.cst(1))), near(ratio), near(m.sub(m.cst(1), ratio)),
         far(m.sub(m.cst(2), ratio))};
  }
  llvm::SmallVector<Value, 4> at;
  for (int64_t k = 0; k < count; ++k)
    at.push_back(arith::AddIOp::create(b, l, first, index(k)));
  if (o.ExcludeOutside) {
    Value total = m.cst(0);
    for (int64_t k = 0; k < count; ++k) {
      Value outside = arith::OrIOp::create(
          b, l,
          arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, at[k],
                                index(0)),
          arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, at[k], in));
      w[k] = m.select(outside, m.cst(0), w[k]);
      total = m.add(total, w[k]);
    }
    Value nonzero = m.cmp(arith::CmpFPredicate::ONE, total, m.cst(0));
    for (Value &v : w)
      v = m.select(nonzero, m.div(v, total), v);
  }
  for (int64_t k = 0; k < count; ++k) {
    taps.Index.push_back(clampIndex(at[k]));
    // The tables hold weights in the element type.
    taps.Weight.push_back(
        element == f64 ? w[k]
                       : Value(arith::TruncFOp::create(b, l, element, w[k])));
  }
  return taps;
}

/// One resized dimension's tables, operands of the resize's generic read at
/// that dimension's output index: the taps' source indices (i64), weights
/// (the element type) and inside flags (i1, or i8 computed per call), as
/// numbers of operands.
struct Tables {
  int64_t Dim;
  llvm::SmallVector<int64_t, 4> Index, Weight;
  int64_t Inside = -1;
};

/// The tables of dimension `d`, resized by values known per call: one
/// generic over the dimension's output extent computes them in double as
/// `sample` does (computedTaps), reading the scale, size and roi as data;
/// `addTable(d, tensor)` makes each an operand of the resize.
Tables computedTables(NodeContext &ctx, const ResizeOptions &o, int64_t d,
                      const PerCallDim &p, const PerCall &perCall,
                      llvm::function_ref<int64_t(int64_t, Value)> addTable) {
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  MLIRContext *mctx = ctx.context();
  Type element = ctx.inputType(0).getElementType();
  // Inside flags as i8: i1 tensors of dynamic extent are not supported.
  Type f64 = b.getF64Type(), i64 = b.getI64Type(), i8 = b.getI8Type();
  // The scale, size and roi elements, each read at every output index.
  llvm::SmallVector<Value> inputs;
  llvm::SmallVector<AffineMap> maps;
  auto read = [&](Value tensor, std::optional<int64_t> element) -> int64_t {
    if (!element)
      return -1;
    inputs.push_back(tensor);
    maps.push_back(
        AffineMap::get(1, 0, getAffineConstantExpr(*element, mctx), mctx));
    return static_cast<int64_t>(inputs.size()) - 1;
  };
  int64_t size = read(perCall.Sizes, p.SizeElement);
  int64_t scale = read(perCall.Scales, p.ScaleElement);
  int64_t roiStart = read(perCall.Roi, p.RoiStartElement);
  int64_t roiEnd = read(perCall.Roi, p.RoiEndElement);
  bool crop = o.Transform == "tf_crop_and_resize";
  int64_t taps = o.Mode == "nearest" ? 1 : o.Mode == "linear" ? 2 : 4;
  // Results: the taps' indices, their weights (but for nearest), inside.
  llvm::SmallVector<Type> types;
  llvm::SmallVector<Value> inits;
  auto result = [&](Type t) {
    types.push_back(RankedTensorType::get({ShapedType::kDynamic}, t));
    inits.push_back(
        tensor::EmptyOp::create(b, loc, {ShapedType::kDynamic}, t, p.Out));
    maps.push_back(b.getMultiDimIdentityMap(1));
  };
  for (int64_t k = 0; k < taps; ++k)
    result(i64);
  if (o.Mode != "nearest")
    for (int64_t k = 0; k < taps; ++k)
      result(element);
  if (crop)
    result(i8);
  auto generic = linalg::GenericOp::create(
      b, loc, types, inputs, inits, maps,
      llvm::ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        ScalarMath m{nb, l, f64};
        auto f64Of = [&](int64_t arg) -> Value {
          Value v = args[arg];
          return v.getType().isF64()
                     ? v
                     : Value(arith::ExtFOp::create(nb, l, f64, v));
        };
        Value inR = arith::SIToFPOp::create(
            nb, l, f64, arith::IndexCastOp::create(nb, l, i64, p.In));
        Value outR, scaleR;
        if (size >= 0) {
          outR = arith::SIToFPOp::create(nb, l, f64, args[size]);
          scaleR = m.div(outR, inR);
        } else {
          scaleR = f64Of(scale);
        }
        Value start, end;
        if (crop) {
          start = roiStart >= 0
                      ? f64Of(roiStart)
                      : m.cst(o.RoiStart.empty() ? 0.0 : o.RoiStart[d]);
          end = roiEnd >= 0 ? f64Of(roiEnd)
                            : m.cst(o.RoiEnd.empty() ? 1.0 : o.RoiEnd[d]);
          // The host's floor(dim * extent * scale), again.
          if (!outR)
            outR = m.floor(m.mul(m.mul(inR, m.sub(end, start)), scaleR));
        }
        Taps t =
            computedTaps(nb, l, o, element, linalg::IndexOp::create(nb, l, 0),
                         p.In, outR, scaleR, start, end);
        llvm::SmallVector<Value> yielded;
        for (Value index : t.Index)
          yielded.push_back(arith::IndexCastOp::create(nb, l, i64, index));
        llvm::append_range(yielded, t.Weight);
        if (t.Inside)
          yielded.push_back(arith::ExtUIOp::create(nb, l, i8, t.Inside));
        linalg::YieldOp::create(nb, l, yielded);
      });
  Tables tables{d, {}, {}, -1};
  for (int64_t k = 0; k < taps; ++k)
    tables.Index.push_back(addTable(d, generic.getResult(k)));
  if (o.Mode != "nearest")
    for (int64_t k = 0; k < taps; ++k)
      tables.Weight.push_back(addTable(d, generic.getResult(taps + k)));
  if (crop)
    tables.Inside = addTable(d, generic.getResults().back());
  return tables;
}

/// Output 0 = input 0 resized to `outShape`, each dimension's coordinates
/// divided by its scale: one generic reading per resized dimension its
/// tables (source index and weight per tap, inside flags) at that
/// dimension's output index and summing weight * element over the
/// combinations of taps.
LogicalResult emitResize(NodeContext &ctx, const ResizeOptions &o,
                         llvm::ArrayRef<int64_t> outShape,
                         llvm::ArrayRef<double> scales,
                         const PerCall &perCall = {}) {
  auto isPerCall = [&](int64_t d) {
    return d < static_cast<int64_t>(perCall.Dims.size()) &&
           perCall.Dims[d].has_value();
  };
  int32_t dtype = ctx.inputDType(0);
  if (o.Mode != "nearest" && !isFloatDType(dtype))
    return ctx.unsupported(o.Mode + " resize of " + dtypeName(dtype));
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  int64_t rank = shape.size();
  if (failed(ctx.checkShape(staticPartOf(outShape), dtype, "output")))
    return failure();
  for (int64_t d = 0; d < rank; ++d) {
    // A dynamic dimension (issue 19: a batch) is never resized but per
    // call: the callers give it scale 1, and it passes through.
    if (ShapedType::isDynamic(shape[d]) || isPerCall(d))
      continue;
    if (shape[d] == 0 && outShape[d] > 0)
      return ctx.emitError() << "resizes an empty dimension " << d;
    // Each dimension's sampling tables are built on the host.
    if (outShape[d] > kMaxFoldElements)
      return ctx.unsupported("resize to " + llvm::Twine(outShape[d]) +
                             " along dimension " + llvm::Twine(d) +
                             " (the importer builds sampling tables of at "
                             "most " +
                             llvm::Twine(kMaxFoldElements) + " entries)");
  }
  std::vector<Sampling> sampling;
  for (int64_t d = 0; d < rank; ++d)
    sampling.push_back(ShapedType::isDynamic(shape[d]) || isPerCall(d)
                           ? Sampling{}
                           : sample(o, shape[d], outShape[d], scales[d],
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
  llvm::SmallVector<Tables> resized;
  // A table of dimension d's output indices as an operand: its number.
  auto tableValue = [&](int64_t d, Value t) {
    operands.push_back(t);
    maps.push_back(AffineMap::get(rank, 0, getAffineDimExpr(d, mctx)));
    return static_cast<int64_t>(operands.size()) - 1;
  };
  auto table = [&](int64_t d, const HostTensor &t, llvm::StringRef what) {
    OnnxValue v{RankedTensorType(), t.dtype(), Value(), t,
                (ctx.name() + "_" + what + std::to_string(d)).str()};
    return tableValue(d, materialize(b, v));
  };
  for (int64_t d = 0; d < rank; ++d) {
    const Sampling &s = sampling[d];
    if (isPerCall(d)) {
      resized.push_back(
          computedTables(ctx, o, d, *perCall.Dims[d], perCall, tableValue));
      continue;
    }
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
  llvm::SmallVector<Value> dynamicSizes;
  for (int64_t d = 0; d < rank; ++d)
    if (ShapedType::isDynamic(outShape[d]))
      dynamicSizes.push_back(
          isPerCall(d) ? perCall.Dims[d]->Out
                       : Value(tensor::DimOp::create(b, loc, source, d)));
  Value init = tensor::EmptyOp::create(b, loc, outShape, element, dynamicSizes);
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
              if (!in.getType().isInteger(1)) // a computed table's i8
                in = arith::CmpIOp::create(
                    nb, l, arith::CmpIPredicate::ne, in,
                    arith::ConstantIntOp::create(nb, l, in.getType(), 0));
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

/// Resize whose sizes, scales or roi are given at call time along `axes`:
/// each axis's output extent computed on the host per call, its tables by a
/// kernel (emitResize's PerCall, computedTables).
LogicalResult resizePerCall(NodeContext &ctx, ResizeOptions o,
                            llvm::ArrayRef<int64_t> axes, bool haveSizes,
                            size_t scalesInput = 2) {
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  int64_t rank = shape.size();
  int64_t n = axes.size();
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  // A float input of `count` elements the generic reads as data.
  auto floatData = [&](size_t i, llvm::StringRef what,
                       int64_t count) -> LogicalResult {
    llvm::ArrayRef<int64_t> s = ctx.inputShape(i);
    if (!isFloatDType(ctx.inputDType(i)) || !ShapedType::isStaticShape(s) ||
        s.size() != 1 || s[0] != count)
      return ctx.emitError()
             << what << " must be " << count << " floats, not "
             << dtypeName(ctx.inputDType(i)) << " " << shapeString(s);
    return success();
  };
  PerCall perCall;
  perCall.Dims.resize(rank);
  bool roiPerCall =
      o.Transform == "tf_crop_and_resize" && !ctx.constantInput(1);
  if (roiPerCall) {
    if (failed(floatData(1, "roi", 2 * n)))
      return failure();
    perCall.Roi = ctx.input(1);
  }
  // Sizes as they are; scales' floor(dim * extent * scale) in double.
  llvm::SmallVector<Value> sizes;
  if (haveSizes) {
    std::optional<llvm::SmallVector<Value>> read = ctx.intsReadAtCallTime(3);
    if (!read) {
      FailureOr<llvm::SmallVector<int64_t>> constant =
          ctx.constantInts(3, "sizes");
      if (failed(constant))
        return failure();
      read.emplace();
      for (int64_t v : *constant)
        read->push_back(index(v));
    }
    sizes = *read;
    if (static_cast<int64_t>(sizes.size()) != n)
      return ctx.emitError()
             << "sizes has " << sizes.size() << " values for " << n << " axes";
    perCall.Sizes = ctx.input(3);
  } else {
    if (failed(floatData(scalesInput, "scales", n)))
      return failure();
    // The host reads the scales (and a crop's roi) to size the output: a
    // graph input's, or constants.
    if (!ctx.constantInput(scalesInput) &&
        !ctx.readableAtCallTime(scalesInput, /*floats=*/true))
      return ctx.unsupported("scales computed inside the model");
    if (roiPerCall && !ctx.readableAtCallTime(1, /*floats=*/true))
      return ctx.unsupported("roi computed inside the model with scales");
    perCall.Scales = ctx.input(scalesInput);
  }
  Type f64 = b.getF64Type();
  auto real = [&](double v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(v));
  };
  auto elementF64 = [&](Value tensor, int64_t i) -> Value {
    Value e = tensor::ExtractOp::create(b, loc, tensor, index(i));
    return e.getType().isF64() ? e : arith::ExtFOp::create(b, loc, f64, e);
  };
  llvm::SmallVector<int64_t> outShape(shape);
  for (auto [i, a] : llvm::enumerate(axes)) {
    PerCallDim p;
    p.In = ShapedType::isDynamic(shape[a])
               ? Value(tensor::DimOp::create(b, loc, ctx.input(0), a))
               : index(shape[a]);
    if (roiPerCall) {
      p.RoiStartElement = i;
      p.RoiEndElement = n + i;
    }
    if (haveSizes) {
      p.Out = sizes[i];
      p.SizeElement = i;
    } else {
      p.ScaleElement = i;
      // floor(dim * extent * scale), multiplied in that order as the
      // import-time path (and the reference) does.
      Value size = arith::SIToFPOp::create(
          b, loc, f64,
          arith::IndexCastOp::create(b, loc, b.getI64Type(), p.In));
      if (o.Transform == "tf_crop_and_resize") {
        Value extent = roiPerCall ? Value(arith::SubFOp::create(
                                        b, loc, elementF64(perCall.Roi, n + i),
                                        elementF64(perCall.Roi, i)))
                                  : real(o.RoiEnd[a] - o.RoiStart[a]);
        size = arith::MulFOp::create(b, loc, size, extent);
      }
      size = arith::MulFOp::create(b, loc, size, elementF64(perCall.Scales, i));
      size = math::FloorOp::create(b, loc, size);
      p.Out = arith::IndexCastOp::create(
          b, loc, b.getIndexType(),
          arith::FPToSIOp::create(b, loc, b.getI64Type(), size));
    }
    // An empty input has no element to sample: only an empty output may
    // come of it (the import-time path refuses the model so).
    if (!ShapedType::isDynamic(shape[a]) && shape[a] > 0) {
      outShape[a] = ShapedType::kDynamic;
      perCall.Dims[a] = p;
      continue;
    }
    Value sound = arith::OrIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, p.In,
                              index(0)),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, p.Out,
                              index(0)));
    cf::AssertOp::create(b, loc, sound,
                         ctx.describe() + ": resizes an empty dimension " +
                             std::to_string(a));
    outShape[a] = ShapedType::kDynamic;
    perCall.Dims[a] = p;
  }
  return emitResize(ctx, o, outShape, llvm::SmallVector<double>(rank, 1.0),
                    perCall);
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
  bool haveSizes = ctx.hasInput(3) && numElementsOf(ctx.inputShape(3)) > 0;
  bool haveScales = ctx.hasInput(2) && numElementsOf(ctx.inputShape(2)) > 0;
  if (haveSizes == haveScales)
    return ctx.emitError() << "needs exactly one of scales and sizes";
  // Values given at call time (graph inputs read per call, issue 19).
  bool roiPerCall = transform == "tf_crop_and_resize" && ctx.hasInput(1) &&
                    !ctx.constantInput(1);
  bool perCall =
      roiPerCall || (haveSizes ? ctx.readableAtCallTime(3)
                               : ctx.readableAtCallTime(2, /*floats=*/true));
  if (transform == "tf_crop_and_resize" && !roiPerCall) {
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
  if (perCall)
    return resizePerCall(ctx, o, axes, haveSizes);
  // Output sizes and the scale each dimension's coordinates divide by.
  llvm::SmallVector<int64_t> outShape(shape);
  llvm::SmallVector<double> scales(rank, 1.0);
  if (haveSizes) {
    FailureOr<llvm::SmallVector<int64_t>> sizes = ctx.constantInts(3, "sizes");
    if (failed(sizes))
      return failure();
    if (sizes->size() != axes.size())
      return ctx.emitError() << "sizes has " << sizes->size() << " values for "
                             << axes.size() << " axes";
    for (auto [a, s] : llvm::zip(axes, *sizes)) {
      if (s < 0)
        return ctx.emitError() << "size " << s << " is negative";
      if (ShapedType::isDynamic(shape[a]))
        return ctx.unsupported("a constant size for dynamic dimension " +
                               std::to_string(a) + " of " + shapeString(shape));
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
      if (!(scales[a] > 0) || std::isinf(scales[a]))
        return ctx.emitError()
               << "scale " << scales[a] << " is not a positive number";
      if (ShapedType::isDynamic(shape[a])) {
        if (scales[a] != 1.0 || !o.RoiStart.empty())
          return ctx.unsupported("resizing dynamic dimension " +
                                 std::to_string(a) + " of " +
                                 shapeString(shape));
        continue;
      }
      // A crop resizes its region of the input.
      double extent = o.RoiStart.empty() ? 1.0 : o.RoiEnd[a] - o.RoiStart[a];
      FailureOr<int64_t> size = sizeFromDouble(
          ctx, std::floor(shape[a] * extent * scales[a]), "output size");
      if (failed(size))
        return failure();
      outShape[a] = *size;
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
    // Scales given at call time: sized per call, as Resize's.
    if (ctx.readableAtCallTime(1, /*floats=*/true)) {
      llvm::SmallVector<int64_t> axes;
      for (int64_t d = 0; d < rank; ++d)
        axes.push_back(d);
      return resizePerCall(ctx, o, axes, /*haveSizes=*/false,
                           /*scalesInput=*/1);
    }
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
    if (!(scale >= 1) || std::isinf(scale))
      return ctx.emitError()
             << "scale " << scale << " is not a number of at least 1";
    if (ShapedType::isDynamic(shape[d])) {
      if (scale != 1.0)
        return ctx.unsupported("resizing dynamic dimension " +
                               std::to_string(d) + " of " + shapeString(shape));
      outShape.push_back(ShapedType::kDynamic);
      continue;
    }
    FailureOr<int64_t> size =
        sizeFromDouble(ctx, std::floor(shape[d] * scale), "output size");
    if (failed(size))
      return failure();
    outShape.push_back(*size);
  }
  return emitResize(ctx, o, outShape, scales);
}

/// GridSample (2-D): each output [n, c, h, w] samples X[n, c] at the grid's
/// normalized (x, y) in [-1, 1], read at run time: unnormalized to pixels
/// (align_corners: -1 and 1 are the corner pixels' centers, else their outer
/// edges), rounded half to even (nearest) or interpolated from 2x2
/// (bilinear) or 4x4 (bicubic, a = -0.75) pixels; out-of-range pixels are 0
/// (zeros), the edge's (border: coordinates and pixels clamped) or mirrored
/// at the edges (reflection, coordinates and pixels).
LogicalResult convertGridSample(NodeContext &ctx) {
  int32_t dtype = ctx.inputDType(0);
  if (!isFloatDType(dtype) || ctx.inputDType(1) != dtype)
    return ctx.unsupported("element types " + dtypeName(dtype) + " and " +
                           dtypeName(ctx.inputDType(1)) + " (one float type)");
  llvm::ArrayRef<int64_t> x = ctx.inputShape(0), grid = ctx.inputShape(1);
  if (x.size() != 4)
    return ctx.unsupported(std::to_string(x.size() - 2) +
                           "-D sampling (2-D is)");
  if (grid.size() != 4 || grid[0] != x[0] || grid[3] != 2)
    return ctx.emitError() << "grid " << shapeString(grid)
                           << " is not [N, H_out, W_out, 2] for X "
                           << shapeString(x);
  std::string mode = ctx.attrString("mode", "bilinear");
  std::string padding = ctx.attrString("padding_mode", "zeros");
  bool alignCorners = ctx.attrInt("align_corners", 0) != 0;
  if (ctx.failedAttributes())
    return failure();
  // Opset 20 renamed the modes.
  if (mode == "linear")
    mode = "bilinear";
  if (mode == "cubic")
    mode = "bicubic";
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic")
    return ctx.unsupported("mode '" + mode + "'");
  if (padding != "zeros" && padding != "border" && padding != "reflection")
    return ctx.unsupported("padding_mode '" + padding + "'");
  int64_t height = x[2], width = x[3];
  if (height == 0 || width == 0)
    return ctx.emitError() << "samples an empty image";
  llvm::SmallVector<int64_t> outShape = {x[0], x[1], grid[1], grid[2]};
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  MLIRContext *mctx = ctx.context();
  Type element = ctx.inputType(0).getElementType();
  Value source = ctx.input(0);
  auto gridMap = [&](int64_t component) {
    return AffineMap::get(4, 0,
                          {getAffineDimExpr(0, mctx), getAffineDimExpr(2, mctx),
                           getAffineDimExpr(3, mctx),
                           getAffineConstantExpr(component, mctx)},
                          mctx);
  };
  Value init = tensor::EmptyOp::create(b, loc, outShape, element);
  Value result =
      linalg::GenericOp::create(
          b, loc, init.getType(), ValueRange{ctx.input(1), ctx.input(1)}, init,
          llvm::ArrayRef<AffineMap>{gridMap(0), gridMap(1),
                                    b.getMultiDimIdentityMap(4)},
          llvm::SmallVector<utils::IteratorType>(4,
                                                 utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location l, ValueRange args) {
            auto cst = [&](double v) {
              return scalarConstant(nb, l, element, v);
            };
            auto add = [&](Value a, Value c) {
              return Value(arith::AddFOp::create(nb, l, a, c));
            };
            auto sub = [&](Value a, Value c) {
              return Value(arith::SubFOp::create(nb, l, a, c));
            };
            auto mul = [&](Value a, Value c) {
              return Value(arith::MulFOp::create(nb, l, a, c));
            };
            auto lt = [&](Value a, Value c) {
              return Value(arith::CmpFOp::create(
                  nb, l, arith::CmpFPredicate::OLT, a, c));
            };
            auto select = [&](Value cond, Value a, Value c) {
              return Value(arith::SelectOp::create(nb, l, cond, a, c));
            };
            auto floorF = [&](Value v) {
              return Value(math::FloorOp::create(nb, l, v));
            };
            auto denormalize = [&](Value g, int64_t size) {
              // align_corners: (g + 1) / 2 * (size - 1); else
              // ((g + 1) * size - 1) / 2.
              if (alignCorners)
                return mul(add(g, cst(1)), cst((size - 1) / 2.0));
              return mul(sub(mul(add(g, cst(1)), cst(size)), cst(1)), cst(0.5));
            };
            // The bounds coordinates reflect at.
            auto lowBound = [&](int64_t) { return alignCorners ? 0.0 : -0.5; };
            auto highBound = [&](int64_t size) {
              return alignCorners ? size - 1.0 : size - 0.5;
            };
            auto reflect = [&](Value v, int64_t size) {
              double lo = lowBound(size), hi = highBound(size), range = hi - lo;
              if (range == 0)
                return cst(lo);
              Value below = lt(v, cst(lo)), above = lt(cst(hi), v);
              Value dx = select(below, sub(cst(lo), v),
                                select(above, sub(v, cst(hi)), cst(0)));
              Value n = floorF(mul(dx, cst(1 / range)));
              Value r = sub(dx, mul(n, cst(range)));
              Value half = floorF(mul(n, cst(0.5)));
              Value even =
                  arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ,
                                        sub(n, mul(half, cst(2))), cst(0));
              Value fromLow = add(cst(lo), r), fromHigh = sub(cst(hi), r);
              Value reflected = select(below, select(even, fromLow, fromHigh),
                                       select(even, fromHigh, fromLow));
              return select(arith::OrIOp::create(nb, l, below, above),
                            reflected, v);
            };
            auto clampF = [&](Value v, int64_t size) {
              return Value(arith::MinimumFOp::create(
                  nb, l, arith::MaximumFOp::create(nb, l, v, cst(0)),
                  cst(size - 1)));
            };
            // A coordinate after rounding and the padding's adjustment.
            auto coordinate = [&](Value g, int64_t size) {
              Value v = denormalize(g, size);
              if (mode == "nearest")
                v = math::RoundEvenOp::create(nb, l, v);
              if (padding == "border")
                v = clampF(v, size);
              else if (padding == "reflection")
                v = reflect(v, size);
              return v;
            };
            Value px = coordinate(args[0], width);
            Value py = coordinate(args[1], height);
            Value n = linalg::IndexOp::create(nb, l, 0);
            Value c = linalg::IndexOp::create(nb, l, 1);
            // The pixel at integral (float) row and column `r`, `col`.
            auto pixel = [&](Value r, Value col) {
              Value inside;
              if (padding == "zeros") {
                inside = arith::AndIOp::create(
                    nb, l,
                    arith::AndIOp::create(nb, l, lt(cst(-1), r),
                                          lt(r, cst(height))),
                    arith::AndIOp::create(nb, l, lt(cst(-1), col),
                                          lt(col, cst(width))));
              } else if (padding == "reflection") {
                r = reflect(r, height);
                col = reflect(col, width);
              }
              // Clamped, so even a zero-padded pixel reads inside X.
              auto index = [&](Value v, int64_t size) {
                Value i = arith::FPToSIOp::create(nb, l, nb.getI64Type(),
                                                  clampF(v, size));
                return Value(
                    arith::IndexCastOp::create(nb, l, nb.getIndexType(), i));
              };
              Value v = tensor::ExtractOp::create(
                  nb, l, source,
                  ValueRange{n, c, index(r, height), index(col, width)});
              return inside ? select(inside, v, cst(0)) : v;
            };
            if (mode == "nearest") {
              linalg::YieldOp::create(nb, l, pixel(py, px));
              return;
            }
            Value x0 = floorF(px), y0 = floorF(py);
            Value tx = sub(px, x0), ty = sub(py, y0);
            // Weights of the taps from floor (bilinear) or floor - 1
            // (bicubic).
            auto weights = [&](Value t) {
              llvm::SmallVector<Value, 4> w;
              if (mode == "bilinear") {
                w = {sub(cst(1), t), t};
                return w;
              }
              const double a = -0.75;
              auto near = [&](Value u) { // ((a + 2) u - (a + 3)) u^2 + 1
                return add(mul(sub(mul(cst(a + 2), u), cst(a + 3)), mul(u, u)),
                           cst(1));
              };
              auto far = [&](Value u) { // ((a u - 5a) u + 8a) u - 4a
                return sub(mul(add(mul(sub(mul(cst(a), u), cst(5 * a)), u),
                                   cst(8 * a)),
                               u),
                           cst(4 * a));
              };
              Value oneMinus = sub(cst(1), t);
              w = {far(add(t, cst(1))), near(t), near(oneMinus),
                   far(add(oneMinus, cst(1)))};
              return w;
            };
            llvm::SmallVector<Value, 4> wx = weights(tx), wy = weights(ty);
            int64_t first = mode == "bilinear" ? 0 : -1;
            Value sum;
            for (auto [i, wyi] : llvm::enumerate(wy)) {
              Value r = add(y0, cst(first + static_cast<int64_t>(i)));
              for (auto [j, wxj] : llvm::enumerate(wx)) {
                Value col = add(x0, cst(first + static_cast<int64_t>(j)));
                Value term = mul(pixel(r, col), mul(wyi, wxj));
                sum = sum ? add(sum, term) : term;
              }
            }
            linalg::YieldOp::create(nb, l, sum);
          })
          .getResult(0);
  ctx.setOutput(0, result, dtype);
  return success();
}

} // namespace

void registerResizeOps(OpRegistry &registry) {
  registry.add("Resize", convertResize);
  // Over a dynamic batch: dynamic dimensions keep scale 1 (emitResize).
  registry.acceptDynamicShapes({"Resize", "Upsample"});
  registry.add("Upsample", convertUpsample);
  registry.add("GridSample", convertGridSample);
}

} // namespace kiln::onnx_import
