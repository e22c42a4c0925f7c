//===- HipDevice.h - One AMD GPU: the shared GPU device over HIP ----------===//
//
// Queues, semaphores, memory and command buffers are the shared GPU layer's
// (GpuDevice.h, which also describes the device URI parameters), over the
// GPU's HipApi. What is HIP's own: semaphores live on the GPU where it can
// wait on stream values (hipDeviceAttributeCanUseStreamWaitValue), and the
// executables it runs: hsaco for its processor (AmdTarget.h).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_HIP_HIPDEVICE_H
#define KILN_RUNTIME_HAL_DRIVERS_HIP_HIPDEVICE_H

#include "runtime/hal/drivers/gpu/GpuDevice.h"
#include "runtime/hal/drivers/hip/HipApi.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln::hal::hip {

/// What a HIP device allows a kernel, read once when it is opened.
struct HipDeviceLimits {
  gpu::GpuDeviceLimits Kernel;

  static StatusOr<HipDeviceLimits> query(const HipSymbols &symbols,
                                         int ordinal);
};

class HipDevice final : public gpu::GpuDevice {
public:
  /// `archName` is the GPU's target id ("gfx90a:sramecc+:xnack-").
  static StatusOr<std::shared_ptr<HipDevice>>
  create(std::shared_ptr<HipContext> context, DeviceInfo info,
         std::string archName, uint64_t deviceBytes,
         gpu::GpuDeviceOptions options);

  std::vector<UnsupportedFeature> unsupportedFeatures() const override;
  bool supportsExecutable(std::string_view format,
                          std::string_view target) const override;

private:
  std::string chipDescription() const override;
  HipDevice(std::shared_ptr<HipApi> api, DeviceInfo info,
            HipDeviceLimits limits, std::string archName, uint64_t deviceBytes,
            gpu::GpuCommandBufferKind commandBufferKind, bool deviceSemaphores,
            std::vector<std::unique_ptr<gpu::GpuQueue>> queues)
      : GpuDevice(std::move(api), std::move(info), limits.Kernel, deviceBytes,
                  commandBufferKind, deviceSemaphores, std::move(queues)),
        ArchName(std::move(archName)) {}

  std::string ArchName;
};

} // namespace kiln::hal::hip

#endif // KILN_RUNTIME_HAL_DRIVERS_HIP_HIPDEVICE_H
