//===- CudaAllocator.h - Device memory and pinned host memory -------------===//
//
// DeviceLocal memory comes from a memory pool of the allocator's own in the
// order of one stream (cuMemAllocFromPoolAsync / cuMemFreeAsync): an
// allocation after a free reuses its memory without a trip to the driver.
// Buffers are released only after every submission using them retired
// (submissions hold them), so the memory an allocation hands out is idle
// and work on any stream may use it at once; CUDA's general rule (other
// streams wait for the allocating one) matters only for a free issued
// while work might still use the buffer, which the HAL never does. Devices
// without memory pools get cuMemAlloc / cuMemFree.
//
// HostVisible: pinned host memory mapped into the GPU's address space
// (cuMemHostAlloc), so copies and fills reach it directly. A discrete GPU
// has no memory that is both.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDAALLOCATOR_H
#define KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDAALLOCATOR_H

#include "runtime/hal/Allocator.h"
#include "runtime/hal/drivers/cuda/CudaContext.h"
#include "runtime/hal/drivers/gpu/GpuBuffer.h"

#include <memory>

namespace kiln::hal::cuda {

/// Where DeviceLocal memory comes from.
enum class CudaDeviceMemory {
  /// The stream-ordered pool where the device supports memory pools
  /// (CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED), else cuMemAlloc.
  PoolWhereSupported,
  /// cuMemAlloc / cuMemFree, as on a device without memory pools.
  MemAlloc,
};

class CudaAllocator final : public Allocator {
public:
  /// `stream` orders pool allocations, frees and import copies (the
  /// device's first queue's). A pool that cannot be created makes every
  /// DeviceLocal allocation fail with the reason.
  CudaAllocator(std::shared_ptr<CudaContext> context,
                std::shared_ptr<CUstream_st> stream, uint64_t deviceBytes,
                CudaDeviceMemory memory = CudaDeviceMemory::PoolWhereSupported);

  bool supportsMemoryType(MemoryType type) const override;

  /// The pool DeviceLocal memory comes from; null when it is cuMemAlloc.
  CUmemoryPool memoryPool() const { return Pool.get(); }

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
  StatusOr<std::shared_ptr<gpu::GpuBuffer>>
  createDeviceLocal(uint64_t size, BufferUsage usage, bool readOnly);
  // New memory holding `initial` (when not empty) at its start.
  StatusOr<std::shared_ptr<gpu::GpuBuffer>>
  create(uint64_t size, MemoryType type, BufferUsage usage, bool readOnly,
         std::span<const uint8_t> initial);

  std::shared_ptr<CudaContext> Context;
  std::shared_ptr<CUstream_st> Stream;
  uint64_t DeviceBytes;
  std::shared_ptr<CUmemPoolHandle_st> Pool;
  Status PoolStatus;
};

} // namespace kiln::hal::cuda

#endif // KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDAALLOCATOR_H
