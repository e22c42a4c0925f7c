//===- BodyEvaluation.cpp - Elementwise bodies folded at import -----------===//

#include "compiler/onnx/BodyEvaluation.h"

#include "compiler/onnx/OnnxTypes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Block.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"

#include <memory>
#include <vector>

using namespace mlir;

namespace kiln::onnx_import {
namespace {

/// Element `i` of `tensor` as an attribute of the body's scalar type `type`
/// (integers as their bit pattern: signless, as the body reads them).
Attribute elementAttr(Type type, const HostTensor &tensor, int64_t i) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return FloatAttr::get(floatType, tensor.doubleAt(i));
  auto intType = cast<IntegerType>(type);
  return IntegerAttr::get(
      intType, APInt(intType.getWidth(), static_cast<uint64_t>(tensor.intAt(i)),
                     /*isSigned=*/false, /*implicitTrunc=*/true));
}

/// One element of the body: `values` maps the block's arguments (set by
/// the caller) and, on return, every op's results to constants; false when
/// an op does not fold to constants.
bool foldOps(Builder &b, Block &block, llvm::ArrayRef<int64_t> position,
             llvm::DenseMap<Value, Attribute> &values) {
  for (Operation &op : block) {
    if (auto index = dyn_cast<linalg::IndexOp>(op)) {
      if (index.getDim() >= position.size())
        return false;
      values[index] = b.getIndexAttr(position[index.getDim()]);
      continue;
    }
    if (op.getNumRegions() != 0)
      return false;
    llvm::SmallVector<Attribute> operands;
    for (Value v : op.getOperands()) {
      Attribute a = values.lookup(v);
      if (!a)
        return false;
      operands.push_back(a);
    }
    llvm::SmallVector<OpFoldResult> results;
    // A fold that succeeds without results changed the op in place (a
    // commutative op's operands sorted): not a value.
    if (failed(op.fold(operands, results)) ||
        results.size() != op.getNumResults())
      return false;
    for (auto [result, folded] : llvm::zip_equal(op.getResults(), results)) {
      Attribute a = dyn_cast<Attribute>(folded);
      if (!a)
        a = values.lookup(cast<Value>(folded));
      // Poison and other non-numbers stay the run time's.
      if (!isa_and_nonnull<IntegerAttr, FloatAttr>(a))
        return false;
      values[result] = a;
    }
  }
  return true;
}

} // namespace

std::optional<HostTensor> evaluateBody(MLIRContext *context, Location loc,
                                       llvm::ArrayRef<HostTensor> operands,
                                       llvm::ArrayRef<int64_t> shape,
                                       int32_t resultDType, ScalarBody body) {
  int64_t n = numElementsOf(shape);
  Type resultType = elementTypeOf(context, resultDType);
  if (n > kMaxBodyFoldElements || !resultType || operands.empty())
    return std::nullopt;
  // The body, built once in a block of its own (destroyed on return).
  auto block = std::make_unique<Block>();
  for (const HostTensor &operand : operands) {
    Type type = elementTypeOf(context, operand.dtype());
    if (!type)
      return std::nullopt;
    block->addArgument(type, loc);
  }
  OpBuilder builder(context);
  builder.setInsertionPointToEnd(block.get());
  Value result = body(builder, loc, block->getArguments());
  if (!result || result.getType() != resultType)
    return std::nullopt;

  // Each operand's flat index advances by its stride along a dimension (0
  // where it broadcasts: the generic reads a size-1 dimension at index 0).
  int64_t rank = shape.size();
  llvm::SmallVector<llvm::SmallVector<int64_t>> strides;
  for (const HostTensor &operand : operands) {
    llvm::ArrayRef<int64_t> in = operand.shape();
    int64_t offset = rank - operand.rank();
    if (offset < 0)
      return std::nullopt;
    llvm::SmallVector<int64_t> s(rank, 0);
    int64_t stride = 1;
    for (int64_t d = operand.rank() - 1; d >= 0; --d) {
      if (in[d] != 1 && in[d] != shape[offset + d])
        return std::nullopt;
      s[offset + d] = in[d] == 1 ? 0 : stride;
      stride *= in[d];
    }
    strides.push_back(std::move(s));
  }

  bool isFloat = isa<FloatType>(resultType);
  bool isUnsigned = isUnsignedDType(resultDType);
  std::vector<double> doubles(isFloat ? n : 0);
  llvm::SmallVector<int64_t> ints(isFloat ? 0 : n);
  llvm::SmallVector<int64_t> position(rank, 0);
  llvm::DenseMap<Value, Attribute> values;
  for (int64_t i = 0; i < n; ++i) {
    values.clear();
    for (auto [k, operand] : llvm::enumerate(operands)) {
      int64_t flat = 0;
      for (int64_t d = 0; d < rank; ++d)
        flat += position[d] * strides[k][d];
      values[block->getArgument(k)] =
          elementAttr(block->getArgument(k).getType(), operand, flat);
    }
    if (!foldOps(builder, *block, position, values))
      return std::nullopt;
    Attribute r = values.lookup(result);
    if (auto f = dyn_cast_if_present<FloatAttr>(r); f && isFloat)
      doubles[i] = f.getValueAsDouble();
    else if (auto a = dyn_cast_if_present<IntegerAttr>(r); a && !isFloat)
      ints[i] = isUnsigned ? static_cast<int64_t>(a.getValue().getZExtValue())
                           : a.getValue().getSExtValue();
    else
      return std::nullopt;
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++position[d] < shape[d])
        break;
      position[d] = 0;
    }
  }
  if (isFloat)
    return HostTensor::fromDoubles(resultDType, shape, doubles);
  return HostTensor::fromInt64s(resultDType, shape, ints);
}

} // namespace kiln::onnx_import
