//===- AmdgpuAllocator.cpp ------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/AmdgpuAllocator.h"

#include <algorithm>
#include <cstring>

namespace kiln::hal::amdgpu {

AmdgpuAllocator::AmdgpuAllocator(std::shared_ptr<const HsaSymbols> hsa,
                                 hsa_amd_memory_pool_t devicePool,
                                 uint64_t deviceBytes,
                                 hsa_amd_memory_pool_t hostPool,
                                 std::vector<hsa_agent_t> gpus)
    : Hsa(std::move(hsa)), DevicePool(devicePool), DeviceBytes(deviceBytes),
      HostPool(hostPool), Gpus(std::move(gpus)) {}

bool AmdgpuAllocator::supportsMemoryType(MemoryType type) const {
  return type == MemoryType::DeviceLocal || type == MemoryType::HostVisible;
}

StatusOr<std::shared_ptr<gpu::GpuBuffer>>
AmdgpuAllocator::create(uint64_t size, MemoryType type, BufferUsage usage,
                        bool readOnly) {
  bool device = type == MemoryType::DeviceLocal;
  // Refused here rather than by HSA, which may try (and take long) to
  // reserve absurd sizes before it says no.
  if (device && size > DeviceBytes)
    return KILN_ERROR(ResourceExhausted, "cannot allocate ", size,
                      " bytes of DeviceLocal memory: the GPU has ", DeviceBytes,
                      " bytes");
  const HsaSymbols &hsa = *Hsa;
  void *memory = nullptr;
  // A zero-size buffer still gets a valid, unique address.
  if (Status status = KILN_HSA_CALL(hsa, hsa_amd_memory_pool_allocate,
                                    device ? DevicePool : HostPool,
                                    std::max<uint64_t>(size, 1), 0, &memory);
      !status.ok())
    return status.annotate(strCat("cannot allocate ", size, " bytes of ",
                                  memoryTypeString(type), " memory"));
  auto release = [hsa = Hsa, memory] {
    (void)hsa->hsa_amd_memory_pool_free(memory);
  };
  // The first GPU owns its device pool; host memory no GPU may reach
  // until allowed.
  std::span<const hsa_agent_t> access(Gpus);
  if (device)
    access = access.subspan(1);
  if (!access.empty())
    if (Status status = KILN_HSA_CALL(hsa, hsa_amd_agents_allow_access,
                                      static_cast<uint32_t>(access.size()),
                                      access.data(), nullptr, memory);
        !status.ok()) {
      release();
      return status;
    }
  auto address = reinterpret_cast<uintptr_t>(memory);
  return std::make_shared<gpu::GpuBuffer>(
      size, type, usage, readOnly, address,
      device ? nullptr : static_cast<uint8_t *>(memory), std::move(release));
}

StatusOr<std::shared_ptr<Buffer>>
AmdgpuAllocator::allocateImpl(uint64_t size, MemoryType type,
                              BufferUsage usage) {
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<gpu::GpuBuffer> buffer,
                        create(size, type, usage, false));
  return std::shared_ptr<Buffer>(std::move(buffer));
}

StatusOr<std::shared_ptr<Buffer>>
AmdgpuAllocator::importHostMemoryImpl(std::span<const uint8_t> data,
                                      BufferUsage usage,
                                      std::shared_ptr<const void>) {
  bool mapped = hasAll(usage, BufferUsage::Mapping);
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<gpu::GpuBuffer> staging,
                        create(data.size(), MemoryType::HostVisible,
                               usage | BufferUsage::Mapping, true));
  // Host pool memory has one address for the host and the GPUs; the
  // buffer is read-only to its users, not to its maker.
  auto *host = reinterpret_cast<uint8_t *>(staging->deviceAddress());
  if (!data.empty())
    std::memcpy(host, data.data(), data.size());
  if (mapped)
    return std::shared_ptr<Buffer>(std::move(staging));
  KILN_ASSIGN_OR_RETURN(
      std::shared_ptr<gpu::GpuBuffer> buffer,
      create(data.size(), MemoryType::DeviceLocal, usage, true));
  if (!data.empty())
    KILN_RETURN_IF_ERROR(KILN_HSA_CALL(
        *Hsa, hsa_memory_copy,
        reinterpret_cast<void *>(buffer->deviceAddress()), host, data.size()));
  return std::shared_ptr<Buffer>(std::move(buffer));
}

} // namespace kiln::hal::amdgpu
