//===- GpuExecutable.h - A loaded GPU module and its kernels --------------===//
//
// Kernel parameters are one device pointer per binding (base address plus
// the binding's offset), then one 32-bit value per push constant. Which
// formats and targets a device runs is the driver's to say; this checks
// each entry point against the device's and the kernel's limits.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_GPU_GPUEXECUTABLE_H
#define KILN_RUNTIME_HAL_DRIVERS_GPU_GPUEXECUTABLE_H

#include "runtime/hal/Executable.h"
#include "runtime/hal/drivers/gpu/GpuApi.h"

#include <array>
#include <memory>
#include <vector>

namespace kiln::hal::gpu {

/// What a device allows a kernel, read once when the device is opened.
struct GpuDeviceLimits {
  std::array<uint64_t, 3> MaxBlockDim = {};
  std::array<uint64_t, 3> MaxGridDim = {};
  /// Shared memory one block may use (once its kernel opts in, where the
  /// vendor asks kernels to).
  uint64_t MaxSharedMemory = 0;
};

class GpuExecutable final : public Executable {
public:
  /// Loads `spec.Image` (the driver checked its format and target) and
  /// looks up every entry point; checks each one's workgroup size and
  /// shared memory against the device's and the kernel's limits, and lets
  /// it use the dynamic shared memory it declares.
  static StatusOr<std::shared_ptr<GpuExecutable>>
  load(std::shared_ptr<GpuApi> api, const GpuDeviceLimits &limits,
       const ExecutableSpec &spec);
  ~GpuExecutable() override;

  GpuFunctionHandle function(uint32_t entryPoint) const {
    return Functions[entryPoint];
  }

private:
  GpuExecutable(const ExecutableSpec &spec, std::shared_ptr<GpuApi> api,
                GpuModuleHandle module)
      : Executable(spec), Api(std::move(api)), Module(module) {}

  std::shared_ptr<GpuApi> Api;
  GpuModuleHandle Module;
  std::vector<GpuFunctionHandle> Functions;
};

} // namespace kiln::hal::gpu

#endif // KILN_RUNTIME_HAL_DRIVERS_GPU_GPUEXECUTABLE_H
