//===- AmdgpuAgent.h - One GPU of an amdgpu device ------------------------===//
//
// What an amdgpu device holds for each GPU agent it spans: the memory pools
// it allocates from (findPools), the limits its dispatches are checked
// against, and its queues, each an HsaQueue (the AQL queue and its kernarg
// block) fed and retired by an AmdgpuQueue. HSA reports a queue's errors
// (a malformed packet, an exception) on a thread of its own, and memory
// faults on the GPU as system events (MemoryFaults): here the first one
// becomes the agent's failure, which fails what is in flight on that queue
// (on every queue, for a fault, which HSA does not tie to one) and every
// later submission to the device, since HSA leaves a queue that reported
// an error unusable.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AMDGPUAGENT_H
#define KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AMDGPUAGENT_H

#include "runtime/hal/drivers/amdgpu/AmdgpuQueue.h"
#include "runtime/hal/drivers/amdgpu/HsaQueue.h"
#include "runtime/hal/drivers/amdgpu/MemoryPools.h"

#include <array>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kiln::hal::amdgpu {

/// What a GPU agent allows a dispatch and holds, read once.
struct AgentLimits {
  /// HSA_AGENT_INFO_NAME: the processor ("gfx942"), what executables name
  /// as their target.
  std::string Processor;
  /// The processor with the GPU's target features ("gfx942:sramecc+:
  /// xnack-"), which a code object's must not contradict.
  std::string TargetId;
  /// Work-items per dimension of a grid (HSA_AGENT_INFO_GRID_MAX_DIM).
  std::array<uint32_t, 3> MaxGrid = {};
  /// LDS one workgroup may use (the group segment pool's size).
  uint32_t MaxLds = 0;
};

class AmdgpuAgent {
public:
  struct Options {
    /// HAL queues on this GPU, each an HSA queue of its own.
    uint32_t Queues = 2;
    HsaQueue::Options Queue;
  };

  /// `host` is a CPU agent, whose pools give kernarg and mapped host
  /// memory; `deviceName` names the device in errors.
  static StatusOr<std::unique_ptr<AmdgpuAgent>>
  create(std::shared_ptr<const HsaSymbols> hsa, hsa_agent_t gpu,
         hsa_agent_t host, const std::string &deviceName,
         const Options &options);
  /// Waits for every queue's work, then releases the HSA queues.
  ~AmdgpuAgent();
  AmdgpuAgent(const AmdgpuAgent &) = delete;
  AmdgpuAgent &operator=(const AmdgpuAgent &) = delete;

  hsa_agent_t agent() const { return Gpu; }
  const DevicePools &pools() const { return Pools; }
  const AgentLimits &limits() const { return Limits; }
  uint32_t queueCount() const { return static_cast<uint32_t>(Queues.size()); }
  AmdgpuQueue &queue(uint32_t index) { return *Queues[index]; }

  /// OK until one of its queues reported an error, then that error.
  Status failure() const;
  /// What HSA's queue callback does for queue `index`: the first failure
  /// stays, and the queue fails what it has in flight and what comes.
  void fail(uint32_t index, const Status &status);
  /// A fault on the GPU (MemoryFaults): every queue fails.
  void failAll(const Status &status);

private:
  // Keeps the first failure, annotated with where it came from; Mutex held.
  void noteFailure(const Status &status, const std::string &where);

  AmdgpuAgent(std::shared_ptr<const HsaSymbols> hsa, hsa_agent_t gpu)
      : Hsa(std::move(hsa)), Gpu(gpu) {}

  std::shared_ptr<const HsaSymbols> Hsa;
  hsa_agent_t Gpu;
  DevicePools Pools;
  AgentLimits Limits;
  mutable std::mutex Mutex;
  Status Failure; // Mutex
  // Made before the AmdgpuQueues over them and released after them. A
  // queue error arriving before its AmdgpuQueue exists still sets Failure.
  std::vector<std::unique_ptr<HsaQueue>> HsaQueues;
  std::vector<std::unique_ptr<AmdgpuQueue>> Queues; // entries set under Mutex
  // This GPU's memory faults to failAll; released first.
  std::shared_ptr<void> FaultWatch;
};

/// "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-" (an ISA's name) ->
/// "gfx942:sramecc+:xnack-"; InvalidArgument for a name of another form.
StatusOr<std::string> targetIdOfIsa(std::string_view isaName);

/// `gpu`'s target id, from the first ISA HSA lists for it.
StatusOr<std::string> readTargetId(const HsaSymbols &hsa, hsa_agent_t gpu);

/// Reads what `gpu` allows dispatches; `pools` are its own.
StatusOr<AgentLimits> readAgentLimits(const HsaSymbols &hsa, hsa_agent_t gpu,
                                      const DevicePools &pools);

} // namespace kiln::hal::amdgpu

#endif // KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AMDGPUAGENT_H
