//===- DistributeToThreads.cpp - Thread loops to strided loops ------------===//

#include "compiler/Passes.h"
#include "compiler/codegen/common/Distribution.h"
#include "compiler/codegen/gpu/GpuCodegen.h"
#include "compiler/codegen/gpu/LoweringConfig.h"
#include "compiler/dispatch/DispatchRegions.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_GPUDISTRIBUTETOTHREADS
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {

bool isGpuThreadLoop(scf::ForallOp loop) {
  std::optional<ArrayAttr> mapping = loop.getMapping();
  return mapping && !mapping->empty() &&
         isa<gpu::GPUThreadMappingAttr>(mapping->getValue().front());
}

namespace {

// `for (i = first; i < iterations; i += stride)` over the loop's linearized
// iterations, each delinearized (row-major) back into induction variables.
scf::ForOp lowerThreadLoop(scf::ForallOp loop, Value first, Value stride) {
  OpBuilder builder(loop);
  Location loc = loop.getLoc();
  AffineExpr lb, ub, step;
  bindSymbols(builder.getContext(), lb, ub, step);
  SmallVector<OpFoldResult> extents;
  OpFoldResult iterations = builder.getIndexAttr(1);
  for (auto [l, u, s] :
       llvm::zip(loop.getMixedLowerBound(), loop.getMixedUpperBound(),
                 loop.getMixedStep())) {
    extents.push_back(affine::makeComposedFoldedAffineApply(
        builder, loc, (ub - lb).ceilDiv(step), {l, u, s}));
    iterations = affine::makeComposedFoldedAffineApply(
        builder, loc, lb * ub, {iterations, extents.back()});
  }
  auto forOp = scf::ForOp::create(
      builder, loc, first,
      getValueOrCreateConstantIndexOp(builder, loc, iterations), stride);
  builder.setInsertionPointToStart(forOp.getBody());
  auto ids = affine::AffineDelinearizeIndexOp::create(
      builder, loc, forOp.getInductionVar(), extents, /*hasOuterBound=*/true);
  IRMapping mapping;
  for (auto [iv, id, l, s] :
       llvm::zip(loop.getInductionVars(), ids.getResults(),
                 loop.getMixedLowerBound(), loop.getMixedStep()))
    mapping.map(iv, getValueOrCreateConstantIndexOp(
                        builder, loc,
                        affine::makeComposedFoldedAffineApply(
                            builder, loc, lb + ub * step, {l, id, s})));
  for (Operation &op : loop.getBody()->without_terminator())
    builder.clone(op, mapping);
  loop.erase();
  return forOp;
}

// Whether `memref` is a view of one of the dispatch's bindings.
bool isBindingView(Value memref, Block &entry) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  auto arg = dyn_cast<BlockArgument>(memref);
  return arg && arg.getOwner() == &entry;
}

// Declares every `width`-element vector load and store of a binding in
// `root` aligned to its size.
void alignBindingVectors(Operation *root, Block &entry, int64_t width) {
  auto align = [&](auto access, VectorType type) {
    if (type.getNumElements() == width &&
        isBindingView(access.getBase(), entry))
      access.setAlignment(width * type.getElementTypeBitWidth() / 8);
  };
  root->walk([&](Operation *op) {
    if (auto load = dyn_cast<vector::LoadOp>(op))
      align(load, load.getVectorType());
    else if (auto store = dyn_cast<vector::StoreOp>(op))
      align(store, store.getVectorType());
  });
}

// The vectorized thread loops of an elementwise dispatch (kiln-gpu-tile):
// transfers become vector loads and stores. Each thread's vector starts at
// a multiple of its length in every binding, so with the bindings 16-byte
// aligned each access may be declared aligned to its size, which is what
// makes it one ld.global.v4 / st.global.v4. The plan's binding offsets are
// multiples of 64, but base addresses come from the driver or the caller,
// so the loops are versioned on that at run time: with a misaligned binding
// they run with element-aligned accesses, which LLVM splits into scalar
// ones.
LogicalResult vectorizeThreadLoops(func::FuncOp func,
                                   ArrayRef<scf::ForOp> loops, int64_t width) {
  RewritePatternSet patterns(func.getContext());
  vector::populateVectorTransferLoweringPatterns(patterns,
                                                 /*maxTransferRank=*/1);
  if (failed(applyPatternsGreedily(func, std::move(patterns))))
    return failure();
  Block &entry = func.getBody().front();
  OpBuilder builder = OpBuilder::atBlockBegin(&entry);
  Location loc = func.getLoc();
  Value misaligned;
  for (BlockArgument arg : entry.getArguments()) {
    if (!isa<MemRefType>(arg.getType()))
      continue;
    Value address =
        memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, arg);
    misaligned =
        misaligned
            ? Value(arith::OrIOp::create(builder, loc, misaligned, address))
            : address;
  }
  if (!misaligned)
    return success();
  Value aligned = arith::CmpIOp::create(
      builder, loc, arith::CmpIPredicate::eq,
      arith::AndIOp::create(builder, loc, misaligned,
                            arith::ConstantIndexOp::create(builder, loc, 15)),
      arith::ConstantIndexOp::create(builder, loc, 0));
  for (scf::ForOp loop : loops) {
    builder.setInsertionPoint(loop);
    auto versions = scf::IfOp::create(builder, loop.getLoc(), aligned,
                                      /*withElseRegion=*/true);
    builder.setInsertionPoint(versions.thenYield());
    alignBindingVectors(builder.clone(*loop), entry, width);
    loop->moveBefore(versions.elseYield());
  }
  return success();
}

// True if `a` and `b` are the same memory: one value, or equal subviews of
// the same memory.
bool sameMemory(Value a, Value b) {
  if (a == b)
    return true;
  auto viewA = a.getDefiningOp<memref::SubViewOp>();
  auto viewB = b.getDefiningOp<memref::SubViewOp>();
  return viewA && viewB && sameMemory(viewA.getSource(), viewB.getSource()) &&
         isEqualConstantIntOrValueArray(viewA.getMixedOffsets(),
                                        viewB.getMixedOffsets()) &&
         isEqualConstantIntOrValueArray(viewA.getMixedSizes(),
                                        viewB.getMixedSizes()) &&
         isEqualConstantIntOrValueArray(viewA.getMixedStrides(),
                                        viewB.getMixedStrides());
}

// Bufferizing a tiled loop that writes its results in place leaves copies of
// each tile, and of the whole workgroup tile, onto themselves. They do
// nothing, but one outside the thread loop would count as a binding write
// every thread repeats.
void eraseSelfCopies(func::FuncOp func) {
  SmallVector<linalg::CopyOp> copies;
  func.walk([&](linalg::CopyOp copy) {
    if (copy.hasPureBufferSemantics() &&
        sameMemory(copy.getInputs().front(), copy.getOutputs().front()))
      copies.push_back(copy);
  });
  for (linalg::CopyOp copy : copies)
    copy.erase();
}

} // namespace

LogicalResult distributeToThreads(func::FuncOp func) {
  // Kernels written whole (contraction kernels) use thread ids already.
  if (func->hasAttr(kWorkgroupSizeAttr))
    return success();
  eraseSelfCopies(func);
  Block &entry = func.getBody().front();
  SmallVector<scf::ForallOp> loops;
  WalkResult walk = func.walk([&](scf::ForallOp loop) {
    if (!isGpuThreadLoop(loop)) {
      loop.emitError("expected only thread loops after workgroup "
                     "distribution");
      return WalkResult::interrupt();
    }
    loops.push_back(loop);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  SmallVector<Operation *> loopOps(loops.begin(), loops.end());
  // Every thread runs what is outside the thread loops: correct only if that
  // writes no binding; otherwise (and with nothing to share) one thread
  // runs it all.
  bool oneThread = loops.empty() || writesBindingOutside(entry, loopOps);
  int64_t threads = oneThread ? 1 : kGpuWorkgroupThreads;
  OpBuilder builder = OpBuilder::atBlockBegin(&entry);
  Location loc = func.getLoc();
  Value first =
      oneThread
          ? Value(arith::ConstantIndexOp::create(builder, loc, 0))
          : Value(gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x));
  Value stride = arith::ConstantIndexOp::create(builder, loc, threads);
  SmallVector<scf::ForOp> threadLoops;
  for (scf::ForallOp loop : loops)
    threadLoops.push_back(lowerThreadLoop(loop, first, stride));
  func->setAttr(kWorkgroupSizeAttr,
                builder.getDenseI64ArrayAttr({threads, 1, 1}));
  if (oneThread) {
    setLoweringConfig(func, "one_thread");
    return success();
  }
  int64_t width = getLoweringConfigInt(func, "vector_width", 1);
  if (width > 1)
    return vectorizeThreadLoops(func, threadLoops, width);
  return success();
}

namespace {

struct GpuDistributeToThreadsPass
    : impl::GpuDistributeToThreadsBase<GpuDistributeToThreadsPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (isDispatchFunc(func) && failed(distributeToThreads(func)))
        return signalPassFailure();
  }
};

} // namespace
} // namespace kiln
