//===- HostSemaphore.cpp -------------------------------------------------===//

#include "runtime/hal/HostSemaphore.h"

#include <algorithm>

namespace kiln::hal {

HostSemaphore::HostSemaphore(uint64_t *cell, uint64_t initialValue)
    : Cell(cell) {
  storeValue(initialValue);
}

uint64_t HostSemaphore::currentValue() const {
  return std::atomic_ref<uint64_t>(*Cell).load(std::memory_order_acquire);
}

void HostSemaphore::storeValue(uint64_t value) {
  std::atomic_ref<uint64_t>(*Cell).store(value, std::memory_order_release);
}

StatusOr<uint64_t> HostSemaphore::query() {
  std::lock_guard<std::mutex> lock(Mutex);
  if (!Failure.ok())
    return Failure;
  return currentValue();
}

void HostSemaphore::wakeAll(std::unique_lock<std::mutex> &lock) {
  Cv.notify_all();
  std::vector<std::shared_ptr<Waker>> wakers;
  for (const auto &weak : Wakers)
    if (auto waker = weak.lock())
      wakers.push_back(std::move(waker));
  // Waking outside the lock keeps lock order one-way (waker after
  // semaphore never happens the other way round).
  lock.unlock();
  for (const auto &waker : wakers)
    waker->wake();
}

void HostSemaphore::notifyChanged() {
  std::unique_lock<std::mutex> lock(Mutex);
  wakeAll(lock);
}

Status HostSemaphore::signal(uint64_t value) {
  std::unique_lock<std::mutex> lock(Mutex);
  if (!Failure.ok())
    return Failure;
  uint64_t current = currentValue();
  if (value <= current)
    return KILN_ERROR(InvalidArgument, "semaphore signal to ", value,
                      " does not advance its value ", current);
  KILN_RETURN_IF_ERROR(checkSemaphoreValue(value, "semaphore signal to"));
  storeValue(value);
  wakeAll(lock);
  return Status();
}

Status HostSemaphore::wait(uint64_t value, Timeout timeout) {
  // A thread put to sleep on the condition variable takes several
  // microseconds to run again once signalled, as much as a whole call of a
  // small model costs the host. Short waits (a GPU running one call) are
  // common, so spin briefly first; longer ones sleep.
  constexpr auto kSpin = std::chrono::microseconds(200);
  auto spinUntil =
      std::chrono::steady_clock::now() + std::min<Timeout>(timeout, kSpin);
  for (unsigned i = 1; currentValue() < value && !failed(); ++i) {
    if (i % 64 == 0 && std::chrono::steady_clock::now() >= spinUntil)
      break;
#if defined(__x86_64__)
    __builtin_ia32_pause();
#endif
  }
  std::unique_lock<std::mutex> lock(Mutex);
  auto ready = [&] { return currentValue() >= value || !Failure.ok(); };
  if (timeout == kInfiniteTimeout) {
    Cv.wait(lock, ready);
  } else {
    if (!Cv.wait_until(lock, deadlineAfter(timeout), ready))
      return KILN_ERROR(DeadlineExceeded, "semaphore wait for ", value,
                        " timed out at value ", currentValue());
  }
  if (!Failure.ok())
    return Failure;
  return Status();
}

bool HostSemaphore::recordFailure(Status status) {
  std::lock_guard<std::mutex> lock(Mutex);
  if (!Failure.ok())
    return false;
  Failure = std::move(status);
  Failed.store(true, std::memory_order_release);
  return true;
}

Status HostSemaphore::fail(Status status) {
  if (status.ok())
    return KILN_ERROR(InvalidArgument,
                      "a semaphore cannot be failed with an OK status");
  if (recordFailure(std::move(status)))
    notifyChanged();
  return Status();
}

void HostSemaphore::addWaker(const std::shared_ptr<Waker> &waker) {
  std::lock_guard<std::mutex> lock(Mutex);
  Wakers.erase(std::remove_if(Wakers.begin(), Wakers.end(),
                              [](const std::weak_ptr<Waker> &weak) {
                                return weak.expired();
                              }),
               Wakers.end());
  for (const auto &weak : Wakers)
    if (weak.lock() == waker)
      return;
  Wakers.push_back(waker);
}

} // namespace kiln::hal
