//===- RocmBackend.cpp - --target-device=hip (rocm, amdgpu) ---------------===//

#include "compiler/target/ChipTable.h"
#include "compiler/target/gpu/DeviceLibraryCalls.h"
#include "compiler/target/gpu/GpuBackend.h"
#include "compiler/target/rocm/CodeObject.h"
#include "compiler/target/rocm/HipTarget.h"

#include "mlir/Conversion/GPUToROCDL/GPUToROCDLPass.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"

using namespace mlir;

namespace kiln {
namespace {

class RocmBackend final : public GpuBackend {
public:
  RocmBackend(HipTarget target, std::string bitcodeDir,
              GpuCodegenOptions codegen)
      : GpuBackend(target.gpuTarget(), codegen), Target(target),
        BitcodeDir(std::move(bitcodeDir)) {}

  StringRef name() const override { return "hip"; }

  FailureOr<std::vector<ExecutableVariantInfo>>
  serialize(ModuleOp lowered) const override {
    FailureOr<gpu::GPUModuleOp> kernels = kernelModule(lowered);
    if (failed(kernels) || failed(lowerKernelMath(lowered, kOcmlNames)) ||
        failed(lowerToRocdl(lowered)))
      return failure();
    FailureOr<std::vector<uint8_t>> image =
        buildAmdgpuCodeObject(*kernels, Target, BitcodeDir);
    if (failed(image))
      return failure();
    // The format and target the hip and amdgpu drivers accept: a code
    // object for exactly this architecture.
    ExecutableVariantInfo variant;
    variant.Format = "amdgpu-hsaco";
    variant.Target = Target.Chip.str();
    variant.Image = std::move(*image);
    return std::vector<ExecutableVariantInfo>{std::move(variant)};
  }

private:
  // The kernels to the LLVM and ROCDL dialects, through upstream's
  // convert-gpu-to-rocdl (which also lowers arith, math, memref, vector and
  // cf in them, math it has no instruction for as ocml calls).
  LogicalResult lowerToRocdl(ModuleOp lowered) const {
    PassManager pm(lowered.getContext());
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
    kernels.addPass(createConvertVectorToLLVMPass());
    kernels.addPass(createSCFToControlFlowPass());
    kernels.addPass(memref::createExpandStridedMetadataPass());
    kernels.addPass(createLowerAffinePass());
    ConvertGpuOpsToROCDLOpsOptions options;
    options.chipset = Target.Chip.str();
    options.indexBitwidth = 64;
    // One pointer per binding, which is what the runtime passes.
    options.useBarePtrCallConv = true;
    options.runtime = gpu::amd::Runtime::HIP;
    kernels.addPass(createConvertGpuOpsToROCDLOps(options));
    kernels.addPass(createReconcileUnrealizedCastsPass());
    return pm.run(lowered);
  }

  HipTarget Target;
  std::string BitcodeDir;
};

} // namespace

FailureOr<std::unique_ptr<TargetBackend>>
createRocmBackend(Location loc, const CompileOptions &options) {
  std::optional<HipTarget> target = resolveHipTarget(options.HipTarget);
  if (!target)
    return emitError(loc) << unknownChipMessage("hip-target", options.HipTarget,
                                                knownHipTargetNames());
  return std::unique_ptr<TargetBackend>(std::make_unique<RocmBackend>(
      *target, options.HipBitcodeDir, gpuCodegenOptions(options)));
}

} // namespace kiln
