//===- CudaQueue.cpp ------------------------------------------------------===//

#include "runtime/hal/drivers/cuda/CudaQueue.h"

#include <algorithm>
#include <thread>

#if defined(__linux__)
#include <sys/prctl.h>
#endif

namespace kiln::hal::cuda {

StatusOr<std::unique_ptr<CudaQueue>>
CudaQueue::create(std::shared_ptr<CudaContext> context, std::string deviceName,
                  bool deviceSemaphores) {
  std::shared_ptr<CudaSemaphore> retired;
  if (deviceSemaphores) {
    KILN_ASSIGN_OR_RETURN(retired, CudaSemaphore::create(context, 0));
  }
  CudaContext::Scope scope(*context);
  CUstream raw = nullptr;
  // Non-blocking: the legacy default stream, which other libraries in the
  // process may use, does not serialize with Kiln's work.
  KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(context->symbols(), cuStreamCreate, &raw,
                                      CU_STREAM_NON_BLOCKING));
  std::shared_ptr<CUstream_st> stream(raw, [context](CUstream doomed) {
    CudaContext::Scope scope(*context);
    context->symbols().cuStreamDestroy_v2(doomed);
  });
  return std::unique_ptr<CudaQueue>(
      new CudaQueue(std::move(context), std::move(stream),
                    std::move(deviceName), std::move(retired)));
}

CudaQueue::CudaQueue(std::shared_ptr<CudaContext> context,
                     std::shared_ptr<CUstream_st> stream,
                     std::string deviceName,
                     std::shared_ptr<CudaSemaphore> retired)
    : Context(std::move(context)), Stream(std::move(stream)),
      Retired(std::move(retired)) {
  // Both threads make CUDA calls; their context never changes.
  auto makeCurrent = [context = Context] {
    context->symbols().cuCtxSetCurrent(context->context());
  };
  Issuer = std::make_unique<HostQueue>(deviceName, HostQueue::Mode::Threaded,
                                       makeCurrent);
  Retirer = std::make_unique<HostQueue>(deviceName, HostQueue::Mode::Threaded,
                                        makeCurrent);
}

CudaQueue::~CudaQueue() {
  // Submissions still waiting run with Cancelled and go to the retire
  // thread like any other; it stops once every one retired.
  Issuer.reset();
  Retirer.reset();
}

std::shared_ptr<CudaSemaphore>
CudaQueue::onDevice(const SemaphoreValue &value) const {
  if (!Retired)
    return nullptr;
  auto semaphore = std::dynamic_pointer_cast<CudaSemaphore>(value.Timeline);
  if (semaphore && semaphore->context() == Context->context())
    return semaphore;
  return nullptr;
}

std::optional<Status> CudaQueue::waitOver(const SemaphoreValue &wait) const {
  if (auto semaphore = onDevice(wait))
    return semaphore->pollQueued(wait.Value);
  return wait.Timeline->poll(wait.Value);
}

void CudaQueue::submit(Submission submission) {
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
      std::make_shared<CudaPendingSignals>(std::move(submission.Signals));
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
      CudaContext::Scope scope(*Context);
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

void CudaQueue::issue(const std::shared_ptr<Flight> &flight, Status waited) {
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

CUstreamBatchMemOpParams waitOperation(CUdeviceptr address, uint64_t value) {
  CUstreamBatchMemOpParams operation = {};
  operation.waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_64;
  operation.waitValue.address = address;
  operation.waitValue.value64 = value;
  operation.waitValue.flags = CU_STREAM_WAIT_VALUE_GEQ;
  return operation;
}

// The default flags put a memory barrier before the write: whoever sees the
// value sees the results of the work before it.
CUstreamBatchMemOpParams writeOperation(CUdeviceptr address, uint64_t value) {
  CUstreamBatchMemOpParams operation = {};
  operation.writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
  operation.writeValue.address = address;
  operation.writeValue.value64 = value;
  return operation;
}

// Enqueues `operations` in order, in as few calls as CUDA allows.
Status enqueue(const CudaSymbols &cu, CUstream stream,
               std::vector<CUstreamBatchMemOpParams> &operations) {
  constexpr size_t kMostPerCall = 255;
  for (size_t begin = 0; begin < operations.size(); begin += kMostPerCall) {
    auto count = static_cast<unsigned>(
        std::min(kMostPerCall, operations.size() - begin));
    KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(cu, cuStreamBatchMemOp_v2, stream,
                                        count, operations.data() + begin, 0));
  }
  return Status();
}

} // namespace

Status CudaQueue::issueCommands(Flight &flight) {
  const CudaSymbols &cu = Context->symbols();
  CUstream stream = Stream.get();
  std::vector<CUstreamBatchMemOpParams> waits;
  for (const auto &[semaphore, value] : flight.DeviceWaits) {
    KILN_ASSIGN_OR_RETURN(bool reached,
                          semaphore->addDeviceWaiter(value, flight.Signals));
    if (!reached)
      waits.push_back(waitOperation(semaphore->deviceAddress(), value));
  }
  if (!waits.empty()) {
    flight.Issued = true;
    KILN_RETURN_IF_ERROR(enqueue(cu, stream, waits));
  }
  if (Submission &work = flight.Work; work.Commands) {
    flight.Issued = true;
    if (work.Timer)
      KILN_RETURN_IF_ERROR(work.Timer->recordStart(stream));
    KILN_RETURN_IF_ERROR(work.Commands->execute(stream, work.SlotAddresses));
    if (work.Timer)
      KILN_RETURN_IF_ERROR(work.Timer->recordEnd(stream));
  }
  std::vector<CUstreamBatchMemOpParams> writes;
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
  KILN_RETURN_IF_ERROR(enqueue(cu, stream, writes));
  LastSequence = sequence;
  flight.Sequence = sequence;
  // Now other streams may wait for these values on the GPU.
  for (const auto &[semaphore, value] : flight.DeviceSignals)
    semaphore->noteQueued(value);
  return Status();
}

void CudaQueue::retire(Flight &flight) {
  Status status = flight.IssueStatus;
  if (flight.Issued) {
    // Even after a failed issue, what was issued must finish before the
    // table's buffers (held until now) are released.
    Status finished = flight.Sequence
                          ? waitForRetireWord(flight.Sequence)
                          : KILN_CUDA_CALL(Context->symbols(),
                                           cuStreamSynchronize, Stream.get());
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

Status CudaQueue::waitForRetireWord(uint64_t sequence) {
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
      CUresult result = Context->symbols().cuStreamQuery(Stream.get());
      if (result == CUDA_SUCCESS)
        return Status(); // the stream ran dry: the write is done
      if (result != CUDA_ERROR_NOT_READY)
        return cudaResultToStatus(Context->symbols(), result, "cuStreamQuery",
                                  __FILE__, __LINE__);
    }
    std::this_thread::sleep_for(
        std::clamp<microseconds>(duration_cast<microseconds>(now - start) / 16,
                                 kShortestPause, kLongestPause));
  }
  return Status();
}

Status CudaQueue::waitIdle(std::chrono::steady_clock::time_point deadline) {
  KILN_RETURN_IF_ERROR(Issuer->waitIdle(timeLeft(deadline)));
  return Retirer->waitIdle(timeLeft(deadline));
}

} // namespace kiln::hal::cuda
