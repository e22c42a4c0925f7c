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
      DeviceAllocator(options.Unified) {
  if (isSync())
    return;
  Pool = std::make_unique<TaskPool>(Workers);
  QueueWaker = std::make_shared<Waker>();
  QueueThread = std::thread([this] { queueMain(); });
}

LocalDevice::~LocalDevice() {
  if (isSync())
    return;
  {
    std::lock_guard<std::mutex> lock(QueueMutex);
    ShuttingDown = true;
  }
  QueueCv.notify_all();
  QueueWaker->stop();
  QueueThread.join();
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
  } else if (Workers < 2) {
    features.push_back({std::string(feature::kConcurrentWorkgroups),
                        "this local-task device has a single worker"});
  }
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
      std::make_shared<LocalSemaphore>(initialValue));
}

StatusOr<std::shared_ptr<Event>> LocalDevice::createEvent() {
  return std::shared_ptr<Event>(std::make_shared<LocalEvent>());
}

Status LocalDevice::queueExecuteImpl(
    std::span<const SemaphoreValue> waitList,
    const std::shared_ptr<CommandBuffer> &commandBuffer,
    std::span<const std::shared_ptr<Buffer>> bindingTable,
    std::span<const SemaphoreValue> signalList) {
  Submission submission;
  for (const SemaphoreValue &wait : waitList) {
    auto semaphore = std::dynamic_pointer_cast<LocalSemaphore>(wait.Timeline);
    if (!semaphore)
      return KILN_ERROR(InvalidArgument, "queueExecute: wait semaphore was "
                                         "not created by a local device");
    submission.Waits.emplace_back(std::move(semaphore), wait.Value);
  }
  for (const SemaphoreValue &signal : signalList) {
    auto semaphore = std::dynamic_pointer_cast<LocalSemaphore>(signal.Timeline);
    if (!semaphore)
      return KILN_ERROR(InvalidArgument, "queueExecute: signal semaphore was "
                                         "not created by a local device");
    submission.Signals.emplace_back(std::move(semaphore), signal.Value);
  }
  if (commandBuffer) {
    submission.Commands =
        std::dynamic_pointer_cast<LocalCommandBuffer>(commandBuffer);
    if (!submission.Commands)
      return KILN_ERROR(InvalidArgument, "queueExecute: command buffer was "
                                         "not created by a local device");
  }
  for (size_t slot = 0; slot < bindingTable.size(); ++slot) {
    uint8_t *base = nullptr;
    if (bindingTable[slot]) {
      auto *buffer = dynamic_cast<LocalBuffer *>(bindingTable[slot].get());
      if (!buffer)
        return KILN_ERROR(InvalidArgument, "binding slot ", slot,
                          " holds a buffer not allocated by a local device");
      base = buffer->data();
    }
    submission.SlotBases.push_back(base);
  }
  submission.Table.assign(bindingTable.begin(), bindingTable.end());

  {
    std::lock_guard<std::mutex> lock(QueueMutex);
    ++Pending;
    if (!isSync())
      Queue.push_back(std::move(submission));
  }
  if (!isSync()) {
    QueueCv.notify_one();
    return Status();
  }
  // local-sync: a blocking wait on the caller's thread; only other threads
  // can satisfy it (see feature::kDeferredSubmission).
  Status waitStatus;
  for (const auto &[semaphore, value] : submission.Waits) {
    waitStatus = semaphore->wait(value, kInfiniteTimeout);
    if (!waitStatus.ok())
      break;
  }
  run(submission, waitStatus);
  finishOne();
  return Status();
}

void LocalDevice::run(Submission &submission, Status status) {
  if (status.ok() && submission.Commands)
    submission.Commands->execute(submission.SlotBases, Pool.get());
  // Drop the work's references before signalling, so a waiter that sees the
  // signal may release the last reference to anything the work used.
  submission.Commands.reset();
  submission.Table.clear();
  submission.Waits.clear();
  for (const auto &[semaphore, value] : submission.Signals) {
    if (!status.ok()) {
      semaphore->fail(status).ignoreError();
      continue;
    }
    // A value that does not advance would leave waiters hanging; fail the
    // semaphore so they see why.
    Status signalled = semaphore->signal(value);
    if (!signalled.ok())
      semaphore->fail(signalled).ignoreError();
  }
}

void LocalDevice::finishOne() {
  std::lock_guard<std::mutex> lock(QueueMutex);
  if (--Pending == 0)
    IdleCv.notify_all();
}

Status LocalDevice::waitForAll(const Submission &submission) {
  while (true) {
    QueueWaker->arm();
    bool reached = true;
    for (const auto &[semaphore, value] : submission.Waits) {
      semaphore->addWaker(QueueWaker);
      std::optional<Status> state = semaphore->poll(value);
      if (!state) {
        reached = false;
        continue;
      }
      if (!state->ok())
        return *state;
    }
    if (reached)
      return Status();
    if (!QueueWaker->sleep())
      return KILN_ERROR(Cancelled, "device ", Info.Uri,
                        " was destroyed while a submission waited for its "
                        "semaphores");
  }
}

void LocalDevice::queueMain() {
  std::unique_lock<std::mutex> lock(QueueMutex);
  while (true) {
    QueueCv.wait(lock, [&] { return !Queue.empty() || ShuttingDown; });
    if (Queue.empty())
      return;
    Submission submission = std::move(Queue.front());
    Queue.pop_front();
    lock.unlock();
    run(submission, waitForAll(submission));
    submission = Submission();
    lock.lock();
    if (--Pending == 0)
      IdleCv.notify_all();
  }
}

Status LocalDevice::waitIdle(Timeout timeout) {
  std::unique_lock<std::mutex> lock(QueueMutex);
  auto idle = [&] { return Pending == 0; };
  if (timeout == kInfiniteTimeout) {
    IdleCv.wait(lock, idle);
    return Status();
  }
  auto now = std::chrono::steady_clock::now();
  auto limit = std::chrono::steady_clock::time_point::max() - now;
  auto deadline = timeout >= limit
                      ? std::chrono::steady_clock::time_point::max()
                      : now + timeout;
  if (!IdleCv.wait_until(lock, deadline, idle))
    return KILN_ERROR(DeadlineExceeded, "device ", Info.Uri, " still has ",
                      Pending, " submission(s) after the waitIdle timeout");
  return Status();
}

} // namespace kiln::hal::local
