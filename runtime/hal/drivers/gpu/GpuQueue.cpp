//===- GpuQueue.cpp ------------------------------------------------------===//

#include "runtime/hal/drivers/gpu/GpuQueue.h"

#include <algorithm>
#include <thread>

#if defined(__linux__)
#include <sys/prctl.h>
#endif

namespace kiln::hal::gpu {

StatusOr<std::unique_ptr<GpuQueue>>
GpuQueue::create(std::shared_ptr<GpuApi> api, std::string deviceName,
                 bool deviceSemaphores) {
  std::shared_ptr<GpuSemaphore> retired;
  if (deviceSemaphores) {
    KILN_ASSIGN_OR_RETURN(retired, GpuSemaphore::create(api, 0));
  }
  GpuApi::Scope scope(*api);
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<GpuStreamObject> stream,
                        api->createStream());
  return std::unique_ptr<GpuQueue>(
      new GpuQueue(std::move(api), std::move(stream), std::move(deviceName),
                   std::move(retired)));
}

GpuQueue::GpuQueue(std::shared_ptr<GpuApi> api,
                   std::shared_ptr<GpuStreamObject> stream,
                   std::string deviceName,
                   std::shared_ptr<GpuSemaphore> retired)
    : Api(std::move(api)), Stream(std::move(stream)),
      Retired(std::move(retired)) {
  // Both threads make vendor calls; their context never changes.
  auto makeCurrent = [api = Api] { api->bindThread(); };
  Issuer = std::make_unique<HostQueue>(deviceName, HostQueue::Mode::Threaded,
                                       makeCurrent);
  Retirer = std::make_unique<HostQueue>(deviceName, HostQueue::Mode::Threaded,
                                        makeCurrent);
}

GpuQueue::~GpuQueue() {
  // Submissions still waiting run with Cancelled and go to the retire
  // thread like any other; it stops once every one retired.
  Issuer.reset();
  Retirer.reset();
}

std::shared_ptr<GpuSemaphore>
GpuQueue::onDevice(const SemaphoreValue &value) const {
  if (!Retired)
    return nullptr;
  auto semaphore = std::dynamic_pointer_cast<GpuSemaphore>(value.Timeline);
  if (semaphore && semaphore->contextId() == Api->contextId())
    return semaphore;
  return nullptr;
}

std::optional<Status> GpuQueue::waitOver(const SemaphoreValue &wait) const {
  if (auto semaphore = onDevice(wait))
    return semaphore->pollQueued(wait.Value);
  return wait.Timeline->poll(wait.Value);
}

void GpuQueue::submit(Submission submission) {
  auto flight = std::make_shared<Flight>();
  for (const SemaphoreValue &wait : submission.Waits)
    if (auto semaphore = onDevice(wait))
      flight->DeviceWaits.emplace_back(std::move(semaphore), wait.Value);
  for (const SemaphoreValue &signal : submission.Signals) {
    if (auto semaphore = onDevice(signal))
      flight->DeviceSignals.emplace_back(std::move(semaphore), signal.Value);
    else
      flight->HostSignals.push_back(signal);
  }
  flight->Signals =
      std::make_shared<GpuPendingSignals>(std::move(submission.Signals));
  submission.Signals.clear();

  std::lock_guard<std::mutex> lock(IssueMutex);
  if (Unissued == 0) {
    // Issue here when the waits are over: the GPU starts without waiting
    // for the issue thread to wake.
    std::optional<Status> waited = Status();
    for (const SemaphoreValue &wait : submission.Waits) {
      std::optional<Status> state = waitOver(wait);
      if (!state || !state->ok()) {
        waited = std::move(state);
        break;
      }
    }
    if (waited) {
      flight->Work = std::move(submission);
      GpuApi::Scope scope(*Api);
      issue(flight, std::move(*waited));
      return;
    }
  }
  ++Unissued;
  HostSubmission waiting;
  waiting.Waits = std::move(submission.Waits);
  waiting.Ready = [this](const SemaphoreValue &wait) { return waitOver(wait); };
  flight->Work = std::move(submission);
  waiting.Run = [this, flight](Status waited) {
    std::lock_guard<std::mutex> lock(IssueMutex);
    --Unissued;
    issue(flight, std::move(waited));
  };
  Issuer->submit(std::move(waiting));
}

void GpuQueue::issue(const std::shared_ptr<Flight> &flight, Status waited) {
  flight->IssueStatus =
      waited.ok() ? issueCommands(*flight) : std::move(waited);
  // At once, not when it retires: GPU waiters on other streams are
  // released now, and so are host waiters.
  if (!flight->IssueStatus.ok())
    flight->Signals->fail(flight->IssueStatus);
  HostSubmission retirement;
  retirement.Run = [this, flight](Status) { retire(*flight); };
  Retirer->submit(std::move(retirement));
}

namespace {

GpuWordOperation waitOperation(uint64_t address, uint64_t value) {
  return {GpuWordOperation::Kind::WaitAtLeast, address, value};
}

GpuWordOperation writeOperation(uint64_t address, uint64_t value) {
  return {GpuWordOperation::Kind::Write, address, value};
}

} // namespace

Status GpuQueue::issueCommands(Flight &flight) {
  GpuStreamHandle stream = Stream.get();
  std::vector<GpuWordOperation> waits;
  for (const auto &[semaphore, value] : flight.DeviceWaits) {
    KILN_ASSIGN_OR_RETURN(bool reached,
                          semaphore->addDeviceWaiter(value, flight.Signals));
    if (!reached)
      waits.push_back(waitOperation(semaphore->deviceAddress(), value));
  }
  if (!waits.empty()) {
    flight.Issued = true;
    KILN_RETURN_IF_ERROR(Api->enqueueWordOperations(stream, waits));
  }
  if (Submission &work = flight.Work; work.Commands) {
    flight.Issued = true;
    if (work.Timer)
      KILN_RETURN_IF_ERROR(work.Timer->recordStart(stream));
    KILN_RETURN_IF_ERROR(work.Commands->execute(stream, work.SlotAddresses));
    if (work.Timer)
      KILN_RETURN_IF_ERROR(work.Timer->recordEnd(stream));
  }
  std::vector<GpuWordOperation> writes;
  for (auto signal = flight.DeviceSignals.begin();
       signal != flight.DeviceSignals.end();) {
    auto &[semaphore, value] = *signal;
    if (Status advancing = semaphore->checkDeviceSignal(value);
        !advancing.ok()) {
      // Its waiters would hang on a value that does not come: fail it so
      // they see why, as a host signal would (failing a failed semaphore
      // again changes nothing).
      semaphore->fail(std::move(advancing)).ignoreError();
      signal = flight.DeviceSignals.erase(signal);
      continue;
    }
    writes.push_back(writeOperation(semaphore->deviceAddress(), value));
    ++signal;
  }
  if (!Retired) {
    // Issued or not, the retire thread synchronizes the stream.
    flight.Issued = true;
    return Status();
  }
  if (writes.empty() && !flight.Issued)
    return Status(); // nothing to wait for
  flight.Issued = true;
  uint64_t sequence = LastSequence + 1;
  writes.push_back(writeOperation(Retired->deviceAddress(), sequence));
  KILN_RETURN_IF_ERROR(Api->enqueueWordOperations(stream, writes));
  LastSequence = sequence;
  flight.Sequence = sequence;
  // Now other streams may wait for these values on the GPU.
  for (const auto &[semaphore, value] : flight.DeviceSignals)
    semaphore->noteQueued(value);
  return Status();
}

void GpuQueue::retire(Flight &flight) {
  Status status = flight.IssueStatus;
  if (flight.Issued) {
    // Even after a failed issue, what was issued must finish before the
    // table's buffers (held until now) are released.
    Status finished = flight.Sequence ? waitForRetireWord(flight.Sequence)
                                      : Api->synchronize(Stream.get());
    if (status.ok())
      status = std::move(finished);
  }
  // A device wait that failed after the issue released the GPU with
  // meaningless input.
  if (status.ok())
    if (std::optional<Status> failure = flight.Signals->failure())
      status = std::move(*failure);
  // Let go of what the work used before anyone is told it is done, so a
  // waiter may drop the last reference.
  flight.Work = Submission();
  flight.DeviceWaits.clear();
  if (!status.ok()) {
    flight.Signals->fail(std::move(status));
    return;
  }
  for (const auto &[semaphore, value] : flight.DeviceSignals)
    semaphore->notifyDeviceSignal();
  signalOrFail(flight.HostSignals, Status());
}

Status GpuQueue::waitForRetireWord(uint64_t sequence) {
  using namespace std::chrono;
  using namespace std::chrono_literals;
  // A synchronous caller spins on its own semaphore for a while
  // (HostSemaphore::wait), then sleeps until this thread sees the word and
  // signals: each pause here is how late that caller may wake. Pauses of a
  // sixteenth of the wait so far keep it under a sixteenth (and 100 us) for
  // a wake-up every 100 us at most; pauses that doubled each time made it
  // as late as the wait itself (a 0.34 ms MobileNetV2 call returned 0.15 ms
  // after the GPU finished).
  constexpr auto kShortestPause = 5us, kLongestPause = 100us;
  constexpr auto kQueryEvery = 1ms;
#if defined(__linux__)
  // Linux lets a sleep overrun by 50 us unless the thread asks otherwise.
  static thread_local const bool precise =
      prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL) == 0;
  (void)precise;
#endif
  const auto start = steady_clock::now();
  auto lastQuery = start;
  while (Retired->poll(sequence) == std::nullopt) {
    const auto now = steady_clock::now();
    if (now - lastQuery >= kQueryEvery) {
      lastQuery = now;
      KILN_ASSIGN_OR_RETURN(bool idle, Api->isIdle(Stream.get()));
      if (idle)
        return Status(); // the stream ran dry: the write is done
    }
    std::this_thread::sleep_for(
        std::clamp<microseconds>(duration_cast<microseconds>(now - start) / 16,
                                 kShortestPause, kLongestPause));
  }
  return Status();
}

Status GpuQueue::waitIdle(std::chrono::steady_clock::time_point deadline) {
  KILN_RETURN_IF_ERROR(Issuer->waitIdle(timeLeft(deadline)));
  return Retirer->waitIdle(timeLeft(deadline));
}

} // namespace kiln::hal::gpu
