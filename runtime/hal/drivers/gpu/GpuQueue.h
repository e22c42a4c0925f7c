//===- GpuQueue.h - One HAL queue of a GPU: a stream and two threads ------===//
//
// A submission passes three stages, each in submission order:
//  1. waiting: a wait on a semaphore of this GPU's context becomes a GPU
//     wait (a stream word operation) once another stream was told to write
//     the value (GpuSemaphore::noteQueued), so chains of GPU work need no
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
// in host memory, sleeping between looks, and makes no vendor call while
// the stream works (a call there would contend for the driver's locks with the
// submitting thread's next launches); only every millisecond it asks the
// stream for an error, which would stop it short of the write.
//
// Without stream word operations (a GPU without them, or
// device_semaphores=0) every wait and signal goes through the host threads,
// and the retire thread synchronizes the stream.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_GPU_GPUQUEUE_H
#define KILN_RUNTIME_HAL_DRIVERS_GPU_GPUQUEUE_H

#include "runtime/hal/HostQueue.h"
#include "runtime/hal/drivers/gpu/GpuApi.h"
#include "runtime/hal/drivers/gpu/GpuCommandBuffer.h"
#include "runtime/hal/drivers/gpu/GpuSemaphore.h"
#include "runtime/hal/drivers/gpu/GpuSubmissionTimer.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kiln::hal::gpu {

class GpuQueue {
public:
  /// Creates the queue's stream. `deviceSemaphores`: whether the GPU waits
  /// on and writes this context's GpuSemaphores and the retire word.
  static StatusOr<std::unique_ptr<GpuQueue>> create(std::shared_ptr<GpuApi> api,
                                                    std::string deviceName,
                                                    bool deviceSemaphores);
  /// Stops the issue thread (submissions still waiting fail with
  /// Cancelled) and waits until every issued submission retired (a stream
  /// only waits for work already queued on the GPU).
  ~GpuQueue();
  GpuQueue(const GpuQueue &) = delete;
  GpuQueue &operator=(const GpuQueue &) = delete;

  struct Submission {
    std::vector<SemaphoreValue> Waits;
    std::shared_ptr<GpuCommandBuffer> Commands; // may be null
    std::vector<uint64_t> SlotAddresses;
    std::vector<std::shared_ptr<Buffer>> Table; // held until retired
    std::vector<SemaphoreValue> Signals;
    std::shared_ptr<GpuSubmissionTimer> Timer; // may be null
  };
  /// Queues `submission`; never blocks for its semaphores.
  void submit(Submission submission);
  /// Blocks until every submission retired, or `deadline` passed.
  Status waitIdle(std::chrono::steady_clock::time_point deadline);

  /// Destroyed with its last user.
  const std::shared_ptr<GpuStreamObject> &stream() const { return Stream; }

private:
  // One submission from issue to retirement.
  struct Flight {
    Submission Work;
    std::vector<std::pair<std::shared_ptr<GpuSemaphore>, uint64_t>> DeviceWaits;
    std::vector<std::pair<std::shared_ptr<GpuSemaphore>, uint64_t>>
        DeviceSignals;
    std::vector<SemaphoreValue> HostSignals;
    // Every signal; failed as a whole, also by a failing device wait.
    std::shared_ptr<GpuPendingSignals> Signals;
    bool Issued = false;   // something went into the stream
    uint64_t Sequence = 0; // its number, once the retire word write is in
    Status IssueStatus;
  };

  GpuQueue(std::shared_ptr<GpuApi> api, std::shared_ptr<GpuStreamObject> stream,
           std::string deviceName, std::shared_ptr<GpuSemaphore> retired);

  // Whether the GPU itself waits on / writes `semaphore`.
  std::shared_ptr<GpuSemaphore> onDevice(const SemaphoreValue &value) const;
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

  std::shared_ptr<GpuApi> Api;
  std::shared_ptr<GpuStreamObject> Stream;
  // The number of the last submission the stream finished, written by the
  // stream; null without stream word operations.
  std::shared_ptr<GpuSemaphore> Retired;

  // Orders issuing into Stream; Unissued counts submissions handed to the
  // issue thread and not issued yet (later ones must queue behind them).
  std::mutex IssueMutex;
  uint64_t Unissued = 0;
  uint64_t LastSequence = 0;
  std::unique_ptr<HostQueue> Issuer;
  std::unique_ptr<HostQueue> Retirer;
};

} // namespace kiln::hal::gpu

#endif // KILN_RUNTIME_HAL_DRIVERS_GPU_GPUQUEUE_H
