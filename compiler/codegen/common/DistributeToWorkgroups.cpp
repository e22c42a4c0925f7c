//===- DistributeToWorkgroups.cpp - scf.forall to workgroup ids -----------===//

#include "compiler/Passes.h"
#include "compiler/dispatch/DispatchRegions.h"

#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace kiln {
#define GEN_PASS_DEF_DISTRIBUTETOWORKGROUPS
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

// True if `value` is (a view of) an argument of `entry`: a binding.
bool isBindingView(Value value, Block &entry) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  auto arg = dyn_cast<BlockArgument>(value);
  return arg && arg.getOwner() == &entry;
}

// True if some op of `entry` outside `forall` may write a binding. Each
// workgroup runs everything outside the workgroup loop, so such a write
// (a whole-tensor copy into an output) would run once per workgroup and
// overwrite the tiles other workgroups wrote.
bool writesBindingOutside(Block &entry, scf::ForallOp forall) {
  for (Operation &op : entry) {
    if (&op == forall.getOperation())
      continue;
    WalkResult result = op.walk([&](Operation *nested) {
      auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
      if (!effects) {
        // Ops without the interface are unknown unless their regions carry
        // their effects (walked separately) or they touch no memref.
        bool touchesMemory =
            llvm::any_of(nested->getOperandTypes(), llvm::IsaPred<MemRefType>);
        return touchesMemory &&
                       !nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>()
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      }
      SmallVector<MemoryEffects::EffectInstance> instances;
      effects.getEffects(instances);
      for (MemoryEffects::EffectInstance &instance : instances) {
        if (!isa<MemoryEffects::Write>(instance.getEffect()))
          continue;
        Value written = instance.getValue();
        if (!written || isBindingView(written, entry))
          return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return true;
  }
  return false;
}

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
    if (writesBindingOutside(entry, forall)) {
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
