//===- Distribution.cpp - What distributing a dispatch must respect -------===//

#include "compiler/codegen/common/Distribution.h"

#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

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

} // namespace

bool writesBindingOutside(Block &entry, ArrayRef<Operation *> loops) {
  for (Operation &op : entry) {
    WalkResult result = op.walk<WalkOrder::PreOrder>([&](Operation *nested) {
      if (llvm::is_contained(loops, nested))
        return WalkResult::skip();
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

} // namespace kiln
