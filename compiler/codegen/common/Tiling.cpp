//===- Tiling.cpp - Tiling helpers every code generator uses --------------===//

#include "compiler/codegen/common/Tiling.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace kiln {

FrozenRewritePatternSet buildCleanupPatterns(MLIRContext *ctx) {
  RewritePatternSet patterns(ctx);
  for (Dialect *dialect : ctx->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : ctx->getRegisteredOperations())
    op.getCanonicalizationPatterns(patterns, ctx);
  return FrozenRewritePatternSet(std::move(patterns));
}

FrozenRewritePatternSet buildDimPatterns(MLIRContext *ctx) {
  RewritePatternSet patterns(ctx);
  memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
  return FrozenRewritePatternSet(std::move(patterns));
}

void eraseDeadOps(func::FuncOp func) {
  bool changed = true;
  while (changed) {
    changed = false;
    func.walk<WalkOrder::PostOrder>([&](Operation *op) {
      if (op != func.getOperation() && isOpTriviallyDead(op)) {
        op->erase();
        changed = true;
      }
    });
  }
}

LogicalResult resolveDims(func::FuncOp func,
                          const FrozenRewritePatternSet &dims) {
  GreedyRewriteConfig config;
  config.enableFolding(false)
      .enableConstantCSE(false)
      .setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
  return applyPatternsGreedily(func, dims, config);
}

FailureOr<Operation *> tileOp(RewriterBase &rewriter, TilingInterface op,
                              ArrayRef<int64_t> sizes,
                              scf::SCFTilingOptions::LoopType loopType,
                              bool fuse, ArrayRef<Attribute> mapping,
                              bool yieldStoredProducers) {
  if (llvm::all_of(sizes, [](int64_t s) { return s == 0; }))
    return op.getOperation();
  scf::SCFTilingOptions tiling;
  tiling.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), sizes));
  tiling.setLoopType(loopType);
  tiling.setMapping(mapping);
  rewriter.setInsertionPoint(op);
  if (!fuse) {
    FailureOr<scf::SCFTilingResult> result =
        scf::tileUsingSCF(rewriter, op, tiling);
    if (failed(result))
      return failure();
    rewriter.replaceOp(op, result->replacements);
    return result->tiledOps.front();
  }
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tiling);
  if (yieldStoredProducers)
    options.setFusionControlFn(
        [](tensor::ExtractSliceOp, OpResult producer,
           bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
          // Any result of the producer: the slice being fused may read
          // another one (an i1 result widened for storing, say).
          bool stored = llvm::any_of(
              producer.getOwner()->getUsers(), [](Operation *user) {
                return isa<bufferization::MaterializeInDestinationOp,
                           tensor::ParallelInsertSliceOp>(user);
              });
          return scf::SCFTileAndFuseOptions::ControlFnResult{stored};
        });
  FailureOr<scf::SCFTileAndFuseResult> result =
      scf::tileConsumerAndFuseProducersUsingSCF(rewriter, op, options);
  if (failed(result))
    return failure();
  // The consumer's results, and those of producers yielded above.
  for (auto [original, replacement] : result->replacements)
    rewriter.replaceAllUsesWith(original, replacement);
  // The tiled consumer comes first, then the producers fused into it.
  return result->tiledAndFusedOps.front();
}

} // namespace kiln
