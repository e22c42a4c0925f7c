//===- Common.cpp - Helpers shared by the ONNX op families ----------------===//

#include "compiler/onnx/ops/Common.h"

#include "compiler/onnx/BodyEvaluation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cstring>

using namespace mlir;

namespace kiln::onnx_import {

llvm::SmallVector<llvm::SmallVector<int64_t>>
validAxes(int64_t rank, int64_t count,
          llvm::function_ref<bool(llvm::ArrayRef<int64_t>)> valid) {
  llvm::SmallVector<llvm::SmallVector<int64_t>> found;
  if (rank > 16 || count < 0 || count > rank)
    return found;
  // Every subset of `count` positions, as a bit mask (at most 2^16).
  for (uint32_t mask = 0; mask < (1u << rank); ++mask) {
    if (__builtin_popcount(mask) != count)
      continue;
    llvm::SmallVector<int64_t> axes;
    for (int64_t i = 0; i < rank; ++i)
      if (mask & (1u << i))
        axes.push_back(i);
    if (valid(axes))
      found.push_back(std::move(axes));
  }
  return found;
}

std::optional<llvm::SmallVector<int64_t>>
uniqueAxes(int64_t rank, int64_t count,
           llvm::function_ref<bool(llvm::ArrayRef<int64_t>)> valid) {
  llvm::SmallVector<llvm::SmallVector<int64_t>> found =
      validAxes(rank, count, valid);
  if (found.size() != 1)
    return std::nullopt;
  return found.front();
}

llvm::SmallVector<int64_t> withoutAxes(llvm::ArrayRef<int64_t> shape,
                                       llvm::ArrayRef<int64_t> axes) {
  llvm::SmallVector<int64_t> kept;
  for (auto [i, d] : llvm::enumerate(shape))
    if (!llvm::is_contained(axes, static_cast<int64_t>(i)))
      kept.push_back(d);
  return kept;
}

std::string shapeString(llvm::ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "a scalar";
  std::string s;
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? "x" : "") +
         (ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d));
  return s;
}

LogicalResult emitElementwise(NodeContext &ctx, llvm::ArrayRef<size_t> inputs,
                              int32_t resultDType, ScalarBody body) {
  llvm::SmallVector<llvm::ArrayRef<int64_t>> shapes;
  for (size_t i : inputs)
    shapes.push_back(ctx.inputShape(i));
  std::optional<llvm::SmallVector<int64_t>> shape = broadcastShapes(shapes);
  if (!shape) {
    InFlightDiagnostic diag = ctx.emitError();
    diag << "input shapes do not broadcast:";
    for (llvm::ArrayRef<int64_t> s : shapes)
      diag << " " << shapeString(s);
    return failure();
  }
  // Operands known at import time give a result known at import time, when
  // the body folds (BodyEvaluation.h).
  llvm::SmallVector<HostTensor> constants;
  for (size_t i : inputs)
    if (const HostTensor *c = ctx.constantInput(i))
      constants.push_back(*c);
  if (constants.size() == inputs.size()) {
    if (std::optional<HostTensor> folded = evaluateBody(
            ctx.context(), ctx.loc(), constants, *shape, resultDType, body)) {
      ctx.setOutput(0, std::move(*folded));
      return success();
    }
  }
  llvm::SmallVector<Value> operands;
  for (size_t i : inputs)
    operands.push_back(ctx.input(i));
  Type element = elementTypeOf(ctx.context(), resultDType);
  Value result = buildElementwise(ctx.builder(), ctx.loc(), operands, *shape,
                                  element, body);
  ctx.setOutput(0, result, resultDType);
  return success();
}

LogicalResult emitUnaryFloat(NodeContext &ctx, ScalarBody body) {
  if (!isFloatDType(ctx.inputDType(0)))
    return ctx.unsupported("element type " + dtypeName(ctx.inputDType(0)) +
                           " (floats only)");
  return emitElementwise(ctx, {0}, ctx.inputDType(0), body);
}

LogicalResult requireStaticDims(NodeContext &ctx, size_t i,
                                llvm::ArrayRef<int64_t> dynamicOk) {
  if (!ctx.hasInput(i))
    return success();
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(i);
  for (auto [d, size] : llvm::enumerate(shape))
    if (ShapedType::isDynamic(size) &&
        !llvm::is_contained(dynamicOk, static_cast<int64_t>(d)))
      return ctx.unsupported(
          "dynamic dimension " + std::to_string(d) + " of input " +
          std::to_string(i) + " (" + shapeString(shape) + "): " + ctx.opType() +
          (dynamicOk.empty()
               ? std::string(" takes it static")
               : " takes only dimension " + std::to_string(dynamicOk.front()) +
                     " dynamic") +
          " so far");
  return success();
}

LogicalResult requireSameDType(NodeContext &ctx, size_t i) {
  if (ctx.inputDType(i) == ctx.inputDType(0))
    return success();
  return ctx.emitError() << "input " << i << " is "
                         << dtypeName(ctx.inputDType(i)) << ", input 0 "
                         << dtypeName(ctx.inputDType(0));
}

Value transposedInput(NodeContext &ctx, size_t i,
                      llvm::ArrayRef<int64_t> perm) {
  if (const HostTensor *c = ctx.constantInput(i)) {
    OnnxValue value{RankedTensorType(), c->dtype(), Value(),
                    c->transposed(perm), ctx.inputInfo(i).Name + "_t"};
    return materialize(ctx.builder(), value);
  }
  return transpose(ctx.builder(), ctx.loc(), ctx.input(i), perm);
}

HostTensor broadcastHost(const HostTensor &tensor,
                         llvm::ArrayRef<int64_t> shape) {
  if (tensor.shape() == shape)
    return tensor;
  int64_t rank = shape.size();
  llvm::ArrayRef<int64_t> in = tensor.shape();
  int64_t offset = rank - static_cast<int64_t>(in.size());
  // Stride of each output dimension in the input (0 where broadcast).
  llvm::SmallVector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  for (int64_t i = static_cast<int64_t>(in.size()) - 1; i >= 0; --i) {
    strides[offset + i] = in[i] == 1 ? 0 : stride;
    stride *= in[i];
  }
  int64_t n = numElementsOf(shape);
  llvm::SmallVector<int64_t> indices;
  indices.reserve(n);
  llvm::SmallVector<int64_t> position(rank, 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t flat = 0;
    for (int64_t d = 0; d < rank; ++d)
      flat += position[d] * strides[d];
    indices.push_back(flat);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++position[d] < shape[d])
        break;
      position[d] = 0;
    }
  }
  return tensor.gathered(shape, indices);
}

void setSplatOutput(NodeContext &ctx, size_t i, llvm::ArrayRef<int64_t> shape,
                    const HostTensor &scalar) {
  int64_t n = numElementsOf(shape);
  int64_t size = dtypeByteSize(scalar.dtype());
  if (n > kMaxFoldElements) {
    auto type = mlir::RankedTensorType::get(
        shape, elementTypeOf(ctx.context(), scalar.dtype()));
    mlir::DenseElementsAttr attr =
        scalar.dtype() == Bool
            ? mlir::DenseElementsAttr::get(type, scalar.intAt(0) != 0)
            : mlir::DenseElementsAttr::getFromRawBuffer(
                  type, llvm::ArrayRef<char>(scalar.bytes().data(), size));
    ctx.setOutput(
        i, mlir::arith::ConstantOp::create(ctx.builder(), ctx.loc(), attr),
        scalar.dtype());
    return;
  }
  std::vector<char> bytes(n * size);
  for (int64_t k = 0; k < n; ++k)
    std::memcpy(bytes.data() + k * size, scalar.bytes().data(), size);
  ctx.setOutput(i, HostTensor(scalar.dtype(), shape, std::move(bytes)));
}

mlir::FailureOr<int64_t> sizeFromDouble(NodeContext &ctx, double size,
                                        llvm::StringRef what) {
  // 2^62: past any dimension TensorLimits lets through, and exact in double.
  if (!(size >= 0 && size < 4.611686018427388e18)) {
    ctx.emitError() << what << " " << size
                    << " is not a size (NaN, negative or too large)";
    return mlir::failure();
  }
  return static_cast<int64_t>(size);
}

void assertGatheredExtent(NodeContext &ctx, Value extent, Value indices,
                          int64_t countDims, llvm::StringRef what) {
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value reads = arith::ConstantIndexOp::create(b, loc, 1);
  for (int64_t d = 0; d < countDims; ++d)
    reads = arith::MulIOp::create(b, loc, reads,
                                  tensor::DimOp::create(b, loc, indices, d));
  Value fine = arith::OrIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, extent, zero),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, reads, zero));
  cf::AssertOp::create(b, loc, fine, (ctx.describe() + ": " + what).str());
}

} // namespace kiln::onnx_import
