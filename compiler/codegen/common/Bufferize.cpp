//===- Bufferize.cpp - One-shot bufferization of dispatches ---------------===//

#include "compiler/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_BUFFERIZE
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

// A partial tile's temporary has a dynamic size with a constant bound. It is
// allocated at that bound and viewed at its size, so it is static: small
// enough for the stack, and never a heap allocation per tile.
void boundDynamicAllocations(ModuleOp module) {
  SmallVector<memref::AllocOp> allocs;
  module.walk([&](memref::AllocOp alloc) {
    if (!alloc.getDynamicSizes().empty() &&
        alloc.getType().getLayout().isIdentity())
      allocs.push_back(alloc);
  });
  for (memref::AllocOp alloc : allocs) {
    MemRefType type = alloc.getType();
    SmallVector<int64_t> bounds(type.getShape());
    auto dynamicSize = alloc.getDynamicSizes().begin();
    bool bounded = true;
    for (int64_t &extent : bounds) {
      if (!ShapedType::isDynamic(extent))
        continue;
      FailureOr<int64_t> bound = ValueBoundsConstraintSet::computeConstantBound(
          presburger::BoundType::UB,
          ValueBoundsConstraintSet::Variable(*dynamicSize++),
          /*stopCondition=*/nullptr, /*closedUB=*/true);
      bounded &= succeeded(bound) && *bound >= 0;
      extent = bounded ? *bound : 0;
    }
    if (!bounded)
      continue;
    OpBuilder builder(alloc);
    Location loc = alloc.getLoc();
    auto staticAlloc =
        memref::AllocOp::create(builder, loc,
                                MemRefType::get(bounds, type.getElementType(),
                                                nullptr, type.getMemorySpace()),
                                alloc.getAlignmentAttr());
    // The identity layout of the dynamic shape: row-major strides over the
    // actual sizes, which fit inside the bounded allocation.
    SmallVector<OpFoldResult> sizes = alloc.getMixedSizes();
    SmallVector<OpFoldResult> strides(sizes.size());
    OpFoldResult stride = builder.getIndexAttr(1);
    for (size_t i = sizes.size(); i-- > 0;) {
      strides[i] = stride;
      if (i == 0)
        break;
      stride = affine::makeComposedFoldedAffineApply(
          builder, loc,
          builder.getAffineSymbolExpr(0) * builder.getAffineSymbolExpr(1),
          {stride, sizes[i]});
    }
    Value view = memref::ReinterpretCastOp::create(
        builder, loc, type, staticAlloc, builder.getIndexAttr(0), sizes,
        strides);
    alloc.replaceAllUsesWith(view);
    alloc.erase();
  }
}

struct BufferizePass : impl::BufferizeBase<BufferizePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Results are written straight into output bindings: empty tensors that
    // end up in a materialize_in_destination become views of the binding.
    {
      // expand_shape(empty) -> empty, so the result chain ends in an empty
      // tensor that elimination can anchor on.
      RewritePatternSet patterns(module.getContext());
      tensor::populateFoldTensorEmptyPatterns(patterns);
      if (failed(applyPatternsGreedily(module, std::move(patterns))))
        return signalPassFailure();
    }
    IRRewriter rewriter(module.getContext());
    if (failed(bufferization::eliminateEmptyTensors(rewriter, module)))
      return signalPassFailure();

    bufferization::OneShotBufferizationOptions options;
    options.bufferizeFunctionBoundaries = false;
    options.setFunctionBoundaryTypeConversion(
        bufferization::LayoutMapOption::IdentityLayoutMap);
    // Copies between strided views become linalg.copy, which lowers to
    // loops: memref.copy of such views would need a runtime library.
    options.memCpyFn = [](OpBuilder &b, Location loc, Value from,
                          Value to) -> LogicalResult {
      linalg::CopyOp::create(b, loc, from, to);
      return success();
    };
    bufferization::BufferizationState state;
    if (failed(bufferization::runOneShotBufferize(module, options, state)))
      return signalPassFailure();
    boundDynamicAllocations(module);
  }
};

} // namespace
} // namespace kiln
