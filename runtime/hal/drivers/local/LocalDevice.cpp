//===- LocalDevice.cpp ----------------------------------------------------===//

#include "runtime/hal/drivers/local/LocalDevice.h"

#include "runtime/hal/Feature.h"
#include "runtime/hal/HostSemaphore.h"
#include "runtime/hal/drivers/local/CpuAbi.h"
#include "runtime/hal/drivers/local/CpuTarget.h"
#include "runtime/hal/drivers/local/LocalBuffer.h"
#include "runtime/hal/drivers/local/LocalCommandBuffer.h"
#include "runtime/hal/drivers/local/LocalEvent.h"
#include "runtime/hal/drivers/local/LocalExecutable.h"

#include <algorithm>

namespace kiln::hal::local {

LocalDevice::Queue::Queue(const std::string &deviceName, uint32_t workers)
    : Pool(workers == 0 ? nullptr : std::make_unique<TaskPool>(workers)),
      Submissions(deviceName, workers == 0 ? HostQueue::Mode::Inline
                                           : HostQueue::Mode::Threaded) {}

LocalDevice::LocalDevice(Options options)
    : Info(std::move(options.Info)), Workers(options.Workers),
      DeviceAllocator(options.Unified) {
  Queues.resize(isSync() ? 1 : std::max<uint32_t>(options.Queues, 1));
}

LocalDevice::~LocalDevice() = default;

LocalDevice::Queue &LocalDevice::queue(uint32_t index) {
  std::lock_guard<std::mutex> lock(QueuesMutex);
  std::unique_ptr<Queue> &slot = Queues[index];
  if (!slot)
    slot = std::make_unique<Queue>(Info.Uri, Workers);
  return *slot;
}

std::vector<UnsupportedFeature> LocalDevice::unsupportedFeatures() const {
  std::vector<UnsupportedFeature> features;
  if (isSync()) {
    features.push_back(
        {std::string(feature::kDeferredSubmission),
         "local-sync runs a submission inside queueExecute on the submitting "
         "thread, so only another thread can satisfy its waits"});
    features.push_back({std::string(feature::kConcurrentWorkgroups),
                        "local-sync runs workgroups one after another on "
                        "the submitting thread"});
    features.push_back({std::string(feature::kConcurrentCommands),
                        "local-sync runs commands one after another on the "
                        "submitting thread"});
  } else if (Workers < 2) {
    features.push_back({std::string(feature::kConcurrentWorkgroups),
                        "this local-task device has a single worker"});
    features.push_back({std::string(feature::kConcurrentCommands),
                        "this local-task device has a single worker, which "
                        "runs commands one after another"});
  }
  if (isSync())
    features.push_back({std::string(feature::kConcurrentQueues),
                        "local-sync has one queue, run on the submitting "
                        "thread"});
  else if (Queues.size() < 2)
    features.push_back({std::string(feature::kConcurrentQueues),
                        "this local-task device was created with queues=1"});
  features.push_back({std::string(feature::kBoundedDeviceMemory),
                      "host memory is overcommitted: a huge allocation may "
                      "succeed and fail only when its pages are touched"});
  if (!DeviceAllocator.isUnified())
    features.push_back({std::string(feature::kHostVisibleDeviceLocal),
                        "created with unified=0: memory is DeviceLocal or "
                        "HostVisible, as on a discrete GPU"});
  return features;
}

bool LocalDevice::supportsExecutable(std::string_view format,
                                     std::string_view target) const {
  return format == KILN_CPU_EXECUTABLE_FORMAT && hostSupportsCpuTarget(target);
}

StatusOr<std::shared_ptr<Executable>>
LocalDevice::createExecutable(const ExecutableSpec &spec) {
  KILN_RETURN_IF_ERROR(validateExecutableSpec(spec));
  if (!supportsExecutable(spec.Format, spec.Target))
    return KILN_ERROR(Unimplemented, "executable '", spec.Name, "' (",
                      spec.Format, "/", spec.Target, ") cannot run on ",
                      Info.Uri, " (", KILN_CPU_EXECUTABLE_FORMAT, " up to ",
                      hostCpuTarget(), ")");
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<LocalExecutable> executable,
                        LocalExecutable::load(spec));
  return std::shared_ptr<Executable>(std::move(executable));
}

StatusOr<std::shared_ptr<CommandBuffer>>
LocalDevice::createCommandBufferImpl(CommandBufferMode mode,
                                     uint32_t bindingCapacity) {
  return std::shared_ptr<CommandBuffer>(
      std::make_shared<LocalCommandBuffer>(mode, bindingCapacity));
}

StatusOr<std::shared_ptr<Semaphore>>
LocalDevice::createSemaphoreImpl(uint64_t initialValue) {
  return std::shared_ptr<Semaphore>(
      std::make_shared<HostSemaphore>(initialValue));
}

StatusOr<std::shared_ptr<Event>> LocalDevice::createEvent() {
  return std::shared_ptr<Event>(std::make_shared<LocalEvent>());
}

Status LocalDevice::queueExecuteImpl(
    uint32_t queueIndex, std::span<const SemaphoreValue> waitList,
    const std::shared_ptr<CommandBuffer> &commandBuffer,
    std::span<const std::shared_ptr<Buffer>> bindingTable,
    std::span<const SemaphoreValue> signalList) {
  std::shared_ptr<LocalCommandBuffer> commands;
  std::vector<uint8_t *> slotBases;
  if (commandBuffer) {
    commands = std::dynamic_pointer_cast<LocalCommandBuffer>(commandBuffer);
    if (!commands)
      return KILN_ERROR(InvalidArgument, "queueExecute: command buffer was "
                                         "not created by a local device");
    for (size_t slot = 0; slot < bindingTable.size(); ++slot) {
      uint8_t *base = nullptr;
      if (bindingTable[slot]) {
        auto *buffer = dynamic_cast<LocalBuffer *>(bindingTable[slot].get());
        if (!buffer)
          return KILN_ERROR(InvalidArgument, "binding slot ", slot,
                            " holds a buffer not allocated by a local device");
        base = buffer->data();
      }
      slotBases.push_back(base);
    }
  }
  Queue &target = queue(queueIndex);
  // The work holds the table's buffers until it is done, and lets go of
  // them before signalling, so a waiter that sees the signal may drop the
  // last reference.
  struct Work {
    std::shared_ptr<LocalCommandBuffer> Commands;
    std::vector<std::shared_ptr<Buffer>> Table;
    std::vector<uint8_t *> SlotBases;
  };
  auto work =
      std::make_shared<Work>(Work{std::move(commands),
                                  {bindingTable.begin(), bindingTable.end()},
                                  std::move(slotBases)});
  HostSubmission submission;
  submission.Waits.assign(waitList.begin(), waitList.end());
  submission.Run = [work = std::move(work), pool = target.Pool.get(),
                    signals = std::vector<SemaphoreValue>(signalList.begin(),
                                                          signalList.end())](
                       Status waited) mutable {
    if (waited.ok() && work->Commands)
      work->Commands->execute(work->SlotBases, pool);
    work.reset();
    signalOrFail(signals, waited);
  };
  target.Submissions.submit(std::move(submission));
  return Status();
}

Status LocalDevice::waitIdle(Timeout timeout) {
  auto deadline = deadlineAfter(timeout);
  std::vector<Queue *> started;
  {
    std::lock_guard<std::mutex> lock(QueuesMutex);
    for (const std::unique_ptr<Queue> &queue : Queues)
      if (queue)
        started.push_back(queue.get());
  }
  for (Queue *queue : started)
    KILN_RETURN_IF_ERROR(queue->Submissions.waitIdle(timeLeft(deadline)));
  return Status();
}

} // namespace kiln::hal::local
