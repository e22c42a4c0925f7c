//===- CpuBackend.cpp - --target-device=cpu -------------------------------===//

#include "compiler/Passes.h"
#include "compiler/target/TargetBackend.h"
#include "compiler/target/cpu/CpuTarget.h"

#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace kiln {
namespace {

class CpuBackend final : public TargetBackend {
public:
  explicit CpuBackend(StringRef cpuTarget)
      : Target(resolveCpuTarget(cpuTarget)) {}

  StringRef name() const override { return "cpu"; }

  void buildCodegenPipeline(OpPassManager &pm) const override {
    pm.addPass(createBindDispatch());
    pm.addPass(createMaterializeInits());
    pm.addNestedPass<func::FuncOp>(createCpuTileAndVectorize());
    pm.addPass(createBufferize());
    pm.addPass(createCanonicalizerPass());
    pm.addNestedPass<func::FuncOp>(
        bufferization::createPromoteBuffersToStackPass());
    // Whatever stays on the heap is freed before the workgroup returns.
    bufferization::buildBufferDeallocationPipeline(pm);
    pm.addPass(createDistributeToWorkgroups());
    pm.addPass(createCpuLowerToLLVM());
  }

  FailureOr<EntryPointInfo> entryPoint(ModuleOp lowered,
                                       StringRef name) const override {
    auto entry = lowered.lookupSymbol<LLVM::LLVMFuncOp>(name);
    if (!entry)
      return lowered.emitError("dispatch ") << name << " has no entry point";
    return readEntryPointInfo(entry, name);
  }

  FailureOr<std::vector<ExecutableVariantInfo>>
  serialize(ModuleOp lowered) const override {
    FailureOr<std::vector<uint8_t>> image =
        buildCpuSharedObject(lowered, Target);
    if (failed(image))
      return failure();
    ExecutableVariantInfo variant;
    variant.Format = "cpu-elf-x86_64";
    variant.Target = Target;
    variant.Image = std::move(*image);
    return std::vector<ExecutableVariantInfo>{std::move(variant)};
  }

private:
  std::string Target;
};

} // namespace

FailureOr<std::unique_ptr<TargetBackend>>
createCpuBackend(Location, const CompileOptions &options) {
  return std::unique_ptr<TargetBackend>(
      std::make_unique<CpuBackend>(options.CpuTarget));
}

} // namespace kiln
