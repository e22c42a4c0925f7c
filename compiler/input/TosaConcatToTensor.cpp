//===- TosaConcatToTensor.cpp - tosa.concat as tensor.concat --------------===//
//
// Upstream's tosa-to-tensor writes a concat as a chain of insert_slices
// into an empty tensor. Dispatch formation makes each insert_slice a
// dispatch of its own: every operand but the first is copied together with
// everything inserted before it, and on the GPU each such dispatch needs a
// temporary of the whole result. tensor.concat, which every back end
// lowers, is one dispatch that writes each element once.
//
//===----------------------------------------------------------------------===//

#include "compiler/input/TosaConcatToTensor.h"
#include "compiler/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_TOSACONCATTOTENSOR
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

struct ConcatToTensor : OpRewritePattern<tosa::ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tosa::ConcatOp concat,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(concat.getType());
    if (!type)
      return rewriter.notifyMatchFailure(concat, "unranked result");
    rewriter.replaceOpWithNewOp<tensor::ConcatOp>(
        concat, type, static_cast<int64_t>(concat.getAxis()),
        concat.getInput1());
    return success();
  }
};

struct TosaConcatToTensorPass
    : impl::TosaConcatToTensorBase<TosaConcatToTensorPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateTosaConcatToTensorPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

void populateTosaConcatToTensorPatterns(RewritePatternSet &patterns) {
  patterns.add<ConcatToTensor>(patterns.getContext());
}

} // namespace kiln
