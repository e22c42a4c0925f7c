//===- Signal.cpp - ONNX window functions, DFT and STFT -------------------===//
//
// The windows (Hann, Hamming, Blackman) depend on nothing but their size, so
// the importer needs the size at import time and computes the window on the
// host in double, as a constant: y[n] = sum_k (-1)^k a_k cos(2 pi k n / N),
// N = size (periodic) or size - 1 (symmetric).
//
// A DFT of a static length is linear in its input: a matmul of the
// (real, imaginary) pairs along the axis by a host-computed [n * 2, bins * 2]
// matrix of cosines and sines (zero rows past dft_length, which truncates;
// fewer rows than the length, which zero-pads). STFT gathers the frames,
// multiplies them by the window and takes the same DFT. MelWeightMatrix is
// a host-computed constant too.
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

/// A window of cosine terms with coefficients `a` (a0, a1, a2, ...).
LogicalResult convertWindow(NodeContext &ctx, llvm::ArrayRef<double> a) {
  const HostTensor *sizeT = ctx.requireConstant(0, "size");
  if (!sizeT)
    return failure();
  if (!isIntegerDType(sizeT->dtype()) || sizeT->numElements() != 1)
    return ctx.emitError() << "size must be one integer, not "
                           << shapeString(sizeT->shape()) << " "
                           << dtypeName(sizeT->dtype());
  int64_t size = sizeT->intAt(0);
  if (size < 0)
    return ctx.emitError() << "size " << size << " is negative";
  if (size > kMaxFoldElements)
    return ctx.unsupported("size " + llvm::Twine(size) + " (at most " +
                           llvm::Twine(kMaxFoldElements) + ")");
  int32_t dtype = ctx.attrInt("output_datatype", Float);
  if ((!isFloatDType(dtype) && !isIntegerDType(dtype)) ||
      !elementTypeOf(ctx.context(), dtype))
    return ctx.unsupported("output_datatype " + dtypeName(dtype));
  bool periodic = ctx.attrInt("periodic", 1) != 0;
  if (ctx.failedAttributes())
    return failure();
  int64_t n = periodic ? size : size - 1;
  std::vector<double> y(size);
  for (int64_t i = 0; i < size; ++i) {
    // A symmetric window of one element has N = 0: its one angle is 0.
    double angle = n == 0 ? 0.0 : 2 * M_PI * i / n;
    double v = 0, sign = 1;
    for (auto [k, ak] : llvm::enumerate(a)) {
      v += sign * ak * std::cos(angle * k);
      sign = -sign;
    }
    y[i] = v;
  }
  ctx.setOutput(0, HostTensor::fromDoubles(dtype, {size}, y));
  return success();
}

/// MelWeightMatrix: triangles over the one-sided DFT's bins, computed on
/// the host from import-time inputs. num_mel_bins + 2 points equally spaced
/// on the mel scale (mel(f) = 2595 log10(1 + f / 700)) from the lower edge,
/// step (high - low) / (num_mel_bins + 2) as ONNX's definition has it, each
/// mapped to bin floor((dft_length + 1) * f / sample_rate); band i rises
/// from point i to 1 at point i + 1 and falls to 0 at point i + 2.
LogicalResult convertMelWeightMatrix(NodeContext &ctx) {
  llvm::SmallVector<double> in;
  static const char *names[] = {"num_mel_bins", "dft_length", "sample_rate",
                                "lower_edge_hertz", "upper_edge_hertz"};
  for (size_t i = 0; i < 5; ++i) {
    const HostTensor *t = ctx.requireConstant(i, names[i]);
    if (!t)
      return failure();
    if (t->numElements() != 1)
      return ctx.emitError() << names[i] << " must be a scalar";
    if (i < 3 && !isIntegerDType(t->dtype()))
      return ctx.emitError() << names[i] << " must be an integer";
    in.push_back(t->doubleAt(0));
    // Finite and of a size the integer arithmetic below cannot overflow
    // with (the matrix is bounded by kMaxFoldElements anyway).
    if (!(std::fabs(in.back()) < 1e15))
      return ctx.emitError() << names[i] << " " << in.back()
                             << " is not a finite number below 1e15";
  }
  int64_t mels = in[0], dftLength = in[1], sampleRate = in[2];
  double lower = in[3], upper = in[4];
  if (mels < 1 || dftLength < 1 || sampleRate < 1 || lower < 0 ||
      upper <= lower)
    return ctx.emitError() << "needs positive num_mel_bins, dft_length and "
                              "sample_rate, and 0 <= lower_edge_hertz < "
                              "upper_edge_hertz";
  int32_t dtype = ctx.attrInt("output_datatype", Float);
  if (ctx.failedAttributes())
    return failure();
  if ((!isFloatDType(dtype) && !isIntegerDType(dtype)) ||
      !elementTypeOf(ctx.context(), dtype))
    return ctx.unsupported("output_datatype " + dtypeName(dtype));
  int64_t rows = dftLength / 2 + 1;
  if (numElementsOf({rows, mels}) > kMaxFoldElements)
    return ctx.unsupported(
        "a matrix of " + llvm::Twine(numElementsOf({rows, mels})) +
        " elements (at most " + llvm::Twine(kMaxFoldElements) + ")");
  auto mel = [](double f) { return 2595 * std::log10(1 + f / 700); };
  double low = mel(lower), step = (mel(upper) - low) / (mels + 2);
  std::vector<int64_t> points;
  for (int64_t i = 0; i < mels + 2; ++i) {
    double f = 700 * (std::pow(10, (low + i * step) / 2595) - 1);
    points.push_back(
        static_cast<int64_t>(std::floor((dftLength + 1) * f / sampleRate)));
    if (points.back() < 0 || points.back() >= rows)
      return ctx.emitError() << "upper_edge_hertz " << upper
                             << " lies past the DFT's last bin (half of "
                                "sample_rate "
                             << sampleRate << ")";
  }
  std::vector<double> w(rows * mels, 0.0);
  for (int64_t i = 0; i < mels; ++i) {
    int64_t left = points[i], center = points[i + 1], right = points[i + 2];
    if (center == left)
      w[center * mels + i] = 1;
    for (int64_t j = left; center > left && j <= center; ++j)
      w[j * mels + i] = double(j - left) / (center - left);
    for (int64_t j = center; j < right; ++j)
      w[j * mels + i] = double(right - j) / (right - center);
  }
  ctx.setOutput(0, HostTensor::fromDoubles(dtype, {rows, mels}, w));
  return success();
}

/// The DFT of `x` ([..., n, c] with c = 1 (real) or 2 (complex) and the
/// transformed axis second to last) of length `length`, `bins` outputs
/// (length, or length / 2 + 1 one-sided): [..., bins, 2]. Inverse divides
/// by the length.
FailureOr<Value> buildDft(NodeContext &ctx, Value x, int64_t length,
                          int64_t bins, bool inverse, int32_t dtype) {
  auto type = cast<RankedTensorType>(x.getType());
  llvm::ArrayRef<int64_t> shape = type.getShape();
  int64_t rank = shape.size(), n = shape[rank - 2], c = shape[rank - 1];
  if (n * c * bins * 2 > kMaxFoldElements)
    return (void)ctx.unsupported(
               "a DFT matrix of " + llvm::Twine(n * c * bins * 2) +
               " elements (at most " + llvm::Twine(kMaxFoldElements) + ")"),
           failure();
  // matrix[j, ci, k, co]: input j's component ci's share of output k's
  // component co; forward e^{-i theta}, inverse e^{i theta} / length.
  std::vector<double> matrix(n * c * bins * 2, 0.0);
  double sign = inverse ? 1 : -1, scale = inverse ? 1.0 / length : 1.0;
  for (int64_t j = 0; j < std::min(n, length); ++j) {
    for (int64_t k = 0; k < bins; ++k) {
      // j * k mod length keeps the angle small, so it is exact for long
      // lengths too.
      double theta = 2 * M_PI * ((j * k) % length) / length;
      double re = std::cos(theta) * scale, im = sign * std::sin(theta) * scale;
      double *row = &matrix[(j * c) * bins * 2 + k * 2];
      row[0] = re; // real -> real
      row[1] = im; // real -> imaginary
      if (c == 2) {
        double *imRow = &matrix[(j * c + 1) * bins * 2 + k * 2];
        imRow[0] = -im; // imaginary -> real
        imRow[1] = re;  // imaginary -> imaginary
      }
    }
  }
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  OnnxValue m{RankedTensorType(), dtype, Value(),
              HostTensor::fromDoubles(dtype, {n * c, bins * 2}, matrix),
              ctx.name().str() + "_dft"};
  int64_t rows = numElementsOf(shape.drop_back(2));
  Value flat = reshapeTo(b, loc, x, {rows, n * c});
  FailureOr<Value> product = buildMatMul(ctx, flat, materialize(b, m));
  if (failed(product))
    return failure();
  llvm::SmallVector<int64_t> outShape(shape.drop_back(2));
  outShape.append({bins, 2});
  return reshapeTo(b, loc, *product, outShape);
}

LogicalResult convertDft(NodeContext &ctx) {
  int32_t dtype = ctx.inputDType(0);
  if (!isFloatDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype));
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  int64_t rank = shape.size();
  if (rank < 2 || (shape.back() != 1 && shape.back() != 2))
    return ctx.emitError() << "input " << shapeString(shape)
                           << " does not end in a dimension of 1 (real) or 2 "
                              "(complex)";
  int64_t axis;
  if (ctx.opset() < 20) {
    axis = ctx.attrInt("axis", 1);
  } else {
    axis = -2;
    if (ctx.hasInput(2)) {
      FailureOr<llvm::SmallVector<int64_t>> a = ctx.constantInts(2, "axis");
      if (failed(a))
        return failure();
      if (a->size() != 1)
        return ctx.emitError() << "axis must be a scalar";
      axis = (*a)[0];
    }
  }
  bool inverse = ctx.attrInt("inverse", 0) != 0;
  bool onesided = ctx.attrInt("onesided", 0) != 0;
  if (ctx.failedAttributes())
    return failure();
  // The last dimension holds the components, so the axis is before it.
  FailureOr<int64_t> a = ctx.normalizeAxis(axis, rank);
  if (failed(a))
    return failure();
  if (*a == rank - 1)
    return ctx.emitError() << "axis " << axis
                           << " is the components' dimension";
  if (onesided && shape.back() == 2)
    return ctx.emitError() << "onesided needs a real input";
  if (onesided && inverse)
    return ctx.unsupported("an inverse one-sided DFT");
  int64_t length = shape[*a];
  if (ctx.hasInput(1)) {
    FailureOr<llvm::SmallVector<int64_t>> l = ctx.constantInts(1, "dft_length");
    if (failed(l))
      return failure();
    if (l->size() != 1 || (*l)[0] < 1)
      return ctx.emitError() << "dft_length must be one positive integer";
    length = (*l)[0];
  }
  if (length < 1)
    return ctx.emitError() << "transforms an empty axis";
  int64_t bins = onesided ? length / 2 + 1 : length;
  // Move the axis next to the components, transform, move it back.
  llvm::SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank - 1; ++d)
    if (d != *a)
      perm.push_back(d);
  perm.append({*a, rank - 1});
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Value moved = transpose(b, loc, ctx.input(0), perm);
  FailureOr<Value> y = buildDft(ctx, moved, length, bins, inverse, dtype);
  if (failed(y))
    return failure();
  llvm::SmallVector<int64_t> back(rank);
  for (int64_t d = 0; d < rank; ++d)
    back[perm[d]] = d;
  ctx.setOutput(0, transpose(b, loc, *y, back), dtype);
  return success();
}

LogicalResult convertStft(NodeContext &ctx) {
  int32_t dtype = ctx.inputDType(0);
  if (!isFloatDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype));
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  if (shape.size() != 3 || (shape[2] != 1 && shape[2] != 2))
    return ctx.emitError() << "signal " << shapeString(shape)
                           << " is not [batch, length, 1 or 2]";
  FailureOr<llvm::SmallVector<int64_t>> step =
      ctx.constantInts(1, "frame_step");
  if (failed(step))
    return failure();
  if (step->size() != 1 || (*step)[0] < 1)
    return ctx.emitError() << "frame_step must be one positive integer";
  int64_t frameLength = -1;
  if (ctx.hasInput(3)) {
    FailureOr<llvm::SmallVector<int64_t>> l =
        ctx.constantInts(3, "frame_length");
    if (failed(l))
      return failure();
    if (l->size() != 1 || (*l)[0] < 1)
      return ctx.emitError() << "frame_length must be one positive integer";
    frameLength = (*l)[0];
  }
  if (ctx.hasInput(2)) {
    if (ctx.inputRank(2) != 1 || ctx.inputDType(2) != dtype ||
        (frameLength >= 0 && ctx.inputShape(2)[0] != frameLength))
      return ctx.emitError() << "window " << shapeString(ctx.inputShape(2))
                             << " " << dtypeName(ctx.inputDType(2))
                             << " is not the signal's type of frame_length";
    frameLength = ctx.inputShape(2)[0];
  }
  if (frameLength < 0)
    return ctx.emitError() << "needs a window or frame_length";
  int64_t batch = shape[0], length = shape[1], c = shape[2];
  if (frameLength > length)
    return ctx.emitError() << "frame_length " << frameLength
                           << " is longer than the signal (" << length << ")";
  bool onesided = ctx.attrInt("onesided", 1) != 0;
  if (ctx.failedAttributes())
    return failure();
  if (onesided && c == 2)
    return ctx.emitError() << "onesided needs a real signal";
  int64_t hop = (*step)[0];
  int64_t frames = (length - frameLength) / hop + 1;
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  MLIRContext *mctx = ctx.context();
  Type element = ctx.inputType(0).getElementType();
  // framed[b, f, j, c] = signal[b, f * hop + j, c] (* window[j]).
  llvm::SmallVector<int64_t> framedShape = {batch, frames, frameLength, c};
  llvm::SmallVector<Value> operands;
  llvm::SmallVector<AffineMap> maps;
  if (ctx.hasInput(2)) {
    operands.push_back(ctx.input(2));
    maps.push_back(AffineMap::get(4, 0, getAffineDimExpr(2, mctx)));
  }
  maps.push_back(b.getMultiDimIdentityMap(4));
  Value signal = ctx.input(0);
  Value init = tensor::EmptyOp::create(b, loc, framedShape, element);
  Value framed =
      linalg::GenericOp::create(
          b, loc, init.getType(), operands, init, maps,
          llvm::SmallVector<utils::IteratorType>(4,
                                                 utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value f = linalg::IndexOp::create(nb, l, 1);
            Value j = linalg::IndexOp::create(nb, l, 2);
            Value t = arith::AddIOp::create(
                nb, l,
                arith::MulIOp::create(
                    nb, l, f, arith::ConstantIndexOp::create(nb, l, hop)),
                j);
            Value v = tensor::ExtractOp::create(
                nb, l, signal,
                ValueRange{linalg::IndexOp::create(nb, l, 0), t,
                           linalg::IndexOp::create(nb, l, 3)});
            if (args.size() > 1)
              v = arith::MulFOp::create(nb, l, v, args[0]);
            linalg::YieldOp::create(nb, l, v);
          })
          .getResult(0);
  FailureOr<Value> y =
      buildDft(ctx, framed, frameLength,
               onesided ? frameLength / 2 + 1 : frameLength, false, dtype);
  if (failed(y))
    return failure();
  ctx.setOutput(0, *y, dtype);
  return success();
}

} // namespace

void registerSignalOps(OpRegistry &registry) {
  registry.add("HannWindow", [](NodeContext &ctx) {
    return convertWindow(ctx, {0.5, 0.5});
  });
  registry.add("HammingWindow", [](NodeContext &ctx) {
    return convertWindow(ctx, {25.0 / 46.0, 21.0 / 46.0});
  });
  registry.add("BlackmanWindow", [](NodeContext &ctx) {
    return convertWindow(ctx, {0.42, 0.5, 0.08});
  });
  registry.add("DFT", convertDft);
  registry.add("STFT", convertStft);
  registry.add("MelWeightMatrix", convertMelWeightMatrix);
}

} // namespace kiln::onnx_import
