//===- GpuBuffer.h - Memory a GPU addresses, maybe mapped on the host -----===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_GPU_GPUBUFFER_H
#define KILN_RUNTIME_HAL_DRIVERS_GPU_GPUBUFFER_H

#include "runtime/hal/Buffer.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

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

/// Each binding-table slot's device address (0 for an empty slot), as a
/// submission resolves them; InvalidArgument naming `vendor` ("CUDA") for
/// a buffer another driver allocated.
StatusOr<std::vector<uint64_t>>
gpuSlotAddresses(std::span<const std::shared_ptr<Buffer>> bindingTable,
                 std::string_view vendor);

} // namespace kiln::hal::gpu

#endif // KILN_RUNTIME_HAL_DRIVERS_GPU_GPUBUFFER_H
