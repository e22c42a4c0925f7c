//===- KernargRingTest.cpp ------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/KernargRing.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace kiln::hal::amdgpu {
namespace {

TEST(KernargRingTest, PiecesAreAlignedAndInRingOrder) {
  KernargRing ring(1024);
  EXPECT_EQ(ring.allocate(40, 16, 0), 0u);
  EXPECT_EQ(ring.allocate(288, 64, 1), 64u);
  EXPECT_EQ(ring.allocate(8, 8, 2), 352u);
  EXPECT_EQ(ring.bytesInUse(), 360u);
}

TEST(KernargRingTest, AFullRingWaitsForPacketsToComplete) {
  KernargRing ring(1024);
  ASSERT_TRUE(ring.allocate(512, 16, 0));
  ASSERT_TRUE(ring.allocate(512, 16, 1));
  EXPECT_FALSE(ring.allocate(16, 16, 2));
  ring.retire(1); // packet 0 done
  EXPECT_EQ(ring.bytesInUse(), 512u);
  // Wraps to the start, which packet 0 gave back.
  EXPECT_EQ(ring.allocate(16, 16, 2), 0u);
}

TEST(KernargRingTest, APieceNeverWrapsAndTheSkippedTailComesBack) {
  KernargRing ring(1024);
  ASSERT_EQ(ring.allocate(900, 16, 0), 0u);
  ring.retire(1);
  EXPECT_EQ(ring.bytesInUse(), 0u);
  // 124 bytes remain at the end: a 200-byte piece starts over at 0.
  EXPECT_EQ(ring.allocate(200, 16, 1), 0u);
  EXPECT_EQ(ring.bytesInUse(), 124u + 200u);
  ring.retire(2);
  EXPECT_EQ(ring.bytesInUse(), 0u);
}

TEST(KernargRingTest, ImpossibleRequestsAreRefused) {
  KernargRing ring(256);
  EXPECT_FALSE(ring.allocate(257, 16, 0));
  EXPECT_FALSE(ring.allocate(0, 16, 0));
  EXPECT_FALSE(ring.allocate(16, 24, 0));
  EXPECT_FALSE(ring.allocate(16, 512, 0));
  EXPECT_EQ(ring.bytesInUse(), 0u);
}

TEST(KernargRingTest, LivePiecesNeverOverlap) {
  // Random sizes, alignments and completions: the pieces not yet retired
  // are always disjoint and inside the block.
  KernargRing ring(4096);
  std::mt19937 random(7);
  struct Live {
    uint64_t Packet, Offset, Size;
  };
  std::vector<Live> live;
  uint64_t packet = 0, done = 0;
  for (int step = 0; step < 20000; ++step) {
    uint64_t size = 8 + random() % 600;
    uint64_t alignment = uint64_t{8} << (random() % 4);
    if (auto offset = ring.allocate(size, alignment, packet)) {
      ASSERT_EQ(*offset % alignment, 0u);
      ASSERT_LE(*offset + size, 4096u);
      for (const Live &other : live)
        ASSERT_TRUE(*offset + size <= other.Offset ||
                    other.Offset + other.Size <= *offset);
      live.push_back({packet++, *offset, size});
    } else {
      done += 1 + random() % 3;
      ring.retire(done);
      std::erase_if(live, [&](const Live &l) { return l.Packet < done; });
    }
  }
  ring.retire(packet);
  EXPECT_EQ(ring.bytesInUse(), 0u);
}

} // namespace
} // namespace kiln::hal::amdgpu
