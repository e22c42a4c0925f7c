//===- ElementEvaluator.cpp - One element of a dispatch's tensor ----------===//

#include "compiler/codegen/gpu/ElementEvaluator.h"
#include "compiler/codegen/gpu/ContractionMatch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace kiln {

SmallVector<Value> indicesOf(OpBuilder &builder, Location loc, AffineMap map,
                             ValueRange loops) {
  SmallVector<Value> indices;
  for (AffineExpr e : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(e))
      indices.push_back(loops[dim.getPosition()]);
    else
      indices.push_back(arith::ConstantIndexOp::create(
          builder, loc, cast<AffineConstantExpr>(e).getValue()));
  }
  return indices;
}

Value clonePayload(OpBuilder &builder, linalg::LinalgOp op, ValueRange args,
                   ValueRange loops) {
  Block &body = op->getRegion(0).front();
  IRMapping mapping;
  for (auto [arg, value] : llvm::zip_equal(body.getArguments(), args))
    if (value)
      mapping.map(arg, value);
  for (Operation &inner : body.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      mapping.map(index.getResult(), loops[index.getDim()]);
      continue;
    }
    builder.clone(inner, mapping);
  }
  return mapping.lookupOrDefault(body.getTerminator()->getOperand(0));
}

bool ElementEvaluator::canEvaluate(Value tensor, bool sameIndices) const {
  if (tensor == Given)
    return sameIndices;
  if (bindingOf(tensor))
    return true;
  // An elementwise op whose loops are its result's dimensions.
  auto op = tensor.getDefiningOp<linalg::LinalgOp>();
  if (!op || !op.hasPureTensorSemantics() || op->getNumResults() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops() ||
      !op.getIndexingMapsArray().back().isIdentity() || !hasScalarPayload(op))
    return false;
  for (OpOperand *operand : op.getOpOperandsMatchingBBargs()) {
    if (!isa<ShapedType>(operand->get().getType()) ||
        !op.payloadUsesValueFromOperand(operand))
      continue;
    AffineMap map = op.getMatchingIndexingMap(operand);
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/true) ||
        !canEvaluate(operand->get(), sameIndices && map.isIdentity()))
      return false;
  }
  return true;
}

Value ElementEvaluator::evaluate(OpBuilder &builder, Location loc, Value tensor,
                                 ValueRange indices, Value givenElement) const {
  if (tensor == Given)
    return givenElement;
  if (Value binding = bindingOf(tensor))
    return memref::LoadOp::create(builder, loc, binding, indices);
  auto op = tensor.getDefiningOp<linalg::LinalgOp>();
  SmallVector<Value> args;
  for (OpOperand *operand : op.getOpOperandsMatchingBBargs()) {
    Value value = operand->get();
    if (!isa<ShapedType>(value.getType()))
      args.push_back(value);
    else if (!op.payloadUsesValueFromOperand(operand))
      args.push_back(nullptr);
    else
      args.push_back(evaluate(
          builder, loc, value,
          indicesOf(builder, loc, op.getMatchingIndexingMap(operand), indices),
          givenElement));
  }
  return clonePayload(builder, op, args, indices);
}

} // namespace kiln
