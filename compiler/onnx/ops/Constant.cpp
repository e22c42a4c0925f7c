//===- Constant.cpp - ONNX Constant ---------------------------------------===//
//
// A Constant node's value is a host tensor: it folds into what uses it and
// becomes an MLIR constant only where an op needs it as a tensor.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ops/Common.h"

using namespace mlir;

namespace kiln::onnx_import {
namespace {

FailureOr<bool> foldConstant(NodeContext &ctx) {
  if (ctx.hasAttr("sparse_value"))
    return ctx.unsupported("sparse_value");
  if (ctx.hasAttr("value_string") || ctx.hasAttr("value_strings"))
    return ctx.unsupported("string constant");
  FailureOr<std::optional<HostTensor>> value = ctx.attrTensor("value");
  if (failed(value))
    return failure();
  if (*value) {
    ctx.setOutput(0, std::move(**value));
    return true;
  }
  if (ctx.hasAttr("value_float")) {
    double v = ctx.attrFloat("value_float", 0);
    ctx.setOutput(0, HostTensor::fromDoubles(Float, {}, {v}));
    return true;
  }
  if (ctx.hasAttr("value_floats")) {
    llvm::SmallVector<float> v = ctx.attrFloats("value_floats");
    std::vector<double> values(v.begin(), v.end());
    ctx.setOutput(0, HostTensor::fromDoubles(
                         Float, {static_cast<int64_t>(v.size())}, values));
    return true;
  }
  if (ctx.hasAttr("value_int")) {
    int64_t v = ctx.attrInt("value_int", 0);
    ctx.setOutput(0, HostTensor::fromInt64s(Int64, {}, {v}));
    return true;
  }
  if (ctx.hasAttr("value_ints")) {
    llvm::SmallVector<int64_t> v = ctx.attrInts("value_ints");
    ctx.setOutput(
        0, HostTensor::fromInt64s(Int64, {static_cast<int64_t>(v.size())}, v));
    return true;
  }
  return ctx.emitError() << "has no value attribute";
}

} // namespace

void registerConstantOps(OpRegistry &registry) {
  registry.addFolder("Constant", foldConstant);
}

} // namespace kiln::onnx_import
