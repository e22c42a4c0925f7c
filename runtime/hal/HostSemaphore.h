//===- HostSemaphore.h - Timeline semaphore on a mutex and condvar -------===//
#ifndef KILN_RUNTIME_HAL_HOSTSEMAPHORE_H
#define KILN_RUNTIME_HAL_HOSTSEMAPHORE_H

#include "runtime/hal/Semaphore.h"

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace kiln::hal {

/// Lets one thread sleep until any of several semaphores changes, or until
/// it is told to stop (a device queue that must also notice shutdown).
class Waker {
public:
  /// Clears the pending flag; call before checking the semaphores.
  void arm();
  /// Sleeps until wake() or stop() after the last arm(); returns false once
  /// stopped.
  bool sleep();
  void wake();
  void stop();

private:
  std::mutex Mutex;
  std::condition_variable Cv;
  bool Pending = false;
  bool Stopped = false;
};

class HostSemaphore final : public Semaphore {
public:
  explicit HostSemaphore(uint64_t initialValue) : Value(initialValue) {}

  StatusOr<uint64_t> query() override;
  Status signal(uint64_t value) override;
  Status wait(uint64_t value, Timeout timeout) override;
  Status fail(Status status) override;

  /// Without blocking: OK once `value` is reached, the failure once failed,
  /// nullopt while neither.
  std::optional<Status> poll(uint64_t value);
  /// `waker` is woken on every later signal or failure while it lives.
  void addWaker(const std::shared_ptr<Waker> &waker);

private:
  void wakeAll(std::unique_lock<std::mutex> &lock);

  std::mutex Mutex;
  std::condition_variable Cv;
  uint64_t Value;
  Status Failure;
  // Value and whether Failure is set, readable without the lock, for
  // wait()'s spin.
  std::atomic<uint64_t> PublishedValue{Value};
  std::atomic<bool> Failed{false};
  std::vector<std::weak_ptr<Waker>> Wakers;
};

} // namespace kiln::hal

#endif // KILN_RUNTIME_HAL_HOSTSEMAPHORE_H
