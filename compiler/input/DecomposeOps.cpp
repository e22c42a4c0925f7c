//===- DecomposeOps.cpp - Aggregate ops into linalg/tensor ----------------===//
//
// Aggregates such as linalg.softmax have no tiled or vectorized form of their
// own; decomposing them early lets elementwise fusion and dispatch formation
// treat their parts like any other op.
//
//===----------------------------------------------------------------------===//

#include "compiler/Passes.h"

namespace kiln {
#define GEN_PASS_DEF_DECOMPOSEOPS
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

struct DecomposeOpsPass : impl::DecomposeOpsBase<DecomposeOpsPass> {
  void runOnOperation() override {
    SmallVector<linalg::AggregatedOpInterface> aggregates;
    getOperation().walk(
        [&](linalg::AggregatedOpInterface op) { aggregates.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::AggregatedOpInterface op : aggregates) {
      rewriter.setInsertionPoint(op);
      FailureOr<SmallVector<Value>> results = op.decomposeOperation(rewriter);
      if (failed(results)) {
        op->emitError() << "cannot decompose '" << op->getName() << "'";
        return signalPassFailure();
      }
      rewriter.replaceOp(op, *results);
    }
  }
};

} // namespace
} // namespace kiln
