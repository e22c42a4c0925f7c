//===- AqlPacketTest.cpp - Packet bits as the HSA spec lays them out ------===//

#include "runtime/hal/drivers/amdgpu/AqlPacket.h"

#include <gtest/gtest.h>

#include <cstring>

namespace kiln::hal::amdgpu {
namespace {

TEST(AqlPacketTest, HeaderBits) {
  // Type in bits 0-7, barrier bit 8, acquire scope 9-10, release 11-12.
  AqlFences fences{true, FenceScope::Agent, FenceScope::System};
  EXPECT_EQ(aqlHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH, fences),
            2 | 1 << 8 | 1 << 9 | 2 << 11);
  AqlFences none{false, FenceScope::None, FenceScope::None};
  EXPECT_EQ(aqlHeader(HSA_PACKET_TYPE_BARRIER_AND, none), 3);
}

TEST(AqlPacketTest, DispatchGridIsWorkgroupsTimesSize) {
  AqlDispatch dispatch;
  dispatch.KernelObject = 0x7f0000001000;
  dispatch.Workgroups = {10, 3, 1};
  dispatch.WorkgroupSize = {64, 2, 1};
  dispatch.GroupSegmentBytes = 256;
  dispatch.PrivateSegmentBytes = 16;
  dispatch.KernargAddress = 0x7f0000002000;
  dispatch.CompletionSignal = 0x1234;
  auto packet = encodeDispatch(dispatch);
  ASSERT_TRUE(packet.ok()) << packet.status().toString();
  EXPECT_EQ(packet->header, aqlHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH, {}));
  EXPECT_EQ(packet->setup, 2); // two dimensions used
  EXPECT_EQ(packet->workgroup_size_x, 64);
  EXPECT_EQ(packet->workgroup_size_y, 2);
  EXPECT_EQ(packet->workgroup_size_z, 1);
  EXPECT_EQ(packet->grid_size_x, 640u);
  EXPECT_EQ(packet->grid_size_y, 6u);
  EXPECT_EQ(packet->grid_size_z, 1u);
  EXPECT_EQ(packet->group_segment_size, 256u);
  EXPECT_EQ(packet->private_segment_size, 16u);
  EXPECT_EQ(packet->kernel_object, 0x7f0000001000u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(packet->kernarg_address),
            0x7f0000002000u);
  EXPECT_EQ(packet->completion_signal.handle, 0x1234u);
  EXPECT_EQ(packet->reserved0, 0);
  EXPECT_EQ(packet->reserved2, 0u);
}

TEST(AqlPacketTest, DimensionsCountTheLastOneUsed) {
  AqlDispatch dispatch;
  EXPECT_EQ(encodeDispatch(dispatch)->setup, 1);
  dispatch.Workgroups = {1, 1, 5};
  EXPECT_EQ(encodeDispatch(dispatch)->setup, 3);
}

TEST(AqlPacketTest, OutOfRangeSizesAreErrors) {
  AqlDispatch dispatch;
  dispatch.Workgroups = {0, 1, 1};
  EXPECT_EQ(encodeDispatch(dispatch).status().code(),
            StatusCode::InvalidArgument);
  dispatch.Workgroups = {1, 1, 1};
  dispatch.WorkgroupSize = {1024, 2, 1};
  EXPECT_NE(encodeDispatch(dispatch).status().message().find("1024x2x1"),
            std::string::npos);
  dispatch.WorkgroupSize = {256, 1, 1};
  dispatch.Workgroups = {1u << 24, 1, 1}; // 2^32 work-items
  EXPECT_NE(encodeDispatch(dispatch).status().message().find("2^32-1"),
            std::string::npos);
  dispatch.Workgroups = {(1u << 24) - 1, 1, 1};
  EXPECT_TRUE(encodeDispatch(dispatch).ok());
}

TEST(AqlPacketTest, BarrierAndTakesFiveSignalsAPacket) {
  std::vector<uint64_t> signals = {11, 12, 13, 14, 15, 16, 17};
  AqlFences fences{true, FenceScope::System, FenceScope::System};
  auto packets = encodeBarrierAnd(signals, 99, fences);
  ASSERT_EQ(packets.size(), 2u);
  for (const auto &packet : packets)
    EXPECT_EQ(packet.header, aqlHeader(HSA_PACKET_TYPE_BARRIER_AND, fences));
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(packets[0].dep_signal[i].handle, 11u + i);
  EXPECT_EQ(packets[1].dep_signal[0].handle, 16u);
  EXPECT_EQ(packets[1].dep_signal[1].handle, 17u);
  // Unused slots are null signals, which a barrier-AND treats as done.
  EXPECT_EQ(packets[1].dep_signal[2].handle, 0u);
  EXPECT_EQ(packets[0].completion_signal.handle, 0u);
  EXPECT_EQ(packets[1].completion_signal.handle, 99u);
  EXPECT_TRUE(encodeBarrierAnd({}, 99, fences).empty());
}

TEST(AqlPacketTest, PublishWritesTheWholePacket) {
  AqlDispatch dispatch;
  dispatch.KernelObject = 42;
  auto packet = encodeDispatch(dispatch);
  ASSERT_TRUE(packet.ok());
  alignas(64) uint8_t slot[64];
  std::memset(slot, 0xcc, sizeof(slot));
  publishPacket(slot, &*packet);
  EXPECT_EQ(std::memcmp(slot, &*packet, 64), 0);
}

} // namespace
} // namespace kiln::hal::amdgpu
