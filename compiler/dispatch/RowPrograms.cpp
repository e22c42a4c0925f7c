//===- RowPrograms.cpp - Row reductions and the ops that read them --------===//

#include "compiler/dispatch/RowPrograms.h"
#include "compiler/dispatch/DispatchRegions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineExprVisitor.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace kiln {

std::optional<CombiningPayload> matchCombiningPayload(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1)
    return std::nullopt;
  BlockArgument out = op.getRegionOutputArgs().front();
  Operation *yield = op->getRegion(0).front().getTerminator();
  if (!out.hasOneUse() || yield->getNumOperands() != 1)
    return std::nullopt;
  Operation *combiner = *out.getUsers().begin();
  if (combiner->getNumOperands() != 2 || combiner->getNumResults() != 1 ||
      combiner->getNumRegions() != 0 || !combiner->getResult(0).hasOneUse() ||
      *combiner->getResult(0).getUsers().begin() != yield)
    return std::nullopt;
  std::optional<TypedAttr> neutral = arith::getNeutralElement(combiner);
  if (!neutral)
    return std::nullopt;
  return CombiningPayload{combiner, combiner->getOperand(0) == out ? 0u : 1u,
                          *neutral};
}

Value applyCombiner(OpBuilder &builder, const CombiningPayload &payload,
                    Value accumulator, Value value) {
  IRMapping mapping;
  Operation *combiner = payload.Combiner;
  mapping.map(combiner->getOperand(payload.AccumulatorOperand), accumulator);
  mapping.map(combiner->getOperand(1 - payload.AccumulatorOperand), value);
  return builder.clone(*combiner, mapping)->getResult(0);
}

FailureOr<SmallVector<Value>> gatheredTensors(linalg::LinalgOp op) {
  llvm::SetVector<Value> gathered;
  Region &payload = op->getRegion(0);
  WalkResult walk = payload.walk([&](Operation *inner) {
    if (auto extract = dyn_cast<tensor::ExtractOp>(inner);
        extract && !payload.isAncestor(extract.getTensor().getParentRegion())) {
      gathered.insert(extract.getTensor());
      return WalkResult::advance();
    }
    auto shaped = [](Type type) { return isa<ShapedType>(type); };
    return llvm::any_of(inner->getOperandTypes(), shaped) ||
                   llvm::any_of(inner->getResultTypes(), shaped)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return SmallVector<Value>(gathered.begin(), gathered.end());
}

bool hasScalarPayload(linalg::LinalgOp op) {
  FailureOr<SmallVector<Value>> gathered = gatheredTensors(op);
  return succeeded(gathered) && gathered->empty();
}

int64_t RowProgram::rows() const {
  int64_t n = 1;
  for (int64_t extent : ArrayRef<int64_t>(Loops).drop_back())
    n *= extent;
  return n;
}

SmallVector<AffineExpr>
composeIndices(AffineMap map, ArrayRef<AffineExpr> indices, unsigned numDims) {
  SmallVector<AffineExpr> result;
  for (AffineExpr e : map.getResults())
    result.push_back(
        simplifyAffineExpr(e.replaceDimsAndSymbols(indices, {}), numDims, 0));
  return result;
}

SmallVector<AffineExpr> reshapeSourceIndices(Operation *op,
                                             ArrayRef<AffineExpr> indices,
                                             unsigned numDims) {
  auto expand = dyn_cast<tensor::ExpandShapeOp>(op);
  auto collapse = dyn_cast<tensor::CollapseShapeOp>(op);
  // The expanded side's shape and, per collapsed dimension, its group.
  ArrayRef<int64_t> expanded = expand ? expand.getResultType().getShape()
                                      : collapse.getSrcType().getShape();
  SmallVector<ReassociationIndices> groups =
      expand ? expand.getReassociationIndices()
             : collapse.getReassociationIndices();
  MLIRContext *ctx = op->getContext();
  SmallVector<AffineExpr> result;
  for (auto [collapsedDim, group] : llvm::enumerate(groups)) {
    // Row-major strides within the group.
    SmallVector<int64_t> strides(group.size(), 1);
    for (int i = static_cast<int>(group.size()) - 2; i >= 0; --i)
      strides[i] = strides[i + 1] * expanded[group[i + 1]];
    if (expand) {
      // One source index from the group's expanded indices.
      AffineExpr linear = getAffineConstantExpr(0, ctx);
      for (auto [i, dim] : llvm::enumerate(group))
        linear = linear + indices[dim] * strides[i];
      result.push_back(simplifyAffineExpr(linear, numDims, 0));
      continue;
    }
    // The group's source indices from one collapsed index.
    AffineExpr linear = indices[collapsedDim];
    for (auto [i, dim] : llvm::enumerate(group)) {
      AffineExpr e = linear.floorDiv(strides[i]);
      if (i != 0)
        e = e % expanded[dim];
      result.push_back(simplifyAffineExpr(e, numDims, 0));
    }
  }
  return result;
}

SmallVector<AffineExpr> inlineReductionLoops(linalg::LinalgOp op,
                                             ArrayRef<AffineExpr> indices,
                                             AffineExpr reduced) {
  SmallVector<AffineExpr> loops(op.getNumLoops(), reduced);
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  for (auto [i, e] : llvm::enumerate(out.getResults()))
    loops[cast<AffineDimExpr>(e).getPosition()] = indices[i];
  return loops;
}

SmallVector<AffineExpr> reductionLoops(const RowReduction &r) {
  return inlineReductionLoops(r.Op, r.ResultIndices,
                              getAffineDimExpr(r.Dim, r.Op->getContext()));
}

namespace {

// Reading the same tensors again for each of their readers multiplies the
// work; a program that needs more visits than this is not taken.
constexpr int64_t kMaxVisits = 4096;

class Analysis {
public:
  Analysis(RowProgram &program, function_ref<bool(Value)> isLeaf)
      : P(program), IsLeaf(isLeaf) {}

  LogicalResult visit(Value tensor, ArrayRef<AffineExpr> indices);

private:
  LogicalResult visitReduction(linalg::LinalgOp op,
                               ArrayRef<AffineExpr> indices);
  LogicalResult visitInlineReduction(linalg::LinalgOp op,
                                     ArrayRef<AffineExpr> indices);
  LogicalResult visitOperands(linalg::LinalgOp op, ArrayRef<AffineExpr> loops);
  unsigned numDims() const { return P.Loops.size() + Started; }

  RowProgram &P;
  function_ref<bool(Value)> IsLeaf;
  // Reductions reached (P.Reductions holds those done).
  llvm::SmallPtrSet<Operation *, 4> Reached;
  unsigned Started = 0;
  int64_t Visits = 0;
};

// An elementwise op whose loops are its result's dimensions, or one with a
// single reduction loop and a combining payload; either computes on scalars.
bool isRowOp(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op->getNumResults() != 1 ||
      op.getNumDpsInits() != 1 || op.hasDynamicShape() ||
      op.getNumReductionLoops() > 1)
    return false;
  if (failed(gatheredTensors(op)))
    return false;
  for (OpOperand *input : op.getDpsInputOperands())
    if (!op.getMatchingIndexingMap(input).isProjectedPermutation(
            /*allowZeroInResults=*/true))
      return false;
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (op.getNumReductionLoops() == 0)
    return out.isIdentity() &&
           !op.payloadUsesValueFromOperand(op.getDpsInitOperand(0));
  return out.isProjectedPermutation() &&
         out.getNumResults() == op.getNumParallelLoops() &&
         matchCombiningPayload(op).has_value();
}

LogicalResult Analysis::visitOperands(linalg::LinalgOp op,
                                      ArrayRef<AffineExpr> loops) {
  for (OpOperand *operand : op.getOpOperandsMatchingBBargs()) {
    if (!isa<ShapedType>(operand->get().getType()) ||
        !op.payloadUsesValueFromOperand(operand) || op.isDpsInit(operand))
      continue;
    if (failed(visit(operand->get(),
                     composeIndices(op.getMatchingIndexingMap(operand), loops,
                                    numDims()))))
      return failure();
  }
  return success();
}

LogicalResult Analysis::visitInlineReduction(linalg::LinalgOp op,
                                             ArrayRef<AffineExpr> indices) {
  unsigned reduced = 0;
  for (auto [i, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
    if (iterator == utils::IteratorType::reduction)
      reduced = i;
  if (op.getStaticLoopRanges()[reduced] > kMaxInlineExtent)
    return failure();
  P.InlineReductions.insert(op);
  // Its inputs are read at each element of the reduced loop; their
  // structure is the same at each, so one visit (at 0) checks it. A row
  // reduction below would be read at as many places: none may be.
  size_t reductions = Reached.size();
  if (failed(visit(op.getDpsInitOperand(0)->get(), indices)) ||
      failed(visitOperands(
          op, inlineReductionLoops(
                  op, indices, getAffineConstantExpr(0, op->getContext())))))
    return failure();
  return success(Reached.size() == reductions);
}

LogicalResult Analysis::visitReduction(linalg::LinalgOp op,
                                       ArrayRef<AffineExpr> indices) {
  // One value per row: the result is read at row dims only, unless it is
  // short enough to compute for each element read.
  unsigned row = P.Loops.size() - 1;
  for (AffineExpr e : indices)
    for (unsigned d = row; d < numDims(); ++d)
      if (e.isFunctionOfDim(d))
        return Reached.contains(op) ? failure()
                                    : visitInlineReduction(op, indices);
  if (P.InlineReductions.contains(op))
    return failure();
  if (!Reached.insert(op).second) {
    for (const RowReduction &r : P.Reductions)
      if (r.Op == op)
        return success(llvm::equal(r.ResultIndices, indices));
    return failure(); // read by its own inputs: not SSA, never happens
  }
  RowReduction r;
  r.Op = op;
  r.Payload = *matchCombiningPayload(op);
  r.ResultIndices.assign(indices.begin(), indices.end());
  for (auto [i, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
    if (iterator == utils::IteratorType::reduction)
      r.ReducedLoop = i;
  r.Extent = op.getStaticLoopRanges()[r.ReducedLoop];
  r.Dim = P.Loops.size() + Started++;
  // Its accumulator's initial value is read at its result indices.
  if (failed(visit(op.getDpsInitOperand(0)->get(), indices)) ||
      failed(visitOperands(op, reductionLoops(r))))
    return failure();
  P.Reductions.push_back(std::move(r));
  return success();
}

LogicalResult Analysis::visit(Value tensor, ArrayRef<AffineExpr> indices) {
  if (++Visits > kMaxVisits)
    return failure();
  Operation *def = tensor.getDefiningOp();
  if (auto fill = dyn_cast_if_present<linalg::FillOp>(def))
    return success(!isa<ShapedType>(fill.getInputs()[0].getType()));
  if (IsLeaf(tensor))
    return success();
  if (!def || !cast<ShapedType>(tensor.getType()).hasStaticShape())
    return failure();
  if (isReshapeOp(def)) {
    P.Ops.insert(def);
    return visit(def->getOperand(0),
                 reshapeSourceIndices(def, indices, numDims()));
  }
  auto op = dyn_cast<linalg::LinalgOp>(def);
  if (!op || !isRowOp(op))
    return failure();
  // A gather reads its table whole: a leaf (a binding), never a tensor the
  // program computes.
  SmallVector<Value> tables = *gatheredTensors(op);
  if (!llvm::all_of(tables, IsLeaf))
    return failure();
  P.Ops.insert(def);
  if (op.getNumReductionLoops() == 1)
    return visitReduction(op, indices);
  return visitOperands(op, indices);
}

} // namespace

FailureOr<RowProgram> analyzeRowProgram(linalg::LinalgOp sink,
                                        function_ref<bool(Value)> isLeaf) {
  if (!isRowOp(sink) || sink.getNumReductionLoops() != 0 ||
      sink.getNumLoops() == 0)
    return failure();
  SmallVector<Value> tables = *gatheredTensors(sink);
  if (!llvm::all_of(tables, isLeaf))
    return failure();
  RowProgram p;
  p.Sink = sink;
  p.Loops = sink.getStaticLoopRanges();
  if (llvm::any_of(p.Loops, [](int64_t n) { return n <= 0; }))
    return failure();
  p.Ops.insert(sink);
  Analysis analysis(p, isLeaf);
  SmallVector<AffineExpr> loops;
  for (unsigned d = 0; d < p.Loops.size(); ++d)
    loops.push_back(getAffineDimExpr(d, sink->getContext()));
  // The sink's own operands, as visit would follow them.
  for (OpOperand *operand : sink.getDpsInputOperands()) {
    if (!isa<ShapedType>(operand->get().getType()) ||
        !sink.payloadUsesValueFromOperand(operand))
      continue;
    if (failed(analysis.visit(
            operand->get(), composeIndices(sink.getMatchingIndexingMap(operand),
                                           loops, p.Loops.size()))))
      return failure();
  }
  return p;
}

} // namespace kiln
