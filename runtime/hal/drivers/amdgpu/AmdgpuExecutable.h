//===- AmdgpuExecutable.h - A code object loaded onto one GPU through HSA -===//
//
// The image is checked first (amd::readCodeObject against the GPU's target
// id, then planKernels), so HSA's loader only sees code objects that fit
// their entry points. Then: a code object reader over the image, an
// executable, hsa_executable_load_agent_code_object for the GPU, freeze,
// and each entry point's kernel found by its `.kd` symbol, whose kernel
// object address is what dispatch packets carry. An amdgpu device spanning
// several GPUs loads one per GPU.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AMDGPUEXECUTABLE_H
#define KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AMDGPUEXECUTABLE_H

#include "runtime/hal/drivers/amdgpu/HsaSymbols.h"
#include "runtime/hal/drivers/amdgpu/KernelPlan.h"

#include <memory>
#include <string_view>
#include <vector>

namespace kiln::hal::amdgpu {

/// An entry point ready to dispatch on the GPU it was loaded for.
struct AmdgpuKernel {
  /// HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT: the descriptor's address.
  uint64_t KernelObject = 0;
  KernelPlan Plan;
};

class AmdgpuExecutable {
public:
  /// `targetId` is the agent's ("gfx942:sramecc+:xnack-"), `maxLds` its
  /// LDS per workgroup. InvalidArgument or FailedPrecondition for an image
  /// that does not fit, before HSA is called; HSA's own errors after.
  static StatusOr<std::unique_ptr<AmdgpuExecutable>>
  load(std::shared_ptr<const HsaSymbols> hsa, hsa_agent_t agent,
       std::string_view targetId, uint32_t maxLds, const ExecutableSpec &spec);
  ~AmdgpuExecutable();
  AmdgpuExecutable(const AmdgpuExecutable &) = delete;
  AmdgpuExecutable &operator=(const AmdgpuExecutable &) = delete;

  const AmdgpuKernel &kernel(uint32_t entryPoint) const {
    return Kernels[entryPoint];
  }

private:
  explicit AmdgpuExecutable(std::shared_ptr<const HsaSymbols> hsa)
      : Hsa(std::move(hsa)) {}

  std::shared_ptr<const HsaSymbols> Hsa;
  // Handles are 0 until created (the reader again once loading is done);
  // the destructor releases those that are not.
  hsa_code_object_reader_t Reader = {0};
  hsa_executable_t Executable = {0};
  std::vector<AmdgpuKernel> Kernels;
};

} // namespace kiln::hal::amdgpu

#endif // KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AMDGPUEXECUTABLE_H
