//===- ConstantFolding.cpp - Ops evaluated only at import time ------------===//
//
// Shape, Size, Range, ConstantOfShape and EyeLike compute shape arithmetic:
// with static shapes their results are always known while importing, so they
// have folders and no converters (a Range or ConstantOfShape whose inputs
// come from the graph's inputs is an "unsupported" error).
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/OnnxFile.h"
#include "compiler/onnx/ops/Common.h"

#include "onnx/onnx_pb.h"

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
  if (isFloatDType(dtype)) {
    double s = start->doubleAt(0), l = limit->doubleAt(0),
           d = delta->doubleAt(0);
    if (d == 0) {
      ctx.emitError() << "delta is 0";
      return failure();
    }
    int64_t n = std::max<int64_t>(0, std::ceil((l - s) / d));
    if (n > kMaxFoldElements)
      return false;
    std::vector<double> values(n);
    for (int64_t i = 0; i < n; ++i)
      values[i] = s + i * d;
    ctx.setOutput(0, HostTensor::fromDoubles(dtype, {n}, values));
    return true;
  }
  int64_t s = start->intAt(0), l = limit->intAt(0), d = delta->intAt(0);
  if (d == 0) {
    ctx.emitError() << "delta is 0";
    return failure();
  }
  int64_t n = std::max<int64_t>(
      0, static_cast<int64_t>(std::ceil(static_cast<double>(l - s) / d)));
  if (n > kMaxFoldElements)
    return false;
  llvm::SmallVector<int64_t> values(n);
  for (int64_t i = 0; i < n; ++i)
    values[i] = s + i * d;
  ctx.setOutput(0, HostTensor::fromInt64s(dtype, {n}, values));
  return true;
}

FailureOr<bool> foldConstantOfShape(NodeContext &ctx) {
  FailureOr<llvm::SmallVector<int64_t>> shape = ctx.constantInts(0, "shape");
  if (failed(shape))
    return failure();
  for (int64_t d : *shape)
    if (d < 0) {
      ctx.emitError() << "negative dimension " << d << " in shape";
      return failure();
    }
  HostTensor value = HostTensor::fromDoubles(Float, {1}, {0.0});
  if (const onnx::AttributeProto *attr = ctx.attr("value")) {
    llvm::Expected<HostTensor> t = readTensor(attr->t(), "", nullptr);
    if (!t) {
      ctx.emitError() << llvm::toString(t.takeError());
      return failure();
    }
    if (t->numElements() != 1) {
      ctx.emitError() << "value must hold one element";
      return failure();
    }
    value = *t;
  }
  // Splats of any size: the constant becomes a splat attribute (a fill).
  int64_t n = numElementsOf(*shape);
  int64_t size = dtypeByteSize(value.dtype());
  std::vector<char> bytes(n * size);
  for (int64_t i = 0; i < n; ++i)
    std::memcpy(bytes.data() + i * size, value.bytes().data(), size);
  ctx.setOutput(0, HostTensor(value.dtype(), *shape, std::move(bytes)));
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
  llvm::SmallVector<int64_t> values(shape[0] * shape[1], 0);
  for (int64_t i = 0; i < shape[0]; ++i)
    if (i + k >= 0 && i + k < shape[1])
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
