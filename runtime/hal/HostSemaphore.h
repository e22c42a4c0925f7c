//===- HostSemaphore.h - Timeline semaphore waited on by host threads -----===//
//
// The value is one 64-bit word read and written atomically; a mutex and a
// condition variable put waiters to sleep after a short spin. By default the
// word is a member; a device semaphore (CudaSemaphore) derives from this
// class with the word in memory its GPU also writes and waits on, and tells
// the waiters when the GPU changed it (notifyChanged).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_HOSTSEMAPHORE_H
#define KILN_RUNTIME_HAL_HOSTSEMAPHORE_H

#include "runtime/hal/Semaphore.h"

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

namespace kiln::hal {

class HostSemaphore : public Semaphore {
public:
  /// `initialValue` must be at most kMaxSemaphoreValue (devices check it
  /// in createSemaphore).
  explicit HostSemaphore(uint64_t initialValue)
      : HostSemaphore(&OwnValue, initialValue) {}
  HostSemaphore(const HostSemaphore &) = delete;
  HostSemaphore &operator=(const HostSemaphore &) = delete;

  StatusOr<uint64_t> query() override;
  Status signal(uint64_t value) override;
  Status wait(uint64_t value, Timeout timeout) override;
  Status fail(Status status) override;
  void addWaker(const std::shared_ptr<Waker> &waker) override;

protected:
  /// The value lives in `*cell` (8-byte aligned, outliving this object),
  /// which is set to `initialValue` here.
  HostSemaphore(uint64_t *cell, uint64_t initialValue);

  /// The value as the word holds it now.
  uint64_t currentValue() const;
  /// Stores `value` into the word (no check, no wake-up).
  void storeValue(uint64_t value);
  /// Wakes every waiter and waker: the word changed without signal() (a
  /// device wrote it).
  void notifyChanged();
  /// Records `status` as the failure unless one is recorded already (then
  /// false); wakes nobody yet.
  bool recordFailure(Status status);
  bool failed() const { return Failed.load(std::memory_order_acquire); }

private:
  void wakeAll(std::unique_lock<std::mutex> &lock);

  uint64_t OwnValue = 0;
  uint64_t *Cell;
  std::mutex Mutex;
  std::condition_variable Cv;
  Status Failure;
  // Whether Failure is set, readable without the lock (wait()'s spin).
  std::atomic<bool> Failed{false};
  std::vector<std::weak_ptr<Waker>> Wakers;
};

} // namespace kiln::hal

#endif // KILN_RUNTIME_HAL_HOSTSEMAPHORE_H
