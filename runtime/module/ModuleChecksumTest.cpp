//===- ModuleChecksumTest.cpp ---------------------------------------------===//

#include "schema/ModuleChecksum.h"

#include "runtime/module/TestModule.h"

#include <gtest/gtest.h>

#include <random>

namespace kiln::schema {
namespace {

// Writers and readers built at different times must agree, so the function
// is pinned to values computed by an independent (Python) implementation.
TEST(ModuleChecksumTest, KnownValues) {
  std::vector<uint8_t> bytes(100);
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = static_cast<uint8_t>(i * 7 + 3);
  EXPECT_EQ(moduleChecksum(bytes.data(), 0), 0xd8b12ded5177e952ull);
  EXPECT_EQ(moduleChecksum(bytes.data(), 1), 0xb604ece3a065bceeull);
  EXPECT_EQ(moduleChecksum(bytes.data(), 100), 0x2ac8ce181dab7d69ull);
}

TEST(ModuleChecksumTest, EverySingleWordChangeIsDetected) {
  std::mt19937_64 rng(11);
  for (size_t size : {1u, 7u, 8u, 31u, 32u, 33u, 100u, 1000u}) {
    std::vector<uint8_t> bytes = module::test::randomBytes(size, 5);
    uint64_t original = moduleChecksum(bytes.data(), size);
    for (size_t pos = 0; pos < size; ++pos) {
      std::vector<uint8_t> changed = bytes;
      changed[pos] ^= static_cast<uint8_t>(1 + rng() % 255);
      EXPECT_NE(moduleChecksum(changed.data(), size), original)
          << size << " " << pos;
    }
  }
}

TEST(ModuleChecksumTest, LengthMatters) {
  std::vector<uint8_t> zeros(64, 0);
  EXPECT_NE(moduleChecksum(zeros.data(), 40), moduleChecksum(zeros.data(), 41));
}

TEST(ModuleChecksumTest, FooterRoundTrip) {
  std::vector<uint8_t> bytes = module::test::randomBytes(77, 9);
  uint64_t checksum = moduleChecksum(bytes.data(), bytes.size());
  EXPECT_FALSE(storedModuleChecksum(bytes.data(), bytes.size()).has_value());
  appendModuleChecksum(bytes);
  ASSERT_EQ(bytes.size(), 77 + kChecksumFooterSize);
  auto stored = storedModuleChecksum(bytes.data(), bytes.size());
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(*stored, checksum);
}

} // namespace
} // namespace kiln::schema
