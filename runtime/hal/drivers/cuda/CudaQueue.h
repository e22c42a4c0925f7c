//===- CudaQueue.h - One HAL queue of a GPU: a stream and two threads -----===//
//
// A submission passes three stages, each in submission order:
//  1. waiting: a wait on a semaphore of this GPU's context becomes a GPU
//     wait (stream memory operations) once another stream was told to write
//     the value (CudaSemaphore::noteQueued), so chains of GPU work need no
//     host thread; until then, and for every other semaphore (another
//     driver's, another GPU's), the issue thread waits. A submission whose
//     waits are all over already, with nothing before it still unissued,
//     skips the thread.
//  2. issuing (the submitting thread or the issue thread): the GPU waits,
//     the commands (a graph launch, or each command in stream mode), then
//     one batch of GPU writes: every signal value that is a semaphore of
//     this context, and the submission's number into the queue's retire
//     word.
//  3. retiring (the retire thread): waits until the retire word reaches the
//     submission's number, releases what the work used, wakes the host
//     waiters of the values the GPU wrote, and signals the other semaphores
//     from the host, or fails them all with the error.
// So the submitting thread never waits, a synchronous caller sees its
// signal value the moment the GPU writes it, and the host synchronizes with
// no submission on the way to the next. The retire thread watches the word
// in host memory, sleeping between looks, and makes no CUDA call while the
// stream works (a call there would contend for the driver's locks with the
// submitting thread's next launches); only every millisecond it asks the
// stream for an error, which would stop it short of the write.
//
// Without stream memory operations (a GPU without them, or
// device_semaphores=0) every wait and signal goes through the host threads,
// and the retire thread synchronizes the stream.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDAQUEUE_H
#define KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDAQUEUE_H

#include "runtime/hal/HostQueue.h"
#include "runtime/hal/drivers/cuda/CudaCommandBuffer.h"
#include "runtime/hal/drivers/cuda/CudaContext.h"
#include "runtime/hal/drivers/cuda/CudaSemaphore.h"
#include "runtime/hal/drivers/cuda/CudaSubmissionTimer.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kiln::hal::cuda {

class CudaQueue {
public:
  /// Creates the queue's stream. `deviceSemaphores`: whether the GPU waits
  /// on and writes this context's CudaSemaphores and the retire word.
  static StatusOr<std::unique_ptr<CudaQueue>>
  create(std::shared_ptr<CudaContext> context, std::string deviceName,
         bool deviceSemaphores);
  /// Stops the issue thread (submissions still waiting fail with
  /// Cancelled) and waits until every issued submission retired (a stream
  /// only waits for work already queued on the GPU).
  ~CudaQueue();
  CudaQueue(const CudaQueue &) = delete;
  CudaQueue &operator=(const CudaQueue &) = delete;

  struct Submission {
    std::vector<SemaphoreValue> Waits;
    std::shared_ptr<CudaCommandBuffer> Commands; // may be null
    std::vector<CUdeviceptr> SlotAddresses;
    std::vector<std::shared_ptr<Buffer>> Table; // held until retired
    std::vector<SemaphoreValue> Signals;
    std::shared_ptr<CudaSubmissionTimer> Timer; // may be null
  };
  /// Queues `submission`; never blocks for its semaphores.
  void submit(Submission submission);
  /// Blocks until every submission retired, or `deadline` passed.
  Status waitIdle(std::chrono::steady_clock::time_point deadline);

  /// Destroyed with its last user, after the context is current again.
  const std::shared_ptr<CUstream_st> &stream() const { return Stream; }

private:
  // One submission from issue to retirement.
  struct Flight {
    Submission Work;
    std::vector<std::pair<std::shared_ptr<CudaSemaphore>, uint64_t>>
        DeviceWaits;
    std::vector<std::pair<std::shared_ptr<CudaSemaphore>, uint64_t>>
        DeviceSignals;
    std::vector<SemaphoreValue> HostSignals;
    // Every signal; failed as a whole, also by a failing device wait.
    std::shared_ptr<CudaPendingSignals> Signals;
    bool Issued = false;   // something went into the stream
    uint64_t Sequence = 0; // its number, once the retire word write is in
    Status IssueStatus;
  };

  CudaQueue(std::shared_ptr<CudaContext> context,
            std::shared_ptr<CUstream_st> stream, std::string deviceName,
            std::shared_ptr<CudaSemaphore> retired);

  // Whether the GPU itself waits on / writes `semaphore`.
  std::shared_ptr<CudaSemaphore> onDevice(const SemaphoreValue &value) const;
  // When the issue thread's wait for `wait` is over (HostSubmission::Ready).
  std::optional<Status> waitOver(const SemaphoreValue &wait) const;
  // Issues `flight` into the stream (the context current, IssueMutex held)
  // after its host waits ended with `waited`, and hands it to the retire
  // thread.
  void issue(const std::shared_ptr<Flight> &flight, Status waited);
  Status issueCommands(Flight &flight);
  void retire(Flight &flight);
  // Until the retire word reaches `sequence`, or the stream fails.
  Status waitForRetireWord(uint64_t sequence);

  std::shared_ptr<CudaContext> Context;
  std::shared_ptr<CUstream_st> Stream;
  // The number of the last submission the stream finished, written by the
  // stream; null without stream memory operations.
  std::shared_ptr<CudaSemaphore> Retired;

  // Orders issuing into Stream; Unissued counts submissions handed to the
  // issue thread and not issued yet (later ones must queue behind them).
  std::mutex IssueMutex;
  uint64_t Unissued = 0;
  uint64_t LastSequence = 0;
  std::unique_ptr<HostQueue> Issuer;
  std::unique_ptr<HostQueue> Retirer;
};

} // namespace kiln::hal::cuda

#endif // KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDAQUEUE_H
