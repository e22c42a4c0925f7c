//===- MemoryPools.cpp ----------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/MemoryPools.h"

#include <hsa/hsa_ext_amd.h>

#include <optional>

namespace kiln::hal::amdgpu {

namespace {

// The largest usable global pool with all of `flags`.
std::optional<size_t> largest(std::span<const PoolFacts> pools,
                              uint32_t flags) {
  std::optional<size_t> best;
  for (size_t i = 0; i < pools.size(); ++i) {
    const PoolFacts &pool = pools[i];
    if (pool.Segment != HSA_AMD_SEGMENT_GLOBAL || !pool.AllocationAllowed ||
        (pool.GlobalFlags & flags) != flags || pool.Size == 0)
      continue;
    if (!best || pool.Size > pools[*best].Size)
      best = i;
  }
  return best;
}

} // namespace

StatusOr<PoolChoice> choosePools(std::span<const PoolFacts> gpuPools,
                                 std::span<const PoolFacts> hostPools) {
  std::optional<size_t> device =
      largest(gpuPools, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED);
  std::optional<size_t> kernarg =
      largest(hostPools, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT);
  std::optional<size_t> host =
      largest(hostPools, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED);
  if (!device)
    return KILN_ERROR(NotFound, "the GPU has no coarse-grained global memory "
                                "pool to allocate from");
  if (!kernarg)
    return KILN_ERROR(NotFound, "the host has no kernarg memory pool");
  if (!host)
    return KILN_ERROR(NotFound,
                      "the host has no fine-grained global memory pool");
  return PoolChoice{*device, *kernarg, *host};
}

uint64_t groupSegmentBytes(std::span<const PoolFacts> gpuPools) {
  for (const PoolFacts &pool : gpuPools)
    if (pool.Segment == HSA_AMD_SEGMENT_GROUP)
      return pool.Size;
  return 0;
}

StatusOr<AgentPools> listPools(const HsaSymbols &hsa, hsa_agent_t agent) {
  struct Visit {
    std::vector<hsa_amd_memory_pool_t> Pools;
  } visit;
  auto callback = [](hsa_amd_memory_pool_t pool, void *data) -> hsa_status_t {
    static_cast<Visit *>(data)->Pools.push_back(pool);
    return HSA_STATUS_SUCCESS;
  };
  KILN_RETURN_IF_ERROR(KILN_HSA_CALL(hsa, hsa_amd_agent_iterate_memory_pools,
                                     agent, callback, &visit));
  AgentPools pools;
  for (hsa_amd_memory_pool_t pool : visit.Pools) {
    // Each attribute into a value of the size hsa_ext_amd.h gives it.
    hsa_amd_segment_t segment = {};
    uint32_t flags = 0;
    size_t size = 0;
    bool allowed = false;
    KILN_RETURN_IF_ERROR(KILN_HSA_CALL(hsa, hsa_amd_memory_pool_get_info, pool,
                                       HSA_AMD_MEMORY_POOL_INFO_SEGMENT,
                                       &segment));
    // Flags only mean something for global pools (HSA leaves them unset
    // for the others).
    if (segment == HSA_AMD_SEGMENT_GLOBAL)
      KILN_RETURN_IF_ERROR(
          KILN_HSA_CALL(hsa, hsa_amd_memory_pool_get_info, pool,
                        HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags));
    KILN_RETURN_IF_ERROR(KILN_HSA_CALL(hsa, hsa_amd_memory_pool_get_info, pool,
                                       HSA_AMD_MEMORY_POOL_INFO_SIZE, &size));
    KILN_RETURN_IF_ERROR(KILN_HSA_CALL(
        hsa, hsa_amd_memory_pool_get_info, pool,
        HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &allowed));
    pools.Pools.push_back(pool);
    pools.Facts.push_back({static_cast<uint32_t>(segment), flags, allowed,
                           static_cast<uint64_t>(size)});
  }
  return pools;
}

StatusOr<DevicePools> findPools(const HsaSymbols &hsa, hsa_agent_t gpu,
                                hsa_agent_t host) {
  KILN_ASSIGN_OR_RETURN(AgentPools gpuPools, listPools(hsa, gpu));
  KILN_ASSIGN_OR_RETURN(AgentPools hostPools, listPools(hsa, host));
  KILN_ASSIGN_OR_RETURN(PoolChoice choice,
                        choosePools(gpuPools.Facts, hostPools.Facts));
  return DevicePools{
      gpuPools.Pools[choice.Device], hostPools.Pools[choice.Kernarg],
      hostPools.Pools[choice.Host], gpuPools.Facts[choice.Device].Size,
      groupSegmentBytes(gpuPools.Facts)};
}

} // namespace kiln::hal::amdgpu
