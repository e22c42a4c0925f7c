//===- SliceProducers.cpp - Compute only what a slice keeps ---------------===//
//
// A model that keeps part of a tensor (a ViT's class token, x[:, 0], read
// by its head) would otherwise compute all of it: the last layer's
// projections, MLP and normalizations over every token, to use one. Each
// linalg op whose every use is the same static slice of its result is
// replaced by the op computing that slice (TilingInterface's result tile:
// its inputs sliced to what the tile reads, reductions whole), and so on
// up through its producers, reshapes and fills, until a value is read
// whole or sliced differently by someone (the keys and values every query
// of the last layer's attention reads), where the slice then stays.
//
//===----------------------------------------------------------------------===//

#include "compiler/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_SLICEPRODUCERS
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

bool isStaticUnitStrideSlice(tensor::ExtractSliceOp slice) {
  return slice.getSourceType().hasStaticShape() &&
         ShapedType::isStaticShape(slice.getStaticOffsets()) &&
         ShapedType::isStaticShape(slice.getStaticSizes()) &&
         llvm::all_of(slice.getStaticStrides(),
                      [](int64_t s) { return s == 1; });
}

bool sameSlice(tensor::ExtractSliceOp a, tensor::ExtractSliceOp b) {
  return a.getStaticOffsets() == b.getStaticOffsets() &&
         a.getStaticSizes() == b.getStaticSizes() && a.getType() == b.getType();
}

struct SliceLinalgProducer : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractSliceOp slice,
                                PatternRewriter &rewriter) const override {
    auto producer = slice.getSource().getDefiningOp<linalg::LinalgOp>();
    if (!producer || producer->getNumResults() != 1 ||
        !producer.hasPureTensorSemantics() ||
        !isa<TilingInterface>(producer.getOperation()))
      return rewriter.notifyMatchFailure(slice, "not a one-result linalg op");
    if (!isStaticUnitStrideSlice(slice) ||
        slice.getSourceType().getShape() == slice.getStaticSizes())
      return rewriter.notifyMatchFailure(slice, "not a static strict slice");
    // Every reader takes this very slice: the op is then needed for it
    // alone, and computing the slice does not duplicate work.
    for (Operation *user : producer->getUsers()) {
      auto other = dyn_cast<tensor::ExtractSliceOp>(user);
      if (!other || !sameSlice(slice, other))
        return rewriter.notifyMatchFailure(slice, "the result is read whole");
    }
    // The output's map must be a projected permutation for the result
    // tile to be an iteration tile (linalg's result tiles assume it).
    if (!producer.getIndexingMapMatchingResult(producer->getResult(0))
             .isProjectedPermutation())
      return rewriter.notifyMatchFailure(slice, "output map not a permutation");
    // Right after the producer, so the tile serves every reader's slice
    // (identical ones, which would otherwise each get a tile of their
    // own: a normalization reads its input twice).
    rewriter.setInsertionPointAfter(producer);
    FailureOr<TilingResult> tiled =
        tensor::replaceExtractSliceWithTiledProducer(
            rewriter, slice, cast<OpResult>(slice.getSource()));
    if (failed(tiled) || tiled->tiledValues.size() != 1)
      return rewriter.notifyMatchFailure(slice, "no result tile");
    // A rank-reducing slice leaves a slice of the whole tile, which
    // CollapseUnitSlice turns into a collapse.
    Value result = tiled->tiledValues.front();
    for (Operation *user : llvm::to_vector(producer->getUsers()))
      rewriter.replaceOp(user, result);
    return success();
  }
};

// A rank-reducing slice of a whole tensor drops unit dimensions: a
// collapse, which dispatch formation and the reshape patterns know.
struct CollapseUnitSlice : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractSliceOp slice,
                                PatternRewriter &rewriter) const override {
    RankedTensorType source = slice.getSourceType();
    if (!isStaticUnitStrideSlice(slice) ||
        slice.getType().getRank() == source.getRank() ||
        source.getShape() != slice.getStaticSizes() ||
        llvm::any_of(slice.getStaticOffsets(),
                     [](int64_t o) { return o != 0; }))
      return rewriter.notifyMatchFailure(slice, "not a whole unit slice");
    std::optional<SmallVector<ReassociationIndices>> groups =
        getReassociationIndicesForCollapse(source.getShape(),
                                           slice.getType().getShape());
    if (!groups)
      return rewriter.notifyMatchFailure(slice, "no collapse");
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
        slice, slice.getType(), slice.getSource(), *groups);
    return success();
  }
};

struct SliceProducersPass : impl::SliceProducersBase<SliceProducersPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<SliceLinalgProducer, CollapseUnitSlice>(&getContext());
    // Through reshapes (the heads' expand and collapse), fills and
    // consecutive slices.
    tensor::populateBubbleUpExtractSliceOpPatterns(patterns);
    tensor::populateMergeConsecutiveInsertExtractSlicePatterns(patterns);
    linalg::populateSwapExtractSliceWithFillPatterns(patterns);
    tensor::ExtractSliceOp::getCanonicalizationPatterns(patterns,
                                                        &getContext());
    tensor::populateFoldTensorEmptyPatterns(patterns);
    // A slice waits at an op until every other reader of it has become
    // the same slice, which a later sweep sees: a transformer layer has a
    // few such joins (its residual stream, a normalization's input), each
    // a sweep. The patterns only shrink ops, so they stop.
    GreedyRewriteConfig config;
    config.setMaxIterations(GreedyRewriteConfig::kNoLimit);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config))) {
      getOperation().emitError("slicing producers did not converge");
      return signalPassFailure();
    }
  }
};

} // namespace
} // namespace kiln
