//===- AmdgpuSemaphore.cpp ------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/AmdgpuSemaphore.h"

namespace kiln::hal::amdgpu {

void AmdgpuSemaphore::forgetReached() {
  uint64_t reached = currentValue();
  Queued.erase(Queued.begin(), Queued.upper_bound(reached));
}

Status AmdgpuSemaphore::fail(Status status) {
  KILN_RETURN_IF_ERROR(HostSemaphore::fail(std::move(status)));
  // Waits now return the failure, so no one asks for these signals again;
  // submissions already waiting on them hold their own references.
  std::lock_guard<std::mutex> lock(Mutex);
  Queued.clear();
  return Status();
}

Status AmdgpuSemaphore::noteQueued(uint64_t value,
                                   std::shared_ptr<CompletionSignal> done) {
  KILN_RETURN_IF_ERROR(
      checkSemaphoreValue(value, "queued semaphore signal to"));
  if (!done)
    return KILN_ERROR(InvalidArgument,
                      "a queued semaphore signal without a completion signal");
  {
    std::lock_guard<std::mutex> lock(Mutex);
    if (failed())
      return query().status();
    uint64_t current = currentValue();
    if (value <= current)
      return KILN_ERROR(InvalidArgument, "queued semaphore signal to ", value,
                        " does not advance its value ", current);
    Queued.emplace(value, std::move(done));
  }
  // Queue threads holding a submission back until this value is queued
  // may now let their GPU wait for it.
  notifyChanged();
  return Status();
}

StatusOr<DeviceWait> AmdgpuSemaphore::deviceWait(uint64_t value) {
  std::lock_guard<std::mutex> lock(Mutex);
  if (failed())
    return query().status();
  DeviceWait wait;
  if (currentValue() >= value) {
    wait.Reached = true;
    return wait;
  }
  forgetReached();
  // The first submission (in value order) whose value reaches the one
  // waited for: once it is done, the retire thread has the value at least
  // there, and nothing earlier in value order would get there.
  auto it = Queued.lower_bound(value);
  if (it != Queued.end())
    wait.Signal = it->second;
  return wait;
}

std::optional<Status> AmdgpuSemaphore::pollQueued(uint64_t value) {
  StatusOr<DeviceWait> wait = deviceWait(value);
  if (!wait.ok())
    return wait.status();
  if (wait->Reached || wait->Signal)
    return Status();
  return std::nullopt;
}

Status AmdgpuSemaphore::signalFromDevice(uint64_t value) {
  std::lock_guard<std::mutex> lock(Mutex);
  if (failed())
    return query().status();
  // Only device signals take this lock, so none lands between the check
  // and the signal; a host signal that does is the caller's misuse of a
  // timeline the device signals, and leaves the larger value standing.
  if (value > currentValue()) {
    Status signalled = HostSemaphore::signal(value);
    if (!signalled.ok() && (failed() || currentValue() < value))
      return signalled;
  }
  forgetReached();
  return Status();
}

} // namespace kiln::hal::amdgpu
