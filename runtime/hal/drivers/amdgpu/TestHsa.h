//===- TestHsa.h - An HSA system of the test's own, for device tests ------===//
//
// What the amdgpu device asks HSA for while it is made and while it
// allocates and loads: agents and their facts, memory pools, pool memory
// and who may access it, queues and their error callbacks, code objects
// loaded and the kernel symbols looked up in them. Agent 1 is the host, agents
// 2 and up the GPUs; pool memory is heap memory; queues are TestQueues
// (TestQueue.h), so what the device publishes can be read. A test names a
// function to fail. Nothing here runs a packet: tests read what the device
// wrote and check what it asked for.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMDGPU_TESTHSA_H
#define KILN_RUNTIME_HAL_DRIVERS_AMDGPU_TESTHSA_H

#include "runtime/hal/drivers/amdgpu/MemoryPools.h"
#include "runtime/hal/drivers/amdgpu/TestQueue.h"
#include "runtime/hal/drivers/amdgpu/TransferKernels.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace kiln::hal::amdgpu::testing {

inline constexpr uint64_t kHostAgent = 1;
/// Pool handles: agent * 16 plus one of these.
enum TestPool : uint64_t {
  kGroupPool = 1,   // GPU: LDS
  kDevicePool = 2,  // GPU: coarse-grained
  kKernargPool = 3, // host: fine-grained, kernarg
  kHostPool = 4,    // host: fine-grained
};

struct TestHsaSystem {
  uint32_t Gpus = 1;
  std::string Processor = "gfx942";
  /// The GPUs' ISA name; empty: the processor with sramecc+ and xnack-.
  std::string IsaName;
  uint64_t DeviceBytes = uint64_t(16) << 30;
  uint64_t GroupBytes = 65536;
  /// The HSA function that fails, by name ("" for none).
  std::string Failing;

  // What the device asked for.
  struct Allocation {
    uint64_t Pool;
    size_t Size;
    std::vector<uint64_t> Access; // agents given access
  };
  std::map<void *, Allocation> Allocations;
  std::vector<std::shared_ptr<TestQueue>> Queues;
  struct Callback {
    void (*Function)(hsa_status_t, hsa_queue_t *, void *);
    void *Data;
    hsa_queue_t *Queue;
  };
  std::vector<Callback> Callbacks;
  int LiveQueues = 0;
  // Code objects loaded: each executable's agent, each symbol looked up
  // (a kernel object is 0x100000 plus its index here).
  std::map<uint64_t, uint64_t> ExecutableAgents;
  struct Symbol {
    uint64_t Executable;
    uint64_t Agent;
    std::string Name;
  };
  std::vector<Symbol> Symbols;
  int LiveReaders = 0;
  uint64_t NextHandle = 1;

  /// The symbol a kernel object address names.
  const Symbol &symbolOf(uint64_t kernelObject) const {
    return Symbols.at(kernelObject - 0x100000);
  }
};
/// The system the test's HSA functions serve (HSA's are plain functions).
inline TestHsaSystem testSystem;

inline hsa_status_t failingCall(const char *name) {
  return testSystem.Failing == name ? HSA_STATUS_ERROR_OUT_OF_RESOURCES
                                    : HSA_STATUS_SUCCESS;
}

inline hsa_status_t testAgentInfo(hsa_agent_t agent, hsa_agent_info_t what,
                                  void *value) {
  if (hsa_status_t status = failingCall("hsa_agent_get_info"))
    return status;
  bool gpu = agent.handle != kHostAgent;
  switch (static_cast<int>(what)) {
  case HSA_AGENT_INFO_DEVICE:
    *static_cast<hsa_device_type_t *>(value) =
        gpu ? HSA_DEVICE_TYPE_GPU : HSA_DEVICE_TYPE_CPU;
    return HSA_STATUS_SUCCESS;
  case HSA_AGENT_INFO_NAME:
    std::strncpy(static_cast<char *>(value),
                 gpu ? testSystem.Processor.c_str() : "cpu", 64);
    return HSA_STATUS_SUCCESS;
  case HSA_AMD_AGENT_INFO_PRODUCT_NAME:
    std::strncpy(static_cast<char *>(value), gpu ? "Test GPU" : "Test CPU", 64);
    return HSA_STATUS_SUCCESS;
  case HSA_AMD_AGENT_INFO_UUID:
    // As AMD reports them: GPU- and 16 hex digits, here the agent's.
    std::snprintf(static_cast<char *>(value), 21, "GPU-%016llx",
                  static_cast<unsigned long long>(agent.handle));
    return HSA_STATUS_SUCCESS;
  case HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT:
    *static_cast<uint32_t *>(value) = 304;
    return HSA_STATUS_SUCCESS;
  case HSA_AGENT_INFO_WAVEFRONT_SIZE:
    *static_cast<uint32_t *>(value) = 64;
    return HSA_STATUS_SUCCESS;
  case HSA_AGENT_INFO_GRID_MAX_DIM:
    *static_cast<hsa_dim3_t *>(value) = {UINT32_MAX, 65535, 65535};
    return HSA_STATUS_SUCCESS;
  case HSA_AGENT_INFO_QUEUE_MIN_SIZE:
    *static_cast<uint32_t *>(value) = 64;
    return HSA_STATUS_SUCCESS;
  case HSA_AGENT_INFO_QUEUE_MAX_SIZE:
    *static_cast<uint32_t *>(value) = 131072;
    return HSA_STATUS_SUCCESS;
  default:
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
}

inline PoolFacts testPoolFacts(uint64_t pool) {
  switch (pool % 16) {
  case kGroupPool:
    return {HSA_AMD_SEGMENT_GROUP, 0, false, testSystem.GroupBytes};
  case kDevicePool:
    return {HSA_AMD_SEGMENT_GLOBAL,
            HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED, true,
            testSystem.DeviceBytes};
  case kKernargPool:
    return {HSA_AMD_SEGMENT_GLOBAL,
            HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED |
                HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT,
            true, uint64_t(1) << 30};
  default:
    return {HSA_AMD_SEGMENT_GLOBAL,
            HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED, true,
            uint64_t(64) << 30};
  }
}

/// What hsa_amd_memory_pool_get_info answers for a pool of `facts`.
inline hsa_status_t poolInfo(const PoolFacts &facts,
                             hsa_amd_memory_pool_info_t attribute,
                             void *value) {
  switch (attribute) {
  case HSA_AMD_MEMORY_POOL_INFO_SEGMENT:
    *static_cast<hsa_amd_segment_t *>(value) =
        static_cast<hsa_amd_segment_t>(facts.Segment);
    return HSA_STATUS_SUCCESS;
  case HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS:
    // HSA has flags for global pools only.
    if (facts.Segment != HSA_AMD_SEGMENT_GLOBAL)
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    *static_cast<uint32_t *>(value) = facts.GlobalFlags;
    return HSA_STATUS_SUCCESS;
  case HSA_AMD_MEMORY_POOL_INFO_SIZE:
    *static_cast<size_t *>(value) = facts.Size;
    return HSA_STATUS_SUCCESS;
  case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED:
    *static_cast<bool *>(value) = facts.AllocationAllowed;
    return HSA_STATUS_SUCCESS;
  default:
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
}

/// HsaSymbols over testSystem (reset to `system`), with heap signals and
/// TestQueue indices.
inline std::shared_ptr<HsaSymbols> testHsa(TestHsaSystem system = {}) {
  testSystem = std::move(system);
  std::shared_ptr<HsaSymbols> hsa = hostSignalSymbols();
  useTestQueues(*hsa);
  hsa->hsa_status_string = [](hsa_status_t, const char **text) {
    *text = "test status";
    return HSA_STATUS_SUCCESS;
  };
  hsa->hsa_iterate_agents = [](hsa_status_t (*callback)(hsa_agent_t, void *),
                               void *data) {
    for (uint64_t agent = 1; agent <= 1 + testSystem.Gpus; ++agent)
      if (hsa_status_t status = callback({agent}, data))
        return status;
    return HSA_STATUS_SUCCESS;
  };
  hsa->hsa_agent_get_info = testAgentInfo;
  // One ISA a GPU (its handle the agent's), named with target features.
  hsa->hsa_agent_iterate_isas =
      [](hsa_agent_t agent, hsa_status_t (*callback)(hsa_isa_t, void *),
         void *data) { return callback({agent.handle}, data); };
  hsa->hsa_isa_get_info_alt = [](hsa_isa_t, hsa_isa_info_t what, void *value) {
    std::string name =
        testSystem.IsaName.empty()
            ? "amdgcn-amd-amdhsa--" + testSystem.Processor + ":sramecc+:xnack-"
            : testSystem.IsaName;
    if (what == HSA_ISA_INFO_NAME_LENGTH)
      *static_cast<uint32_t *>(value) = name.size() + 1;
    else if (what == HSA_ISA_INFO_NAME)
      std::memcpy(value, name.c_str(), name.size() + 1);
    else
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    return HSA_STATUS_SUCCESS;
  };
  hsa->hsa_amd_agent_iterate_memory_pools =
      [](hsa_agent_t agent,
         hsa_status_t (*callback)(hsa_amd_memory_pool_t, void *), void *data) {
        bool host = agent.handle == kHostAgent;
        for (uint64_t kind :
             host ? std::vector<uint64_t>{kKernargPool, kHostPool}
                  : std::vector<uint64_t>{kGroupPool, kDevicePool})
          if (hsa_status_t status = callback({agent.handle * 16 + kind}, data))
            return status;
        return HSA_STATUS_SUCCESS;
      };
  hsa->hsa_amd_memory_pool_get_info = [](hsa_amd_memory_pool_t pool,
                                         hsa_amd_memory_pool_info_t what,
                                         void *value) {
    return poolInfo(testPoolFacts(pool.handle), what, value);
  };
  hsa->hsa_amd_memory_pool_allocate = [](hsa_amd_memory_pool_t pool,
                                         size_t size, uint32_t, void **ptr) {
    if (hsa_status_t status = failingCall("hsa_amd_memory_pool_allocate"))
      return status;
    *ptr = std::aligned_alloc(4096, (size + 4095) / 4096 * 4096);
    testSystem.Allocations[*ptr] = {pool.handle, size, {}};
    return HSA_STATUS_SUCCESS;
  };
  hsa->hsa_amd_memory_pool_free = [](void *ptr) {
    testSystem.Allocations.erase(ptr);
    std::free(ptr);
    return HSA_STATUS_SUCCESS;
  };
  hsa->hsa_amd_agents_allow_access = [](uint32_t count,
                                        const hsa_agent_t *agents,
                                        const uint32_t *, const void *ptr) {
    if (hsa_status_t status = failingCall("hsa_amd_agents_allow_access"))
      return status;
    auto &access = testSystem.Allocations.at(const_cast<void *>(ptr)).Access;
    for (uint32_t i = 0; i < count; ++i)
      access.push_back(agents[i].handle);
    return HSA_STATUS_SUCCESS;
  };
  hsa->hsa_queue_create =
      [](hsa_agent_t, uint32_t size, hsa_queue_type32_t,
         void (*callback)(hsa_status_t, hsa_queue_t *, void *), void *data,
         uint32_t, uint32_t, hsa_queue_t **queue) {
        if (hsa_status_t status = failingCall("hsa_queue_create"))
          return status;
        // Small rings keep the tests' memory small; the size the device
        // asked for is HsaQueue's to check.
        (void)size;
        testSystem.Queues.push_back(std::make_shared<TestQueue>(64));
        *queue = &testSystem.Queues.back()->Queue;
        testSystem.Callbacks.push_back({callback, data, *queue});
        ++testSystem.LiveQueues;
        return HSA_STATUS_SUCCESS;
      };
  hsa->hsa_queue_destroy = [](hsa_queue_t *) {
    --testSystem.LiveQueues;
    return HSA_STATUS_SUCCESS;
  };
  hsa->hsa_code_object_reader_create_from_memory =
      [](const void *, size_t, hsa_code_object_reader_t *reader) {
        ++testSystem.LiveReaders;
        reader->handle = testSystem.NextHandle++;
        return HSA_STATUS_SUCCESS;
      };
  hsa->hsa_code_object_reader_destroy = [](hsa_code_object_reader_t) {
    --testSystem.LiveReaders;
    return HSA_STATUS_SUCCESS;
  };
  hsa->hsa_executable_create_alt =
      [](hsa_profile_t, hsa_default_float_rounding_mode_t, const char *,
         hsa_executable_t *executable) {
        executable->handle = testSystem.NextHandle++;
        testSystem.ExecutableAgents[executable->handle] = 0;
        return HSA_STATUS_SUCCESS;
      };
  hsa->hsa_executable_load_agent_code_object =
      [](hsa_executable_t executable, hsa_agent_t agent,
         hsa_code_object_reader_t, const char *, hsa_loaded_code_object_t *) {
        if (hsa_status_t status =
                failingCall("hsa_executable_load_agent_code_object"))
          return status;
        testSystem.ExecutableAgents[executable.handle] = agent.handle;
        return HSA_STATUS_SUCCESS;
      };
  hsa->hsa_executable_freeze = [](hsa_executable_t, const char *) {
    return HSA_STATUS_SUCCESS;
  };
  hsa->hsa_executable_destroy = [](hsa_executable_t executable) {
    testSystem.ExecutableAgents.erase(executable.handle);
    return HSA_STATUS_SUCCESS;
  };
  hsa->hsa_executable_get_symbol_by_name =
      [](hsa_executable_t executable, const char *name,
         const hsa_agent_t *agent, hsa_executable_symbol_t *symbol) {
        symbol->handle = testSystem.Symbols.size();
        testSystem.Symbols.push_back({executable.handle, agent->handle, name});
        return HSA_STATUS_SUCCESS;
      };
  hsa->hsa_executable_symbol_get_info = [](hsa_executable_symbol_t symbol,
                                           hsa_executable_symbol_info_t what,
                                           void *value) {
    if (what != HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT)
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    *static_cast<uint64_t *>(value) = 0x100000 + symbol.handle;
    return HSA_STATUS_SUCCESS;
  };
  return hsa;
}

} // namespace kiln::hal::amdgpu::testing

/// For tests of a whole device, which loads the embedded transfer kernels:
/// skips in a build without the compiler, which has none (where they are
/// expected, their absence fails the test instead).
#ifdef KILN_AMDGPU_TRANSFER_KERNELS_EXPECTED
#define KILN_SKIP_WITHOUT_TRANSFER_KERNELS() (void)0
#else
#define KILN_SKIP_WITHOUT_TRANSFER_KERNELS()                                   \
  if (::kiln::hal::amdgpu::transferKernelProcessors().empty())                 \
  GTEST_SKIP() << "built without the compiler: no transfer kernels"
#endif

#endif // KILN_RUNTIME_HAL_DRIVERS_AMDGPU_TESTHSA_H
