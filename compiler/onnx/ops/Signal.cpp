//===- Signal.cpp - ONNX window functions ---------------------------------===//
//
// The windows (Hann, Hamming, Blackman) depend on nothing but their size, so
// the importer needs the size at import time and computes the window on the
// host in double, as a constant: y[n] = sum_k (-1)^k a_k cos(2 pi k n / N),
// N = size (periodic) or size - 1 (symmetric).
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ops/Common.h"

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
}

} // namespace kiln::onnx_import
