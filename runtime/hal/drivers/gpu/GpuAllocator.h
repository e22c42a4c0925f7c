//===- GpuAllocator.h - Device memory and pinned host memory --------------===//
//
// DeviceLocal memory comes from a memory pool of the allocator's own in the
// order of one stream (GpuApi::allocateFromPool / freeToPool): an
// allocation after a free reuses its memory without a trip to the driver.
// Buffers are released only after every submission using them retired
// (submissions hold them), so the memory an allocation hands out is idle
// and work on any stream may use it at once; the vendors' general rule
// (other streams wait for the allocating one) matters only for a free
// issued while work might still use the buffer, which the HAL never does.
// Devices without memory pools get synchronous allocations.
//
// HostVisible: pinned host memory mapped into the GPU's address space, so
// copies and fills reach it directly. A discrete GPU has no memory that is
// both.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_GPU_GPUALLOCATOR_H
#define KILN_RUNTIME_HAL_DRIVERS_GPU_GPUALLOCATOR_H

#include "runtime/hal/Allocator.h"
#include "runtime/hal/drivers/gpu/GpuApi.h"
#include "runtime/hal/drivers/gpu/GpuBuffer.h"

#include <memory>

namespace kiln::hal::gpu {

/// Where DeviceLocal memory comes from.
enum class GpuDeviceMemory {
  /// The stream-ordered pool where the device supports memory pools
  /// (GpuApi::createPool), else allocateDevice.
  PoolWhereSupported,
  /// allocateDevice / freeDevice, as on a device without memory pools.
  Synchronous,
};

class GpuAllocator final : public Allocator {
public:
  /// `stream` orders pool allocations, frees and import copies (the
  /// device's first queue's). A pool that cannot be created makes every
  /// DeviceLocal allocation fail with the reason.
  GpuAllocator(std::shared_ptr<GpuApi> api,
               std::shared_ptr<GpuStreamObject> stream, uint64_t deviceBytes,
               GpuDeviceMemory memory = GpuDeviceMemory::PoolWhereSupported);

  bool supportsMemoryType(MemoryType type) const override;

  /// The pool DeviceLocal memory comes from; null when it is
  /// allocateDevice.
  GpuPoolHandle memoryPool() const { return Pool.get(); }

protected:
  StatusOr<std::shared_ptr<Buffer>> allocateImpl(uint64_t size, MemoryType type,
                                                 BufferUsage usage) override;
  /// Copies `data` into new memory: the GPU cannot address pageable host
  /// memory.
  StatusOr<std::shared_ptr<Buffer>>
  importHostMemoryImpl(std::span<const uint8_t> data, BufferUsage usage,
                       std::shared_ptr<const void> keepAlive) override;

private:
  // Sets Pool, or leaves it null where the device has no memory pools.
  Status createPool();
  // `bytes` of DeviceLocal memory and how to free it.
  StatusOr<std::shared_ptr<GpuBuffer>>
  createDeviceLocal(uint64_t size, BufferUsage usage, bool readOnly);
  // New memory holding `initial` (when not empty) at its start.
  StatusOr<std::shared_ptr<GpuBuffer>> create(uint64_t size, MemoryType type,
                                              BufferUsage usage, bool readOnly,
                                              std::span<const uint8_t> initial);

  std::shared_ptr<GpuApi> Api;
  std::shared_ptr<GpuStreamObject> Stream;
  uint64_t DeviceBytes;
  std::shared_ptr<GpuPoolObject> Pool;
  Status PoolStatus;
};

} // namespace kiln::hal::gpu

#endif // KILN_RUNTIME_HAL_DRIVERS_GPU_GPUALLOCATOR_H
