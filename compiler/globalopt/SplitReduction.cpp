//===- SplitReduction.cpp - Split K of contractions with few output tiles -===//
//
// out = init + sum over k of A * B becomes
//
//   partial[s, ...] = 0 + sum over k' of A'[.., s, k', ..] * B'[.., s, k', ..]
//   out[...] = init + partial[0, ...] + ... + partial[S - 1, ...]
//
// where k = s * (K / S) + k' is the input-channel loop and A', B' are A and
// B with that dimension expanded into (S, K / S): a reshape, so the partial
// product is a contraction with S as a batch dimension that the GPU's GEMM
// kernels take as they are, S times as many workgroups over a reduction S
// times shorter. The sum over s is an ordinary reduction whose accumulator
// is the original one (a bias broadcast, say) and whose elementwise
// consumers still fuse into its dispatch.
//
//===----------------------------------------------------------------------===//

#include "compiler/Passes.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "llvm/Support/MathExtras.h"

namespace kiln {
#define GEN_PASS_DEF_SPLITREDUCTION
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

// The output tile edge the S count aims at: the smallest tile the GPU's
// GEMM kernels use when a problem is too small to fill the chip.
constexpr int64_t kTileEdge = 32;

struct SplitPlan {
  unsigned Loop;  // the reduction loop split (an input-channel loop)
  int64_t Splits; // S
};

// The result position of `map` that is loop `d` by itself, if any.
std::optional<unsigned> plainResult(AffineMap map, unsigned d) {
  for (auto [i, e] : llvm::enumerate(map.getResults()))
    if (auto dim = dyn_cast<AffineDimExpr>(e); dim && dim.getPosition() == d)
      return i;
  return std::nullopt;
}

// Whether the payload is `yield out + f(a, b)` with the accumulator read by
// that add alone, so partial sums from zero add up to the result.
bool accumulatesByAdd(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  Value yielded = body->getTerminator()->getOperand(0);
  Operation *add = yielded.getDefiningOp();
  if (!add || !isa<arith::AddFOp, arith::AddIOp>(add))
    return false;
  BlockArgument out = body->getArgument(op.getNumDpsInputs());
  return out.hasOneUse() && out.getUses().begin()->getOwner() == add;
}

std::optional<SplitPlan> planSplit(linalg::LinalgOp op, int64_t targetTiles,
                                   int64_t minSplitSize) {
  if (!linalg::isaContractionOpInterface(op) &&
      !linalg::isaConvolutionOpInterface(op))
    return std::nullopt;
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !op.hasPureTensorSemantics() || op.hasDynamicShape() ||
      op->getNumResults() != 1 || !accumulatesByAdd(op))
    return std::nullopt;
  Type element = getElementTypeOrSelf(op->getResult(0).getType());
  if (!element.isIntOrFloat())
    return std::nullopt;
  AffineMap a = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap b = op.getMatchingIndexingMap(op.getDpsInputOperand(1));
  AffineMap c = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!b.isProjectedPermutation() || !c.isProjectedPermutation())
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  int64_t batch = 1, m = 1, n = 1, k = 1;
  std::optional<unsigned> channel;
  for (unsigned d = 0; d < ranges.size(); ++d) {
    bool inA = a.isFunctionOfDim(d), inB = b.isFunctionOfDim(d);
    if (iterators[d] == utils::IteratorType::reduction) {
      k *= ranges[d];
      // The widest loop that A and B both index by itself.
      if (plainResult(a, d) && plainResult(b, d) &&
          (!channel || ranges[d] > ranges[*channel]))
        channel = d;
    } else if (inA && inB) {
      batch *= ranges[d];
    } else if (inA) {
      m *= ranges[d];
    } else if (inB) {
      n *= ranges[d];
    }
  }
  if (!channel)
    return std::nullopt;
  int64_t tiles =
      batch * llvm::divideCeil(m, kTileEdge) * llvm::divideCeil(n, kTileEdge);
  // Half-precision operands go to the tensor-core kernel, which takes
  // reductions in steps of 32: each part keeps a whole number of them.
  Type operand = getElementTypeOrSelf(op.getDpsInputOperand(0)->get());
  int64_t stepMultiple = operand.isF16() || operand.isBF16() ? 32 : 1;
  int64_t splits = 1;
  while (tiles * splits * 2 <= targetTiles &&
         ranges[*channel] % (splits * 2) == 0 &&
         k / (splits * 2) >= minSplitSize &&
         (k / (splits * 2)) % stepMultiple == 0)
    splits *= 2;
  if (splits == 1)
    return std::nullopt;
  return SplitPlan{*channel, splits};
}

// `operand` with its dimension that loop `loop` indexes (result `pos` of
// `map`) expanded into (splits, size / splits), and the map that reads it
// with the split loop `part` first: (..., part, loop, ...).
std::pair<Value, AffineMap> expandOperand(RewriterBase &rewriter, Location loc,
                                          Value operand, AffineMap map,
                                          unsigned loop, unsigned part,
                                          int64_t splits) {
  unsigned pos = *plainResult(map, loop);
  auto type = cast<RankedTensorType>(operand.getType());
  SmallVector<int64_t> shape;
  SmallVector<ReassociationIndices> groups;
  SmallVector<AffineExpr> results;
  for (unsigned i = 0; i < type.getRank(); ++i) {
    if (i == pos) {
      groups.push_back({static_cast<int64_t>(shape.size()),
                        static_cast<int64_t>(shape.size()) + 1});
      shape.push_back(splits);
      shape.push_back(type.getDimSize(i) / splits);
      results.push_back(rewriter.getAffineDimExpr(part));
      results.push_back(rewriter.getAffineDimExpr(loop));
      continue;
    }
    groups.push_back({static_cast<int64_t>(shape.size())});
    shape.push_back(type.getDimSize(i));
    results.push_back(map.getResult(i));
  }
  Value expanded = tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get(shape, type.getElementType()),
      operand, groups);
  return {expanded,
          AffineMap::get(part + 1, 0, results, rewriter.getContext())};
}

void splitReduction(RewriterBase &rewriter, linalg::LinalgOp op,
                    const SplitPlan &plan) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  unsigned loops = op.getNumLoops();
  unsigned part = loops; // the new loop: which part of the reduction
  auto [lhs, lhsMap] =
      expandOperand(rewriter, loc, op.getDpsInputOperand(0)->get(),
                    op.getMatchingIndexingMap(op.getDpsInputOperand(0)),
                    plan.Loop, part, plan.Splits);
  auto [rhs, rhsMap] =
      expandOperand(rewriter, loc, op.getDpsInputOperand(1)->get(),
                    op.getMatchingIndexingMap(op.getDpsInputOperand(1)),
                    plan.Loop, part, plan.Splits);
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  SmallVector<AffineExpr> partialResults = {rewriter.getAffineDimExpr(part)};
  llvm::append_range(partialResults, outMap.getResults());
  AffineMap partialMap =
      AffineMap::get(loops + 1, 0, partialResults, rewriter.getContext());

  // The partial sums, from zero.
  Value init = op.getDpsInitOperand(0)->get();
  auto outType = cast<RankedTensorType>(init.getType());
  Type element = outType.getElementType();
  SmallVector<int64_t> partialShape = {plan.Splits};
  llvm::append_range(partialShape, outType.getShape());
  Value empty = tensor::EmptyOp::create(rewriter, loc, partialShape, element);
  Value zero = arith::ConstantOp::create(rewriter, loc, element,
                                         rewriter.getZeroAttr(element));
  Value zeros = linalg::FillOp::create(rewriter, loc, zero, empty).result();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  iterators.push_back(utils::IteratorType::parallel);
  auto partial = linalg::GenericOp::create(
      rewriter, loc, zeros.getType(), ValueRange{lhs, rhs}, zeros,
      ArrayRef<AffineMap>{lhsMap, rhsMap, partialMap}, iterators);
  rewriter.cloneRegionBefore(op->getRegion(0), partial.getRegion(),
                             partial.getRegion().end());

  // init + partial[0] + ... + partial[S - 1], in that order.
  int64_t rank = outType.getRank();
  // Loops (output dims..., s): the partial is read at (s, output dims...),
  // the accumulator at (output dims...).
  SmallVector<AffineExpr> readPartial = {rewriter.getAffineDimExpr(rank)};
  for (int64_t i = 0; i < rank; ++i)
    readPartial.push_back(rewriter.getAffineDimExpr(i));
  SmallVector<utils::IteratorType> sumIterators(rank,
                                                utils::IteratorType::parallel);
  sumIterators.push_back(utils::IteratorType::reduction);
  auto sum = linalg::GenericOp::create(
      rewriter, loc, outType, partial.getResult(0), init,
      ArrayRef<AffineMap>{
          AffineMap::get(rank + 1, 0, readPartial, rewriter.getContext()),
          AffineMap::get(rank + 1, 0,
                         ArrayRef<AffineExpr>(readPartial).drop_front(),
                         rewriter.getContext())},
      sumIterators, [&](OpBuilder &b, Location l, ValueRange args) {
        Value total =
            isa<FloatType>(element)
                ? Value(arith::AddFOp::create(b, l, args[1], args[0]))
                : Value(arith::AddIOp::create(b, l, args[1], args[0]));
        linalg::YieldOp::create(b, l, total);
      });
  rewriter.replaceOp(op, sum.getResults());
}

struct SplitReductionPass : impl::SplitReductionBase<SplitReductionPass> {
  using SplitReductionBase::SplitReductionBase;
  void runOnOperation() override {
    SmallVector<std::pair<linalg::LinalgOp, SplitPlan>> splits;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (std::optional<SplitPlan> plan =
              planSplit(op, targetTiles, minSplitSize))
        splits.push_back({op, *plan});
    });
    IRRewriter rewriter(&getContext());
    for (auto &[op, plan] : splits)
      splitReduction(rewriter, op, plan);
  }
};

} // namespace
} // namespace kiln
