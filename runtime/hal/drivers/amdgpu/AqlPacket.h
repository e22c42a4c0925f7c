//===- AqlPacket.h - AQL packets as the amdgpu driver writes them ---------===//
//
// An HSA queue is a ring of 64-byte AQL packets the GPU's command processor
// reads. The amdgpu driver writes two kinds: kernel dispatches and
// barrier-AND packets (wait for up to five signals, then go on), which is
// how one queue waits for another queue's work or a semaphore. Encoding is
// pure and checked here (header bits, setup dimensions, grid and workgroup
// sizes in range); publishing writes a packet's body, then its first 32
// bits (header and setup) with a release store, which is what hands the
// slot to the GPU: a header seen before its body would run garbage.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AQLPACKET_H
#define KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AQLPACKET_H

#include "runtime/base/Status.h"

// For the packet layouts only: nothing links libhsa-runtime64.
#include <hsa/hsa.h>

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace kiln::hal::amdgpu {

/// How far a packet's acquire or release fence reaches.
enum class FenceScope : uint8_t {
  None = HSA_FENCE_SCOPE_NONE,
  /// The GPU: other queues of the agent see the memory.
  Agent = HSA_FENCE_SCOPE_AGENT,
  /// The system: the host and other agents see it too.
  System = HSA_FENCE_SCOPE_SYSTEM,
};

struct AqlFences {
  /// The packet starts only once every packet before it in the queue is
  /// done (an in-order queue sets it on every packet).
  bool Barrier = true;
  FenceScope Acquire = FenceScope::Agent;
  FenceScope Release = FenceScope::Agent;
};

/// The header word of a packet of `type`.
uint16_t aqlHeader(hsa_packet_type_t type, const AqlFences &fences);

struct AqlDispatch {
  /// The kernel descriptor's address (its `.kd` symbol, loaded).
  uint64_t KernelObject = 0;
  /// Workgroups in each dimension; the grid is these times the sizes.
  std::array<uint32_t, 3> Workgroups = {1, 1, 1};
  std::array<uint32_t, 3> WorkgroupSize = {1, 1, 1};
  /// Static plus dynamic LDS bytes.
  uint32_t GroupSegmentBytes = 0;
  /// Scratch bytes per work-item.
  uint32_t PrivateSegmentBytes = 0;
  uint64_t KernargAddress = 0;
  /// hsa_signal_t handle decremented when the kernel is done; 0 for none.
  uint64_t CompletionSignal = 0;
  AqlFences Fences;
};

/// InvalidArgument when a count is 0, a workgroup is larger than 1024
/// work-items, or a grid dimension (workgroups times size) exceeds 2^32-1
/// work-items; the setup's dimension count is the last dimension larger
/// than 1 (at least 1).
StatusOr<hsa_kernel_dispatch_packet_t>
encodeDispatch(const AqlDispatch &dispatch);

/// Barrier-AND packets that together wait for every signal in `signals`
/// (handles, five a packet); the last decrements `completionSignal`
/// (0 for none). None for no signals.
std::vector<hsa_barrier_and_packet_t>
encodeBarrierAnd(std::span<const uint64_t> signals, uint64_t completionSignal,
                 const AqlFences &fences);

/// Writes `packet` (64 bytes) into a queue slot: bytes 4 to 63 first, then
/// bytes 0 to 3 as one release store. The caller then rings the doorbell.
void publishPacket(void *slot, const void *packet);

} // namespace kiln::hal::amdgpu

#endif // KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AQLPACKET_H
