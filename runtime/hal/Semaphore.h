//===- Semaphore.h - Timeline semaphores ----------------------------------===//
//
// A timeline semaphore is a 64-bit value that only grows. Work waits for it
// to reach a value and signals new values when done, so host and device
// order work without blocking each other. A host semaphore is a value under
// a mutex; a CUDA semaphore keeps its value in pinned host memory that the
// GPU writes and waits on itself (stream memory operations), so work on one
// GPU orders itself without the host. Either kind may be waited on and
// signalled by any driver: a queue thread waits through poll() and
// addWaker(), whatever the semaphore's kind.
//
// A failed semaphore carries the failure to every waiter, so an error inside
// queued work reaches whoever waits for it, however far down a chain of
// submissions. A GPU that waits on a failed value goes on (its work's
// results are then meaningless); the host marks what that work signals
// failed before the GPU can get there, so no waiter mistakes them for
// results.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_SEMAPHORE_H
#define KILN_RUNTIME_HAL_SEMAPHORE_H

#include "runtime/base/Status.h"
#include "runtime/hal/Waker.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

namespace kiln::hal {

using Timeout = std::chrono::nanoseconds;
inline constexpr Timeout kInfiniteTimeout = Timeout::max();

/// The time `timeout` from now, clamped so a huge timeout cannot overflow.
std::chrono::steady_clock::time_point deadlineAfter(Timeout timeout);
/// The timeout left until `deadline` (from deadlineAfter): 0 once past,
/// kInfiniteTimeout for an infinite one. For waits that spend one timeout
/// on several things in turn.
Timeout timeLeft(std::chrono::steady_clock::time_point deadline);

/// The largest value a timeline may take (2^63 - 2): GPUs compare values as
/// signed 64-bit numbers, and the value above this one marks a failure in
/// memory the GPU waits on.
inline constexpr uint64_t kMaxSemaphoreValue = (uint64_t(1) << 63) - 2;

/// InvalidArgument naming `what` when `value` exceeds kMaxSemaphoreValue.
Status checkSemaphoreValue(uint64_t value, std::string_view what);

class Semaphore {
public:
  virtual ~Semaphore();

  /// The current value, or the failure status once failed.
  virtual StatusOr<uint64_t> query() = 0;

  /// Advances the value to `value` and wakes waiters that it satisfies.
  /// InvalidArgument unless `value` is greater than the current value and at
  /// most kMaxSemaphoreValue; the failure status once failed.
  virtual Status signal(uint64_t value) = 0;

  /// Blocks until the value is at least `value`. DeadlineExceeded after
  /// `timeout` (0 polls); the failure status once failed.
  virtual Status wait(uint64_t value, Timeout timeout) = 0;

  /// Fails the semaphore: current and later waits return `status` (the
  /// first failure wins). InvalidArgument for an OK status.
  virtual Status fail(Status status) = 0;

  /// Without blocking: OK once `value` is reached, the failure once failed,
  /// nullopt while neither.
  std::optional<Status> poll(uint64_t value);

  /// `waker` is woken after every later change of the value or failure,
  /// whoever makes it, while the waker lives. A value a device writes
  /// itself is reported once the device has noticed it (a CUDA semaphore:
  /// when its device retires the submission that wrote it).
  virtual void addWaker(const std::shared_ptr<Waker> &waker) = 0;
};

/// A point on a timeline: wait-list and signal-list entries of a submission.
struct SemaphoreValue {
  std::shared_ptr<Semaphore> Timeline;
  uint64_t Value = 0;
};

} // namespace kiln::hal

#endif // KILN_RUNTIME_HAL_SEMAPHORE_H
