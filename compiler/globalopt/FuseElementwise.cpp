//===- FuseElementwise.cpp - Bounded elementwise fusion -------------------===//
//
// Fusing a producer generic into its consumer copies the producer's body
// into a new generic. Along a chain every merge copies everything merged so
// far, so unbounded fusion of N ops costs O(N^2) (and one dispatch with N
// operands). The bound keeps each merge's cost constant: compile time grows
// linearly with the graph, and the dispatches stay of a size the code
// generators handle.
//
//===----------------------------------------------------------------------===//

#include "compiler/globalopt/FuseElementwise.h"
#include "compiler/Passes.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {

namespace {

// Whether the producer's payload only moves or converts its element (a
// transpose, a broadcast, an extf): its only op, if any, is a cast of a
// block argument. A truncf is not taken: the contraction would read the
// wide operand (twice the bytes), and its payload would no longer be the
// half-precision multiply-add the tensor-core kernels take
// (--precision=f16 rounds operands so).
bool onlyMovesOrCasts(linalg::GenericOp producer) {
  Block &body = *producer.getBody();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (body.getOperations().size() == 1)
    return llvm::all_of(yield.getOperands(),
                        [](Value v) { return isa<BlockArgument>(v); });
  if (body.getOperations().size() != 2)
    return false;
  Operation &op = body.front();
  return isa<CastOpInterface>(op) && !isa<arith::TruncFOp>(op) &&
         op.getNumOperands() == 1 && isa<BlockArgument>(op.getOperand(0));
}

// A contraction or convolution reads each operand element many times (once
// per output column, row or window position), so a producer computing
// anything fused into its operand is recomputed that many times, and the
// kernels that stage operand tiles in shared memory (GEMMs on tensor cores)
// can no longer take it: only moves and casts are fused there. Elementwise
// consumers (epilogues) fuse as before.
bool fusesIntoContractionOperand(OpOperand *fused, linalg::GenericOp producer) {
  auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
  if (!consumer || consumer.getNumReductionLoops() == 0 ||
      !consumer.isDpsInput(fused))
    return true;
  if (!linalg::isaContractionOpInterface(consumer) &&
      !linalg::isaConvolutionOpInterface(consumer))
    return true;
  return onlyMovesOrCasts(producer);
}

// Whether `producer` only narrows a contraction's or convolution's result
// (the truncf of an f16 matmul's f32 accumulator). Fused into its
// consumer, the wide result would be stored by the contraction's dispatch
// and read back by the consumer's, twice the bytes; kept apart, dispatch
// formation gives it the contraction's dispatch as an epilogue.
bool narrowsContractionResult(linalg::GenericOp producer) {
  Block &body = *producer.getBody();
  auto trunc = dyn_cast<arith::TruncFOp>(body.front());
  if (producer.getNumDpsInputs() != 1 || body.getOperations().size() != 2 ||
      !trunc || !isa<BlockArgument>(trunc.getIn()))
    return false;
  auto source =
      producer.getDpsInputOperand(0)->get().getDefiningOp<linalg::LinalgOp>();
  return source && source.getNumReductionLoops() > 0 &&
         (linalg::isaContractionOpInterface(source) ||
          linalg::isaConvolutionOpInterface(source));
}

// Whether a fusion of `fused`'s producer into its consumer stays within
// `bounds`.
bool withinBounds(OpOperand *fused, linalg::GenericOp producer,
                  FusionBounds bounds) {
  auto consumer = dyn_cast<linalg::GenericOp>(fused->getOwner());
  if (!consumer)
    return true;
  int64_t bodyOps = producer.getBody()->getOperations().size() +
                    consumer.getBody()->getOperations().size();
  int64_t operands = producer->getNumOperands() + consumer->getNumOperands();
  return bodyOps <= bounds.MaxBodyOps && operands <= bounds.MaxOperands;
}

// The rules above, whatever the producer's other uses: what the fusion
// control and the copying pattern below both ask.
bool mayFuse(OpOperand *fused, linalg::GenericOp producer,
             FusionBounds bounds) {
  return !narrowsContractionResult(producer) &&
         fusesIntoContractionOperand(fused, producer) &&
         withinBounds(fused, producer, bounds);
}

// Body ops (its yield included) up to which a producer is cheaper to
// recompute in a reduction than to store and read back.
constexpr int64_t kCheapProducerOps = 8;

// A softmax's `exp(x - max)` feeds a reduction (the sum) and the
// elementwise op after it (the division), so
// fusion, which takes producers of one use only, leaves them as a dispatch
// of their own writing a whole tensor that both then read. Recomputing such
// a cheap producer in the reduction instead gives it a copy of its own,
// which fusion merges; the original then has one use left and merges into
// the other consumer.
struct DuplicateCheapProducerIntoReduction
    : OpRewritePattern<linalg::GenericOp> {
  DuplicateCheapProducerIntoReduction(MLIRContext *context, FusionBounds bounds)
      : OpRewritePattern(context), Bounds(bounds) {}

  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    if (consumer.getNumReductionLoops() == 0 ||
        linalg::isaContractionOpInterface(consumer) ||
        linalg::isaConvolutionOpInterface(consumer))
      return failure();
    for (OpOperand *operand : consumer.getDpsInputOperands()) {
      auto producer = operand->get().getDefiningOp<linalg::GenericOp>();
      if (!producer || producer->hasOneUse() ||
          producer->getNumResults() != 1 ||
          producer.getNumReductionLoops() != 0 ||
          static_cast<int64_t>(producer.getBody()->getOperations().size()) >
              kCheapProducerOps ||
          !mayFuse(operand, producer, Bounds) ||
          // The copy must fuse, or the pattern would copy it again.
          !linalg::areElementwiseOpsFusable(operand))
        continue;
      rewriter.setInsertionPoint(producer);
      Operation *copy = rewriter.clone(*producer);
      rewriter.modifyOpInPlace(consumer,
                               [&] { operand->set(copy->getResult(0)); });
      return success();
    }
    return failure();
  }

  FusionBounds Bounds;
};

// A named transpose read only by a contraction's operand (attention's Kᵀ)
// becomes a generic, which the fusion then folds into the contraction's
// indexing map: the contraction reads the untransposed tensor, and no
// dispatch writes the transposed copy. Convolutions keep theirs: their
// kernels want a channels-last input as it is.
struct GeneralizeTransposeIntoContraction
    : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::TransposeOp transpose,
                                PatternRewriter &rewriter) const override {
    if (!transpose->hasOneUse())
      return failure();
    OpOperand &use = *transpose->getUses().begin();
    auto consumer = dyn_cast<linalg::LinalgOp>(use.getOwner());
    if (!consumer || !consumer.isDpsInput(&use) ||
        !linalg::isaContractionOpInterface(consumer))
      return failure();
    // A named contraction (tosa.matmul's batch_matmul) becomes a generic
    // first, which can take the permutation into its map.
    if (!isa<linalg::GenericOp>(consumer.getOperation())) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(consumer);
      if (failed(linalg::generalizeNamedOp(rewriter, consumer)))
        return failure();
    }
    return linalg::generalizeNamedOp(rewriter, transpose);
  }
};

} // namespace

void populateBoundedElementwiseFusionPatterns(RewritePatternSet &patterns,
                                              FusionBounds bounds) {
  MLIRContext *context = patterns.getContext();
  // Upstream's rule (the producer has no other user), plus the bound on
  // what the fused generic would hold.
  linalg::ControlFusionFn control = [bounds](OpOperand *fused) {
    Operation *producer = fused->get().getDefiningOp();
    if (!producer || !producer->hasOneUse())
      return false;
    auto producerGeneric = dyn_cast<linalg::GenericOp>(producer);
    if (!producerGeneric)
      return true;
    return mayFuse(fused, producerGeneric, bounds);
  };
  patterns.add<DuplicateCheapProducerIntoReduction>(context, bounds);
  patterns.add<GeneralizeTransposeIntoContraction>(context);
  linalg::populateElementwiseOpsFusionPatterns(patterns, control);
  linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, control);
  tensor::populateBubbleUpExpandShapePatterns(patterns);
  affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
  linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
  tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
  tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
  context->getLoadedDialect<linalg::LinalgDialect>()
      ->getCanonicalizationPatterns(patterns);
  linalg::populateConstantFoldLinalgOperations(patterns, control);
}

namespace {

struct FuseElementwisePass : impl::FuseElementwiseBase<FuseElementwisePass> {
  using FuseElementwiseBase::FuseElementwiseBase;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateBoundedElementwiseFusionPatterns(
        patterns, FusionBounds{maxBodyOps, maxOperands});
    // Top-down, as upstream's pass, for compile time.
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(true);
    // Not converging within the driver's iteration limit leaves valid IR,
    // merely less fused, as upstream's pass accepts too.
    (void)applyPatternsGreedily(getOperation(), std::move(patterns), config);
  }
};

} // namespace

} // namespace kiln
