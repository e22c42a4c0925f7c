//===- QueueAffinity.h - Which of a device's queues work may go to --------===//
//
// A device has queueCount() queues (CUDA: one stream each; local-task: one
// thread each). Work submitted to one queue runs in submission order; work
// on different queues is ordered only by semaphores, so it may run at once.
// An affinity is a bit mask of queue indices: a command buffer is created
// for the queues it may be submitted to, and a submission goes to the
// lowest queue that both its own affinity and its command buffer's allow.
// kAnyQueue (the default everywhere) therefore means queue 0, so callers
// that name no queue keep one in-order queue.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_QUEUEAFFINITY_H
#define KILN_RUNTIME_HAL_QUEUEAFFINITY_H

#include <cstdint>

namespace kiln::hal {

using QueueAffinity = uint64_t;

inline constexpr QueueAffinity kAnyQueue = ~QueueAffinity(0);

/// At most this many queues per device: one bit each in an affinity.
inline constexpr uint32_t kMaxQueues = 64;

/// The affinity naming exactly queue `index` (< kMaxQueues).
constexpr QueueAffinity queueAffinity(uint32_t index) {
  return QueueAffinity(1) << index;
}

} // namespace kiln::hal

#endif // KILN_RUNTIME_HAL_QUEUEAFFINITY_H
