//===- HostQueue.h - Submissions ordered by a host thread -----------------===//
//
// A queue thread takes submissions in order, waits (without holding up the
// submitter) until their wait lists are reached, then runs them. Waits go
// through Semaphore::poll and addWaker, so a queue waits for semaphores of
// any driver: a local-task queue for a CUDA semaphore the GPU signals, a
// CUDA queue for a semaphore a local-task submission signals. The
// local-task driver runs each of its queues' commands on one; the CUDA
// driver issues submissions that wait for semaphores the GPU cannot wait
// for itself from one, and retires issued work (waiting for the GPU,
// releasing what the work used, signalling) on another.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_HOSTQUEUE_H
#define KILN_RUNTIME_HAL_HOSTQUEUE_H

#include "runtime/base/Status.h"
#include "runtime/hal/Semaphore.h"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

namespace kiln::hal {

struct HostSubmission {
  std::vector<SemaphoreValue> Waits;
  /// When a wait is over (OK or the failure; nullopt while it is not), for
  /// a threaded queue; Semaphore::poll when empty. A GPU queue ends a wait
  /// for its own device's semaphore once the value's signal is queued on
  /// the GPU, which then waits itself. Rechecked whenever a wait semaphore
  /// wakes the queue.
  std::function<std::optional<Status>(const SemaphoreValue &)> Ready;
  /// Runs once every wait is over (with OK), or with the failure of a wait
  /// that failed, or Cancelled when the queue is destroyed first.
  std::function<void(Status waited)> Run;
};

/// Signals every entry of `signals` with an OK `status`, else fails each
/// with it. A value that does not advance its semaphore fails that one
/// instead: its waiters would otherwise hang.
void signalOrFail(std::span<const SemaphoreValue> signals,
                  const Status &status);

class HostQueue {
public:
  enum class Mode {
    Inline,   // submit() blocks for the waits and runs the work itself
    Threaded, // submit() returns at once; a queue thread runs the work
  };

  /// `deviceName` names the device in errors; `threadInit` runs first on
  /// the queue thread (to make a GPU context current there).
  HostQueue(std::string deviceName, Mode mode,
            std::function<void()> threadInit = {});
  /// Submissions still waiting for semaphores run with Cancelled.
  ~HostQueue();
  HostQueue(const HostQueue &) = delete;
  HostQueue &operator=(const HostQueue &) = delete;

  /// Submissions run one at a time, in order. Inline: only another thread
  /// can satisfy the waits.
  void submit(HostSubmission submission);
  /// Blocks until every submission has run (DeadlineExceeded after
  /// `timeout`).
  Status waitIdle(Timeout timeout);

private:
  void main(const std::function<void()> &threadInit);
  // OK once every wait is reached, the failure of one that fails, Cancelled
  // when the queue shuts down first.
  Status waitForAll(const HostSubmission &submission);

  std::string DeviceName;
  std::mutex Mutex;
  std::condition_variable QueueCv;
  std::condition_variable IdleCv;
  std::deque<HostSubmission> Queue;
  uint64_t Pending = 0; // queued or running submissions
  bool ShuttingDown = false;
  std::shared_ptr<Waker> QueueWaker;
  std::thread Thread;
};

} // namespace kiln::hal

#endif // KILN_RUNTIME_HAL_HOSTQUEUE_H
