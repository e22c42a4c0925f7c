//===- DistributeToWorkgroups.cpp - scf.forall to workgroup ids -----------===//

#include "compiler/Passes.h"
#include "compiler/codegen/common/Distribution.h"
#include "compiler/dispatch/DispatchRegions.h"

#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"

namespace kiln {
#define GEN_PASS_DEF_DISTRIBUTETOWORKGROUPS
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

LogicalResult distribute(func::FuncOp func) {
  Block &entry = func.getBody().front();
  MLIRContext *ctx = func.getContext();
  IndexType indexType = IndexType::get(ctx);
  Value wgX = entry.addArgument(indexType, func.getLoc());
  entry.addArgument(indexType, func.getLoc());
  entry.addArgument(indexType, func.getLoc());
  SmallVector<Type> argTypes(entry.getArgumentTypes());
  func.setType(FunctionType::get(ctx, argTypes, {}));

  SmallVector<scf::ForallOp> foralls;
  for (auto forall : entry.getOps<scf::ForallOp>())
    foralls.push_back(forall);
  int64_t total = 1;
  if (foralls.size() > 1)
    return func.emitError("expected at most one workgroup loop, found ")
           << foralls.size();
  if (foralls.size() == 1) {
    scf::ForallOp forall = foralls.front();
    if (forall.getNumResults() != 0)
      return forall.emitError("workgroup loop still has tensor results");
    if (writesBindingOutside(entry, {forall.getOperation()})) {
      // Correct before parallel: one workgroup runs the tiles in sequence.
      IRRewriter rewriter(ctx);
      rewriter.setInsertionPoint(forall);
      if (failed(scf::forallToForLoop(rewriter, forall)))
        return forall.emitError("cannot sequentialize the workgroup loop");
      foralls.clear();
    }
  }
  if (foralls.size() == 1) {
    scf::ForallOp forall = foralls.front();
    SmallVector<int64_t> lbs(forall.getStaticLowerBound());
    SmallVector<int64_t> ubs(forall.getStaticUpperBound());
    SmallVector<int64_t> steps(forall.getStaticStep());
    if (llvm::any_of(llvm::concat<int64_t>(lbs, ubs, steps),
                     ShapedType::isDynamic))
      return forall.emitError("workgroup loop bounds must be static");
    SmallVector<int64_t> counts;
    for (auto [lb, ub, step] : llvm::zip(lbs, ubs, steps)) {
      counts.push_back(llvm::divideCeil(ub - lb, step));
      total *= counts.back();
    }
    if (total > std::numeric_limits<uint32_t>::max())
      return forall.emitError("too many workgroups: ") << total;

    OpBuilder builder(forall);
    Location loc = forall.getLoc();
    auto ids = affine::AffineDelinearizeIndexOp::create(
        builder, loc, wgX, ArrayRef<int64_t>(counts), /*hasOuterBound=*/true);
    IRMapping mapping;
    for (auto [iv, id, lb, step] :
         llvm::zip(forall.getInductionVars(), ids.getResults(), lbs, steps)) {
      Value scaled = arith::MulIOp::create(
          builder, loc, id, arith::ConstantIndexOp::create(builder, loc, step));
      Value offset = arith::AddIOp::create(
          builder, loc, scaled,
          arith::ConstantIndexOp::create(builder, loc, lb));
      mapping.map(iv, offset);
    }
    for (Operation &op : forall.getBody()->without_terminator())
      builder.clone(op, mapping);
    forall.erase();
  }
  Builder b(ctx);
  func->setAttr(kWorkgroupCountAttr, b.getDenseI64ArrayAttr({total, 1, 1}));
  return success();
}

struct DistributeToWorkgroupsPass
    : impl::DistributeToWorkgroupsBase<DistributeToWorkgroupsPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (isDispatchFunc(func) && failed(distribute(func)))
        return signalPassFailure();
  }
};

} // namespace
} // namespace kiln
