//===- AmdgpuDeviceExecutable.cpp -----------------------------------------===//

#include "runtime/hal/drivers/amdgpu/AmdgpuDeviceExecutable.h"

namespace kiln::hal::amdgpu {

StatusOr<std::shared_ptr<AmdgpuDeviceExecutable>>
AmdgpuDeviceExecutable::load(const std::shared_ptr<const HsaSymbols> &hsa,
                             std::span<const LoadTarget> gpus,
                             const ExecutableSpec &spec) {
  std::shared_ptr<AmdgpuDeviceExecutable> executable(
      new AmdgpuDeviceExecutable(spec));
  for (size_t index = 0; index < gpus.size(); ++index) {
    const LoadTarget &gpu = gpus[index];
    StatusOr<std::unique_ptr<AmdgpuExecutable>> loaded =
        AmdgpuExecutable::load(hsa, gpu.Agent, gpu.TargetId, gpu.MaxLds, spec);
    if (!loaded.ok()) {
      Status status = loaded.status();
      // Only a device of several GPUs needs to say which one.
      if (gpus.size() > 1)
        status.annotate(strCat("GPU ", index, " (", gpu.Processor, ")"));
      return status;
    }
    executable->Loaded.push_back(std::move(loaded).value());
  }
  return executable;
}

} // namespace kiln::hal::amdgpu
