//===- ConvertConvLayout.cpp - NHWC/FHWC convolutions to NHWC/HWCF --------===//

#include "compiler/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_CONVERTCONVLAYOUT
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

// Permutes a constant filter at compile time instead of at run time.
std::optional<DenseElementsAttr> transposeConstant(Value filter,
                                                   ArrayRef<int64_t> perm,
                                                   RankedTensorType resultType) {
  DenseElementsAttr dense;
  if (!matchPattern(filter, m_Constant(&dense)))
    return std::nullopt;
  if (dense.isSplat())
    return dense.resizeSplat(resultType);
  auto sourceType = cast<RankedTensorType>(dense.getType());
  SmallVector<Attribute> source(dense.getValues<Attribute>());
  SmallVector<Attribute> result(source.size());
  ArrayRef<int64_t> srcShape = sourceType.getShape();
  ArrayRef<int64_t> dstShape = resultType.getShape();
  SmallVector<int64_t> srcStrides(srcShape.size(), 1);
  for (int i = static_cast<int>(srcShape.size()) - 2; i >= 0; --i)
    srcStrides[i] = srcStrides[i + 1] * srcShape[i + 1];
  SmallVector<int64_t> index(dstShape.size(), 0);
  for (size_t linear = 0; linear < result.size(); ++linear) {
    int64_t srcLinear = 0;
    for (size_t d = 0; d < dstShape.size(); ++d)
      srcLinear += index[d] * srcStrides[perm[d]];
    result[linear] = source[srcLinear];
    for (int d = static_cast<int>(dstShape.size()) - 1; d >= 0; --d) {
      if (++index[d] < dstShape[d])
        break;
      index[d] = 0;
    }
  }
  return DenseElementsAttr::get(resultType, result);
}

struct FhwcToHwcf : OpRewritePattern<linalg::Conv2DNhwcFhwcOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::Conv2DNhwcFhwcOp conv,
                                PatternRewriter &rewriter) const override {
    Value filter = conv.getInputs()[1];
    auto filterType = dyn_cast<RankedTensorType>(filter.getType());
    if (!filterType || !filterType.hasStaticShape())
      return failure();
    // FHWC -> HWCF.
    SmallVector<int64_t> perm = {1, 2, 3, 0};
    SmallVector<int64_t> shape;
    for (int64_t p : perm)
      shape.push_back(filterType.getDimSize(p));
    auto hwcfType = RankedTensorType::get(shape, filterType.getElementType());
    Location loc = conv.getLoc();
    Value hwcf;
    if (std::optional<DenseElementsAttr> folded =
            transposeConstant(filter, perm, hwcfType)) {
      hwcf = arith::ConstantOp::create(rewriter, loc, *folded);
    } else {
      Value init = tensor::EmptyOp::create(rewriter, loc, shape,
                                           filterType.getElementType());
      hwcf = linalg::TransposeOp::create(rewriter, loc, filter, init, perm)
                 ->getResult(0);
    }
    rewriter.replaceOpWithNewOp<linalg::Conv2DNhwcHwcfOp>(
        conv, conv.getResultTypes(),
        ValueRange{conv.getInputs()[0], hwcf}, conv.getOutputs(),
        conv.getStrides(), conv.getDilations());
    return success();
  }
};

struct ConvertConvLayoutPass
    : impl::ConvertConvLayoutBase<ConvertConvLayoutPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FhwcToHwcf>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
} // namespace kiln
