//===- AmdgpuAllocator.h - Buffers from an amdgpu device's HSA pools ------===//
//
// DeviceLocal memory comes from the first GPU's coarse-grained pool,
// HostVisible memory from the host's fine-grained pool (pinned, mapped for
// the GPUs, coherent with them, so the host reads a kernel's results
// without a copy). HSA gives an agent access only to its own pools: host
// memory, and on a device spanning several GPUs the first one's memory, is
// opened to every GPU of the device (hsa_amd_agents_allow_access), which
// on a real system needs peer access between them. Buffers are gpu::
// GpuBuffers, so the shared recording reads their addresses; they are
// freed once the last submission using them retired (submissions hold
// their buffers), so freed memory is never under running work.
//
// Imports are copies (the GPU cannot read pageable memory): HostVisible
// where the caller maps the buffer, else DeviceLocal, written through a
// staging copy in host-visible memory with hsa_memory_copy.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AMDGPUALLOCATOR_H
#define KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AMDGPUALLOCATOR_H

#include "runtime/hal/Allocator.h"
#include "runtime/hal/drivers/amdgpu/HsaSymbols.h"
#include "runtime/hal/drivers/gpu/GpuBuffer.h"

#include <memory>
#include <vector>

namespace kiln::hal::amdgpu {

class AmdgpuAllocator final : public Allocator {
public:
  /// `devicePool` (`deviceBytes` large) and `hostPool` are HSA pools;
  /// `gpus` the device's GPU agents, given access to what is allocated.
  AmdgpuAllocator(std::shared_ptr<const HsaSymbols> hsa,
                  hsa_amd_memory_pool_t devicePool, uint64_t deviceBytes,
                  hsa_amd_memory_pool_t hostPool,
                  std::vector<hsa_agent_t> gpus);

  bool supportsMemoryType(MemoryType type) const override;

protected:
  StatusOr<std::shared_ptr<Buffer>> allocateImpl(uint64_t size, MemoryType type,
                                                 BufferUsage usage) override;
  StatusOr<std::shared_ptr<Buffer>>
  importHostMemoryImpl(std::span<const uint8_t> data, BufferUsage usage,
                       std::shared_ptr<const void> keepAlive) override;

private:
  // `size` bytes of `type`, every GPU given access where it needs it.
  StatusOr<std::shared_ptr<gpu::GpuBuffer>>
  create(uint64_t size, MemoryType type, BufferUsage usage, bool readOnly);

  std::shared_ptr<const HsaSymbols> Hsa;
  hsa_amd_memory_pool_t DevicePool;
  uint64_t DeviceBytes;
  hsa_amd_memory_pool_t HostPool;
  std::vector<hsa_agent_t> Gpus;
};

} // namespace kiln::hal::amdgpu

#endif // KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AMDGPUALLOCATOR_H
