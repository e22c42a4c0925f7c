//===- SubmissionPackets.cpp ----------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/SubmissionPackets.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <thread>

namespace kiln::hal::amdgpu {

namespace {

// AQL wants every kernarg segment at least this aligned.
constexpr uint64_t kKernargAlignment = 16;

static_assert(offsetof(hsa_kernel_dispatch_packet_t, completion_signal) ==
              offsetof(hsa_barrier_and_packet_t, completion_signal));

template <typename Packet> AqlSlot toSlot(const Packet &packet) {
  static_assert(sizeof(Packet) == sizeof(AqlSlot));
  AqlSlot slot;
  std::memcpy(slot.Bytes, &packet, sizeof(AqlSlot));
  return slot;
}

// A piece of the ring for `bytes` of kernargs read by packet `packet`.
StatusOr<uint64_t> takeKernargs(KernargRing &ring, uint64_t bytes,
                                uint64_t alignment, uint64_t packet,
                                uint64_t firstPacket,
                                const std::function<uint64_t()> &readIndex) {
  for (;;) {
    if (auto offset = ring.allocate(bytes, alignment, packet))
      return *offset;
    uint64_t read = readIndex();
    ring.retire(read);
    if (auto offset = ring.allocate(bytes, alignment, packet))
      return *offset;
    // All that is left in the ring is this submission's own: waiting
    // would never end.
    if (read >= firstPacket)
      return KILN_ERROR(ResourceExhausted, "dispatch at packet ", packet,
                        " needs ", bytes,
                        " bytes of kernargs the queue's kernarg memory "
                        "cannot hold with the submission's others");
    std::this_thread::yield();
  }
}

// Rewrites the fence scopes in `slot`'s header, keeping its type.
void setFences(AqlSlot &slot, const AqlFences &fences) {
  uint16_t header;
  std::memcpy(&header, slot.Bytes, sizeof(header));
  auto type = static_cast<hsa_packet_type_t>(
      (header >> HSA_PACKET_HEADER_TYPE) &
      ((1u << HSA_PACKET_HEADER_WIDTH_TYPE) - 1));
  header = aqlHeader(type, fences);
  std::memcpy(slot.Bytes, &header, sizeof(header));
}

} // namespace

StatusOr<std::vector<AqlSlot>>
buildSubmission(const SubmissionInput &input, KernargRing &ring,
                const KernargBlock &block,
                const std::function<uint64_t()> &readIndex) {
  // Agent scope between packets of one submission; the ends are widened
  // below.
  const AqlFences inner{true, FenceScope::Agent, FenceScope::Agent};
  std::vector<AqlSlot> packets;
  if (input.Waits)
    for (const auto &barrier : barrierPackets(*input.Waits, inner))
      packets.push_back(toSlot(barrier));
  for (size_t i = 0; i < input.Dispatches.size(); ++i) {
    const KernelDispatch &dispatch = input.Dispatches[i];
    if (!dispatch.Kernel)
      return KILN_ERROR(InvalidArgument, "dispatch ", i, " has no kernel");
    const KernelPlan &plan = dispatch.Kernel->Plan;
    AqlDispatch aql;
    aql.KernelObject = dispatch.Kernel->KernelObject;
    aql.Workgroups = dispatch.Workgroups;
    aql.WorkgroupSize = plan.WorkgroupSize;
    aql.GroupSegmentBytes = plan.GroupSegmentBytes;
    aql.PrivateSegmentBytes = plan.PrivateSegmentBytes;
    aql.Fences = inner;
    // Encoded first: a grid out of range takes no kernarg memory.
    auto encoded = encodeDispatch(aql);
    if (!encoded.ok())
      return KILN_ERROR(InvalidArgument, "dispatch ", i, ": ",
                        encoded.status().message());
    uint64_t packet = input.FirstPacket + packets.size();
    uint64_t bytes = plan.Kernargs.size();
    if (bytes > 0) {
      uint64_t alignment =
          std::max<uint64_t>(plan.Kernargs.alignment(), kKernargAlignment);
      if (block.DeviceAddress % alignment)
        return KILN_ERROR(InvalidArgument, "kernarg block at ",
                          block.DeviceAddress, " is not aligned to ",
                          alignment);
      KILN_ASSIGN_OR_RETURN(uint64_t offset,
                            takeKernargs(ring, bytes, alignment, packet,
                                         input.FirstPacket, readIndex));
      if (offset > block.Host.size() || block.Host.size() - offset < bytes)
        return KILN_ERROR(Internal, "kernarg ring gave bytes ", offset, " to ",
                          offset + bytes, " of a block of ", block.Host.size());
      KernargValues values;
      values.Bindings = dispatch.Bindings;
      values.PushConstants = dispatch.PushConstants;
      values.Workgroups = dispatch.Workgroups;
      values.WorkgroupSize = plan.WorkgroupSize;
      values.DynamicLdsBytes = plan.DynamicGroupSegmentBytes;
      Status packed =
          plan.Kernargs.pack(values, block.Host.subspan(offset, bytes));
      if (!packed.ok())
        return KILN_ERROR(InvalidArgument, "dispatch ", i, ": ",
                          packed.message());
      encoded->kernarg_address = reinterpret_cast<void *>(
          static_cast<uintptr_t>(block.DeviceAddress + offset));
    }
    packets.push_back(toSlot(*encoded));
  }
  if (packets.empty()) {
    hsa_barrier_and_packet_t none = {};
    none.header = aqlHeader(HSA_PACKET_TYPE_BARRIER_AND, inner);
    packets.push_back(toSlot(none));
  }
  AqlFences front = inner;
  front.Acquire = FenceScope::System;
  if (packets.size() == 1)
    front.Release = FenceScope::System;
  setFences(packets.front(), front);
  if (packets.size() > 1) {
    AqlFences back = inner;
    back.Release = FenceScope::System;
    setFences(packets.back(), back);
  }
  std::memcpy(packets.back().Bytes +
                  offsetof(hsa_barrier_and_packet_t, completion_signal),
              &input.CompletionSignal, sizeof(uint64_t));
  return packets;
}

} // namespace kiln::hal::amdgpu
