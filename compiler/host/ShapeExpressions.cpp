//===- ShapeExpressions.cpp - Host values' extents as shape nodes ---------===//

#include "compiler/host/ShapeExpressions.h"
#include "compiler/dispatch/DispatchRegions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;

namespace kiln {

namespace {

// The dispatch function `call` calls.
func::FuncOp calleeOf(func::CallOp call) {
  return SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      call, call.getCalleeAttr());
}

} // namespace

Value ShapeExpressions::hostOperand(func::CallOp call, Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  if (!call || !arg)
    return nullptr;
  func::FuncOp callee = calleeOf(call);
  if (!callee || arg.getOwner() != &callee.getBody().front())
    return nullptr;
  return call.getOperand(arg.getArgNumber());
}

FailureOr<uint32_t> ShapeExpressions::dim(Value value, unsigned d) {
  return dimIn(nullptr, value, d);
}

FailureOr<SmallVector<uint32_t>> ShapeExpressions::dims(Value value) {
  SmallVector<uint32_t> nodes;
  auto type = cast<RankedTensorType>(value.getType());
  for (unsigned d = 0; d < type.getRank(); ++d) {
    FailureOr<uint32_t> node = dim(value, d);
    if (failed(node))
      return failure();
    nodes.push_back(*node);
  }
  return nodes;
}

FailureOr<uint32_t> ShapeExpressions::scalar(Value value) {
  return scalarIn(nullptr, value);
}

FailureOr<uint32_t> ShapeExpressions::byteSize(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  uint32_t bytes = Program.constant(elementByteSize(type.getElementType()));
  for (unsigned d = 0; d < type.getRank(); ++d) {
    FailureOr<uint32_t> extent = dim(value, d);
    if (failed(extent))
      return failure();
    bytes = Program.mul(bytes, *extent);
  }
  return bytes;
}

FailureOr<uint32_t> ShapeExpressions::dimIn(func::CallOp call, Value value,
                                            unsigned d) {
  auto type = cast<RankedTensorType>(value.getType());
  if (!type.isDynamicDim(d))
    return Program.constant(type.getDimSize(d));
  if (Value operand = hostOperand(call, value))
    return dimIn(nullptr, operand, d);
  bool onHost = !call;
  if (onHost) {
    auto it = HostDims.find({value, d});
    if (it != HostDims.end())
      return it->second;
  }
  FailureOr<uint32_t> node = failure();
  Operation *def = value.getDefiningOp();
  if (auto arg = dyn_cast<BlockArgument>(value);
      arg && onHost && arg.getOwner() == &Host.getBody().front()) {
    node = Program.inputDim(arg.getArgNumber(), d);
  } else if (auto empty = dyn_cast_or_null<tensor::EmptyOp>(def)) {
    node = scalarIn(call, empty.getDynamicSize(d));
  } else if (auto inner = dyn_cast_or_null<func::CallOp>(def);
             inner && onHost) {
    // A dispatch's result: what its body returns, in the body.
    func::FuncOp callee = calleeOf(inner);
    if (callee && isDispatchFunc(callee)) {
      Operation *ret = callee.getBody().front().getTerminator();
      node = dimIn(inner,
                   ret->getOperand(cast<OpResult>(value).getResultNumber()), d);
    }
  } else if (auto dps = dyn_cast_or_null<DestinationStyleOpInterface>(def)) {
    // A linalg op's result has the shape of its init.
    node = dimIn(call, dps.getTiedOpOperand(cast<OpResult>(value))->get(), d);
  } else if (auto cast = dyn_cast_or_null<tensor::CastOp>(def)) {
    node = dimIn(call, cast.getSource(), d);
  } else if (auto pad = dyn_cast_or_null<tensor::PadOp>(def)) {
    // The source's extent and both paddings.
    FailureOr<uint32_t> source = dimIn(call, pad.getSource(), d);
    FailureOr<uint32_t> low = extentIn(call, pad.getMixedLowPad()[d]);
    FailureOr<uint32_t> high = extentIn(call, pad.getMixedHighPad()[d]);
    if (succeeded(source) && succeeded(low) && succeeded(high))
      node = Program.add(Program.add(*source, *low), *high);
  } else if (auto collapse = dyn_cast_or_null<tensor::CollapseShapeOp>(def)) {
    // The product of the source dimensions the result's dimension groups.
    std::optional<uint32_t> product;
    // A copy: the groups are returned by value, and a range-for over an
    // element of a temporary would read freed memory.
    SmallVector<ReassociationIndices> groups =
        collapse.getReassociationIndices();
    for (int64_t s : groups[d]) {
      FailureOr<uint32_t> extent = dimIn(call, collapse.getSrc(), s);
      if (failed(extent))
        return failure();
      product = product ? Program.mul(*product, *extent) : *extent;
    }
    node = product ? *product : Program.constant(1);
  } else if (auto expand = dyn_cast_or_null<tensor::ExpandShapeOp>(def)) {
    node = extentIn(call, expand.getMixedOutputShape()[d]);
  } else if (auto concat = dyn_cast_or_null<tensor::ConcatOp>(def)) {
    // Along the axis the operands' extents added, elsewhere the first's
    // (appendLoopChecks makes the others equal it).
    if (d != concat.getDim()) {
      node = dimIn(call, concat.getInputs().front(), d);
    } else {
      std::optional<uint32_t> sum;
      for (Value input : concat.getInputs()) {
        FailureOr<uint32_t> extent = dimIn(call, input, d);
        if (failed(extent))
          return failure();
        sum = sum ? Program.add(*sum, *extent) : *extent;
      }
      node = *sum;
    }
  } else if (auto slice = dyn_cast_or_null<tensor::ExtractSliceOp>(def)) {
    // The sizes the slice keeps, in order (rank-reduced ones dropped).
    llvm::SmallBitVector dropped = slice.getDroppedDims();
    SmallVector<OpFoldResult> sizes = slice.getMixedSizes();
    unsigned kept = 0;
    for (unsigned i = 0; i < sizes.size(); ++i) {
      if (dropped.test(i))
        continue;
      if (kept++ == d) {
        node = extentIn(call, sizes[i]);
        break;
      }
    }
  }
  if (failed(node)) {
    if (def)
      return def->emitError()
             << "cannot follow dimension " << d << " of this result "
             << value.getType()
             << " back to the inputs' shapes (dynamic shapes reach linalg "
                "ops, tensor.empty, tensor.dim, pads, reshapes and slices "
                "so far)";
    return Host.emitError() << "cannot follow dimension " << d << " of "
                            << value.getType() << " to the inputs' shapes";
  }
  if (onHost)
    HostDims[{value, d}] = *node;
  return node;
}

FailureOr<uint32_t> ShapeExpressions::extentIn(func::CallOp call,
                                               OpFoldResult extent) {
  if (auto value = dyn_cast<Value>(extent))
    return scalarIn(call, value);
  std::optional<int64_t> constant = getConstantIntValue(extent);
  if (!constant || *constant < 0)
    return Host.emitError("an extent that is not a non-negative constant");
  return Program.constant(*constant);
}

FailureOr<uint32_t> ShapeExpressions::scalarIn(func::CallOp call, Value value) {
  if (Value operand = hostOperand(call, value))
    return scalarIn(nullptr, operand);
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant))) {
    if (constant.isNegative())
      return Host.emitError() << "negative extent " << constant.getSExtValue();
    return Program.constant(constant.getSExtValue());
  }
  Operation *def = value.getDefiningOp();
  if (auto dimOp = dyn_cast_or_null<tensor::DimOp>(def)) {
    std::optional<int64_t> index = dimOp.getConstantIndex();
    if (!index)
      return dimOp.emitError("a dimension index known at compile time is "
                             "needed");
    return dimIn(call, dimOp.getSource(), *index);
  }
  using Opcode = ShapeProgramBuilder::Opcode;
  std::optional<Opcode> op;
  if (isa_and_nonnull<arith::AddIOp>(def))
    op = Opcode::Add;
  else if (isa_and_nonnull<arith::SubIOp>(def))
    op = Opcode::Sub;
  else if (isa_and_nonnull<arith::MulIOp>(def))
    op = Opcode::Mul;
  else if (isa_and_nonnull<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp>(
               def))
    op = Opcode::FloorDiv;
  else if (isa_and_nonnull<arith::CeilDivUIOp, arith::CeilDivSIOp>(def))
    op = Opcode::CeilDiv;
  else if (isa_and_nonnull<arith::MaxUIOp, arith::MaxSIOp>(def))
    op = Opcode::Max;
  else if (isa_and_nonnull<arith::MinUIOp, arith::MinSIOp>(def))
    op = Opcode::Min;
  if (op && def->getNumOperands() == 2) {
    FailureOr<uint32_t> a = scalarIn(call, def->getOperand(0));
    if (failed(a))
      return failure();
    FailureOr<uint32_t> b = scalarIn(call, def->getOperand(1));
    if (failed(b))
      return failure();
    return Program.binary(*op, *a, *b);
  }
  if (def)
    return def->emitError() << "cannot compute this extent on the host; "
                               "extents are constants, tensor.dim and index "
                               "arithmetic (add, sub, mul, div, ceildiv, "
                               "max, min)";
  return Host.emitError("cannot compute an extent on the host");
}

LogicalResult ShapeExpressions::appendLoopChecks(
    func::CallOp call, std::vector<std::pair<uint32_t, uint32_t>> &out) {
  func::FuncOp callee = calleeOf(call);
  if (!callee)
    return call.emitError("dispatch function not found");
  // A concat's operands agree off its axis: each one is copied whole into
  // the result, whose extent there is the first operand's.
  WalkResult concats = callee.walk([&](tensor::ConcatOp op) {
    auto type = cast<RankedTensorType>(op.getType());
    for (unsigned d = 0; d < type.getRank(); ++d) {
      if (d == op.getDim())
        continue;
      FailureOr<uint32_t> first = dimIn(call, op.getInputs().front(), d);
      if (failed(first))
        return WalkResult::interrupt();
      for (Value input : op.getInputs().drop_front()) {
        FailureOr<uint32_t> node = dimIn(call, input, d);
        if (failed(node))
          return WalkResult::interrupt();
        if (*node == *first)
          continue;
        std::optional<int64_t> a = Program.constantValue(*first),
                               b = Program.constantValue(*node);
        if (a && b) {
          op.emitError() << "operands differ in dimension " << d << ": " << *a
                         << " and " << *b;
          return WalkResult::interrupt();
        }
        out.push_back({*first, *node});
      }
    }
    return WalkResult::advance();
  });
  if (concats.wasInterrupted())
    return failure();
  WalkResult result = callee.walk([&](linalg::LinalgOp op) {
    // For each loop, the first operand extent it indexes alone.
    SmallVector<std::optional<uint32_t>> loopExtent(op.getNumLoops());
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = dyn_cast<RankedTensorType>(operand.get().getType());
      if (!type)
        continue;
      AffineMap map = op.getMatchingIndexingMap(&operand);
      for (auto [d, expr] : llvm::enumerate(map.getResults())) {
        auto loop = dyn_cast<AffineDimExpr>(expr);
        if (!loop)
          continue;
        FailureOr<uint32_t> node = dimIn(call, operand.get(), d);
        if (failed(node))
          return WalkResult::interrupt();
        std::optional<uint32_t> &first = loopExtent[loop.getPosition()];
        if (!first) {
          first = *node;
          continue;
        }
        if (*first == *node)
          continue;
        std::optional<int64_t> a = Program.constantValue(*first),
                               b = Program.constantValue(*node);
        if (a && b) {
          op.emitError() << "loop " << loop.getPosition()
                         << " runs over extents " << *a << " and " << *b;
          return WalkResult::interrupt();
        }
        out.push_back({*first, *node});
      }
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

} // namespace kiln
