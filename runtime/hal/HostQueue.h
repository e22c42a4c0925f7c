//===- HostQueue.h - Submissions ordered by a host thread -----------------===//
//
// A queue thread takes submissions in order, waits (without holding up the
// submitter) for their host timeline semaphores, runs their work and then
// signals or fails their signal list. The local-task driver runs commands
// on it; the CUDA driver issues a submission's commands into its stream and
// waits for the stream from it, so semaphores of any driver order each
// other's work.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_HOSTQUEUE_H
#define KILN_RUNTIME_HAL_HOSTQUEUE_H

#include "runtime/base/Status.h"
#include "runtime/hal/HostSemaphore.h"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace kiln::hal {

struct HostSubmission {
  std::vector<std::pair<std::shared_ptr<HostSemaphore>, uint64_t>> Waits;
  std::vector<std::pair<std::shared_ptr<HostSemaphore>, uint64_t>> Signals;
  /// Runs once every wait is reached; its error fails the signal list. It
  /// is destroyed before anything is signalled, so a waiter that sees the
  /// signal may drop the last reference to what the work used.
  std::function<Status()> Work;
};

/// The HostSemaphores behind a wait or signal list; InvalidArgument naming
/// `what` for a semaphore of another kind.
StatusOr<std::vector<std::pair<std::shared_ptr<HostSemaphore>, uint64_t>>>
toHostSemaphores(std::span<const SemaphoreValue> values, std::string_view what);

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
  /// Submissions still waiting for semaphores fail with Cancelled.
  ~HostQueue();
  HostQueue(const HostQueue &) = delete;
  HostQueue &operator=(const HostQueue &) = delete;

  /// Submissions run one at a time, in order. Inline: only another thread
  /// can satisfy the waits.
  void submit(HostSubmission submission);
  /// Blocks until every submission finished (DeadlineExceeded after
  /// `timeout`).
  Status waitIdle(Timeout timeout);

private:
  void main(const std::function<void()> &threadInit);
  void finishOne();
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
