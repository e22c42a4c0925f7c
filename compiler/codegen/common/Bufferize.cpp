//===- Bufferize.cpp - One-shot bufferization of dispatches ---------------===//

#include "compiler/Passes.h"

#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_BUFFERIZE
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

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
  }
};

} // namespace
} // namespace kiln
