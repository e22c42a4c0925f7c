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

} // namespace kiln::hal::amdgpu
