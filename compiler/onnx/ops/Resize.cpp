//===- Resize.cpp - ONNX Resize (nearest, linear) -------------------------===//
//
// Where each output coordinate samples the input depends only on its index,
// so the importer computes it on the host in double, as ONNX's reference
// does, per resized dimension: for nearest one source index, for linear two
// (clamped, which is the reference's edge padding) and a weight. The op is
// then one generic reading those tables and extracting (and, for linear,
// weighting) the 1 or 2^k source elements.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ops/Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;

namespace kiln::onnx_import {
namespace {

struct Sampling {
  /// Per output index: source indices (one for nearest, two for linear)
  /// and the second one's weight.
  std::vector<int64_t> Index0, Index1;
  std::vector<double> Weight1;
  bool Identity = true;
};

LogicalResult convertResize(NodeContext &ctx) {
  if (ctx.opset() < 11)
    return ctx.unsupported("Resize before opset 11");
  std::string mode = ctx.attrString("mode", "nearest");
  std::string transform =
      ctx.attrString("coordinate_transformation_mode", "half_pixel");
  std::string nearestMode =
      ctx.attrString("nearest_mode", "round_prefer_floor");
  if (mode != "nearest" && mode != "linear")
    return ctx.unsupported("mode '" + mode + "'");
  if (transform != "half_pixel" && transform != "pytorch_half_pixel" &&
      transform != "align_corners" && transform != "asymmetric" &&
      transform != "tf_half_pixel_for_nn")
    return ctx.unsupported("coordinate_transformation_mode '" + transform +
                           "'");
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
  if (ctx.attrInt("exclude_outside", 0) != 0 && mode != "nearest")
    return ctx.unsupported("exclude_outside");
  int32_t dtype = ctx.inputDType(0);
  if (mode == "linear" && !isFloatDType(dtype))
    return ctx.unsupported("linear resize of " + dtypeName(dtype));
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
      outShape[a] = static_cast<int64_t>(std::floor(shape[a] * scales[a]));
    }
  }
  std::vector<Sampling> sampling(rank);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t in = shape[d], out = outShape[d];
    double scale = scales[d];
    double outWidth = scale * in;
    Sampling &s = sampling[d];
    for (int64_t x = 0; x < out; ++x) {
      double ori;
      if (transform == "align_corners")
        ori = outWidth == 1 ? 0.0 : x * (in - 1) / (outWidth - 1);
      else if (transform == "asymmetric")
        ori = x / scale;
      else if (transform == "pytorch_half_pixel")
        ori = outWidth == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
      else if (transform == "tf_half_pixel_for_nn")
        ori = (x + 0.5) / scale;
      else
        ori = (x + 0.5) / scale - 0.5;
      double lowD = std::floor(ori);
      int64_t low = static_cast<int64_t>(lowD);
      bool integral = ori == lowD;
      double ratio = ori - lowD;
      auto clampIndex = [&](int64_t i) {
        return std::clamp<int64_t>(i, 0, in - 1);
      };
      if (mode == "nearest") {
        bool up;
        if (integral)
          up = false;
        else if (nearestMode == "round_prefer_floor")
          up = ratio > 0.5;
        else if (nearestMode == "round_prefer_ceil")
          up = ratio >= 0.5;
        else
          up = nearestMode == "ceil";
        s.Index0.push_back(clampIndex(up ? low + 1 : low));
        s.Identity &= in == out && s.Index0.back() == x;
      } else {
        s.Index0.push_back(clampIndex(low));
        s.Index1.push_back(clampIndex(low + 1));
        s.Weight1.push_back(ratio);
        s.Identity &= in == out && s.Index0.back() == x && ratio == 0;
      }
    }
  }
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  MLIRContext *mctx = ctx.context();
  Type element = ctx.inputType(0).getElementType();
  Value source = ctx.input(0);
  bool linear = mode == "linear";
  // Table operands: per non-identity dimension its index tables (and
  // weights), read at that dimension's output index.
  llvm::SmallVector<Value> operands;
  llvm::SmallVector<AffineMap> maps;
  llvm::SmallVector<int64_t> resized;
  auto table = [&](int64_t d, const HostTensor &t, llvm::StringRef what) {
    OnnxValue v{RankedTensorType(), t.dtype(), Value(), t,
                (ctx.name() + "_" + what + std::to_string(d)).str()};
    operands.push_back(materialize(b, v));
    maps.push_back(AffineMap::get(rank, 0, getAffineDimExpr(d, mctx)));
  };
  for (int64_t d = 0; d < rank; ++d) {
    if (sampling[d].Identity)
      continue;
    resized.push_back(d);
    int64_t out = outShape[d];
    table(d, HostTensor::fromInt64s(Int64, {out}, sampling[d].Index0), "i0_");
    if (linear) {
      table(d, HostTensor::fromInt64s(Int64, {out}, sampling[d].Index1), "i1_");
      table(d, HostTensor::fromDoubles(dtype, {out}, sampling[d].Weight1),
            "w_");
    }
  }
  maps.push_back(b.getMultiDimIdentityMap(rank));
  Value init = tensor::EmptyOp::create(b, loc, outShape, element);
  int64_t perDim = linear ? 3 : 1;
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
            if (!linear) {
              for (auto [k, d] : llvm::enumerate(resized))
                base[d] = asIndex(args[k]);
              linalg::YieldOp::create(
                  nb, l, Value(tensor::ExtractOp::create(nb, l, source, base)));
              return;
            }
            // Sum over the 2^k corners of weight * element.
            Value sum;
            int64_t corners = int64_t(1) << resized.size();
            Value one = scalarConstant(nb, l, element, 1);
            for (int64_t corner = 0; corner < corners; ++corner) {
              llvm::SmallVector<Value> position = base;
              Value weight;
              for (auto [k, d] : llvm::enumerate(resized)) {
                bool high = (corner >> k) & 1;
                position[d] = asIndex(args[perDim * k + (high ? 1 : 0)]);
                Value w1 = args[perDim * k + 2];
                Value w =
                    high ? w1 : Value(arith::SubFOp::create(nb, l, one, w1));
                weight =
                    weight ? Value(arith::MulFOp::create(nb, l, weight, w)) : w;
              }
              Value v = tensor::ExtractOp::create(nb, l, source, position);
              Value term =
                  weight ? Value(arith::MulFOp::create(nb, l, v, weight)) : v;
              sum = sum ? Value(arith::AddFOp::create(nb, l, sum, term)) : term;
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
}

} // namespace kiln::onnx_import
