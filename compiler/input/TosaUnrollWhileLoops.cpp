//===- TosaUnrollWhileLoops.cpp - Counted tosa.while_loop unrolled --------===//
//
// A loop whose trip count is known only per call runs as the runtime's loop
// (kiln-tosa-outline-control-flow), a submission and a read-back per step,
// so a loop whose condition
// depends only on values the compiler can follow from constants (a counter
// stepped by a constant against a constant limit: the common counted loop)
// has a trip count known at compile time, so its body is written out that
// many times, as the ONNX importer does for Loop with a constant trip count.
//
//===----------------------------------------------------------------------===//

#include "compiler/input/TosaUnrollWhileLoops.h"
#include "compiler/Passes.h"
#include "compiler/input/RegionInlining.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_TOSAUNROLLWHILELOOPS
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

// Constants of a region's values, folded as the region runs once from
// `arguments` (null where unknown); the yield's operands' constants, or
// nullopt where an op has regions of its own or effects.
std::optional<SmallVector<Attribute>>
foldRegion(Region &region, ArrayRef<Attribute> arguments) {
  Block &block = region.front();
  llvm::DenseMap<Value, Attribute> known;
  for (auto [arg, value] : llvm::zip(block.getArguments(), arguments))
    if (value)
      known[arg] = value;
  auto constantOf = [&](Value v) -> Attribute {
    if (Attribute a = known.lookup(v))
      return a;
    Attribute a;
    if (matchPattern(v, m_Constant(&a)))
      return a;
    return nullptr;
  };
  for (Operation &op : block.without_terminator()) {
    if (op.getNumRegions() != 0)
      return std::nullopt;
    SmallVector<Attribute> operands;
    for (Value v : op.getOperands())
      operands.push_back(constantOf(v));
    if (llvm::any_of(operands, [](Attribute a) { return !a; }))
      continue;
    SmallVector<OpFoldResult> results;
    if (failed(op.fold(operands, results)) || results.empty())
      continue;
    for (auto [result, folded] : llvm::zip(op.getResults(), results)) {
      if (auto attr = dyn_cast<Attribute>(folded))
        known[result] = attr;
      else if (Attribute a = constantOf(cast<Value>(folded)))
        known[result] = a;
    }
  }
  SmallVector<Attribute> yielded;
  for (Value v : block.getTerminator()->getOperands())
    yielded.push_back(constantOf(v));
  return yielded;
}

// Whether `attr` is a one-element boolean tensor constant, and its value.
std::optional<bool> boolOf(Attribute attr) {
  auto elements = dyn_cast_or_null<DenseIntElementsAttr>(attr);
  if (!elements || elements.getNumElements() != 1 ||
      !elements.getElementType().isInteger(1))
    return std::nullopt;
  return !elements.getSplatValue<APInt>().isZero();
}

struct UnrollWhileLoop : OpRewritePattern<tosa::WhileOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tosa::WhileOp loop,
                                PatternRewriter &rewriter) const override {
    std::optional<int64_t> steps =
        countWhileLoopSteps(loop, kMaxUnrolledWhileSteps);
    if (!steps)
      return rewriter.notifyMatchFailure(loop, "no constant trip count");
    SmallVector<Value> values(loop.getInputList());
    for (int64_t step = 0; step < *steps; ++step) {
      IRMapping map;
      values = inlineRegion(rewriter, loop.getBodyGraph(), values, map);
    }
    // A step may yield a more refined type than the loop's result.
    for (auto [value, type] : llvm::zip(values, loop.getResultTypes()))
      if (value.getType() != type)
        value = tensor::CastOp::create(rewriter, loop.getLoc(), type, value);
    rewriter.replaceOp(loop, values);
    return success();
  }
};

struct TosaUnrollWhileLoopsPass
    : impl::TosaUnrollWhileLoopsBase<TosaUnrollWhileLoopsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateTosaUnrollWhileLoopsPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

std::optional<int64_t> countWhileLoopSteps(tosa::WhileOp loop,
                                           int64_t maxSteps) {
  SmallVector<Attribute> state;
  for (Value v : loop.getInputList()) {
    Attribute a;
    state.push_back(matchPattern(v, m_Constant(&a)) ? a : Attribute());
  }
  for (int64_t steps = 0; steps <= maxSteps; ++steps) {
    std::optional<SmallVector<Attribute>> cond =
        foldRegion(loop.getCondGraph(), state);
    if (!cond || cond->size() != 1)
      return std::nullopt;
    std::optional<bool> holds = boolOf(cond->front());
    if (!holds)
      return std::nullopt;
    if (!*holds)
      return steps;
    std::optional<SmallVector<Attribute>> next =
        foldRegion(loop.getBodyGraph(), state);
    if (!next)
      return std::nullopt;
    state = std::move(*next);
  }
  return std::nullopt;
}

void populateTosaUnrollWhileLoopsPatterns(RewritePatternSet &patterns) {
  patterns.add<UnrollWhileLoop>(patterns.getContext());
}

} // namespace kiln
