//===- LocalDevice.cpp ----------------------------------------------------===//

#include "runtime/hal/drivers/local/LocalDevice.h"

#include "runtime/hal/Feature.h"
#include "runtime/hal/drivers/local/CpuAbi.h"
#include "runtime/hal/drivers/local/CpuTarget.h"
#include "runtime/hal/drivers/local/LocalBuffer.h"
#include "runtime/hal/drivers/local/LocalCommandBuffer.h"
#include "runtime/hal/drivers/local/LocalEvent.h"
#include "runtime/hal/drivers/local/LocalExecutable.h"

namespace kiln::hal::local {

LocalDevice::LocalDevice(Options options)
    : Info(std::move(options.Info)), Workers(options.Workers),
      DeviceAllocator(options.Unified),
      Pool(isSync() ? nullptr : std::make_unique<TaskPool>(Workers)),
      Queue(Info.Uri,
            isSync() ? HostQueue::Mode::Inline : HostQueue::Mode::Threaded) {}

LocalDevice::~LocalDevice() = default;

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
LocalDevice::createCommandBuffer(CommandBufferMode mode,
                                 uint32_t bindingCapacity) {
  return std::shared_ptr<CommandBuffer>(
      std::make_shared<LocalCommandBuffer>(mode, bindingCapacity));
}

StatusOr<std::shared_ptr<Semaphore>>
LocalDevice::createSemaphore(uint64_t initialValue) {
  return std::shared_ptr<Semaphore>(
      std::make_shared<HostSemaphore>(initialValue));
}

StatusOr<std::shared_ptr<Event>> LocalDevice::createEvent() {
  return std::shared_ptr<Event>(std::make_shared<LocalEvent>());
}

Status LocalDevice::queueExecuteImpl(
    std::span<const SemaphoreValue> waitList,
    const std::shared_ptr<CommandBuffer> &commandBuffer,
    std::span<const std::shared_ptr<Buffer>> bindingTable,
    std::span<const SemaphoreValue> signalList) {
  HostSubmission submission;
  KILN_ASSIGN_OR_RETURN(submission.Waits, toHostSemaphores(waitList, "wait"));
  KILN_ASSIGN_OR_RETURN(submission.Signals,
                        toHostSemaphores(signalList, "signal"));
  if (!commandBuffer) {
    Queue.submit(std::move(submission));
    return Status();
  }
  auto commands = std::dynamic_pointer_cast<LocalCommandBuffer>(commandBuffer);
  if (!commands)
    return KILN_ERROR(InvalidArgument, "queueExecute: command buffer was "
                                       "not created by a local device");
  std::vector<uint8_t *> slotBases;
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
  // The work holds the table's buffers until it is done.
  submission.Work = [commands = std::move(commands),
                     table = std::vector<std::shared_ptr<Buffer>>(
                         bindingTable.begin(), bindingTable.end()),
                     slotBases = std::move(slotBases), pool = Pool.get()] {
    commands->execute(slotBases, pool);
    return Status();
  };
  Queue.submit(std::move(submission));
  return Status();
}

Status LocalDevice::waitIdle(Timeout timeout) {
  return Queue.waitIdle(timeout);
}

} // namespace kiln::hal::local
