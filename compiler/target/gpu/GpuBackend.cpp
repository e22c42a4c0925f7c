//===- GpuBackend.cpp -----------------------------------------------------===//

#include "compiler/target/gpu/GpuBackend.h"
#include "compiler/codegen/gpu/GpuCodegen.h"

using namespace mlir;

namespace kiln {

void GpuBackend::buildCodegenPipeline(OpPassManager &pm) const {
  buildGpuCodegenPipeline(pm, Target, Codegen);
}

bool GpuBackend::fusesAttention() const { return hasAttentionKernel(Target); }

// The pipelined GEMM kernels (cp.async) take dynamic rows; without them a
// dynamic convolution goes to the generic kernel.
bool GpuBackend::fusesDynamicInputPads() const { return Target.AsyncCopy; }

FailureOr<gpu::GPUModuleOp> GpuBackend::kernelModule(ModuleOp lowered) {
  if (auto kernels = lowered.lookupSymbol<gpu::GPUModuleOp>(kGpuKernelModule))
    return kernels;
  return lowered.emitError("code generation produced no kernels");
}

FailureOr<EntryPointInfo> GpuBackend::entryPoint(ModuleOp lowered,
                                                 StringRef name) const {
  auto kernels = lowered.lookupSymbol<gpu::GPUModuleOp>(kGpuKernelModule);
  auto kernel = kernels ? kernels.lookupSymbol<gpu::GPUFuncOp>(name) : nullptr;
  if (!kernel)
    return lowered.emitError("dispatch ") << name << " has no kernel";
  return readEntryPointInfo(kernel, name);
}

GpuCodegenOptions gpuCodegenOptions(const CompileOptions &options) {
  return GpuCodegenOptions{/*AllowTf32=*/options.Precision ==
                           CompileOptions::PrecisionMode::TF32};
}

} // namespace kiln
