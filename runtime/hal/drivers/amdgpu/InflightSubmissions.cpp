//===- InflightSubmissions.cpp --------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/InflightSubmissions.h"

#include "runtime/hal/HostQueue.h"
#include "runtime/hal/drivers/amdgpu/AmdgpuSemaphore.h"

namespace kiln::hal::amdgpu {

namespace {

AmdgpuSemaphore *asDevice(const SemaphoreValue &value) {
  return dynamic_cast<AmdgpuSemaphore *>(value.Timeline.get());
}

// Signals or fails what a finished submission signals.
void finish(InflightSubmission &submission) {
  Status status;
  for (const SemaphoreValue &wait : submission.Waits)
    if (std::optional<Status> reached = wait.Timeline->poll(wait.Value);
        reached && !reached->ok()) {
      status = *reached;
      break;
    }
  // What it held goes first, so a host waiter woken below may drop the
  // last reference to it.
  submission.Barriers.clear();
  submission.Waits.clear();
  submission.KeepAlive.reset();
  if (!status.ok()) {
    signalOrFail(submission.Signals, status);
    return;
  }
  for (const SemaphoreValue &signal : submission.Signals) {
    if (AmdgpuSemaphore *device = asDevice(signal)) {
      // Failed since it was queued: the failure stands.
      device->signalFromDevice(signal.Value).ignoreError();
      continue;
    }
    signalOrFail({&signal, 1}, Status());
  }
}

} // namespace

Status InflightSubmissions::add(InflightSubmission submission) {
  if (!submission.Done)
    return KILN_ERROR(InvalidArgument,
                      "an in-flight submission without a completion signal");
  // Held while its signals are queued, so failAll cannot come between
  // (and miss it); nothing takes this lock while holding a semaphore's.
  std::lock_guard<std::mutex> lock(Mutex);
  if (!Failure.ok()) {
    signalOrFail(submission.Signals, Failure);
    submission.Done->release();
    return Failure;
  }
  for (const SemaphoreValue &signal : submission.Signals)
    if (AmdgpuSemaphore *device = asDevice(signal))
      if (Status queued = device->noteQueued(signal.Value, submission.Done);
          !queued.ok())
        device->fail(std::move(queued)).ignoreError();
  Submissions.push_back(std::move(submission));
  return Status();
}

size_t InflightSubmissions::retireDone() {
  std::vector<InflightSubmission> done;
  {
    std::lock_guard<std::mutex> lock(Mutex);
    while (!Submissions.empty() && Submissions.front().Done->done()) {
      done.push_back(std::move(Submissions.front()));
      Submissions.pop_front();
    }
  }
  // Outside the lock: waiters woken here may submit again.
  for (InflightSubmission &submission : done)
    finish(submission);
  return done.size();
}

void InflightSubmissions::failAll(const Status &status) {
  std::deque<InflightSubmission> failed;
  Status failure;
  {
    std::lock_guard<std::mutex> lock(Mutex);
    // An OK status would signal values whose work never ran.
    if (Failure.ok())
      Failure = status.ok() ? KILN_ERROR(Internal, "in-flight work was dropped")
                            : status;
    failure = Failure;
    failed.swap(Submissions);
  }
  // Failed before released: a barrier that goes on because of the release
  // belongs to a submission whose wait now reports the failure.
  for (InflightSubmission &submission : failed)
    signalOrFail(submission.Signals, failure);
  for (InflightSubmission &submission : failed)
    submission.Done->release();
}

size_t InflightSubmissions::size() const {
  std::lock_guard<std::mutex> lock(Mutex);
  return Submissions.size();
}

Status InflightSubmissions::failure() const {
  std::lock_guard<std::mutex> lock(Mutex);
  return Failure;
}

} // namespace kiln::hal::amdgpu
