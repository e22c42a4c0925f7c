//===- TileForGpu.cpp - Workgroup and thread tiles of a dispatch ----------===//

#include "compiler/Passes.h"
#include "compiler/codegen/common/Tiling.h"
#include "compiler/codegen/gpu/GpuCodegen.h"
#include "compiler/codegen/gpu/LoweringConfig.h"
#include "compiler/dispatch/DispatchRegions.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

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

// The iteration domain of `op` as extents, ShapedType::kDynamic where one is
// known only per call (issue 19: a push constant's extent, from 0); fails
// for a step other than 1. The dims read for it are erased again: tiling
// makes its own.
FailureOr<SmallVector<int64_t>> loopRanges(TilingInterface op) {
  IRRewriter rewriter(op->getContext());
  rewriter.setInsertionPoint(op);
  Block *block = op->getBlock();
  llvm::SmallPtrSet<Operation *, 32> before;
  for (Operation &existing : *block)
    before.insert(&existing);
  SmallVector<int64_t> ranges;
  bool regular = true;
  for (Range range : op.getIterationDomain(rewriter)) {
    std::optional<int64_t> lb = getConstantIntValue(range.offset);
    std::optional<int64_t> ub = getConstantIntValue(range.size);
    std::optional<int64_t> step = getConstantIntValue(range.stride);
    if (!lb || step != 1 || (!ub && *lb != 0))
      regular = false;
    else
      ranges.push_back(ub ? *ub - *lb : ShapedType::kDynamic);
  }
  for (Operation &created : llvm::make_early_inc_range(llvm::reverse(*block)))
    if (!before.contains(&created) && created.use_empty())
      rewriter.eraseOp(&created);
  if (!regular)
    return failure();
  return ranges;
}

// Whether `op` can move vectors along its innermost loop: elementwise on
// static tensors with an arith/math payload, writing its result in order,
// and reading each operand along its innermost dimension or broadcast over
// it (never across it, which would be a strided gather).
bool isVectorizableElementwise(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumLoops() == 0 ||
      op.getNumParallelLoops() != op.getNumLoops() ||
      op->getNumResults() != 1 || op.hasDynamicShape() ||
      !op.getIndexingMapsArray().back().isIdentity())
    return false;
  for (Operation &inner : op->getRegion(0).front().without_terminator())
    if (!isa<arith::ArithDialect, math::MathDialect>(inner.getDialect()) ||
        inner.getNumRegions() != 0)
      return false;
  unsigned innermost = op.getNumLoops() - 1;
  for (OpOperand *operand : op.getDpsInputOperands()) {
    if (!isa<ShapedType>(operand->get().getType()))
      continue;
    AffineMap map = op.getMatchingIndexingMap(operand);
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/true))
      return false;
    for (auto [i, e] : llvm::enumerate(map.getResults()))
      if (e.isFunctionOfDim(innermost) && i + 1 != map.getNumResults())
        return false;
  }
  return true;
}

// Elements each thread of an elementwise dispatch loads, computes and
// stores at once: 16 bytes of the widest element when every op of the
// dispatch can move vectors and that many divide the innermost extent (so
// every thread's vector starts at a multiple of its length in every
// binding it reads or writes along that dimension); 1 otherwise.
int64_t chooseVectorWidth(func::FuncOp func, ArrayRef<int64_t> ranges) {
  constexpr int64_t kVectorBytes = 16;
  int64_t widest = 0;
  for (Operation &op : func.getBody().front()) {
    if (isa<bufferization::ToTensorOp,
            bufferization::MaterializeInDestinationOp, tensor::EmptyOp,
            arith::ConstantOp, func::ReturnOp>(op))
      continue;
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp || !isVectorizableElementwise(linalgOp))
      return 1;
    for (Value operand : linalgOp->getOperands()) {
      auto shaped = dyn_cast<ShapedType>(operand.getType());
      if (!shaped)
        continue;
      // i1 tensors are bytes in memory but bits in vectors: keep them scalar.
      Type element = shaped.getElementType();
      if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
        return 1;
      widest = std::max<int64_t>(widest, element.getIntOrFloatBitWidth() / 8);
    }
  }
  if (widest == 0 || kVectorBytes % widest != 0)
    return 1;
  int64_t width = kVectorBytes / widest;
  return width > 1 && !ShapedType::isDynamic(ranges.back()) &&
                 ranges.back() % width == 0
             ? width
             : 1;
}

// A 0-d operand broadcast over a vectorized tile (a per-tensor scale) reads
// as a transfer of a 0-d tensor into a vector, which no lowering to LLVM
// takes (it left an unrealized cast in the kernel): read the element once and
// broadcast it instead.
struct ScalarBroadcastRead : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    auto source = dyn_cast<RankedTensorType>(read.getBase().getType());
    if (!source || source.getRank() != 0 || read.getMask())
      return failure();
    Value element =
        tensor::ExtractOp::create(rewriter, read.getLoc(), read.getBase());
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(read, read.getVectorType(),
                                                     element);
    return success();
  }
};

// Vectorizes the ops of every thread tile (static, one vector each), then
// drops the unit dimensions so the transfers are 1-D and become vector loads
// and stores.
LogicalResult vectorizeThreadTiles(func::FuncOp func) {
  SmallVector<linalg::LinalgOp> ops;
  func.walk([&](scf::ForallOp loop) {
    if (isGpuThreadLoop(loop))
      loop.walk([&](linalg::LinalgOp op) { ops.push_back(op); });
  });
  IRRewriter rewriter(func.getContext());
  for (linalg::LinalgOp op : ops) {
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::VectorizationResult> result =
        linalg::vectorize(rewriter, op);
    // An op left scalar is still right: a loop over its elements.
    if (succeeded(result))
      rewriter.replaceOp(op, result->replacements);
  }
  MLIRContext *ctx = func.getContext();
  RewritePatternSet patterns(ctx);
  vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
  patterns.add<ScalarBroadcastRead>(ctx);
  vector::TransferReadOp::getCanonicalizationPatterns(patterns, ctx);
  vector::TransferWriteOp::getCanonicalizationPatterns(patterns, ctx);
  return applyPatternsGreedily(func, std::move(patterns));
}

// Whether every tile of `producer` is computed for exactly one tile of
// its use in the dispatch: it is elementwise (all loops parallel, results
// in loop order) and the one linalg op reading it does so through a
// permutation of its own loops, so disjoint tiles of the reader need
// disjoint tiles of `producer` and those tiles may be stored as they are
// computed.
bool hasDisjointTiles(Operation *producer) {
  auto op = dyn_cast<linalg::LinalgOp>(producer);
  if (!op || !op.hasPureTensorSemantics() ||
      op.getNumParallelLoops() != op.getNumLoops() ||
      llvm::any_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
        return !op.getMatchingIndexingMap(&init).isIdentity();
      }))
    return false;
  // One reader: each reader's tiles would fuse their own copy.
  int readers = 0;
  for (OpOperand &use : producer->getUses()) {
    if (isa<bufferization::MaterializeInDestinationOp>(use.getOwner()))
      continue;
    auto reader = dyn_cast<linalg::LinalgOp>(use.getOwner());
    if (!reader || !reader.getMatchingIndexingMap(&use).isPermutation() ||
        ++readers > 1)
      return false;
  }
  return true;
}

// The op whose tiling computes what `stores` store. One store: its
// source's op. Several: one op with several results (an argmax's value and
// index), or the last stored op when every other stored op is fused into
// its tiles and has disjoint ones (an elementwise value returned and also
// consumed).
TilingInterface
findTileRoot(ArrayRef<bufferization::MaterializeInDestinationOp> stores) {
  if (stores.empty())
    return TilingInterface();
  SmallVector<Operation *> sources;
  for (bufferization::MaterializeInDestinationOp store : stores) {
    Operation *source = store.getSource().getDefiningOp();
    if (!source || !isa<TilingInterface>(source))
      return TilingInterface();
    sources.push_back(source);
  }
  Operation *root = sources.front();
  for (Operation *source : sources)
    if (root->isBeforeInBlock(source))
      root = source;
  if (llvm::any_of(sources, [&](Operation *source) {
        return source->getBlock() != root->getBlock();
      }))
    return TilingInterface();
  // The ops root's tiles fuse: its producers within the dispatch.
  llvm::SetVector<Operation *> fused;
  BackwardSliceOptions options;
  options.inclusive = false;
  options.filter = [&](Operation *op) {
    return op->getBlock() == root->getBlock();
  };
  if (failed(getBackwardSlice(root, &fused, options)))
    return TilingInterface();
  for (Operation *source : sources)
    if (source != root &&
        (!fused.contains(source) || !hasDisjointTiles(source)))
      return TilingInterface();
  return cast<TilingInterface>(root);
}

// Removes the shared outputs of scf.forall loops whose results nobody
// reads, outermost loop first: the tile then writes into a slice of the
// output's empty tensor itself, which bufferization makes a temporary of
// the tile's shape. A thread loop's output becomes unread once the
// workgroup loop no longer inserts its result. (Upstream's scf.forall
// canonicalization does this too, but only together with its other
// patterns, which would rewrite every tiled dispatch's loops.)
void dropUnreadTileResults(func::FuncOp func) {
  SmallVector<scf::ForallOp> loops;
  func.walk<WalkOrder::PreOrder>(
      [&](scf::ForallOp loop) { loops.push_back(loop); });
  IRRewriter rewriter(func.getContext());
  for (scf::ForallOp loop : loops) {
    BitVector unread(loop.getNumResults());
    BitVector unreadArgs(loop.getBody()->getNumArguments());
    SmallVector<Value> kept;
    for (OpResult result : loop.getResults()) {
      OpOperand *init = loop.getTiedOpOperand(result);
      if (!result.use_empty()) {
        kept.push_back(init->get());
        continue;
      }
      BlockArgument arg = loop.getTiedBlockArgument(init);
      for (Operation *insert : loop.getCombiningOps(arg))
        rewriter.eraseOp(insert);
      rewriter.replaceAllUsesWith(arg, init->get());
      unread.set(result.getResultNumber());
      unreadArgs.set(arg.getArgNumber());
    }
    if (unread.none())
      continue;
    loop.getBody()->eraseArguments(unreadArgs);
    auto trimmed = cast<scf::ForallOp>(rewriter.eraseOpResults(loop, unread));
    trimmed.getOutputsMutable().assign(kept);
  }
}

// A dispatch that only stores what it reads (an input reshaped, a phase's
// output passed through) has no op to tile and would run on one thread: a
// detector's 23,000 flags took 0.8 ms so. The value is stored through an
// elementwise copy instead, which tiles as any elementwise dispatch.
void copyThroughLoops(bufferization::MaterializeInDestinationOp store) {
  Value source = store.getSource();
  auto type = dyn_cast<RankedTensorType>(source.getType());
  if (!type || type.getRank() == 0)
    return;
  // Only a binding read as it is or reshaped: anything computed stays as
  // the tiling finds it.
  Value read = source;
  while (Operation *op = read.getDefiningOp()) {
    if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, tensor::CastOp>(
            op))
      break;
    read = op->getOperand(0);
  }
  if (!read.getDefiningOp<bufferization::ToTensorOp>())
    return;
  OpBuilder b(store);
  store.getSourceMutable().assign(elementwiseCopy(b, store.getLoc(), source));
}

} // namespace

SmallVector<int64_t> chooseGpuWorkgroupTile(ArrayRef<int64_t> ranges,
                                            int64_t elementsPerThread) {
  SmallVector<int64_t> sizes(ranges.size(), 1);
  int64_t remaining = kGpuWorkgroupThreads * elementsPerThread;
  for (size_t i = ranges.size(); i-- > 0;) {
    // A dynamic extent is taken as a long one: the last tile is partial
    // where it does not divide.
    sizes[i] = ShapedType::isDynamic(ranges[i])
                   ? remaining
                   : std::min(ranges[i], remaining);
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
  if (stores.size() == 1)
    copyThroughLoops(stores.front());
  // No store: every output is empty. Stores no one op's tiles cover, or a
  // store of something that is not tileable (an input copied through), are
  // left untiled and run by one thread: slow, never wrong.
  TilingInterface root = findTileRoot(stores);
  if (!root)
    return success();
  FailureOr<SmallVector<int64_t>> rangesOr = loopRanges(root);
  if (failed(rangesOr))
    return root->emitError("loops must start at 0 with step 1");
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
    return root->emitError("GPU kernels handle at most 10 parallel loops, not ")
           << parallelRanges.size();
  // Tile sizes over all loops: reduction loops stay whole (0).
  auto overAllLoops = [&](ArrayRef<int64_t> parallelSizes) {
    SmallVector<int64_t> sizes;
    auto next = parallelSizes.begin();
    for (utils::IteratorType iterator : iterators)
      sizes.push_back(iterator == utils::IteratorType::parallel ? *next++ : 0);
    return sizes;
  };

  // An elementwise dispatch's threads each take one vector of contiguous
  // elements (innermost loop), a workgroup 256 of them.
  int64_t vectorWidth = parallelRanges.size() == ranges.size()
                            ? chooseVectorWidth(func, ranges)
                            : 1;
  int64_t elementsPerThread = std::max(kGpuElementsPerThread, vectorWidth);
  // Outputs that each loop over a reduction, along a dynamic extent taken
  // as a long one: one output a thread, so four times the workgroups share
  // the work (a decoder step's scores over its cache were 8 workgroups,
  // each thread four 64-long dot products in turn).
  bool unrollReductions = parallelRanges.size() != ranges.size() &&
                          llvm::any_of(parallelRanges, ShapedType::isDynamic);
  if (unrollReductions)
    elementsPerThread = 1;

  // Tiled ops are tracked by pointer from one level to the next, so nothing
  // folds in between; dead originals are erased instead.
  IRRewriter rewriter(ctx);
  SmallVector<int64_t> workgroupSizes =
      chooseGpuWorkgroupTile(parallelRanges, elementsPerThread);
  FailureOr<Operation *> workgroupTile =
      tileOp(rewriter, root, overAllLoops(workgroupSizes),
             scf::SCFTilingOptions::LoopType::ForallOp,
             /*fuse=*/true, *blocks, /*yieldStoredProducers=*/true);
  if (failed(workgroupTile))
    return root->emitError("failed to tile to workgroups");
  if (failed(resolveDims(func, dims)))
    return failure();
  eraseDeadOps(func);

  SmallVector<int64_t> threadTile(parallelRanges.size(), 1);
  threadTile.back() = vectorWidth;
  if (failed(tileOp(rewriter, cast<TilingInterface>(*workgroupTile),
                    overAllLoops(threadTile),
                    scf::SCFTilingOptions::LoopType::ForallOp,
                    /*fuse=*/true, *threads, /*yieldStoredProducers=*/true)))
    return (*workgroupTile)->emitError("failed to tile to threads");
  if (failed(resolveDims(func, dims)))
    return failure();
  eraseDeadOps(func);
  // A result no store reads (an argmax's running maximum beside its index)
  // is still a shared output of the tile loops, which would make it a
  // temporary of the whole dispatch's size, allocated per thread. Folding
  // those outputs away leaves each thread a temporary of its own tile.
  dropUnreadTileResults(func);
  SmallVector<NamedAttribute> config = {rewriter.getNamedAttr(
      "workgroup_tile", rewriter.getDenseI64ArrayAttr(workgroupSizes))};
  if (vectorWidth > 1)
    config.push_back(rewriter.getNamedAttr(
        "vector_width", rewriter.getI64IntegerAttr(vectorWidth)));
  if (unrollReductions)
    config.push_back(rewriter.getNamedAttr(
        "unroll_reductions", rewriter.getI64IntegerAttr(kUnrollReductions)));
  setLoweringConfig(func, "tiled", config);
  if (vectorWidth == 1)
    return success();
  return vectorizeThreadTiles(func);
}

namespace {

struct GpuTilePass : impl::GpuTileBase<GpuTilePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (!isDispatchFunc(func))
      return;
    if (failed(rewriteTensorOpsAsGathers(func)) ||
        failed(tileForGpu(func, Dims)))
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
