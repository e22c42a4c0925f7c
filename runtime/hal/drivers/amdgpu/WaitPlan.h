//===- WaitPlan.h - A submission's wait list as barrier-AND packets -------===//
//
// Before an amdgpu queue issues a submission, each entry of its wait list
// is either reached (dropped), on the GPU (a queued submission's completion
// signal, from AmdgpuSemaphore::deviceWait), or only reachable on the host
// (a value nothing is queued for yet, or another driver's semaphore). The
// GPU waits are barrier-AND packets put ahead of the submission's own,
// five signals a packet (AqlPacket); the queue thread waits for the host
// ones first and plans again, by when they are reached or queued. Signals
// named twice (one submission signalling two semaphores waited on) or
// already zero need no slot.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMDGPU_WAITPLAN_H
#define KILN_RUNTIME_HAL_DRIVERS_AMDGPU_WAITPLAN_H

#include "runtime/hal/Semaphore.h"
#include "runtime/hal/drivers/amdgpu/AqlPacket.h"
#include "runtime/hal/drivers/amdgpu/CompletionSignal.h"

#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace kiln::hal::amdgpu {

struct WaitPlan {
  /// Completion signals the GPU waits for, each once, in wait-list order;
  /// the submission holds them until it retires (its barriers name them).
  std::vector<std::shared_ptr<CompletionSignal>> Signals;
  /// Waits only the host can do; the submission is not issued before
  /// these are reached or queued.
  std::vector<SemaphoreValue> HostWaits;
};

/// When the queue thread may plan a submission waiting for `wait`
/// (HostSubmission::Ready): OK once an AmdgpuSemaphore's value is reached
/// or queued, or another semaphore's is reached; the failure when failed;
/// else nullopt. What it lets through, planWaits puts on the GPU.
std::optional<Status> gpuCanWait(const SemaphoreValue &wait);

/// Plans `waits`: InvalidArgument for an entry without a semaphore or a
/// value out of range, the failure of a failed semaphore.
StatusOr<WaitPlan> planWaits(std::span<const SemaphoreValue> waits);

/// The barrier-AND packets that wait for `plan.Signals` (none for none),
/// decrementing no completion signal: the submission's own packets follow
/// with the barrier bit, so they start once the barriers are done.
std::vector<hsa_barrier_and_packet_t> barrierPackets(const WaitPlan &plan,
                                                     const AqlFences &fences);

} // namespace kiln::hal::amdgpu

#endif // KILN_RUNTIME_HAL_DRIVERS_AMDGPU_WAITPLAN_H
