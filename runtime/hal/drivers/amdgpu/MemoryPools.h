//===- MemoryPools.h - Which HSA memory pools the amdgpu driver uses ------===//
//
// HSA lists each agent's memory pools with their segment, granularity and
// whether the runtime may allocate from them. The driver needs three:
// device memory (the GPU agent's coarse-grained global pool, the largest
// where there are several), kernarg memory (a host pool flagged for
// kernel arguments) and host memory the GPU maps (a host fine-grained
// pool: staging buffers, semaphore words). Choosing them is pure and
// tested here; the pools' facts come from hsa_amd_memory_pool_get_info,
// which listPools asks for each pool an agent lists.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMDGPU_MEMORYPOOLS_H
#define KILN_RUNTIME_HAL_DRIVERS_AMDGPU_MEMORYPOOLS_H

#include "runtime/hal/drivers/amdgpu/HsaSymbols.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace kiln::hal::amdgpu {

/// What the driver reads of one pool.
struct PoolFacts {
  /// hsa_amd_segment_t; only HSA_AMD_SEGMENT_GLOBAL pools are used.
  uint32_t Segment = 0;
  /// HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_* bits.
  uint32_t GlobalFlags = 0;
  bool AllocationAllowed = false;
  uint64_t Size = 0;
};

/// Indices into the pools given.
struct PoolChoice {
  size_t Device = 0;
  size_t Kernarg = 0;
  size_t Host = 0;
};

/// Chooses from `gpuPools` (the GPU agent's) and `hostPools` (a CPU
/// agent's); NotFound naming the pool missing.
StatusOr<PoolChoice> choosePools(std::span<const PoolFacts> gpuPools,
                                 std::span<const PoolFacts> hostPools);

/// An agent's pools as HSA lists them, with their facts.
struct AgentPools {
  std::vector<hsa_amd_memory_pool_t> Pools;
  std::vector<PoolFacts> Facts;
};

/// Lists `agent`'s pools through hsa_amd_agent_iterate_memory_pools and
/// hsa_amd_memory_pool_get_info; HSA's errors as Status.
StatusOr<AgentPools> listPools(const HsaSymbols &hsa, hsa_agent_t agent);

/// The pools the device allocates from.
struct DevicePools {
  hsa_amd_memory_pool_t Device = {};
  hsa_amd_memory_pool_t Kernarg = {};
  hsa_amd_memory_pool_t Host = {};
  /// The device pool's size.
  uint64_t DeviceBytes = 0;
  /// The GPU's group segment (LDS a workgroup may use; 0 if unlisted).
  uint64_t GroupSegmentBytes = 0;
};

/// The size of the group segment pool among `gpuPools`, 0 when none is.
uint64_t groupSegmentBytes(std::span<const PoolFacts> gpuPools);

/// Lists both agents' pools and chooses (choosePools).
StatusOr<DevicePools> findPools(const HsaSymbols &hsa, hsa_agent_t gpu,
                                hsa_agent_t host);

} // namespace kiln::hal::amdgpu

#endif // KILN_RUNTIME_HAL_DRIVERS_AMDGPU_MEMORYPOOLS_H
