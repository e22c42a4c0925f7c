//===- ConvertToChannelsLast.cpp - NCHW convolution chains to NHWC --------===//
//
// Each 2-D channels-first convolution, depthwise convolution and pooling
// becomes its channels-last form between transposes:
//
//   conv_nchw_fchw(x, w, init)
//     -> T_nchw(conv_nhwc_hwcf(T_nhwc(x), T_hwcf(w), T_nhwc(init)))
//
// and then the transposes move down the graph (Transposes.h) until they
// meet the next convolution's T_nhwc and cancel: the activations between
// convolutions (bias, ReLU, residual adds, padding) are computed and
// stored channels-last, filter transposes fold into the constants, and
// what remains is one transpose at each edge of the chain. Channels-last,
// an implicit GEMM's reduction (KH, KW, C) has the channels innermost in
// both operands, which is what the GPU's tensor-core kernels copy 16 bytes
// at a time.
//
//===----------------------------------------------------------------------===//

#include "compiler/Passes.h"
#include "compiler/globalopt/Transposes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_CONVERTTOCHANNELSLAST
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

constexpr int64_t kToNhwc[] = {0, 2, 3, 1};
constexpr int64_t kToNchw[] = {0, 3, 1, 2};

// NchwOp(x, w, init) -> T(NhwcOp(T(x), T(w), T(init))); `filterPerm` takes
// the filter to the channels-last op's layout (empty: a pooling's window
// shape, used as it is).
template <typename NchwOp, typename NhwcOp>
struct ToChannelsLast : OpRewritePattern<NchwOp> {
  ToChannelsLast(MLIRContext *ctx, ArrayRef<int64_t> filterPerm)
      : OpRewritePattern<NchwOp>(ctx), FilterPerm(filterPerm) {}

  LogicalResult matchAndRewrite(NchwOp op,
                                PatternRewriter &rewriter) const override {
    // A dynamic batch (issue 19) stays first in both layouts; other
    // dimensions must be static.
    if (!op.hasPureTensorSemantics() ||
        llvm::any_of(op->getOperands(), [](Value v) {
          auto type = dyn_cast<RankedTensorType>(v.getType());
          return !type ||
                 llvm::any_of(llvm::seq<int64_t>(1, type.getRank()),
                              [&](int64_t d) { return type.isDynamicDim(d); });
        }))
      return failure();
    Location loc = op.getLoc();
    Value input = createTranspose(rewriter, loc, op.getInputs()[0], kToNhwc);
    Value filter = op.getInputs()[1];
    if (!FilterPerm.empty())
      filter = createTranspose(rewriter, loc, filter, FilterPerm);
    Value init = createTranspose(rewriter, loc, op.getOutputs()[0], kToNhwc);
    auto nhwc = NhwcOp::create(rewriter, loc, TypeRange{init.getType()},
                               ValueRange{input, filter}, ValueRange{init},
                               op.getStrides(), op.getDilations());
    rewriter.replaceOp(
        op, createTranspose(rewriter, loc, nhwc->getResult(0), kToNchw));
    return success();
  }

  SmallVector<int64_t> FilterPerm;
};

// A chain of convolutions changes layout once at its ends. A lone one
// pays two transposes of its activations, which it gains back only where
// its filter is a constant (changed at compile time, so the convolution
// runs as an implicit GEMM: a ViT's patch embedding, which NCHW leaves to
// the GPU's SIMT kernel for want of a filter with its output channels
// innermost).
// A filter counts as constant through reshapes: the importer gives a
// depthwise filter [C, 1, KH, KW] as [C, KH, KW] by a collapse and an
// expand of the constant (a lone 7x7 depthwise convolution left in NCHW
// ran on the GPU's generic tiled kernel, 8.9 ms at ConvNeXt's stage-1
// shape, batch 32).
bool isConstantFilter(Value filter) {
  while (Operation *op = filter.getDefiningOp()) {
    if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op))
      break;
    filter = op->getOperand(0);
  }
  return matchPattern(filter, m_Constant());
}

bool gainsFromChannelsLast(func::FuncOp func) {
  int64_t convolutions = 0, constantFilters = 0;
  func.walk([&](Operation *op) {
    if (isa<linalg::Conv2DNchwFchwOp, linalg::DepthwiseConv2DNchwChwOp>(op)) {
      ++convolutions;
      if (isConstantFilter(cast<linalg::LinalgOp>(op).getDpsInputs()[1]))
        ++constantFilters;
    }
  });
  return convolutions >= 2 || constantFilters > 0;
}

struct ConvertToChannelsLastPass
    : impl::ConvertToChannelsLastBase<ConvertToChannelsLastPass> {
  void runOnOperation() override {
    if (!gainsFromChannelsLast(getOperation()))
      return;
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    // FCHW -> HWCF and CHW -> HWC.
    patterns.add<
        ToChannelsLast<linalg::Conv2DNchwFchwOp, linalg::Conv2DNhwcHwcfOp>>(
        ctx, ArrayRef<int64_t>{2, 3, 1, 0});
    patterns.add<ToChannelsLast<linalg::DepthwiseConv2DNchwChwOp,
                                linalg::DepthwiseConv2DNhwcHwcOp>>(
        ctx, ArrayRef<int64_t>{1, 2, 0});
    patterns.add<
        ToChannelsLast<linalg::PoolingNchwMaxOp, linalg::PoolingNhwcMaxOp>,
        ToChannelsLast<linalg::PoolingNchwSumOp, linalg::PoolingNhwcSumOp>>(
        ctx, ArrayRef<int64_t>{});
    populateTransposePropagationPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
} // namespace kiln
