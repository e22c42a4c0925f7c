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

// Ops binding form, init materialization and dispatch formation bring into
// a dispatch besides its linalg ops.
bool isBindingOrProducerOp(Operation *op) {
  return isa<arith::ConstantOp, tensor::EmptyOp, tensor::ExpandShapeOp,
             tensor::CollapseShapeOp, bufferization::ToTensorOp,
             bufferization::MaterializeInDestinationOp, func::ReturnOp>(op);
}

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

} // namespace

LogicalResult checkGpuSupport(func::FuncOp func) {
  for (Operation &op : func.getBody().getOps()) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (linalgOp && linalgOp.getNumReductionLoops() == 0)
      continue;
    if (!linalgOp && isBindingOrProducerOp(&op))
      continue;
    return op.emitError("'")
           << op.getName()
           << "' is not supported by the cuda target yet: it compiles "
              "elementwise dispatches only (linalg ops whose loops are all "
              "parallel)";
  }
  return success();
}

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
  // something else than a linalg op (an input copied through), are left
  // untiled and run by one thread: slow, never wrong.
  auto root =
      stores.size() != 1
          ? linalg::LinalgOp()
          : stores.front().getSource().getDefiningOp<linalg::LinalgOp>();
  if (!root)
    return success();
  SmallVector<int64_t> ranges = root.getStaticLoopRanges();
  // Nothing to divide among threads: one thread runs the (empty) loops.
  if (ranges.empty() || llvm::is_contained(ranges, 0))
    return success();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return root.emitError("dynamic loop ranges are not supported");
  MLIRContext *ctx = func.getContext();
  auto blocks = linearMapping<gpu::GPUBlockMappingAttr>(ctx, ranges.size());
  auto threads = linearMapping<gpu::GPUThreadMappingAttr>(ctx, ranges.size());
  if (failed(blocks) || failed(threads))
    return root.emitError("the cuda target handles at most 10 loops, not ")
           << ranges.size();

  // Tiled ops are tracked by pointer from one level to the next, so nothing
  // folds in between; dead originals are erased instead.
  IRRewriter rewriter(ctx);
  FailureOr<Operation *> workgroupTile = tileOp(
      rewriter, cast<TilingInterface>(root.getOperation()),
      chooseGpuWorkgroupTile(ranges), scf::SCFTilingOptions::LoopType::ForallOp,
      /*fuse=*/true, *blocks);
  if (failed(workgroupTile))
    return root.emitError("failed to tile to workgroups");
  if (failed(resolveDims(func, dims)))
    return failure();
  eraseDeadOps(func);

  SmallVector<int64_t> ones(ranges.size(), 1);
  if (failed(tileOp(rewriter, cast<TilingInterface>(*workgroupTile), ones,
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
    if (failed(checkGpuSupport(func)) || failed(tileForGpu(func, Dims)))
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
