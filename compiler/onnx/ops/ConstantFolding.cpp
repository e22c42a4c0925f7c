//===- ConstantFolding.cpp - Ops evaluated only at import time ------------===//
//
// Shape, Size, Range, ConstantOfShape and EyeLike compute shape arithmetic:
// with static shapes their results are always known while importing, so they
// have folders and no converters (a Range or ConstantOfShape whose inputs
// come from the graph's inputs is an "unsupported" error).
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ops/Common.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;

namespace kiln::onnx_import {
namespace {

FailureOr<bool> foldShape(NodeContext &ctx) {
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  int64_t rank = shape.size();
  // start/end (opset 15) slice the shape, clamped like Slice.
  int64_t start = ctx.attrInt("start", 0);
  int64_t end = ctx.attrInt("end", rank);
  if (start < 0)
    start += rank;
  if (end < 0)
    end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, 0, rank);
  llvm::SmallVector<int64_t> dims;
  for (int64_t i = start; i < end; ++i)
    dims.push_back(shape[i]);
  ctx.setOutput(0, HostTensor::fromInt64s(
                       Int64, {static_cast<int64_t>(dims.size())}, dims));
  return true;
}

FailureOr<bool> foldSize(NodeContext &ctx) {
  ctx.setOutput(
      0, HostTensor::fromInt64s(Int64, {}, {numElementsOf(ctx.inputShape(0))}));
  return true;
}

FailureOr<bool> foldRange(NodeContext &ctx) {
  const HostTensor *start = ctx.constantInput(0);
  const HostTensor *limit = ctx.constantInput(1);
  const HostTensor *delta = ctx.constantInput(2);
  if (!start || !limit || !delta)
    return false;
  if (start->numElements() != 1 || limit->numElements() != 1 ||
      delta->numElements() != 1) {
    ctx.emitError() << "start, limit and delta must be scalars";
    return failure();
  }
  int32_t dtype = start->dtype();
  // ONNX's count, max(ceil((limit - start) / delta), 0), in double for
  // floats and integers alike (an integer difference may overflow int64);
  // NaN and counts past the fold limit are refused before anything is
  // allocated.
  double s = start->doubleAt(0), l = limit->doubleAt(0), d = delta->doubleAt(0);
  if (d == 0) {
    ctx.emitError() << "delta is 0";
    return failure();
  }
  double count = std::ceil((l - s) / d);
  if (std::isnan(count)) {
    ctx.emitError() << "start, limit or delta is NaN";
    return failure();
  }
  if (count > static_cast<double>(kMaxFoldElements)) {
    (void)ctx.unsupported("Range of " + llvm::formatv("{0:e}", count) +
                          " elements (the importer computes Range up to " +
                          llvm::Twine(kMaxFoldElements) + ")");
    return failure();
  }
  int64_t n = std::max<int64_t>(0, static_cast<int64_t>(count));
  if (isFloatDType(dtype)) {
    std::vector<double> values(n);
    for (int64_t i = 0; i < n; ++i)
      values[i] = s + i * d;
    ctx.setOutput(0, HostTensor::fromDoubles(dtype, {n}, values));
    return true;
  }
  // Integers step exactly, in unsigned arithmetic: the values lie between
  // start and limit, but i * delta alone may not fit int64.
  uint64_t is = start->intAt(0), id = delta->intAt(0);
  llvm::SmallVector<int64_t> values(n);
  for (int64_t i = 0; i < n; ++i)
    values[i] = static_cast<int64_t>(is + static_cast<uint64_t>(i) * id);
  ctx.setOutput(0, HostTensor::fromInt64s(dtype, {n}, values));
  return true;
}

FailureOr<bool> foldConstantOfShape(NodeContext &ctx) {
  FailureOr<llvm::SmallVector<int64_t>> shape = ctx.constantInts(0, "shape");
  if (failed(shape))
    return failure();
  HostTensor value = HostTensor::fromDoubles(Float, {1}, {0.0});
  FailureOr<std::optional<HostTensor>> attr = ctx.attrTensor("value");
  if (failed(attr))
    return failure();
  if (*attr) {
    if ((*attr)->numElements() != 1) {
      ctx.emitError() << "value must hold one element";
      return failure();
    }
    value = std::move(**attr);
  }
  FailureOr<int64_t> n = ctx.checkShape(*shape, value.dtype(), "output");
  if (failed(n))
    return failure();
  setSplatOutput(ctx, 0, *shape, value);
  return true;
}

// EyeLike depends only on its input's shape.
FailureOr<bool> foldEyeLike(NodeContext &ctx) {
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  if (shape.size() != 2) {
    ctx.emitError() << "input " << shapeString(shape) << " is not 2-D";
    return failure();
  }
  int32_t dtype = ctx.attrInt("dtype", ctx.inputDType(0));
  if (!dtypeByteSize(dtype) || dtype == String) {
    (void)ctx.unsupported("element type " + dtypeName(dtype));
    return failure();
  }
  int64_t k = ctx.attrInt("k", 0);
  int64_t n = numElementsOf(shape);
  if (n > kMaxFoldElements) {
    (void)ctx.unsupported("EyeLike of " + llvm::Twine(n) +
                          " elements (the importer computes EyeLike up to " +
                          llvm::Twine(kMaxFoldElements) + ")");
    return failure();
  }
  llvm::SmallVector<int64_t> values(n, 0);
  // Row i's one is at column i + k, when that is a column.
  for (int64_t i = 0; i < shape[0]; ++i)
    if (k >= -i && k < shape[1] - i)
      values[i * shape[1] + i + k] = 1;
  ctx.setOutput(0, HostTensor::fromInt64s(dtype, shape, values));
  return true;
}

} // namespace

void registerConstantFoldingOps(OpRegistry &registry) {
  registry.addFolder("Shape", foldShape);
  registry.addFolder("Size", foldSize);
  registry.addFolder("Range", foldRange);
  registry.addFolder("ConstantOfShape", foldConstantOfShape);
  registry.addFolder("EyeLike", foldEyeLike);
}

} // namespace kiln::onnx_import
