//===- ConvertConvLayout.cpp - NHWC/FHWC convolutions to NHWC/HWCF --------===//

#include "compiler/Passes.h"
#include "compiler/globalopt/Transposes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_CONVERTCONVLAYOUT
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

struct FhwcToHwcf : OpRewritePattern<linalg::Conv2DNhwcFhwcOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::Conv2DNhwcFhwcOp conv,
                                PatternRewriter &rewriter) const override {
    Value filter = conv.getInputs()[1];
    auto filterType = dyn_cast<RankedTensorType>(filter.getType());
    if (!filterType || !filterType.hasStaticShape())
      return failure();
    // hwcf[h, w, c, f] = fhwc[f, h, w, c], as a generic so that upstream
    // constant folding computes it at compile time for constant filters.
    Value hwcf = createTranspose(rewriter, conv.getLoc(), filter, {1, 2, 3, 0});
    rewriter.replaceOpWithNewOp<linalg::Conv2DNhwcHwcfOp>(
        conv, conv.getResultTypes(), ValueRange{conv.getInputs()[0], hwcf},
        conv.getOutputs(), conv.getStrides(), conv.getDilations());
    return success();
  }
};

struct ConvertConvLayoutPass
    : impl::ConvertConvLayoutBase<ConvertConvLayoutPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FhwcToHwcf>(&getContext());
    // Fold only the filter transposes created above: folding every generic
    // of constants could materialize large broadcasts into the module.
    linalg::populateConstantFoldLinalgOperations(
        patterns, [](OpOperand *operand) {
          Operation *transpose = operand->getOwner();
          return llvm::all_of(transpose->getUsers(), [](Operation *user) {
            return isa<linalg::Conv2DNhwcHwcfOp>(user);
          });
        });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
} // namespace kiln
