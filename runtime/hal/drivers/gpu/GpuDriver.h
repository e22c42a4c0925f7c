//===- GpuDriver.h - What GPU drivers share: listing and opening GPUs -----===//
//
// A vendor driver (cuda, hip) says how many GPUs there are, describes one
// by ordinal and opens one; this turns that into the HAL's enumeration and
// device URIs (`driver`, `driver:N`, `driver://GPU-<uuid>`, GpuDeviceChoice.h)
// with the shared device parameters (GpuDevice.h).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_GPU_GPUDRIVER_H
#define KILN_RUNTIME_HAL_DRIVERS_GPU_GPUDRIVER_H

#include "runtime/hal/Driver.h"
#include "runtime/hal/drivers/gpu/GpuDevice.h"

namespace kiln::hal::gpu {

class GpuDriver : public Driver {
public:
  StatusOr<std::vector<DeviceInfo>> enumerateDevices() final;
  StatusOr<std::shared_ptr<Device>> createDevice(const DeviceUri &uri) final;
  /// Graph command buffers are the default; stream ones run every command
  /// through other vendor calls, so the suite runs once more with them.
  std::vector<std::string> conformanceVariants() const override {
    return {"command_buffers=stream"};
  }

protected:
  /// "CUDA", for messages.
  virtual std::string_view vendor() const = 0;
  /// The GPUs present; starts the vendor library the first time, and fails
  /// as availability() does where it cannot.
  virtual StatusOr<int> deviceCount() = 0;
  /// GPU `ordinal` (< deviceCount()); its Uri selects exactly it.
  virtual StatusOr<DeviceInfo> describeDevice(int ordinal) = 0;
  virtual StatusOr<std::shared_ptr<Device>>
  openDevice(int ordinal, const GpuDeviceOptions &options) = 0;
};

} // namespace kiln::hal::gpu

#endif // KILN_RUNTIME_HAL_DRIVERS_GPU_GPUDRIVER_H
