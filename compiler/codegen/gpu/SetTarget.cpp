//===- SetTarget.cpp - kiln-gpu-set-target --------------------------------===//

#include "compiler/Passes.h"
#include "compiler/codegen/gpu/GpuPipeline.h"

#include "mlir/AsmParser/AsmParser.h"
#include "llvm/ADT/StringExtras.h"

namespace kiln {
#define GEN_PASS_DEF_GPUSETTARGET
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

struct GpuSetTargetPass : impl::GpuSetTargetBase<GpuSetTargetPass> {
  using Base::Base;
  explicit GpuSetTargetPass(const GpuTarget &target) : Preset(target) {}

  void runOnOperation() override {
    ModuleOp module = getOperation();
    DictionaryAttr attr;
    if (Preset) {
      attr = Preset->toAttr(&getContext());
    } else if (!Chip.empty()) {
      std::optional<GpuTarget> target = resolveGpuTarget(Chip);
      if (!target) {
        module.emitError("kiln-gpu-set-target: no GPU target table knows '")
            << Chip << "'; known: " << llvm::join(knownGpuTargetNames(), ", ");
        return signalPassFailure();
      }
      attr = target->toAttr(&getContext());
    } else {
      if (TargetText.empty()) {
        module.emitError("kiln-gpu-set-target needs chip=<name> or "
                         "target=<dictionary>");
        return signalPassFailure();
      }
      // The pass-option parser takes the braces of `target={...}` as its
      // own grouping and passes the entries alone.
      std::string text = TargetText;
      if (!StringRef(text).trim().starts_with("{"))
        text = "{" + text + "}";
      attr =
          dyn_cast_or_null<DictionaryAttr>(parseAttribute(text, &getContext()));
      if (!attr) {
        module.emitError("kiln-gpu-set-target: target is not a dictionary "
                         "attribute: ")
            << TargetText;
        return signalPassFailure();
      }
    }
    // Checked here, once, rather than by the first pass that reads it.
    if (failed(GpuTarget::fromAttr(attr, module)))
      return signalPassFailure();
    module->setAttr(kGpuTargetAttr, attr);
  }

  std::optional<GpuTarget> Preset;
};

} // namespace

std::unique_ptr<Pass> createGpuSetTarget(const GpuTarget &target) {
  return std::make_unique<GpuSetTargetPass>(target);
}

} // namespace kiln
