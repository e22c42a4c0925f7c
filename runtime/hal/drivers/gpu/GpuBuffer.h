//===- GpuBuffer.h - Memory a GPU addresses, maybe mapped on the host -----===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_GPU_GPUBUFFER_H
#define KILN_RUNTIME_HAL_DRIVERS_GPU_GPUBUFFER_H

#include "runtime/hal/Buffer.h"

#include <cstdint>
#include <functional>

namespace kiln::hal::gpu {

/// A buffer of a GPU driver: the address kernels and copies use, the host
/// address of host-visible memory, and how to free it.
class GpuBuffer final : public Buffer {
public:
  /// `release` frees the memory when the buffer is destroyed (only after
  /// submitted work using it is done: submissions hold their buffers).
  GpuBuffer(uint64_t size, MemoryType type, BufferUsage usage, bool readOnly,
            uint64_t deviceAddress, uint8_t *hostAddress,
            std::function<void()> release)
      : Buffer(size, type, usage, readOnly), DeviceAddress(deviceAddress),
        HostAddress(hostAddress), Release(std::move(release)) {}
  ~GpuBuffer() override;

  uint64_t deviceAddress() const { return DeviceAddress; }

protected:
  StatusOr<uint8_t *> mapImpl() override;

private:
  uint64_t DeviceAddress;
  uint8_t *HostAddress; // null unless HostVisible
  std::function<void()> Release;
};

} // namespace kiln::hal::gpu

#endif // KILN_RUNTIME_HAL_DRIVERS_GPU_GPUBUFFER_H
