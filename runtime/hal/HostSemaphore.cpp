//===- HostSemaphore.cpp -------------------------------------------------===//

#include "runtime/hal/HostSemaphore.h"

#include <algorithm>

namespace kiln::hal {

void Waker::arm() {
  std::lock_guard<std::mutex> lock(Mutex);
  Pending = false;
}

bool Waker::sleep() {
  std::unique_lock<std::mutex> lock(Mutex);
  Cv.wait(lock, [&] { return Pending || Stopped; });
  return !Stopped;
}

void Waker::wake() {
  std::lock_guard<std::mutex> lock(Mutex);
  Pending = true;
  Cv.notify_all();
}

void Waker::stop() {
  std::lock_guard<std::mutex> lock(Mutex);
  Stopped = true;
  Cv.notify_all();
}

StatusOr<uint64_t> HostSemaphore::query() {
  std::lock_guard<std::mutex> lock(Mutex);
  if (!Failure.ok())
    return Failure;
  return Value;
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

Status HostSemaphore::signal(uint64_t value) {
  std::unique_lock<std::mutex> lock(Mutex);
  if (!Failure.ok())
    return Failure;
  if (value <= Value)
    return KILN_ERROR(InvalidArgument, "semaphore signal to ", value,
                      " does not advance its value ", Value);
  Value = value;
  PublishedValue.store(value, std::memory_order_release);
  wakeAll(lock);
  return Status();
}

Status HostSemaphore::wait(uint64_t value, Timeout timeout) {
  // A thread put to sleep on the condition variable takes several
  // microseconds to run again once signalled, as much as a whole call of a
  // small model costs the host. Short waits (a GPU running one call) are
  // common, so spin briefly first; longer ones sleep.
  constexpr auto kSpin = std::chrono::microseconds(200);
  auto spinUntil = std::chrono::steady_clock::now() +
                   std::min<Timeout>(timeout, kSpin);
  for (unsigned i = 1; PublishedValue.load(std::memory_order_acquire) < value &&
                       !Failed.load(std::memory_order_acquire);
       ++i) {
    if (i % 64 == 0 && std::chrono::steady_clock::now() >= spinUntil)
      break;
#if defined(__x86_64__)
    __builtin_ia32_pause();
#endif
  }
  std::unique_lock<std::mutex> lock(Mutex);
  auto ready = [&] { return Value >= value || !Failure.ok(); };
  if (timeout == kInfiniteTimeout) {
    Cv.wait(lock, ready);
  } else {
    auto now = std::chrono::steady_clock::now();
    // Clamp so a huge finite timeout cannot overflow the deadline.
    auto limit = std::chrono::steady_clock::time_point::max() - now;
    auto deadline = timeout >= limit
                        ? std::chrono::steady_clock::time_point::max()
                        : now + timeout;
    if (!Cv.wait_until(lock, deadline, ready))
      return KILN_ERROR(DeadlineExceeded, "semaphore wait for ", value,
                        " timed out at value ", Value);
  }
  if (!Failure.ok())
    return Failure;
  return Status();
}

Status HostSemaphore::fail(Status status) {
  if (status.ok())
    return KILN_ERROR(InvalidArgument,
                      "a semaphore cannot be failed with an OK status");
  std::unique_lock<std::mutex> lock(Mutex);
  if (Failure.ok()) {
    Failure = std::move(status);
    Failed.store(true, std::memory_order_release);
    wakeAll(lock);
  }
  return Status();
}

std::optional<Status> HostSemaphore::poll(uint64_t value) {
  std::lock_guard<std::mutex> lock(Mutex);
  if (!Failure.ok())
    return Failure;
  if (Value >= value)
    return Status();
  return std::nullopt;
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
