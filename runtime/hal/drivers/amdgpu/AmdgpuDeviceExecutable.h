//===- AmdgpuDeviceExecutable.h - An executable on every GPU of a device --===//
//
// What createExecutable hands out: the code object loaded onto each GPU the
// device spans (AmdgpuExecutable: checked, then
// hsa_executable_load_agent_code_object and kernels found by their `.kd`
// symbols), since a kernel object address belongs to one agent. A queue of
// GPU g dispatches kernel(g, entryPoint).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AMDGPUDEVICEEXECUTABLE_H
#define KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AMDGPUDEVICEEXECUTABLE_H

#include "runtime/hal/Executable.h"
#include "runtime/hal/drivers/amdgpu/AmdgpuExecutable.h"

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace kiln::hal::amdgpu {

/// A GPU an executable is loaded onto.
struct LoadTarget {
  hsa_agent_t Agent;
  /// Its processor ("gfx942") and target id ("gfx942:sramecc+:xnack-"),
  /// which the image must be for.
  std::string Processor;
  std::string TargetId;
  uint32_t MaxLds;
};

class AmdgpuDeviceExecutable final : public Executable {
public:
  /// Loads `spec` onto each of `gpus`; the first failure, naming the GPU.
  static StatusOr<std::shared_ptr<AmdgpuDeviceExecutable>>
  load(const std::shared_ptr<const HsaSymbols> &hsa,
       std::span<const LoadTarget> gpus, const ExecutableSpec &spec);

  const AmdgpuKernel &kernel(size_t gpu, uint32_t entryPoint) const {
    return Loaded[gpu]->kernel(entryPoint);
  }

private:
  explicit AmdgpuDeviceExecutable(const ExecutableSpec &spec)
      : Executable(spec) {}

  std::vector<std::unique_ptr<AmdgpuExecutable>> Loaded;
};

} // namespace kiln::hal::amdgpu

#endif // KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AMDGPUDEVICEEXECUTABLE_H
