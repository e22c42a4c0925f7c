//===- RowEvaluator.cpp - Elements of a row program from the bindings -----===//

#include "compiler/codegen/gpu/RowEvaluator.h"
#include "compiler/codegen/gpu/ElementEvaluator.h"
#include "compiler/codegen/gpu/KernelDispatch.h"
#include "compiler/dispatch/DispatchRegions.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

namespace kiln {

Value RowEvaluator::materialize(AffineExpr e) {
  if (auto dim = dyn_cast<AffineDimExpr>(e))
    return Dims[dim.getPosition()];
  if (auto constant = dyn_cast<AffineConstantExpr>(e))
    return arith::ConstantIndexOp::create(B, Loc, constant.getValue());
  // affine.apply over the dims the expression uses.
  SmallVector<Value> operands;
  SmallVector<AffineExpr> renamed(Dims.size());
  for (unsigned d = 0; d < Dims.size(); ++d) {
    if (!e.isFunctionOfDim(d))
      continue;
    renamed[d] = getAffineDimExpr(operands.size(), B.getContext());
    operands.push_back(Dims[d]);
  }
  for (AffineExpr &r : renamed)
    if (!r)
      r = getAffineConstantExpr(0, B.getContext());
  AffineMap map =
      AffineMap::get(operands.size(), 0, e.replaceDimsAndSymbols(renamed, {}));
  return affine::AffineApplyOp::create(B, Loc, map, operands);
}

SmallVector<Value> RowEvaluator::materialize(ArrayRef<AffineExpr> exprs) {
  SmallVector<Value> values;
  for (AffineExpr e : exprs)
    values.push_back(materialize(e));
  return values;
}

Value RowEvaluator::element(Value tensor, ArrayRef<AffineExpr> indices) {
  if (Value given = Given.lookup(tensor))
    return given;
  Operation *def = tensor.getDefiningOp();
  if (auto fill = dyn_cast_if_present<linalg::FillOp>(def))
    return fill.getInputs()[0];
  if (def && P.Ops.contains(def)) {
    if (isReshapeOp(def))
      return element(def->getOperand(0),
                     reshapeSourceIndices(def, indices, Dims.size()));
    auto op = cast<linalg::LinalgOp>(def);
    if (P.InlineReductions.contains(def)) {
      // Its elements combined in order into the accumulator's.
      Value result = element(op.getDpsInitOperand(0)->get(), indices);
      int64_t extent = 1;
      for (auto [range, iterator] :
           llvm::zip(op.getStaticLoopRanges(), op.getIteratorTypesArray()))
        if (iterator == utils::IteratorType::reduction)
          extent = range;
      for (int64_t i = 0; i < extent; ++i)
        result = payload(
            op, inlineReductionLoops(op, indices, B.getAffineConstantExpr(i)),
            result);
      return result;
    }
    return payload(op, indices, nullptr);
  }
  return memref::LoadOp::create(B, Loc, bindingOf(tensor),
                                materialize(indices));
}

Value RowEvaluator::payload(linalg::LinalgOp op, ArrayRef<AffineExpr> loops,
                            Value out) {
  SmallVector<Value> args;
  for (OpOperand *operand : op.getOpOperandsMatchingBBargs()) {
    Value value = operand->get();
    if (op.isDpsInit(operand))
      args.push_back(out);
    else if (!isa<ShapedType>(value.getType()))
      args.push_back(value);
    else if (!op.payloadUsesValueFromOperand(operand))
      args.push_back(nullptr);
    else
      args.push_back(
          element(value, composeIndices(op.getMatchingIndexingMap(operand),
                                        loops, Dims.size())));
  }
  bool readsLoops = !op->getRegion(0).getOps<linalg::IndexOp>().empty();
  return clonePayload(B, op, args,
                      readsLoops ? materialize(loops) : SmallVector<Value>());
}

} // namespace kiln
