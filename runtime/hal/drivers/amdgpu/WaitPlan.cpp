//===- WaitPlan.cpp -------------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/WaitPlan.h"

#include "runtime/hal/drivers/amdgpu/AmdgpuSemaphore.h"

#include <algorithm>

namespace kiln::hal::amdgpu {

std::optional<Status> gpuCanWait(const SemaphoreValue &wait) {
  if (auto *device = dynamic_cast<AmdgpuSemaphore *>(wait.Timeline.get()))
    return device->pollQueued(wait.Value);
  return wait.Timeline->poll(wait.Value);
}

StatusOr<WaitPlan> planWaits(std::span<const SemaphoreValue> waits) {
  WaitPlan plan;
  for (size_t i = 0; i < waits.size(); ++i) {
    const SemaphoreValue &wait = waits[i];
    if (!wait.Timeline)
      return KILN_ERROR(InvalidArgument, "wait ", i, " has no semaphore");
    KILN_RETURN_IF_ERROR(checkSemaphoreValue(wait.Value, "wait for"));
    auto *device = dynamic_cast<AmdgpuSemaphore *>(wait.Timeline.get());
    if (!device) {
      // Another driver's semaphore: only its own device or the host
      // advances it, and no HSA signal tells the GPU when.
      std::optional<Status> reached = wait.Timeline->poll(wait.Value);
      if (reached && !reached->ok())
        return *reached;
      if (!reached)
        plan.HostWaits.push_back(wait);
      continue;
    }
    KILN_ASSIGN_OR_RETURN(DeviceWait how, device->deviceWait(wait.Value));
    if (how.Reached)
      continue;
    if (!how.Signal) {
      plan.HostWaits.push_back(wait);
      continue;
    }
    // Zero already: the barrier would pass at once, and the retire thread
    // is about to advance the value anyway.
    if (how.Signal->done())
      continue;
    if (std::find(plan.Signals.begin(), plan.Signals.end(), how.Signal) ==
        plan.Signals.end())
      plan.Signals.push_back(std::move(how.Signal));
  }
  return plan;
}

std::vector<hsa_barrier_and_packet_t> barrierPackets(const WaitPlan &plan,
                                                     const AqlFences &fences) {
  std::vector<uint64_t> handles;
  handles.reserve(plan.Signals.size());
  for (const auto &signal : plan.Signals)
    handles.push_back(signal->handle());
  return encodeBarrierAnd(handles, /*completionSignal=*/0, fences);
}

} // namespace kiln::hal::amdgpu
