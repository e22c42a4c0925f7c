//===- Semaphore.cpp ------------------------------------------------------===//

#include "runtime/hal/Semaphore.h"

namespace kiln::hal {

Semaphore::~Semaphore() = default;

std::chrono::steady_clock::time_point deadlineAfter(Timeout timeout) {
  auto now = std::chrono::steady_clock::now();
  auto limit = std::chrono::steady_clock::time_point::max() - now;
  return timeout >= limit ? std::chrono::steady_clock::time_point::max()
                          : now + timeout;
}

Timeout timeLeft(std::chrono::steady_clock::time_point deadline) {
  if (deadline == std::chrono::steady_clock::time_point::max())
    return kInfiniteTimeout;
  auto now = std::chrono::steady_clock::now();
  if (deadline <= now)
    return Timeout::zero();
  return std::chrono::duration_cast<Timeout>(deadline - now);
}

Status checkSemaphoreValue(uint64_t value, std::string_view what) {
  if (value > kMaxSemaphoreValue)
    return KILN_ERROR(InvalidArgument, what, " ", value,
                      " exceeds the largest semaphore value ",
                      kMaxSemaphoreValue);
  return Status();
}

std::optional<Status> Semaphore::poll(uint64_t value) {
  StatusOr<uint64_t> current = query();
  if (!current.ok())
    return current.status();
  if (*current >= value)
    return Status();
  return std::nullopt;
}

} // namespace kiln::hal
