//===- GpuSemaphore.cpp --------------------------------------------------===//

#include "runtime/hal/drivers/gpu/GpuSemaphore.h"

#include <algorithm>

namespace kiln::hal::gpu {

void GpuPendingSignals::fail(Status status) {
  Status first;
  {
    std::lock_guard<std::mutex> lock(Mutex);
    if (Failure.ok())
      Failure = std::move(status);
    first = Failure;
  }
  for (const SemaphoreValue &signal : Signals)
    signal.Timeline->fail(first).ignoreError();
}

std::optional<Status> GpuPendingSignals::failure() const {
  std::lock_guard<std::mutex> lock(Mutex);
  if (Failure.ok())
    return std::nullopt;
  return Failure;
}

StatusOr<std::shared_ptr<GpuSemaphore>>
GpuSemaphore::create(std::shared_ptr<GpuApi> api, uint64_t initialValue) {
  GpuApi::Scope scope(*api);
  // A cache line of its own: the GPU's writes and the host's spinning
  // reads of one semaphore do not disturb another's.
  constexpr uint64_t kBytes = 64;
  KILN_ASSIGN_OR_RETURN(GpuMappedHostMemory word,
                        api->allocateMappedHost(kBytes));
  return std::shared_ptr<GpuSemaphore>(
      new GpuSemaphore(std::move(api), word, initialValue));
}

GpuSemaphore::~GpuSemaphore() {
  // Submissions hold the semaphores they wait on and signal until they
  // retire, so no stream uses the word any more.
  GpuApi::Scope scope(*Api);
  Api->freeMappedHost(Word);
}

StatusOr<bool> GpuSemaphore::addDeviceWaiter(
    uint64_t value, const std::shared_ptr<GpuPendingSignals> &waiter) {
  std::lock_guard<std::mutex> lock(WaitersMutex);
  // fail() records the failure before it takes this lock, so a waiter
  // registered here is either refused now or failed by fail().
  if (failed())
    return query().status();
  if (currentValue() >= value)
    return true;
  DeviceWaiters.erase(std::remove_if(DeviceWaiters.begin(), DeviceWaiters.end(),
                                     [&](const auto &entry) {
                                       return entry.second.expired() ||
                                              entry.first <= currentValue();
                                     }),
                      DeviceWaiters.end());
  DeviceWaiters.emplace_back(value, waiter);
  return false;
}

Status GpuSemaphore::checkDeviceSignal(uint64_t value) {
  if (failed())
    return query().status();
  uint64_t current = currentValue();
  if (value <= current)
    return KILN_ERROR(InvalidArgument, "semaphore signal to ", value,
                      " does not advance its value ", current);
  return Status();
}

void GpuSemaphore::noteQueued(uint64_t value) {
  uint64_t queued = Queued.load(std::memory_order_relaxed);
  while (queued < value &&
         !Queued.compare_exchange_weak(queued, value, std::memory_order_release,
                                       std::memory_order_relaxed)) {
  }
  notifyChanged();
}

std::optional<Status> GpuSemaphore::pollQueued(uint64_t value) {
  std::optional<Status> reached = poll(value);
  if (reached || Queued.load(std::memory_order_acquire) < value)
    return reached;
  return Status();
}

void GpuSemaphore::notifyDeviceSignal() {
  // Failed after its write was issued: the write replaced the failure
  // value, which must stay for GPU waiters of later values.
  if (failed())
    storeValue(kFailedValue);
  notifyChanged();
}

Status GpuSemaphore::fail(Status status) {
  if (status.ok())
    return KILN_ERROR(InvalidArgument,
                      "a semaphore cannot be failed with an OK status");
  if (!recordFailure(status)) {
    // Failed before: a GPU write may have replaced the failure value since.
    storeValue(kFailedValue);
    return Status();
  }
  std::vector<std::shared_ptr<GpuPendingSignals>> doomed;
  {
    std::lock_guard<std::mutex> lock(WaitersMutex);
    uint64_t reached = currentValue();
    for (const auto &[value, weak] : DeviceWaiters)
      if (value > reached)
        if (auto waiter = weak.lock())
          doomed.push_back(std::move(waiter));
    DeviceWaiters.clear();
  }
  // Before the GPU waiters are released: what they signal fails first.
  for (const auto &waiter : doomed)
    waiter->fail(status);
  storeValue(kFailedValue);
  notifyChanged();
  return Status();
}

} // namespace kiln::hal::gpu
