//===- Signal.cpp - ONNX window functions, DFT and STFT -------------------===//
//
// The windows (Hann, Hamming, Blackman) depend on nothing but their size:
// a size known at import makes the window a constant computed on the host in
// double, y[n] = sum_k (-1)^k a_k cos(2 pi k n / N), N = size (periodic) or
// size - 1 (symmetric); a size given at call time (a graph input read on the
// host) is the output's extent per call, and the kernel computes the same
// sum in double reading the size as data.
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
#include "compiler/onnx/ops/ScalarMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;

namespace kiln::onnx_import {
namespace {

/// A map of `loops` loops reading input `i`'s one element at every point:
/// a value given at call time that a kernel reads as data.
AffineMap everywhereMap(NodeContext &ctx, unsigned loops, size_t i) {
  return AffineMap::get(
      loops, 0,
      llvm::SmallVector<AffineExpr>(ctx.inputRank(i),
                                    getAffineConstantExpr(0, ctx.context())),
      ctx.context());
}

/// A window of cosine terms with coefficients `a` (a0, a1, a2, ...) whose
/// size is a graph input read at each call: the output's extent is the size
/// read on the host (a negative one fails the call), and the kernel reads
/// the size as data and computes each element as the import-time fold does,
/// in double, converted to output_datatype at the end.
LogicalResult convertWindowAtCallTime(NodeContext &ctx,
                                      llvm::ArrayRef<double> a, int32_t dtype,
                                      bool periodic) {
  if (ctx.inputType(0).getNumElements() != 1)
    return ctx.emitError() << "size must be one integer, not "
                           << shapeString(ctx.inputShape(0));
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Value size = ctx.intsReadAtCallTime(0)->front();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  cf::AssertOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, size, zero),
      ctx.describe() + ": size must not be negative");
  // The extent stays >= 0 for the shape program even in a call the check
  // refuses, so the refusal is the check's message.
  Value extent = arith::MaxSIOp::create(b, loc, size, zero);
  Type element = elementTypeOf(ctx.context(), dtype);
  auto type = RankedTensorType::get({ShapedType::kDynamic}, element);
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), element,
                                       ValueRange{extent});
  AffineMap sizeMap = everywhereMap(ctx, 1, 0);
  int32_t sizeDType = ctx.inputDType(0);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{type}, ValueRange{ctx.input(0)}, ValueRange{init},
      ArrayRef<AffineMap>{sizeMap, b.getMultiDimIdentityMap(1)},
      ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Type f64 = nb.getF64Type(), i64 = nb.getI64Type();
        Value n = convertScalar(nb, l, args[0], sizeDType, Int64);
        if (!periodic)
          n = arith::SubIOp::create(
              nb, l, n, arith::ConstantIntOp::create(nb, l, i64, 1));
        // A symmetric window of one element has N = 0; its one angle (i = 0)
        // is 0 whatever N is, so N is taken as at least 1.
        n = arith::MaxSIOp::create(nb, l, n,
                                   arith::ConstantIntOp::create(nb, l, i64, 1));
        Value i = arith::IndexCastOp::create(nb, l, i64,
                                             linalg::IndexOp::create(nb, l, 0));
        auto real = [&](double v) -> Value {
          return arith::ConstantOp::create(nb, l, nb.getF64FloatAttr(v));
        };
        // 2 pi i / N, as the fold's 2 * M_PI * i / n.
        Value angle = arith::DivFOp::create(
            nb, l,
            arith::MulFOp::create(nb, l, real(2 * M_PI),
                                  arith::SIToFPOp::create(nb, l, f64, i)),
            arith::SIToFPOp::create(nb, l, f64, n));
        Value v = real(a[0]);
        for (size_t k = 1; k < a.size(); ++k) {
          Value term = arith::MulFOp::create(
              nb, l, real(k % 2 ? -a[k] : a[k]),
              math::CosOp::create(
                  nb, l, arith::MulFOp::create(nb, l, angle, real(k))));
          v = arith::AddFOp::create(nb, l, v, term);
        }
        linalg::YieldOp::create(nb, l, convertScalar(nb, l, v, Double, dtype));
      });
  ctx.setOutput(0, generic.getResult(0), dtype);
  return success();
}

/// A window of cosine terms with coefficients `a` (a0, a1, a2, ...).
LogicalResult convertWindow(NodeContext &ctx, llvm::ArrayRef<double> a) {
  int32_t dtype = ctx.attrInt("output_datatype", Float);
  bool periodic = ctx.attrInt("periodic", 1) != 0;
  if (ctx.failedAttributes())
    return failure();
  if ((!isFloatDType(dtype) && !isIntegerDType(dtype)) ||
      !elementTypeOf(ctx.context(), dtype))
    return ctx.unsupported("output_datatype " + dtypeName(dtype));
  if (ctx.readableAtCallTime(0))
    return convertWindowAtCallTime(ctx, a, dtype, periodic);
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

/// MelWeightMatrix's output_datatype: a float or integer type Kiln has;
/// failure after an error otherwise.
FailureOr<int32_t> melOutputType(NodeContext &ctx) {
  int32_t dtype = ctx.attrInt("output_datatype", Float);
  if (ctx.failedAttributes())
    return failure();
  if ((!isFloatDType(dtype) && !isIntegerDType(dtype)) ||
      !elementTypeOf(ctx.context(), dtype))
    return (void)ctx.unsupported("output_datatype " + dtypeName(dtype)),
           failure();
  return dtype;
}

/// MelWeightMatrix whose inputs are graph inputs read at each call: the
/// extents [dft_length / 2 + 1, num_mel_bins] read on the host (each
/// integer checked to be at least 1 per call), and the kernel reading all
/// five as data and computing each weight as the import-time fold does, in
/// double: its band's three points, then the rising or falling edge. A
/// point past the last bin (an upper edge above half the sample rate,
/// which the fold refuses) leaves that band's triangle cut off there.
LogicalResult convertMelWeightMatrixAtCallTime(NodeContext &ctx) {
  static const char *names[] = {"num_mel_bins", "dft_length", "sample_rate",
                                "lower_edge_hertz", "upper_edge_hertz"};
  for (size_t i = 0; i < 5; ++i) {
    if (ctx.inputType(i).getNumElements() != 1)
      return ctx.emitError() << names[i] << " must be a scalar";
    if (i < 3 ? !isIntegerDType(ctx.inputDType(i))
              : !isFloatDType(ctx.inputDType(i)))
      return ctx.emitError()
             << names[i] << " must be " << (i < 3 ? "an integer" : "a float");
  }
  FailureOr<int32_t> outputType = melOutputType(ctx);
  if (failed(outputType))
    return failure();
  int32_t dtype = *outputType;
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  // Each integer as an index on the host: read per call, or the constant.
  auto hostInt = [&](size_t i) -> Value {
    if (const HostTensor *c = ctx.constantInput(i))
      return arith::ConstantIndexOp::create(b, loc, c->intAt(0));
    return ctx.intsReadAtCallTime(i)->front();
  };
  Value mels = hostInt(0), dftLength = hostInt(1), sampleRate = hostInt(2);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value integers[] = {mels, dftLength, sampleRate};
  for (size_t i = 0; i < 3; ++i)
    cf::AssertOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, integers[i],
                              one),
        ctx.describe() + ": " + names[i] + " must be at least 1");
  // Extents >= 0 for the shape program even in a call the checks refuse.
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value columns = arith::MaxSIOp::create(b, loc, mels, zero);
  Value rows = arith::AddIOp::create(
      b, loc,
      arith::DivSIOp::create(b, loc,
                             arith::MaxSIOp::create(b, loc, dftLength, zero),
                             arith::ConstantIndexOp::create(b, loc, 2)),
      one);
  Type element = elementTypeOf(ctx.context(), dtype);
  auto type = RankedTensorType::get(
      {ShapedType::kDynamic, ShapedType::kDynamic}, element);
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), element,
                                       ValueRange{rows, columns});
  llvm::SmallVector<Value> operands;
  llvm::SmallVector<AffineMap> maps;
  for (size_t i = 0; i < 5; ++i) {
    operands.push_back(ctx.input(i));
    maps.push_back(everywhereMap(ctx, 2, i));
  }
  maps.push_back(b.getMultiDimIdentityMap(2));
  llvm::SmallVector<int32_t> dtypes;
  for (size_t i = 0; i < 5; ++i)
    dtypes.push_back(ctx.inputDType(i));
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{type}, operands, ValueRange{init}, maps,
      llvm::SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Type f64 = nb.getF64Type(), i64 = nb.getI64Type();
        ScalarMath m{nb, l, f64};
        auto asReal = [&](size_t i) {
          return convertScalar(nb, l, args[i], dtypes[i], Double);
        };
        Value melCount = asReal(0), length = asReal(1), rate = asReal(2);
        // mel(f) = 2595 log10(1 + f / 700), as the fold computes it.
        auto mel = [&](Value f) {
          return m.mul(m.cst(2595),
                       math::Log10Op::create(
                           nb, l, m.add(m.cst(1), m.div(f, m.cst(700)))));
        };
        Value low = mel(asReal(3));
        Value step =
            m.div(m.sub(mel(asReal(4)), low), m.add(melCount, m.cst(2)));
        Value j = arith::SIToFPOp::create(
            nb, l, f64,
            arith::IndexCastOp::create(nb, l, i64,
                                       linalg::IndexOp::create(nb, l, 0)));
        Value band = arith::SIToFPOp::create(
            nb, l, f64,
            arith::IndexCastOp::create(nb, l, i64,
                                       linalg::IndexOp::create(nb, l, 1)));
        // Point k's bin: floor((dft_length + 1) * f / sample_rate) with
        // f = 700 (10^((low + k step) / 2595) - 1).
        auto point = [&](double offset) {
          Value k = m.add(band, m.cst(offset));
          Value f =
              m.mul(m.cst(700),
                    m.sub(math::PowFOp::create(
                              nb, l, m.cst(10),
                              m.div(m.add(low, m.mul(k, step)), m.cst(2595))),
                          m.cst(1)));
          return Value(math::FloorOp::create(
              nb, l, m.div(m.mul(m.add(length, m.cst(1)), f), rate)));
        };
        Value left = point(0), center = point(1), right = point(2);
        auto both = [&](Value x, Value y) -> Value {
          return arith::AndIOp::create(nb, l, x, y);
        };
        // The falling edge from the center (written last by the fold, so it
        // wins at the center), else the rising edge, else the center's 1
        // of a band whose first two points coincide.
        Value falling = both(m.cmp(arith::CmpFPredicate::OGE, j, center),
                             m.cmp(arith::CmpFPredicate::OLT, j, right));
        Value rising = both(both(m.cmp(arith::CmpFPredicate::OGE, j, left),
                                 m.cmp(arith::CmpFPredicate::OLE, j, center)),
                            m.cmp(arith::CmpFPredicate::OGT, center, left));
        Value peak = both(m.cmp(arith::CmpFPredicate::OEQ, center, left),
                          m.cmp(arith::CmpFPredicate::OEQ, j, center));
        Value w = m.select(
            falling, m.div(m.sub(right, j), m.sub(right, center)),
            m.select(rising, m.div(m.sub(j, left), m.sub(center, left)),
                     m.select(peak, m.cst(1), m.cst(0))));
        linalg::YieldOp::create(nb, l, convertScalar(nb, l, w, Double, dtype));
      });
  ctx.setOutput(0, generic.getResult(0), dtype);
  return success();
}

/// MelWeightMatrix: triangles over the one-sided DFT's bins, computed on
/// the host from import-time inputs. num_mel_bins + 2 points equally spaced
/// on the mel scale (mel(f) = 2595 log10(1 + f / 700)) from the lower edge,
/// step (high - low) / (num_mel_bins + 2) as ONNX's definition has it, each
/// mapped to bin floor((dft_length + 1) * f / sample_rate); band i rises
/// from point i to 1 at point i + 1 and falls to 0 at point i + 2.
LogicalResult convertMelWeightMatrix(NodeContext &ctx) {
  bool atCallTime = false, allKnown = true;
  for (size_t i = 0; i < 5; ++i) {
    atCallTime |= !ctx.constantInput(i);
    allKnown &= ctx.constantInput(i) ||
                (i < 3 ? ctx.readableAtCallTime(i) : ctx.isGraphInput(i));
  }
  if (atCallTime && allKnown)
    return convertMelWeightMatrixAtCallTime(ctx);
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
  FailureOr<int32_t> outputType = melOutputType(ctx);
  if (failed(outputType))
    return failure();
  int32_t dtype = *outputType;
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

/// The DFT of every frame of `framed` ([batch, frames, length, c], c = 1
/// (real) or 2 (complex)), `bins` (a host index value) outputs each:
/// [batch, frames, bins, 2], for STFT given values at call time. One generic
/// sums over the frame, each twiddle computed in double as buildDft's matrix
/// is (then rounded to the element type) from the frame length: `length`,
/// or else STFT's frame_length (input 3) read as data. Sums in
/// accumulatorType.
Value buildDftPerCall(NodeContext &ctx, Value framed, int32_t dtype, Value bins,
                      std::optional<int64_t> length) {
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  MLIRContext *mctx = ctx.context();
  auto framedType = cast<RankedTensorType>(framed.getType());
  Type element = framedType.getElementType();
  Type acc = accumulatorType(element);
  llvm::SmallVector<Value> sizes;
  for (int64_t d : {0, 1})
    if (framedType.isDynamicDim(d))
      sizes.push_back(tensor::DimOp::create(b, loc, framed, d));
  sizes.push_back(bins);
  llvm::SmallVector<int64_t> outShape = {framedType.getDimSize(0),
                                         framedType.getDimSize(1),
                                         ShapedType::kDynamic, 2};
  Value init = tensor::EmptyOp::create(b, loc, outShape, acc, sizes);
  init =
      linalg::FillOp::create(b, loc, ValueRange{scalarConstant(b, loc, acc, 0)},
                             ValueRange{init})
          .getResult(0);
  // Loops: batch, frame, bin, output component; frame position and input
  // component summed.
  auto dim = [&](unsigned d) { return getAffineDimExpr(d, mctx); };
  llvm::SmallVector<Value> operands = {framed};
  llvm::SmallVector<AffineMap> maps = {
      AffineMap::get(6, 0, {dim(0), dim(1), dim(4), dim(5)}, mctx)};
  if (!length) {
    operands.push_back(ctx.input(3));
    maps.push_back(everywhereMap(ctx, 6, 3));
  }
  maps.push_back(AffineMap::get(6, 0, {dim(0), dim(1), dim(2), dim(3)}, mctx));
  llvm::SmallVector<utils::IteratorType> iterators(
      4, utils::IteratorType::parallel);
  iterators.append(2, utils::IteratorType::reduction);
  int32_t lengthDType = ctx.hasInput(3) ? ctx.inputDType(3) : Int64;
  Value y =
      linalg::GenericOp::create(
          b, loc, init.getType(), operands, init, maps, iterators,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Type f64 = nb.getF64Type(), i64 = nb.getI64Type();
            auto index = [&](unsigned d) -> Value {
              return arith::IndexCastOp::create(
                  nb, l, i64, linalg::IndexOp::create(nb, l, d));
            };
            Value n =
                length
                    ? Value(arith::ConstantIntOp::create(nb, l, i64, *length))
                    : convertScalar(nb, l, args[1], lengthDType, Int64);
            // j * k mod n keeps the angle small, as buildDft's does.
            Value jk = arith::RemUIOp::create(
                nb, l, arith::MulIOp::create(nb, l, index(4), index(2)), n);
            Value theta = arith::DivFOp::create(
                nb, l,
                arith::MulFOp::create(nb, l,
                                      arith::ConstantOp::create(
                                          nb, l, nb.getF64FloatAttr(2 * M_PI)),
                                      arith::SIToFPOp::create(nb, l, f64, jk)),
                arith::SIToFPOp::create(nb, l, f64, n));
            auto rounded = [&](Value v) -> Value {
              v = convertScalar(nb, l, v, Double, dtype);
              return element == acc ? v : arith::ExtFOp::create(nb, l, acc, v);
            };
            Value cos = rounded(math::CosOp::create(nb, l, theta));
            Value sin = rounded(math::SinOp::create(nb, l, theta));
            // e^{-i theta}: real -> (cos, -sin), imaginary -> (sin, cos).
            Value ci = linalg::IndexOp::create(nb, l, 5);
            Value co = linalg::IndexOp::create(nb, l, 3);
            auto eq = [&](Value a, Value v) {
              return arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, a,
                                           v);
            };
            Value zero = arith::ConstantIndexOp::create(nb, l, 0);
            Value across = arith::SelectOp::create(
                nb, l, eq(co, zero), sin, arith::NegFOp::create(nb, l, sin));
            Value twiddle =
                arith::SelectOp::create(nb, l, eq(ci, co), cos, across);
            Value x = element == acc
                          ? args[0]
                          : Value(arith::ExtFOp::create(nb, l, acc, args[0]));
            linalg::YieldOp::create(
                nb, l,
                Value(arith::AddFOp::create(
                    nb, l, args.back(),
                    arith::MulFOp::create(nb, l, x, twiddle))));
          })
          .getResult(0);
  return convertFloatElements(b, loc, y, element);
}

/// STFT. frame_step and frame_length are constants or graph inputs read at
/// each call; with either read, the number of frames
/// (length - frame_length) / frame_step + 1 and the bins are extents
/// computed on the host per call, which refuses a step below 1 or a frame
/// outside [1, length] (cf.assert: one line naming the node), the framing
/// kernel reads the step as data, and the DFT is buildDftPerCall's.
LogicalResult convertStft(NodeContext &ctx) {
  int32_t dtype = ctx.inputDType(0);
  if (!isFloatDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype));
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  if (shape.size() != 3 || (shape[2] != 1 && shape[2] != 2))
    return ctx.emitError() << "signal " << shapeString(shape)
                           << " is not [batch, length, 1 or 2]";
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  auto idx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  // One integer given at call time (input i read on the host), else null.
  auto readAtCallTime = [&](size_t i, StringRef what) -> FailureOr<Value> {
    if (!ctx.readableAtCallTime(i))
      return Value();
    if (ctx.inputType(i).getNumElements() != 1)
      return ctx.emitError() << what << " must be one integer", failure();
    return ctx.intsReadAtCallTime(i)->front();
  };
  FailureOr<Value> stepRead = readAtCallTime(1, "frame_step");
  FailureOr<Value> lengthRead =
      ctx.hasInput(3) ? readAtCallTime(3, "frame_length") : Value();
  if (failed(stepRead) || failed(lengthRead))
    return failure();
  // One positive integer known at import (input i).
  auto positiveConstant = [&](size_t i, StringRef what) -> FailureOr<int64_t> {
    FailureOr<llvm::SmallVector<int64_t>> v = ctx.constantInts(i, what);
    if (failed(v))
      return failure();
    if (v->size() != 1 || (*v)[0] < 1)
      return ctx.emitError() << what << " must be one positive integer",
             failure();
    return (*v)[0];
  };
  int64_t hop = 0;
  if (!*stepRead) {
    FailureOr<int64_t> step = positiveConstant(1, "frame_step");
    if (failed(step))
      return failure();
    hop = *step;
  }
  int64_t frameLength = -1;
  if (ctx.hasInput(3) && !*lengthRead) {
    FailureOr<int64_t> l = positiveConstant(3, "frame_length");
    if (failed(l))
      return failure();
    frameLength = *l;
  }
  if (ctx.hasInput(2)) {
    if (ctx.inputRank(2) != 1 || ctx.inputDType(2) != dtype ||
        (frameLength >= 0 && ctx.inputShape(2)[0] != frameLength))
      return ctx.emitError() << "window " << shapeString(ctx.inputShape(2))
                             << " " << dtypeName(ctx.inputDType(2))
                             << " is not the signal's type of frame_length";
    frameLength = ctx.inputShape(2)[0];
  }
  if (frameLength < 0 && !*lengthRead)
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
  bool perCall = *stepRead || *lengthRead;
  // Per call: the checks, then extents that stay >= 0 for the shape program
  // even in a call they refuse (the step taken as at least 1, the frame
  // length clamped to [1, length]), so the refusal is the check's message.
  Value steps, frames, bins, lengthValue;
  if (perCall) {
    auto cmp = [&](arith::CmpIPredicate p, Value x, Value y) -> Value {
      return arith::CmpIOp::create(b, loc, p, x, y);
    };
    using arith::CmpIPredicate;
    steps = *stepRead ? *stepRead : idx(hop);
    if (*stepRead) {
      cf::AssertOp::create(b, loc, cmp(CmpIPredicate::sge, steps, idx(1)),
                           ctx.describe() + ": frame_step must be at least 1");
      steps = arith::MaxSIOp::create(b, loc, steps, idx(1));
    }
    lengthValue = frameLength >= 0 ? idx(frameLength) : *lengthRead;
    if (*lengthRead) {
      Value given = *lengthRead;
      if (ctx.hasInput(2))
        cf::AssertOp::create(b, loc, cmp(CmpIPredicate::eq, given, lengthValue),
                             ctx.describe() +
                                 ": frame_length must equal the window's "
                                 "length " +
                                 std::to_string(frameLength));
      else
        cf::AssertOp::create(
            b, loc,
            arith::AndIOp::create(b, loc,
                                  cmp(CmpIPredicate::sge, given, idx(1)),
                                  cmp(CmpIPredicate::sle, given, idx(length))),
            ctx.describe() +
                ": frame_length must be from 1 to the signal's "
                "length " +
                std::to_string(length));
      if (!ctx.hasInput(2))
        lengthValue = arith::MinSIOp::create(
            b, loc, arith::MaxSIOp::create(b, loc, given, idx(1)), idx(length));
    }
    frames = arith::AddIOp::create(
        b, loc,
        arith::DivSIOp::create(
            b, loc, arith::SubIOp::create(b, loc, idx(length), lengthValue),
            steps),
        idx(1));
    bins = onesided ? arith::AddIOp::create(
                          b, loc,
                          arith::DivSIOp::create(b, loc, lengthValue, idx(2)),
                          idx(1))
                    : lengthValue;
  }
  int64_t frameCount =
      perCall ? ShapedType::kDynamic : (length - frameLength) / hop + 1;
  MLIRContext *mctx = ctx.context();
  Type element = ctx.inputType(0).getElementType();
  // framed[b, f, j, c] = signal[b, f * hop + j, c] (* window[j]).
  llvm::SmallVector<int64_t> framedShape = {batch, frameCount, frameLength, c};
  llvm::SmallVector<Value> framedSizes;
  if (perCall) {
    framedSizes.push_back(frames);
    if (frameLength < 0)
      framedSizes.push_back(lengthValue);
    framedShape[2] = frameLength >= 0 ? frameLength : ShapedType::kDynamic;
  }
  llvm::SmallVector<Value> operands;
  llvm::SmallVector<AffineMap> maps;
  if (ctx.hasInput(2)) {
    operands.push_back(ctx.input(2));
    maps.push_back(AffineMap::get(4, 0, getAffineDimExpr(2, mctx)));
  }
  // A step given at call time is data of the kernel.
  int32_t stepDType = ctx.inputDType(1);
  if (*stepRead) {
    operands.push_back(ctx.input(1));
    maps.push_back(everywhereMap(ctx, 4, 1));
  }
  maps.push_back(b.getMultiDimIdentityMap(4));
  Value signal = ctx.input(0);
  Value init =
      tensor::EmptyOp::create(b, loc, framedShape, element, framedSizes);
  Value framed =
      linalg::GenericOp::create(
          b, loc, init.getType(), operands, init, maps,
          llvm::SmallVector<utils::IteratorType>(4,
                                                 utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value f = linalg::IndexOp::create(nb, l, 1);
            Value j = linalg::IndexOp::create(nb, l, 2);
            Value step =
                *stepRead
                    ? Value(arith::IndexCastOp::create(
                          nb, l, nb.getIndexType(),
                          convertScalar(nb, l, args[ctx.hasInput(2) ? 1 : 0],
                                        stepDType, Int64)))
                    : Value(arith::ConstantIndexOp::create(nb, l, hop));
            Value t = arith::AddIOp::create(
                nb, l, arith::MulIOp::create(nb, l, f, step), j);
            Value v = tensor::ExtractOp::create(
                nb, l, signal,
                ValueRange{linalg::IndexOp::create(nb, l, 0), t,
                           linalg::IndexOp::create(nb, l, 3)});
            if (ctx.hasInput(2))
              v = arith::MulFOp::create(nb, l, v, args[0]);
            linalg::YieldOp::create(nb, l, v);
          })
          .getResult(0);
  if (perCall) {
    ctx.setOutput(0,
                  buildDftPerCall(ctx, framed, dtype, bins,
                                  frameLength >= 0
                                      ? std::optional<int64_t>(frameLength)
                                      : std::nullopt),
                  dtype);
    return success();
  }
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
