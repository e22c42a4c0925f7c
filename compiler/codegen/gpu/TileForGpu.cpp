//===- TileForGpu.cpp - Workgroup and thread tiles of a dispatch ----------===//

#include "compiler/Passes.h"
#include "compiler/codegen/common/Tiling.h"
#include "compiler/codegen/gpu/GpuCodegen.h"
#include "compiler/dispatch/DispatchRegions.h"

namespace kiln {
#define GEN_PASS_DEF_GPUTILE
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

// One mapping attribute per loop, `linear_dim_i`, so each loop dimension
// keeps its own id; mapped loops are also never folded away by
// canonicalization, so thread loops cannot be mistaken for workgroup loops.
template <typename MappingAttr>
FailureOr<SmallVector<Attribute>> linearMapping(MLIRContext *ctx, size_t rank) {
  constexpr size_t kLinearDims = 10; // gpu::MappingId::LinearDim0..9
  if (rank > kLinearDims)
    return failure();
  SmallVector<Attribute> mapping;
  for (size_t i = 0; i < rank; ++i)
    mapping.push_back(MappingAttr::get(
        ctx, static_cast<gpu::MappingId>(
                 static_cast<uint64_t>(gpu::MappingId::LinearDim0) + i)));
  return mapping;
}

// The iteration domain of `op` as static extents; fails if one is dynamic.
FailureOr<SmallVector<int64_t>> staticLoopRanges(TilingInterface op) {
  OpBuilder builder(op);
  SmallVector<int64_t> ranges;
  for (Range range : op.getIterationDomain(builder)) {
    std::optional<int64_t> lb = getConstantIntValue(range.offset);
    std::optional<int64_t> ub = getConstantIntValue(range.size);
    std::optional<int64_t> step = getConstantIntValue(range.stride);
    if (!lb || !ub || !step || *step != 1)
      return failure();
    ranges.push_back(*ub - *lb);
  }
  return ranges;
}

} // namespace

SmallVector<int64_t> chooseGpuWorkgroupTile(ArrayRef<int64_t> ranges) {
  SmallVector<int64_t> sizes(ranges.size(), 1);
  int64_t remaining = kGpuWorkgroupThreads * kGpuElementsPerThread;
  for (size_t i = ranges.size(); i-- > 0;) {
    sizes[i] = std::min(ranges[i], remaining);
    remaining /= sizes[i];
  }
  return sizes;
}

LogicalResult tileForGpu(func::FuncOp func,
                         const FrozenRewritePatternSet &dims) {
  SmallVector<bufferization::MaterializeInDestinationOp> stores;
  func.walk([&](bufferization::MaterializeInDestinationOp op) {
    stores.push_back(op);
  });
  // No store: every output is empty. Several results, or a store of
  // something that is not tileable (an input copied through), are left
  // untiled and run by one thread: slow, never wrong.
  auto root = stores.size() != 1
                  ? TilingInterface()
                  : stores.front().getSource().getDefiningOp<TilingInterface>();
  if (!root)
    return success();
  FailureOr<SmallVector<int64_t>> rangesOr = staticLoopRanges(root);
  if (failed(rangesOr))
    return root->emitError("dynamic loop ranges are not supported");
  SmallVector<int64_t> ranges = *rangesOr;
  // Only parallel loops are divided among workgroups and threads; each
  // thread runs the reduction loops of its outputs.
  SmallVector<utils::IteratorType> iterators = root.getLoopIteratorTypes();
  SmallVector<int64_t> parallelRanges;
  for (auto [range, iterator] : llvm::zip(ranges, iterators))
    if (iterator == utils::IteratorType::parallel)
      parallelRanges.push_back(range);
  // Nothing to divide among threads: one thread runs the (empty) loops.
  if (parallelRanges.empty() || llvm::is_contained(ranges, 0))
    return success();
  MLIRContext *ctx = func.getContext();
  auto blocks =
      linearMapping<gpu::GPUBlockMappingAttr>(ctx, parallelRanges.size());
  auto threads =
      linearMapping<gpu::GPUThreadMappingAttr>(ctx, parallelRanges.size());
  if (failed(blocks) || failed(threads))
    return root->emitError(
               "the cuda target handles at most 10 parallel loops, not ")
           << parallelRanges.size();
  // Tile sizes over all loops: reduction loops stay whole (0).
  auto overAllLoops = [&](ArrayRef<int64_t> parallelSizes) {
    SmallVector<int64_t> sizes;
    auto next = parallelSizes.begin();
    for (utils::IteratorType iterator : iterators)
      sizes.push_back(iterator == utils::IteratorType::parallel ? *next++ : 0);
    return sizes;
  };

  // Tiled ops are tracked by pointer from one level to the next, so nothing
  // folds in between; dead originals are erased instead.
  IRRewriter rewriter(ctx);
  FailureOr<Operation *> workgroupTile = tileOp(
      rewriter, root, overAllLoops(chooseGpuWorkgroupTile(parallelRanges)),
      scf::SCFTilingOptions::LoopType::ForallOp,
      /*fuse=*/true, *blocks);
  if (failed(workgroupTile))
    return root->emitError("failed to tile to workgroups");
  if (failed(resolveDims(func, dims)))
    return failure();
  eraseDeadOps(func);

  SmallVector<int64_t> ones(parallelRanges.size(), 1);
  if (failed(tileOp(rewriter, cast<TilingInterface>(*workgroupTile),
                    overAllLoops(ones),
                    scf::SCFTilingOptions::LoopType::ForallOp,
                    /*fuse=*/true, *threads)))
    return (*workgroupTile)->emitError("failed to tile to threads");
  if (failed(resolveDims(func, dims)))
    return failure();
  eraseDeadOps(func);
  return success();
}

namespace {

struct GpuTilePass : impl::GpuTileBase<GpuTilePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (!isDispatchFunc(func))
      return;
    if (failed(rewritePadsAsGathers(func)) ||
        failed(rewriteConcatsAsGathers(func)) || failed(tileForGpu(func, Dims)))
      return signalPassFailure();
  }

  LogicalResult initialize(MLIRContext *ctx) override {
    Dims = buildDimPatterns(ctx);
    return success();
  }

private:
  FrozenRewritePatternSet Dims;
};

} // namespace
} // namespace kiln
