//===- AmdgpuDevice.cpp ---------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/AmdgpuDevice.h"

#include "runtime/hal/Feature.h"
#include "runtime/hal/HostQueue.h"
#include "runtime/hal/drivers/amd/AmdTarget.h"
#include "runtime/hal/drivers/amdgpu/AmdgpuCommandBuffer.h"
#include "runtime/hal/drivers/amdgpu/AmdgpuSemaphore.h"
#include "runtime/hal/drivers/amdgpu/TransferKernels.h"
#include "runtime/hal/drivers/gpu/GpuEvent.h"

#include <algorithm>

namespace kiln::hal::amdgpu {

StatusOr<AmdgpuAgent::Options>
AmdgpuDevice::optionsFromUri(const DeviceUri &uri) {
  KILN_RETURN_IF_ERROR(uri.checkParams({"queues"}));
  AmdgpuAgent::Options options;
  options.Queues = kDefaultQueuesPerGpu;
  KILN_ASSIGN_OR_RETURN(std::optional<uint64_t> queues,
                        uri.uintParam("queues", 1, kQueuesPerGpuLimit));
  if (queues)
    options.Queues = static_cast<uint32_t>(*queues);
  return options;
}

StatusOr<std::shared_ptr<AmdgpuDevice>>
AmdgpuDevice::create(std::shared_ptr<const HsaSymbols> hsa, DeviceInfo info,
                     std::span<const hsa_agent_t> gpus, hsa_agent_t host,
                     const AmdgpuAgent::Options &options) {
  if (gpus.empty() || uint64_t(gpus.size()) * options.Queues > kMaxQueues)
    return KILN_ERROR(InvalidArgument, "an amdgpu device of ", gpus.size(),
                      " GPUs with ", options.Queues, " queues each (1 to ",
                      kMaxQueues, " queues in all)");
  std::shared_ptr<AmdgpuDevice> device(new AmdgpuDevice(hsa, std::move(info)));
  device->MaxGrid = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
  std::vector<hsa_agent_t> agents(gpus.begin(), gpus.end());
  for (hsa_agent_t gpu : gpus) {
    KILN_ASSIGN_OR_RETURN(
        std::unique_ptr<AmdgpuAgent> agent,
        AmdgpuAgent::create(hsa, gpu, host, device->Info.Uri, options));
    const AgentLimits &limits = agent->limits();
    LoadTarget target{gpu, limits.Processor, limits.TargetId, limits.MaxLds};
    KILN_ASSIGN_OR_RETURN(std::span<const uint8_t> image,
                          transferKernelImage(limits.Processor));
    KILN_ASSIGN_OR_RETURN(
        std::unique_ptr<AmdgpuExecutable> transfer,
        AmdgpuExecutable::load(hsa, gpu, limits.TargetId, limits.MaxLds,
                               transferKernelSpec(limits.Processor, image)));
    // A grid's work-items fit 32 bits in AQL; the recording checks
    // workgroups against the agent's limit, the packet the product.
    for (int i = 0; i < 3; ++i)
      device->MaxGrid[i] =
          std::min<uint64_t>(device->MaxGrid[i], limits.MaxGrid[i]);
    device->Gpus.push_back(std::move(target));
    device->Transfer.push_back(std::move(transfer));
    device->Agents.push_back(std::move(agent));
  }
  const AmdgpuAgent &first = *device->Agents.front();
  device->DeviceAllocator = std::make_unique<AmdgpuAllocator>(
      hsa, first.pools().Device, first.pools().DeviceBytes, first.pools().Host,
      std::move(agents));
  device->QueuesPerGpu = options.Queues;
  device->QueueCount = options.Queues * static_cast<uint32_t>(gpus.size());
  auto add = [&](const char *key, auto value) {
    device->Info.Properties.emplace_back(key, strCat(value));
  };
  add("gpus", gpus.size());
  add("queues", device->QueueCount);
  add("device_memory_bytes", first.pools().DeviceBytes);
  return device;
}

AmdgpuDevice::~AmdgpuDevice() {
  // The queues first: they wait for what is on the GPU, which may run the
  // transfer kernels and use the device's memory.
  Agents.clear();
}

Status AmdgpuDevice::failure() const {
  for (const std::unique_ptr<AmdgpuAgent> &agent : Agents)
    KILN_RETURN_IF_ERROR(agent->failure());
  return Status();
}

std::vector<UnsupportedFeature> AmdgpuDevice::unsupportedFeatures() const {
  std::vector<UnsupportedFeature> features = {
      {std::string(feature::kHostVisibleDeviceLocal),
       "device memory is not mapped on the host; host-visible memory is the "
       "host's fine-grained pool"},
      {std::string(feature::kConcurrentCommands),
       "every AQL packet of a submission has the barrier bit: commands run "
       "in recording order"}};
  // Not measured: Kiln has not run on AMD hardware yet.
  features.push_back({std::string(feature::kConcurrentQueues),
                      QueueCount < 2 ? "this device has one queue"
                                     : "not yet measured on AMD hardware"});
  return features;
}

bool AmdgpuDevice::supportsExecutable(std::string_view format,
                                      std::string_view target) const {
  return std::all_of(Gpus.begin(), Gpus.end(), [&](const LoadTarget &gpu) {
    return amd::amdSupportsExecutable(format, target, gpu.TargetId);
  });
}

StatusOr<std::shared_ptr<Executable>>
AmdgpuDevice::createExecutable(const ExecutableSpec &spec) {
  KILN_RETURN_IF_ERROR(validateExecutableSpec(spec));
  if (!supportsExecutable(spec.Format, spec.Target)) {
    std::string processors;
    for (const LoadTarget &gpu : Gpus)
      processors += (processors.empty() ? "" : ", ") + gpu.TargetId;
    return KILN_ERROR(FailedPrecondition, "executable '", spec.Name, "' (",
                      spec.Format, "/", spec.Target, ") cannot run on ",
                      Info.Uri, ", ", processors);
  }
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<AmdgpuDeviceExecutable> executable,
                        AmdgpuDeviceExecutable::load(Hsa, Gpus, spec));
  return std::shared_ptr<Executable>(std::move(executable));
}

StatusOr<std::shared_ptr<CommandBuffer>>
AmdgpuDevice::createCommandBufferImpl(CommandBufferMode mode,
                                      uint32_t bindingCapacity) {
  return std::shared_ptr<CommandBuffer>(
      std::make_shared<AmdgpuCommandBuffer>(mode, bindingCapacity, MaxGrid));
}

StatusOr<std::shared_ptr<Semaphore>>
AmdgpuDevice::createSemaphoreImpl(uint64_t initialValue) {
  return std::shared_ptr<Semaphore>(
      std::make_shared<AmdgpuSemaphore>(initialValue));
}

StatusOr<std::shared_ptr<Event>> AmdgpuDevice::createEvent() {
  return std::shared_ptr<Event>(std::make_shared<gpu::GpuEvent>());
}

Status AmdgpuDevice::queueExecuteImpl(
    uint32_t queue, std::span<const SemaphoreValue> waitList,
    const std::shared_ptr<CommandBuffer> &commandBuffer,
    std::span<const std::shared_ptr<Buffer>> bindingTable,
    std::span<const SemaphoreValue> signalList) {
  // A failed device runs nothing more; its waiters hear why rather than
  // wait for signals that would never come.
  if (Status failed = failure(); !failed.ok()) {
    signalOrFail(signalList, failed);
    return failed;
  }
  size_t gpu = queue / QueuesPerGpu;
  QueueSubmission submission;
  if (commandBuffer) {
    auto commands =
        std::dynamic_pointer_cast<AmdgpuCommandBuffer>(commandBuffer);
    if (!commands)
      return KILN_ERROR(InvalidArgument, "queueExecute: command buffer was "
                                         "not created by an amdgpu device");
    KILN_ASSIGN_OR_RETURN(std::vector<uint64_t> slots,
                          gpu::gpuSlotAddresses(bindingTable, "amdgpu"));
    std::shared_ptr<PreparedDispatches> prepared =
        commands->prepare(gpu, *Transfer[gpu], slots);
    submission.Dispatches = prepared->Dispatches;
    // What the packets point into and use, until the submission retires.
    struct Held {
      std::shared_ptr<PreparedDispatches> Prepared;
      std::shared_ptr<CommandBuffer> Commands;
      std::vector<std::shared_ptr<Buffer>> Table;
    };
    submission.KeepAlive = std::make_shared<Held>(
        Held{std::move(prepared),
             commandBuffer,
             {bindingTable.begin(), bindingTable.end()}});
  }
  submission.Waits.assign(waitList.begin(), waitList.end());
  submission.Signals.assign(signalList.begin(), signalList.end());
  Agents[gpu]->queue(queue % QueuesPerGpu).submit(std::move(submission));
  return Status();
}

Status AmdgpuDevice::waitIdle(Timeout timeout) {
  auto deadline = deadlineAfter(timeout);
  for (const std::unique_ptr<AmdgpuAgent> &agent : Agents)
    for (uint32_t index = 0; index < agent->queueCount(); ++index)
      KILN_RETURN_IF_ERROR(agent->queue(index).waitIdle(timeLeft(deadline)));
  return failure();
}

} // namespace kiln::hal::amdgpu
