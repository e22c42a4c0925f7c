//===- GpuDevice.cpp ------------------------------------------------------===//

#include "runtime/hal/drivers/gpu/GpuDevice.h"

#include "runtime/hal/Feature.h"
#include "runtime/hal/HostSemaphore.h"
#include "runtime/hal/drivers/gpu/GpuBuffer.h"
#include "runtime/hal/drivers/gpu/GpuEvent.h"
#include "runtime/hal/drivers/gpu/GpuGraphCommandBuffer.h"
#include "runtime/hal/drivers/gpu/GpuSemaphore.h"
#include "runtime/hal/drivers/gpu/GpuStreamCommandBuffer.h"

namespace kiln::hal::gpu {

StatusOr<GpuDeviceOptions> GpuDeviceOptions::fromUri(const DeviceUri &uri) {
  KILN_RETURN_IF_ERROR(
      uri.checkParams({"queues", "device_semaphores", "command_buffers"}));
  GpuDeviceOptions options;
  KILN_ASSIGN_OR_RETURN(std::optional<uint64_t> queues,
                        uri.uintParam("queues", 1, kQueueLimit));
  if (queues)
    options.Queues = static_cast<uint32_t>(*queues);
  KILN_ASSIGN_OR_RETURN(options.DeviceSemaphores,
                        uri.boolParam("device_semaphores"));
  if (std::optional<std::string_view> kind = uri.param("command_buffers")) {
    KILN_ASSIGN_OR_RETURN(options.CommandBuffers,
                          parseGpuCommandBufferKind(*kind,
                                                    "device URI parameter "
                                                    "command_buffers"));
  }
  return options;
}

StatusOr<bool>
GpuDevice::chooseDeviceSemaphores(const GpuDeviceOptions &options,
                                  bool wordOperations, DeviceInfo &info) {
  if (options.DeviceSemaphores.value_or(false) && !wordOperations)
    return KILN_ERROR(FailedPrecondition, "device ", info.Uri,
                      " cannot wait on and write 64-bit values from its "
                      "streams, so device_semaphores=1 is impossible");
  bool deviceSemaphores = options.DeviceSemaphores.value_or(wordOperations);
  info.Properties.emplace_back("queues", strCat(options.Queues));
  info.Properties.emplace_back("device_semaphores",
                               deviceSemaphores ? "1" : "0");
  return deviceSemaphores;
}

StatusOr<std::vector<std::unique_ptr<GpuQueue>>>
GpuDevice::createQueues(const std::shared_ptr<GpuApi> &api,
                        const DeviceInfo &info, const GpuDeviceOptions &options,
                        bool deviceSemaphores) {
  std::vector<std::unique_ptr<GpuQueue>> queues;
  for (uint32_t index = 0; index < options.Queues; ++index) {
    KILN_ASSIGN_OR_RETURN(std::unique_ptr<GpuQueue> queue,
                          GpuQueue::create(api, info.Uri, deviceSemaphores));
    queues.push_back(std::move(queue));
  }
  return queues;
}

GpuDevice::GpuDevice(std::shared_ptr<GpuApi> api, DeviceInfo info,
                     GpuDeviceLimits limits, uint64_t deviceBytes,
                     GpuCommandBufferKind commandBufferKind,
                     bool deviceSemaphores,
                     std::vector<std::unique_ptr<GpuQueue>> queues)
    : Info(std::move(info)), Limits(limits),
      CommandBufferKind(commandBufferKind), DeviceSemaphores(deviceSemaphores),
      Api(std::move(api)),
      // Queue 0's stream: the one callers that name no queue use.
      DeviceAllocator(Api, queues[0]->stream(), deviceBytes),
      Queues(std::move(queues)) {}

StatusOr<std::shared_ptr<Executable>>
GpuDevice::createExecutable(const ExecutableSpec &spec) {
  KILN_RETURN_IF_ERROR(validateExecutableSpec(spec));
  if (!supportsExecutable(spec.Format, spec.Target))
    return KILN_ERROR(FailedPrecondition, "executable '", spec.Name, "' (",
                      spec.Format, "/", spec.Target, ") cannot run on ",
                      info().Uri, ", ", chipDescription());
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<GpuExecutable> executable,
                        GpuExecutable::load(Api, Limits, spec));
  return std::shared_ptr<Executable>(std::move(executable));
}

std::vector<UnsupportedFeature> GpuDevice::sharedUnsupportedFeatures() const {
  std::vector<UnsupportedFeature> features = {
      {std::string(feature::kHostVisibleDeviceLocal),
       "a discrete GPU: device memory is not mapped on the host, and "
       "host-visible memory is pinned host memory"}};
  // Follows the kind createCommandBuffer makes. Graph mode gives commands
  // no ordering links no edge, so the GPU may run them at once.
  if (commandBufferKind() == GpuCommandBufferKind::Stream)
    features.push_back({std::string(feature::kConcurrentCommands),
                        "stream command buffers issue commands one after "
                        "another on one stream"});
  if (queueCount() < 2)
    features.push_back({std::string(feature::kConcurrentQueues),
                        "this device was created with queues=1"});
  return features;
}

StatusOr<std::shared_ptr<CommandBuffer>>
GpuDevice::createCommandBufferImpl(CommandBufferMode mode,
                                   uint32_t bindingCapacity) {
  KILN_ASSIGN_OR_RETURN(
      std::shared_ptr<GpuCommandBuffer> commands,
      createGpuCommandBuffer(mode, bindingCapacity, CommandBufferKind));
  return std::shared_ptr<CommandBuffer>(std::move(commands));
}

StatusOr<std::shared_ptr<GpuCommandBuffer>>
GpuDevice::createGpuCommandBuffer(CommandBufferMode mode,
                                  uint32_t bindingCapacity,
                                  GpuCommandBufferKind kind) {
  if (kind == GpuCommandBufferKind::Graph)
    return std::shared_ptr<GpuCommandBuffer>(
        std::make_shared<GpuGraphCommandBuffer>(mode, bindingCapacity, Api,
                                                Limits));
  return std::shared_ptr<GpuCommandBuffer>(
      std::make_shared<GpuStreamCommandBuffer>(mode, bindingCapacity, Api,
                                               Limits));
}

StatusOr<std::shared_ptr<Semaphore>>
GpuDevice::createSemaphoreImpl(uint64_t initialValue) {
  if (!DeviceSemaphores)
    return std::shared_ptr<Semaphore>(
        std::make_shared<HostSemaphore>(initialValue));
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<GpuSemaphore> semaphore,
                        GpuSemaphore::create(Api, initialValue));
  return std::shared_ptr<Semaphore>(std::move(semaphore));
}

StatusOr<std::shared_ptr<Event>> GpuDevice::createEvent() {
  return std::shared_ptr<Event>(std::make_shared<GpuEvent>());
}

StatusOr<std::shared_ptr<SubmissionTimer>> GpuDevice::createSubmissionTimer() {
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<GpuSubmissionTimer> timer,
                        GpuSubmissionTimer::create(Api));
  return std::shared_ptr<SubmissionTimer>(std::move(timer));
}

Status GpuDevice::queueExecuteImpl(
    uint32_t queue, std::span<const SemaphoreValue> waitList,
    const std::shared_ptr<CommandBuffer> &commandBuffer,
    std::span<const std::shared_ptr<Buffer>> bindingTable,
    std::span<const SemaphoreValue> signalList) {
  return submit(queue, waitList, commandBuffer, bindingTable, signalList,
                nullptr);
}

Status GpuDevice::queueExecuteTimedImpl(
    uint32_t queue, std::span<const SemaphoreValue> waitList,
    const std::shared_ptr<CommandBuffer> &commandBuffer,
    std::span<const std::shared_ptr<Buffer>> bindingTable,
    std::span<const SemaphoreValue> signalList,
    const std::shared_ptr<SubmissionTimer> &timer) {
  auto gpuTimer = std::dynamic_pointer_cast<GpuSubmissionTimer>(timer);
  if (!gpuTimer)
    return KILN_ERROR(InvalidArgument,
                      "queueExecute: timer was not created "
                      "by a ",
                      Api->name(), " device");
  return submit(queue, waitList, commandBuffer, bindingTable, signalList,
                std::move(gpuTimer));
}

Status GpuDevice::submit(uint32_t queueIndex,
                         std::span<const SemaphoreValue> waitList,
                         const std::shared_ptr<CommandBuffer> &commandBuffer,
                         std::span<const std::shared_ptr<Buffer>> bindingTable,
                         std::span<const SemaphoreValue> signalList,
                         std::shared_ptr<GpuSubmissionTimer> timer) {
  GpuQueue::Submission submission;
  if (commandBuffer) {
    submission.Commands =
        std::dynamic_pointer_cast<GpuCommandBuffer>(commandBuffer);
    if (!submission.Commands)
      return KILN_ERROR(InvalidArgument,
                        "queueExecute: command buffer was "
                        "not created by a ",
                        Api->name(), " device");
  }
  KILN_ASSIGN_OR_RETURN(submission.SlotAddresses,
                        gpuSlotAddresses(bindingTable, Api->name()));
  submission.Waits.assign(waitList.begin(), waitList.end());
  submission.Table.assign(bindingTable.begin(), bindingTable.end());
  submission.Signals.assign(signalList.begin(), signalList.end());
  submission.Timer = std::move(timer);
  Queues[queueIndex]->submit(std::move(submission));
  return Status();
}

Status GpuDevice::waitIdle(Timeout timeout) {
  auto deadline = deadlineAfter(timeout);
  for (const std::unique_ptr<GpuQueue> &queue : Queues)
    KILN_RETURN_IF_ERROR(queue->waitIdle(deadline));
  return Status();
}

} // namespace kiln::hal::gpu
