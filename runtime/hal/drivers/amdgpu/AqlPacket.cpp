//===- AqlPacket.cpp ------------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/AqlPacket.h"

#include <algorithm>
#include <atomic>
#include <cstring>

namespace kiln::hal::amdgpu {

static_assert(sizeof(hsa_kernel_dispatch_packet_t) == 64);
static_assert(sizeof(hsa_barrier_and_packet_t) == 64);

namespace {
// The most work-items of one workgroup any AMD GPU runs.
constexpr uint64_t kMostWorkgroupItems = 1024;
// Signals one barrier-AND packet waits for.
constexpr size_t kSignalsPerBarrier = 5;
} // namespace

uint16_t aqlHeader(hsa_packet_type_t type, const AqlFences &fences) {
  return static_cast<uint16_t>(
      (static_cast<unsigned>(type) << HSA_PACKET_HEADER_TYPE) |
      ((fences.Barrier ? 1u : 0u) << HSA_PACKET_HEADER_BARRIER) |
      (static_cast<unsigned>(fences.Acquire)
       << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
      (static_cast<unsigned>(fences.Release)
       << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE));
}

StatusOr<hsa_kernel_dispatch_packet_t>
encodeDispatch(const AqlDispatch &dispatch) {
  hsa_kernel_dispatch_packet_t packet = {};
  uint64_t items = 1;
  uint16_t dimensions = 1;
  std::array<uint32_t, 3> grid = {};
  for (int i = 0; i < 3; ++i) {
    uint64_t groups = dispatch.Workgroups[i];
    uint64_t size = dispatch.WorkgroupSize[i];
    if (groups == 0 || size == 0)
      return KILN_ERROR(InvalidArgument, "dispatch dimension ", i,
                        " has no workgroups or an empty workgroup");
    items *= size;
    if (items > kMostWorkgroupItems)
      return KILN_ERROR(
          InvalidArgument, "workgroup of ", dispatch.WorkgroupSize[0], "x",
          dispatch.WorkgroupSize[1], "x", dispatch.WorkgroupSize[2],
          " exceeds ", kMostWorkgroupItems, " work-items");
    // Both are below 2^32, so the product fits in 64 bits.
    if (groups * size > UINT32_MAX)
      return KILN_ERROR(InvalidArgument, "dispatch dimension ", i, ": ", groups,
                        " workgroups of ", size, " exceed 2^32-1 work-items");
    grid[i] = static_cast<uint32_t>(groups * size);
    if (grid[i] > 1 || groups > 1)
      dimensions = static_cast<uint16_t>(i + 1);
  }
  packet.header = aqlHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH, dispatch.Fences);
  packet.setup = static_cast<uint16_t>(
      dimensions << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
  packet.workgroup_size_x = static_cast<uint16_t>(dispatch.WorkgroupSize[0]);
  packet.workgroup_size_y = static_cast<uint16_t>(dispatch.WorkgroupSize[1]);
  packet.workgroup_size_z = static_cast<uint16_t>(dispatch.WorkgroupSize[2]);
  packet.grid_size_x = grid[0];
  packet.grid_size_y = grid[1];
  packet.grid_size_z = grid[2];
  packet.private_segment_size = dispatch.PrivateSegmentBytes;
  packet.group_segment_size = dispatch.GroupSegmentBytes;
  packet.kernel_object = dispatch.KernelObject;
  packet.kernarg_address =
      reinterpret_cast<void *>(static_cast<uintptr_t>(dispatch.KernargAddress));
  packet.completion_signal.handle = dispatch.CompletionSignal;
  return packet;
}

std::vector<hsa_barrier_and_packet_t>
encodeBarrierAnd(std::span<const uint64_t> signals, uint64_t completionSignal,
                 const AqlFences &fences) {
  std::vector<hsa_barrier_and_packet_t> packets;
  for (size_t begin = 0; begin < signals.size(); begin += kSignalsPerBarrier) {
    hsa_barrier_and_packet_t packet = {};
    packet.header = aqlHeader(HSA_PACKET_TYPE_BARRIER_AND, fences);
    size_t count = std::min(kSignalsPerBarrier, signals.size() - begin);
    for (size_t i = 0; i < count; ++i)
      packet.dep_signal[i].handle = signals[begin + i];
    packets.push_back(packet);
  }
  if (!packets.empty())
    packets.back().completion_signal.handle = completionSignal;
  return packets;
}

void publishPacket(void *slot, const void *packet) {
  auto *target = static_cast<uint8_t *>(slot);
  const auto *source = static_cast<const uint8_t *>(packet);
  std::memcpy(target + 4, source + 4, 60);
  uint32_t first;
  std::memcpy(&first, source, 4);
  // The packet processor reads the header only after this store, and sees
  // the body written before it.
  std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t *>(target))
      .store(first, std::memory_order_release);
}

} // namespace kiln::hal::amdgpu
