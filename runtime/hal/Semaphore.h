//===- Semaphore.h - Timeline semaphores ----------------------------------===//
//
// A timeline semaphore is a 64-bit value that only grows. Work waits for it
// to reach a value and signals new values when done, so host and device
// order work without blocking each other (CUDA: a host counter plus events
// recorded on streams). A failed semaphore carries the failure to every
// waiter, so an error inside queued work reaches whoever waits for it.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_SEMAPHORE_H
#define KILN_RUNTIME_HAL_SEMAPHORE_H

#include "runtime/base/Status.h"

#include <chrono>
#include <cstdint>
#include <memory>

namespace kiln::hal {

using Timeout = std::chrono::nanoseconds;
inline constexpr Timeout kInfiniteTimeout = Timeout::max();

class Semaphore {
public:
  virtual ~Semaphore();

  /// The current value, or the failure status once failed.
  virtual StatusOr<uint64_t> query() = 0;

  /// Advances the value to `value` and wakes waiters that it satisfies.
  /// InvalidArgument unless `value` is greater than the current value; the
  /// failure status once failed.
  virtual Status signal(uint64_t value) = 0;

  /// Blocks until the value is at least `value`. DeadlineExceeded after
  /// `timeout` (0 polls); the failure status once failed.
  virtual Status wait(uint64_t value, Timeout timeout) = 0;

  /// Fails the semaphore: current and later waits return `status` (the
  /// first failure wins). InvalidArgument for an OK status.
  virtual Status fail(Status status) = 0;
};

/// A point on a timeline: wait-list and signal-list entries of a submission.
struct SemaphoreValue {
  std::shared_ptr<Semaphore> Timeline;
  uint64_t Value = 0;
};

} // namespace kiln::hal

#endif // KILN_RUNTIME_HAL_SEMAPHORE_H
