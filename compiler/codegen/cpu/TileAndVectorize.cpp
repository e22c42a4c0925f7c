//===- TileAndVectorize.cpp - Workgroup and vector tiling for the CPU -----===//
//
// Three tiling levels on tensors, then vectorization:
//   1. the dispatch's root is tiled into an scf.forall (one iteration per
//      workgroup) and every producer in the dispatch is fused into it;
//   2. inside, the root is tiled again with scf.for into vector-sized tiles,
//      fusing producers again;
//   3. the anchor's reduction loops are tiled so each step is one vector
//      contraction / reduction / 1-D convolution.
// Loops whose step does not divide their range are then peeled: full tiles
// keep static shapes and vectorize directly; a partial tile is static too when
// its loop range is, and otherwise (the last workgroup of a dimension its tile
// does not divide) is vectorized with masks sized by its upper bound. Ops that
// do not vectorize stay as linalg and become loops later, which keeps the
// pipeline total.
//
//===----------------------------------------------------------------------===//

#include "compiler/Passes.h"
#include "compiler/codegen/common/Tiling.h"
#include "compiler/codegen/cpu/TileConfig.h"
#include "compiler/dispatch/DispatchRegions.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include <functional>

namespace kiln {
#define GEN_PASS_DEF_CPUTILEANDVECTORIZE
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

// The op whose loops drive tiling: the first op with reduction loops,
// otherwise the root itself.
linalg::LinalgOp findAnchor(func::FuncOp func, linalg::LinalgOp root) {
  linalg::LinalgOp anchor;
  func.walk([&](linalg::LinalgOp op) {
    if (!anchor && op.getNumReductionLoops() > 0)
      anchor = op;
  });
  return anchor ? anchor : root;
}

// True if every reduction loop of `op` is indexed by an input its payload
// reads. A payload that ignores what it reduces over (`out + 1`, or a sum of
// a fill folded into a constant) repeats the same update once per reduction
// step; the vectorizer would apply it once, so such ops stay loops.
bool reducesOverReadInputs(linalg::LinalgOp op) {
  llvm::SmallBitVector read(op.getNumLoops());
  for (OpOperand *input : op.getDpsInputOperands()) {
    if (!op.payloadUsesValueFromOperand(input))
      continue;
    for (AffineExpr expr : op.getMatchingIndexingMap(input).getResults())
      expr.walk([&](AffineExpr e) {
        if (auto dim = dyn_cast<AffineDimExpr>(e))
          read.set(dim.getPosition());
      });
  }
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  return llvm::all_of(reductions, [&](unsigned d) { return read.test(d); });
}

bool hasZeroSizeLoop(linalg::LinalgOp op) {
  return llvm::is_contained(op.getStaticLoopRanges(), 0);
}

// Maps tile sizes over the anchor's loops onto the root's loops. Consumers
// join a dispatch only through identity maps, so root loop i is the anchor
// loop producing result dimension i.
SmallVector<int64_t> projectToRoot(linalg::LinalgOp anchor,
                                   linalg::LinalgOp root,
                                   ArrayRef<int64_t> anchorSizes) {
  if (anchor == root)
    return SmallVector<int64_t>(anchorSizes);
  AffineMap resultMap =
      anchor.getIndexingMapMatchingResult(anchor->getResult(0));
  SmallVector<int64_t> sizes(root.getNumLoops(), 0);
  for (unsigned i = 0; i < resultMap.getNumResults() && i < sizes.size(); ++i)
    sizes[i] = anchorSizes[resultMap.getDimPosition(i)];
  return sizes;
}

// Decomposes ops that have no tiled form of their own into ones that do.
bool isZeroFill(Value value) {
  auto fill = value.getDefiningOp<linalg::FillOp>();
  return fill && (matchPattern(fill.value(), m_AnyZeroFloat()) ||
                  matchPattern(fill.value(), m_Zero()));
}

// A contraction with a zero-filled operand leaves its accumulator as it is.
// Folding it is needed for correctness, not only speed: when the accumulator
// is that same zero fill (CSE merges the two), upstream's canonicalization of
// `add(contract(a, b, zero), c)` into `contract(a, b, c)` remaps every use of
// the zero vector, the operand included, and multiplies by c instead of zero
// (an RNN step from a zero state returned x + rowsum(x)). Like folding
// x * 0, it gives 0 where an operand holds inf or NaN.
void foldZeroFillContractions(func::FuncOp func) {
  IRRewriter rewriter(func.getContext());
  func.walk([&](linalg::LinalgOp op) {
    if (!op.hasPureTensorSemantics() ||
        !linalg::isaContractionOpInterface(op) ||
        llvm::none_of(op.getDpsInputs(), isZeroFill))
      return;
    rewriter.replaceOp(op, op.getDpsInits());
  });
}

LogicalResult decomposeDataMovement(func::FuncOp func) {
  RewritePatternSet patterns(func.getContext());
  tensor::populateDecomposeTensorConcatPatterns(patterns);
  linalg::populateDecomposePadPatterns(patterns);
  return applyPatternsGreedily(func, std::move(patterns));
}

LogicalResult tileDispatch(func::FuncOp func,
                           const FrozenRewritePatternSet &cleanups,
                           const FrozenRewritePatternSet &dimPatterns) {
  SmallVector<bufferization::MaterializeInDestinationOp> stores;
  func.walk([&](bufferization::MaterializeInDestinationOp op) {
    stores.push_back(op);
  });
  if (stores.size() != 1)
    return success(); // multi-result dispatches run as one workgroup
  auto root = stores.front().getSource().getDefiningOp<linalg::LinalgOp>();
  if (!root || !isa<TilingInterface>(root.getOperation()))
    return success();
  linalg::LinalgOp anchor = findAnchor(func, root);
  // A zero-size loop leaves nothing to divide among workgroups (and upstream
  // tiling divides by the range): the dispatch runs as one workgroup, whose
  // loops over the empty range run zero times.
  if (hasZeroSizeLoop(anchor) || hasZeroSizeLoop(root))
    return success();
  std::optional<CpuTileConfig> config = chooseCpuTileConfig(anchor);
  if (!config)
    return success();
  // Tiled ops are tracked by pointer from one level to the next, so no
  // canonicalization runs in between (it could fold a single-iteration loop
  // and move or replace them); dead originals are erased instead.
  IRRewriter rewriter(func.getContext());
  SmallVector<int64_t> workgroup =
      projectToRoot(anchor, root, config->Workgroup);
  SmallVector<int64_t> vector = projectToRoot(anchor, root, config->Vector);
  OperationName anchorName = anchor->getName();
  FailureOr<Operation *> tiledRoot =
      tileOp(rewriter, cast<TilingInterface>(root.getOperation()), workgroup,
             scf::SCFTilingOptions::LoopType::ForallOp, /*fuse=*/true);
  if (failed(tiledRoot))
    return root.emitError("failed to tile to workgroups");
  if (failed(resolveDims(func, dimPatterns)))
    return failure();
  eraseDeadOps(func);

  if (failed(tileOp(rewriter, cast<TilingInterface>(*tiledRoot), vector,
                    scf::SCFTilingOptions::LoopType::ForOp, /*fuse=*/true)))
    return (*tiledRoot)->emitError("failed to tile to vectors");
  if (failed(resolveDims(func, dimPatterns)))
    return failure();
  eraseDeadOps(func);

  // Level 3: reduction loops of every anchor-like op.
  SmallVector<linalg::LinalgOp> reducers;
  func.walk([&](linalg::LinalgOp op) {
    if (op.getNumReductionLoops() > 0 && op->getName() == anchorName)
      reducers.push_back(op);
  });
  for (linalg::LinalgOp op : reducers) {
    SmallVector<int64_t> sizes = config->Reduction;
    sizes.resize(op.getNumLoops(), 0);
    if (failed(tileOp(rewriter, cast<TilingInterface>(op.getOperation()), sizes,
                      scf::SCFTilingOptions::LoopType::ForOp,
                      /*fuse=*/false)))
      return op.emitError("failed to tile reduction loops");
  }
  return applyPatternsGreedily(func, cleanups);
}

// Peels every scf.for whose step does not divide its range, outer loops
// first, so the partial iterations of inner loops are peeled in both copies.
void peelPartialTiles(func::FuncOp func) {
  IRRewriter rewriter(func.getContext());
  llvm::DenseSet<Operation *> visited;
  while (true) {
    scf::ForOp next;
    func.walk<WalkOrder::PreOrder>([&](scf::ForOp forOp) {
      if (visited.contains(forOp))
        return WalkResult::advance();
      next = forOp;
      return WalkResult::interrupt();
    });
    if (!next)
      return;
    visited.insert(next);
    rewriter.setInsertionPoint(next);
    scf::ForOp partial;
    if (succeeded(scf::peelForLoopAndSimplifyBounds(rewriter, next, partial)))
      visited.insert(partial);
  }
}

// Vector sizes for a linalg op with dynamic loop ranges: each range's
// constant upper bound, read through the shapes of the operands it indexes.
// Empty when some range has no constant bound.
SmallVector<int64_t> maskedVectorSizes(linalg::LinalgOp op) {
  SmallVector<int64_t> sizes = op.getStaticLoopRanges();
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    for (auto [dim, expr] : llvm::enumerate(map.getResults())) {
      auto loop = dyn_cast<AffineDimExpr>(expr);
      if (!loop || !ShapedType::isDynamic(sizes[loop.getPosition()]))
        continue;
      FailureOr<int64_t> bound = ValueBoundsConstraintSet::computeConstantBound(
          presburger::BoundType::UB,
          ValueBoundsConstraintSet::Variable(operand.get(), dim),
          /*stopCondition=*/nullptr, /*closedUB=*/true);
      if (succeeded(bound) && *bound > 0)
        sizes[loop.getPosition()] = *bound;
    }
  }
  if (llvm::any_of(sizes, ShapedType::isDynamic))
    return {};
  return sizes;
}

// LLVM stores a vector of i1 as packed bits but a memref of i1 as one byte
// per element, so a boolean tensor written or read by vectors and accessed
// elementwise elsewhere (a loop that did not vectorize) mixes the two layouts.
// Ops with boolean tensor operands stay scalar loops; booleans computed and
// consumed inside one op's body stay in registers and vectorize as before.
bool hasBooleanTensorOperand(linalg::LinalgOp op) {
  return llvm::any_of(op->getOperandTypes(), [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && tensor.getElementType().isInteger(1);
  });
}

// A body reading at an index computed from another read of its own (a
// bisection: each step's bounds come from the last step's reads; a
// gather of gathered indices) stays a scalar loop: upstream's check of
// each tensor.extract's index walks its operands without memory, 2^steps
// paths through a bisection's chain (a NonMaxSuppression of 80 classes did
// not compile in ten minutes), and a gather that depends on a gather does
// not vectorize anyway. The walk here remembers what it has seen.
bool hasChainedReads(linalg::LinalgOp op) {
  llvm::DenseMap<Value, bool> fromRead;
  std::function<bool(Value)> dependsOnRead = [&](Value value) -> bool {
    if (auto it = fromRead.find(value); it != fromRead.end())
      return it->second;
    bool result = false;
    Operation *def = value.getDefiningOp();
    if (def && op->isAncestor(def))
      result = isa<tensor::ExtractOp>(def) ||
               llvm::any_of(def->getOperands(), dependsOnRead);
    fromRead[value] = result;
    return result;
  };
  bool chained = false;
  op->walk([&](tensor::ExtractOp read) {
    chained |= llvm::any_of(read.getIndices(), dependsOnRead);
  });
  return chained;
}

LogicalResult vectorizeDispatch(func::FuncOp func,
                                const FrozenRewritePatternSet &cleanups) {
  {
    RewritePatternSet patterns(func.getContext());
    linalg::populateDecomposeConvolutionPatterns(patterns);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return failure();
  }
  // Each candidate with its vector sizes: empty for static shapes, upper
  // bounds (and masks) for dynamic ones.
  SmallVector<std::pair<Operation *, SmallVector<int64_t>>> candidates;
  func.walk([&](linalg::LinalgOp op) {
    // Vectors cannot have a zero-size dimension; such ops become empty loops.
    if (!op.hasPureTensorSemantics() || hasZeroSizeLoop(op) ||
        !reducesOverReadInputs(op) || hasBooleanTensorOperand(op) ||
        hasChainedReads(op))
      return;
    if (llvm::none_of(op.getStaticLoopRanges(), ShapedType::isDynamic)) {
      candidates.push_back({op, {}});
      return;
    }
    SmallVector<int64_t> sizes = maskedVectorSizes(op);
    if (!sizes.empty())
      candidates.push_back({op, sizes});
  });
  IRRewriter rewriter(func.getContext());
  for (auto &[op, vectorSizes] : candidates) {
    // Huge static tiles (an untiled dispatch) would unroll into enormous
    // vectors; those stay scalar loops for LLVM to vectorize.
    int64_t elements = 1;
    for (int64_t r : vectorSizes.empty()
                         ? cast<linalg::LinalgOp>(op).getStaticLoopRanges()
                         : vectorSizes)
      elements *= r;
    if (elements > 4096)
      continue;
    // Upstream reads one scalable flag per vector size; none is scalable.
    SmallVector<bool> scalable(vectorSizes.size(), false);
    if (failed(linalg::vectorizeOpPrecondition(op, vectorSizes, scalable)))
      continue;
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::VectorizationResult> result =
        linalg::vectorize(rewriter, op, vectorSizes, scalable);
    if (failed(result))
      continue;
    if (op->getNumResults())
      rewriter.replaceOp(op, result->replacements);
    else
      rewriter.eraseOp(op);
  }

  RewritePatternSet patterns(func.getContext());
  // Masked transfers become transfers with mask operands while they still
  // work on tensors, which bufferization handles; masked compute ops stay
  // masked until the vector lowering.
  vector::populateVectorMaskLoweringPatternsForSideEffectingOps(patterns);
  vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
  vector::populateVectorReductionToContractPatterns(patterns);
  vector::populateSinkVectorOpsPatterns(patterns);
  vector::TransferReadOp::getCanonicalizationPatterns(patterns,
                                                      func.getContext());
  vector::TransferWriteOp::getCanonicalizationPatterns(patterns,
                                                       func.getContext());
  if (failed(applyPatternsGreedily(func, std::move(patterns))))
    return failure();
  return applyPatternsGreedily(func, cleanups);
}

struct CpuTileAndVectorizePass
    : impl::CpuTileAndVectorizeBase<CpuTileAndVectorizePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (!isDispatchFunc(func))
      return;
    foldZeroFillContractions(func);
    if (failed(decomposeDataMovement(func)) ||
        failed(tileDispatch(func, Cleanups, DimPatterns)))
      return signalPassFailure();
    peelPartialTiles(func);
    if (failed(applyPatternsGreedily(func, Cleanups)) ||
        failed(vectorizeDispatch(func, Cleanups)))
      return signalPassFailure();
  }

  LogicalResult initialize(MLIRContext *ctx) override {
    Cleanups = buildCleanupPatterns(ctx);
    DimPatterns = buildDimPatterns(ctx);
    return success();
  }

private:
  FrozenRewritePatternSet Cleanups;
  FrozenRewritePatternSet DimPatterns;
};

} // namespace
} // namespace kiln
