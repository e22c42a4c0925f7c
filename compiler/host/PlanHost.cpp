//===- PlanHost.cpp - Record host buffer plans as attributes --------------===//

#include "compiler/Passes.h"
#include "compiler/dispatch/DispatchRegions.h"
#include "compiler/host/HostPlan.h"

#include "llvm/ADT/StringExtras.h"

namespace kiln {
#define GEN_PASS_DEF_PLANHOST
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

std::string describe(const BufferSlice &slice) {
  const char *kinds[] = {"input", "output", "constant", "arena"};
  std::string s = kinds[static_cast<int>(slice.Kind)];
  if (slice.Kind == Storage::Input || slice.Kind == Storage::Output)
    s += std::to_string(slice.Index);
  return s + "[" + std::to_string(slice.Offset) + ":" +
         std::to_string(slice.Offset + slice.Length) + "]";
}

struct PlanHostPass : impl::PlanHostBase<PlanHostPass> {
  void runOnOperation() override {
    ConstantPool pool;
    Builder b(&getContext());
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (isDispatchFunc(func) || func.isExternal())
        continue;
      FailureOr<HostPlan> plan = planHostFunction(func, pool);
      if (failed(plan))
        return signalPassFailure();
      func->setAttr("kiln.arena_size", b.getI64IntegerAttr(plan->ArenaSize));
      SmallVector<Attribute> steps;
      for (const HostStep &step : plan->Steps) {
        std::string text;
        if (auto *d = std::get_if<DispatchStepPlan>(&step)) {
          text = "dispatch @" + d->EntryPoint;
          for (const BufferSlice &s : d->Bindings)
            text += " " + describe(s);
          if (!d->PushConstants.empty()) {
            text += " push";
            for (uint32_t word : d->PushConstants)
              text += " 0x" + llvm::utohexstr(word, /*LowerCase=*/true, 8);
          }
        } else if (auto *c = std::get_if<CopyStepPlan>(&step)) {
          text = "copy " + describe(c->Source) + " -> " + describe(c->Target);
        } else if (auto *f = std::get_if<FillStepPlan>(&step)) {
          text = "fill " + describe(f->Target) + " pattern " +
                 std::to_string(f->Pattern) + "/" +
                 std::to_string(f->PatternLength);
        }
        steps.push_back(b.getStringAttr(text));
      }
      func->setAttr("kiln.steps", b.getArrayAttr(steps));
      SmallVector<Attribute> dependencies;
      for (const std::vector<uint32_t> &list : plan->Dependencies)
        dependencies.push_back(b.getDenseI32ArrayAttr(
            SmallVector<int32_t>(list.begin(), list.end())));
      func->setAttr("kiln.step_dependencies", b.getArrayAttr(dependencies));
    }
  }
};

} // namespace
} // namespace kiln
