//===- TosaCondIfToSelect.cpp - tosa.cond_if as both branches -------------===//
//
// A condition known per call would have the host pick which steps run; Kiln's
// plans have no conditional steps, so both branches run and every result is
// selected elementwise by the condition, which the select's kernel reads as
// data (as the ONNX importer does for If). That is right for branches without
// side effects (a branch computes values only), and costs the branch not
// taken. Results of dynamic shape could differ between the branches in
// extent, which a select cannot cover: those, and branches with side
// effects (tosa.variable_write), are refused with a diagnostic.
//
//===----------------------------------------------------------------------===//

#include "compiler/input/TosaCondIfToSelect.h"
#include "compiler/Passes.h"
#include "compiler/input/RegionInlining.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_TOSACONDIFTOSELECT
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

// Whether every op of `region` (nested ones included) is free of memory
// effects, so running it whether or not its branch is taken changes
// nothing but time.
bool effectFree(Region &region) {
  WalkResult walk = region.walk([](Operation *op) {
    if (isa<tosa::YieldOp>(op) || isMemoryEffectFree(op))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !walk.wasInterrupted();
}

struct CondIfToSelect : OpRewritePattern<tosa::IfOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tosa::IfOp op,
                                PatternRewriter &rewriter) const override {
    for (Type t : op.getResultTypes()) {
      auto type = dyn_cast<RankedTensorType>(t);
      if (!type || !type.hasStaticShape())
        return rewriter.notifyMatchFailure(op, "a result of dynamic shape");
    }
    if (!effectFree(op.getThenGraph()) || !effectFree(op.getElseGraph()))
      return rewriter.notifyMatchFailure(op, "a branch with side effects");
    auto condType = cast<RankedTensorType>(op.getCondition().getType());
    if (!condType.hasStaticShape() || condType.getNumElements() != 1)
      return rewriter.notifyMatchFailure(op, "a condition of many elements");
    Location loc = op.getLoc();
    IRMapping thenMap, elseMap;
    SmallVector<Value> thenValues =
        inlineRegion(rewriter, op.getThenGraph(), op.getInputList(), thenMap);
    SmallVector<Value> elseValues =
        inlineRegion(rewriter, op.getElseGraph(), op.getInputList(), elseMap);
    // The condition read by every element: viewed as 0-d.
    Value cond = op.getCondition();
    if (condType.getRank() > 0)
      cond = tensor::CollapseShapeOp::create(
          rewriter, loc, RankedTensorType::get({}, condType.getElementType()),
          cond, SmallVector<ReassociationIndices>{});
    SmallVector<Value> results;
    for (auto [type, a, b] :
         llvm::zip(op.getResultTypes(), thenValues, elseValues)) {
      auto result = cast<RankedTensorType>(type);
      int64_t rank = result.getRank();
      // A branch may yield a more refined type than the result's.
      auto asResult = [&](Value v) -> Value {
        return v.getType() == result
                   ? v
                   : Value(tensor::CastOp::create(rewriter, loc, result, v));
      };
      Value init = tensor::EmptyOp::create(rewriter, loc, result.getShape(),
                                           result.getElementType());
      AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
      AffineMap none = AffineMap::get(rank, 0, rewriter.getContext());
      results.push_back(
          linalg::GenericOp::create(
              rewriter, loc, result, ValueRange{cond, asResult(a), asResult(b)},
              ValueRange{init},
              ArrayRef<AffineMap>{none, identity, identity, identity},
              SmallVector<utils::IteratorType>(rank,
                                               utils::IteratorType::parallel),
              [](OpBuilder &nb, Location l, ValueRange args) {
                linalg::YieldOp::create(nb, l,
                                        Value(arith::SelectOp::create(
                                            nb, l, args[0], args[1], args[2])));
              })
              .getResult(0));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct TosaCondIfToSelectPass
    : impl::TosaCondIfToSelectBase<TosaCondIfToSelectPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateTosaCondIfToSelectPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // What the pattern left: said where, with why.
    WalkResult left = getOperation().walk([](tosa::IfOp op) {
      op.emitError("tosa.cond_if: Kiln runs both branches and selects each "
                   "result, which needs results of static shape and "
                   "branches without side effects (an if of results of "
                   "dynamic shape at the top of a function runs only the "
                   "branch taken)");
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

void populateTosaCondIfToSelectPatterns(RewritePatternSet &patterns) {
  patterns.add<CondIfToSelect>(patterns.getContext());
}

} // namespace kiln
