//===- CudaAllocator.h - Device memory and pinned host memory -------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDAALLOCATOR_H
#define KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDAALLOCATOR_H

#include "runtime/hal/Allocator.h"
#include "runtime/hal/drivers/cuda/CudaContext.h"
#include "runtime/hal/drivers/gpu/GpuBuffer.h"

#include <memory>

namespace kiln::hal::cuda {

/// DeviceLocal: cuMemAlloc. HostVisible: pinned host memory mapped into the
/// GPU's address space (cuMemHostAlloc), so copies and fills reach it
/// directly. A discrete GPU has no memory that is both.
class CudaAllocator final : public Allocator {
public:
  CudaAllocator(std::shared_ptr<CudaContext> context, uint64_t deviceBytes)
      : Context(std::move(context)), DeviceBytes(deviceBytes) {}

  bool supportsMemoryType(MemoryType type) const override;

protected:
  StatusOr<std::shared_ptr<Buffer>> allocateImpl(uint64_t size, MemoryType type,
                                                 BufferUsage usage) override;
  /// Copies `data` into new memory: the GPU cannot address pageable host
  /// memory.
  StatusOr<std::shared_ptr<Buffer>>
  importHostMemoryImpl(std::span<const uint8_t> data, BufferUsage usage,
                       std::shared_ptr<const void> keepAlive) override;

private:
  // New memory holding `initial` (when not empty) at its start.
  StatusOr<std::shared_ptr<gpu::GpuBuffer>>
  create(uint64_t size, MemoryType type, BufferUsage usage, bool readOnly,
         std::span<const uint8_t> initial);

  std::shared_ptr<CudaContext> Context;
  uint64_t DeviceBytes;
};

} // namespace kiln::hal::cuda

#endif // KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDAALLOCATOR_H
