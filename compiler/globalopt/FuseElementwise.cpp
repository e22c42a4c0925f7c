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

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {

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
    auto consumerGeneric = dyn_cast<linalg::GenericOp>(fused->getOwner());
    if (!producerGeneric || !consumerGeneric)
      return true;
    int64_t bodyOps = producerGeneric.getBody()->getOperations().size() +
                      consumerGeneric.getBody()->getOperations().size();
    int64_t operands =
        producerGeneric->getNumOperands() + consumerGeneric->getNumOperands();
    return bodyOps <= bounds.MaxBodyOps && operands <= bounds.MaxOperands;
  };
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
