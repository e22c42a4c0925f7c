//===- SubmissionPackets.h - One submission as the AQL packets it takes ---===//
//
// What an amdgpu queue's issue thread writes for a submission: the
// barrier-AND packets of its wait plan, then one kernel-dispatch packet per
// dispatch, each with its kernel arguments packed into a piece of the
// queue's kernarg block (KernargRing, tagged with the packet's index, so it
// comes back once the GPU is past it), and the submission's completion
// signal on the last packet. Every packet has the barrier bit, so each
// starts after the one before it: dispatches of a submission run in order,
// as the stream command buffer runs them. The first packet acquires and the
// last releases at system scope (the host and other GPUs wrote the inputs
// and read the results); between them agent scope suffices.
//
// Kernargs are tagged with the index their packet will have, so the
// indices must be known before the packets are written: one issue thread
// writes each queue, and it passes the queue's write index.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMDGPU_SUBMISSIONPACKETS_H
#define KILN_RUNTIME_HAL_DRIVERS_AMDGPU_SUBMISSIONPACKETS_H

#include "runtime/hal/drivers/amdgpu/AmdgpuExecutable.h"
#include "runtime/hal/drivers/amdgpu/AqlQueue.h"
#include "runtime/hal/drivers/amdgpu/KernargRing.h"
#include "runtime/hal/drivers/amdgpu/WaitPlan.h"

#include <array>
#include <functional>
#include <span>
#include <vector>

namespace kiln::hal::amdgpu {

/// A queue's kernarg memory (from the kernarg pool, which the host writes
/// and the GPU reads at the same bytes).
struct KernargBlock {
  std::span<uint8_t> Host;
  /// The block's address as packets carry it.
  uint64_t DeviceAddress = 0;
};

/// One dispatch, its bindings resolved to device addresses.
struct KernelDispatch {
  const AmdgpuKernel *Kernel = nullptr;
  std::array<uint32_t, 3> Workgroups = {1, 1, 1};
  std::span<const uint64_t> Bindings;
  std::span<const uint32_t> PushConstants;
};

struct SubmissionInput {
  const WaitPlan *Waits = nullptr;
  std::span<const KernelDispatch> Dispatches;
  /// The submission's CompletionSignal handle.
  uint64_t CompletionSignal = 0;
  /// The queue's write index: where the first packet will land.
  uint64_t FirstPacket = 0;
};

/// The packets of `input`, kernargs written into `block` through `ring`.
/// While the ring is full it retires by `readIndex()` (the queue's read
/// index) and waits for the GPU; ResourceExhausted once everything before
/// this submission is done and its kernargs still do not fit (pieces it
/// took then come back as later packets pass their indices).
/// InvalidArgument for a dispatch without a kernel, grids out of range or
/// argument counts that are not the kernel's. A submission with no packet
/// of its own is one barrier-AND packet waiting for nothing, so its
/// completion signal still counts down.
StatusOr<std::vector<AqlSlot>>
buildSubmission(const SubmissionInput &input, KernargRing &ring,
                const KernargBlock &block,
                const std::function<uint64_t()> &readIndex);

} // namespace kiln::hal::amdgpu

#endif // KILN_RUNTIME_HAL_DRIVERS_AMDGPU_SUBMISSIONPACKETS_H
