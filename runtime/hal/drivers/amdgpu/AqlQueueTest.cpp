//===- AqlQueueTest.cpp - The ring protocol, over an in-memory ring -------===//
//
// The queue here is memory the test owns and the HSA index and doorbell
// functions are the test's, advancing the read index as a packet processor
// would: what is checked is where packets land, that headers are written,
// that a full ring waits for the reader, and what the doorbell is told.
// Nothing runs the packets.
//
//===----------------------------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/AqlQueue.h"

#include "runtime/hal/drivers/amdgpu/AqlPacket.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

namespace kiln::hal::amdgpu {
namespace {

// The reader's and writers' indices and the doorbell's last value.
std::atomic<uint64_t> readIndex;
std::atomic<uint64_t> writeIndex;
std::atomic<int64_t> doorbell;

uint64_t loadRead(const hsa_queue_t *) { return readIndex.load(); }
uint64_t addWrite(const hsa_queue_t *, uint64_t count) {
  return writeIndex.fetch_add(count);
}
void storeDoorbell(hsa_signal_t, hsa_signal_value_t value) {
  doorbell.store(value);
}

class AqlQueueTest : public ::testing::Test {
protected:
  static constexpr uint32_t kSlots = 8;

  void SetUp() override {
    readIndex = 0;
    writeIndex = 0;
    doorbell = -1;
    Hsa.hsa_queue_load_read_index_scacquire = loadRead;
    Hsa.hsa_queue_add_write_index_scacq_screl = addWrite;
    Hsa.hsa_signal_store_screlease = storeDoorbell;
    Ring.resize(kSlots);
    std::memset(Ring.data(), 0, Ring.size() * sizeof(AqlSlot));
    Queue.size = kSlots;
    Queue.base_address = Ring.data();
  }

  // A dispatch packet whose kernel object names it.
  static AqlSlot packet(uint64_t tag) {
    AqlDispatch dispatch;
    dispatch.KernelObject = tag;
    auto encoded = encodeDispatch(dispatch);
    AqlSlot slot;
    std::memcpy(slot.Bytes, &*encoded, 64);
    return slot;
  }
  uint64_t tagAt(uint32_t slot) const {
    hsa_kernel_dispatch_packet_t written;
    std::memcpy(&written, &Ring[slot], 64);
    return written.kernel_object;
  }

  HsaSymbols Hsa;
  hsa_queue_t Queue = {};
  std::vector<AqlSlot> Ring;
};

TEST_F(AqlQueueTest, PacketsLandInOrderAndTheDoorbellGetsTheLast) {
  AqlQueue queue(Hsa, &Queue);
  AqlSlot batch[] = {packet(100), packet(101), packet(102)};
  auto last = queue.submit(batch);
  ASSERT_TRUE(last.ok()) << last.status().toString();
  EXPECT_EQ(*last, 2u);
  EXPECT_EQ(doorbell.load(), 2);
  for (uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(tagAt(i), 100u + i);
    hsa_kernel_dispatch_packet_t written;
    std::memcpy(&written, &Ring[i], 64);
    EXPECT_EQ(written.header, aqlHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH, {}));
  }
}

TEST_F(AqlQueueTest, IndicesWrapAroundTheRing) {
  AqlQueue queue(Hsa, &Queue);
  readIndex = 6;
  writeIndex = 6;
  AqlSlot batch[] = {packet(1), packet(2), packet(3), packet(4)};
  auto last = queue.submit(batch);
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(*last, 9u);
  EXPECT_EQ(tagAt(6), 1u);
  EXPECT_EQ(tagAt(7), 2u);
  EXPECT_EQ(tagAt(0), 3u);
  EXPECT_EQ(tagAt(1), 4u);
}

TEST_F(AqlQueueTest, AFullRingWaitsForTheReader) {
  AqlQueue queue(Hsa, &Queue);
  std::vector<AqlSlot> full(kSlots, packet(7));
  ASSERT_TRUE(queue.submit(full).ok());
  // The ring is full: the next packet goes in once the reader moves on.
  std::thread reader([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    readIndex = 1;
  });
  AqlSlot one[] = {packet(8)};
  auto start = std::chrono::steady_clock::now();
  auto last = queue.submit(one);
  auto waited = std::chrono::steady_clock::now() - start;
  reader.join();
  EXPECT_GE(waited, std::chrono::milliseconds(15));
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(*last, kSlots);
  EXPECT_EQ(readIndex.load(), 1u);
  EXPECT_EQ(tagAt(0), 8u);
}

TEST_F(AqlQueueTest, AWaitForADeadQueueEnds) {
  AqlQueue queue(Hsa, &Queue);
  std::vector<AqlSlot> full(kSlots, packet(7));
  ASSERT_TRUE(queue.submit(full).ok());
  AqlSlot one[] = {packet(8)};
  auto last = queue.submit(
      one, [] { return KILN_ERROR(Aborted, "the queue reported an error"); });
  EXPECT_EQ(last.status().code(), StatusCode::Aborted);
  // Nothing written over the packet the reader has not passed.
  EXPECT_EQ(tagAt(0), 7u);
}

TEST_F(AqlQueueTest, BatchesLargerThanTheRingOrEmptyAreRefused) {
  AqlQueue queue(Hsa, &Queue);
  std::vector<AqlSlot> tooMany(kSlots + 1, packet(1));
  EXPECT_EQ(queue.submit(tooMany).status().code(), StatusCode::InvalidArgument);
  EXPECT_EQ(queue.submit({}).status().code(), StatusCode::InvalidArgument);
  EXPECT_EQ(writeIndex.load(), 0u);
}

} // namespace
} // namespace kiln::hal::amdgpu
