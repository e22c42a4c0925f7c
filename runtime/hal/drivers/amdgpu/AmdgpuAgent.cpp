//===- AmdgpuAgent.cpp ----------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/AmdgpuAgent.h"

#include "runtime/hal/drivers/amdgpu/MemoryFaults.h"

#include "runtime/hal/DeviceUri.h"

namespace kiln::hal::amdgpu {

StatusOr<std::string> targetIdOfIsa(std::string_view isaName) {
  constexpr std::string_view kPrefix = "amdgcn-amd-amdhsa--";
  if (!isaName.starts_with(kPrefix) || isaName.size() == kPrefix.size())
    return KILN_ERROR(InvalidArgument, "the GPU's ISA is ",
                      quoteForMessage(isaName), ", not ", kPrefix,
                      "<processor>[:<features>]");
  return std::string(isaName.substr(kPrefix.size()));
}

namespace {

// The name of `gpu`'s first ISA, the one its code objects are for.
StatusOr<std::string> firstIsaName(const HsaSymbols &hsa, hsa_agent_t gpu) {
  struct Visit {
    const HsaSymbols &Hsa;
    std::string Name;
    hsa_status_t Failed = HSA_STATUS_SUCCESS;
  } visit{hsa, {}};
  auto callback = [](hsa_isa_t isa, void *data) -> hsa_status_t {
    auto &state = *static_cast<Visit *>(data);
    uint32_t length = 0;
    state.Failed =
        state.Hsa.hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME_LENGTH, &length);
    if (state.Failed != HSA_STATUS_SUCCESS)
      return state.Failed;
    // The length may count a NUL, which is cut below.
    std::string name(length, '\0');
    state.Failed =
        state.Hsa.hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME, name.data());
    if (state.Failed != HSA_STATUS_SUCCESS)
      return state.Failed;
    state.Name = name.substr(0, name.find('\0'));
    return HSA_STATUS_INFO_BREAK;
  };
  hsa_status_t status = hsa.hsa_agent_iterate_isas(gpu, callback, &visit);
  if (visit.Failed != HSA_STATUS_SUCCESS &&
      visit.Failed != HSA_STATUS_INFO_BREAK)
    return hsaStatusToStatus(hsa, visit.Failed, "hsa_isa_get_info_alt",
                             __FILE__, __LINE__);
  KILN_RETURN_IF_ERROR(hsaStatusToStatus(hsa, status, "hsa_agent_iterate_isas",
                                         __FILE__, __LINE__));
  return visit.Name;
}

} // namespace

StatusOr<std::string> readTargetId(const HsaSymbols &hsa, hsa_agent_t gpu) {
  KILN_ASSIGN_OR_RETURN(std::string isa, firstIsaName(hsa, gpu));
  return targetIdOfIsa(isa);
}

StatusOr<AgentLimits> readAgentLimits(const HsaSymbols &hsa, hsa_agent_t gpu,
                                      const DevicePools &pools) {
  AgentLimits limits;
  KILN_ASSIGN_OR_RETURN(limits.Processor,
                        hsaAgentString(hsa, gpu, HSA_AGENT_INFO_NAME, 64));
  KILN_ASSIGN_OR_RETURN(limits.TargetId, readTargetId(hsa, gpu));
  hsa_dim3_t grid = {};
  KILN_RETURN_IF_ERROR(KILN_HSA_CALL(hsa, hsa_agent_get_info, gpu,
                                     HSA_AGENT_INFO_GRID_MAX_DIM, &grid));
  limits.MaxGrid = {grid.x, grid.y, grid.z};
  if (pools.GroupSegmentBytes == 0 || pools.GroupSegmentBytes > UINT32_MAX)
    return KILN_ERROR(FailedPrecondition, "GPU ", limits.Processor,
                      " lists a group segment of ", pools.GroupSegmentBytes,
                      " bytes");
  limits.MaxLds = static_cast<uint32_t>(pools.GroupSegmentBytes);
  return limits;
}

StatusOr<std::unique_ptr<AmdgpuAgent>>
AmdgpuAgent::create(std::shared_ptr<const HsaSymbols> hsa, hsa_agent_t gpu,
                    hsa_agent_t host, const std::string &deviceName,
                    const Options &options) {
  if (options.Queues == 0)
    return KILN_ERROR(InvalidArgument, "an amdgpu GPU needs a queue");
  std::unique_ptr<AmdgpuAgent> agent(new AmdgpuAgent(hsa, gpu));
  KILN_ASSIGN_OR_RETURN(agent->Pools, findPools(*hsa, gpu, host));
  KILN_ASSIGN_OR_RETURN(agent->Limits,
                        readAgentLimits(*hsa, gpu, agent->Pools));
  AmdgpuAgent *self = agent.get();
  agent->FaultWatch = MemoryFaults::process().subscribe(
      gpu.handle, [self](const Status &fault) { self->failAll(fault); });
  // The destructor releases whatever is made before a failure.
  agent->Queues.resize(options.Queues);
  for (uint32_t index = 0; index < options.Queues; ++index) {
    KILN_ASSIGN_OR_RETURN(std::unique_ptr<HsaQueue> queue,
                          HsaQueue::create(hsa, gpu, agent->Pools.Kernarg,
                                           options.Queue,
                                           [self, index](Status status) {
                                             self->fail(index, status);
                                           }));
    auto fed = std::make_unique<AmdgpuQueue>(hsa, queue->queue(),
                                             queue->kernargs(), deviceName);
    agent->HsaQueues.push_back(std::move(queue));
    std::lock_guard<std::mutex> lock(agent->Mutex);
    // An error HSA reported before the queue was fed fails it at once.
    if (!agent->Failure.ok())
      fed->fail(agent->Failure);
    agent->Queues[index] = std::move(fed);
  }
  return agent;
}

AmdgpuAgent::~AmdgpuAgent() {
  FaultWatch.reset();
  // Each AmdgpuQueue waits for what it has on the GPU; an error reported
  // meanwhile must not reach a queue being destroyed.
  for (std::unique_ptr<AmdgpuQueue> &queue : Queues) {
    std::unique_ptr<AmdgpuQueue> gone;
    {
      std::lock_guard<std::mutex> lock(Mutex);
      gone = std::move(queue);
    }
  }
  // Then the HSA queues, after which HSA calls back no more.
  HsaQueues.clear();
}

Status AmdgpuAgent::failure() const {
  std::lock_guard<std::mutex> lock(Mutex);
  return Failure;
}

void AmdgpuAgent::noteFailure(const Status &status, const std::string &where) {
  if (!Failure.ok())
    return;
  Failure = status;
  Failure.annotate(where);
}

void AmdgpuAgent::fail(uint32_t index, const Status &status) {
  std::lock_guard<std::mutex> lock(Mutex);
  noteFailure(status, strCat("GPU ", Limits.Processor, " queue ", index));
  if (index < Queues.size() && Queues[index])
    Queues[index]->fail(status);
}

void AmdgpuAgent::failAll(const Status &status) {
  std::lock_guard<std::mutex> lock(Mutex);
  noteFailure(status, strCat("GPU ", Limits.Processor));
  for (const std::unique_ptr<AmdgpuQueue> &queue : Queues)
    if (queue)
      queue->fail(status);
}

} // namespace kiln::hal::amdgpu
