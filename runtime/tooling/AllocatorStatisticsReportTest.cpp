//===- AllocatorStatisticsReportTest.cpp - --print_statistics' table ------===//

#include "runtime/tooling/AllocatorStatisticsReport.h"

#include "runtime/hal/TestFakes.h"

#include <gtest/gtest.h>

#include <sstream>

namespace kiln::tooling {
namespace {

using hal::BufferUsage;
using hal::MemoryType;

std::vector<std::string> lines(const std::string &text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

// The whitespace-separated words of `line`.
std::vector<std::string> words(const std::string &line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string word; in >> word;)
    out.push_back(word);
  return out;
}

TEST(AllocatorStatisticsReportTest, OneRowPerOfferedMemoryTypeAndImports) {
  hal::test::FakeAllocator allocator;
  allocator.Capacity = 1 << 20;
  auto kept =
      allocator.allocate(4096, MemoryType::DeviceLocal, BufferUsage::Transfer);
  ASSERT_TRUE(kept.ok());
  auto released =
      allocator.allocate(1000, MemoryType::DeviceLocal, BufferUsage::Transfer);
  ASSERT_TRUE(released.ok());
  released->reset();
  auto staging =
      allocator.allocate(64, MemoryType::HostVisible, BufferUsage::All);
  ASSERT_TRUE(staging.ok());
  const uint8_t bytes[] = {1, 2, 3};
  auto constants =
      allocator.importHostMemory(bytes, BufferUsage::Transfer, nullptr);
  ASSERT_TRUE(constants.ok());
  EXPECT_FALSE(
      allocator
          .allocate(2 << 20, MemoryType::DeviceLocal, BufferUsage::Transfer)
          .ok());

  std::ostringstream out;
  printAllocatorStatistics(out, "fake://", allocator);
  std::vector<std::string> got = lines(out.str());
  // The fake, like a discrete GPU, has no memory that is both: no row.
  ASSERT_EQ(got.size(), 6u) << out.str();
  EXPECT_EQ(got[0], "allocator statistics (fake://):");
  EXPECT_EQ(words(got[1]),
            (std::vector<std::string>{"memory", "live", "bytes", "live",
                                      "buffers", "peak", "bytes", "allocations",
                                      "frees", "total", "bytes"}));
  EXPECT_EQ(words(got[2]),
            (std::vector<std::string>{"DeviceLocal", "4096", "1", "5096", "2",
                                      "1", "5096"}));
  EXPECT_EQ(words(got[3]), (std::vector<std::string>{"HostVisible", "64", "1",
                                                     "64", "1", "0", "64"}));
  EXPECT_EQ(words(got[4]), (std::vector<std::string>{"imported", "3", "1", "3",
                                                     "1", "0", "3"}));
  EXPECT_EQ(got[5], "  refused for lack of memory: 1");
  // Numbers end under the end of their header.
  EXPECT_EQ(got[1].find("live bytes") + std::string("live bytes").size(),
            got[2].find("4096") + 4);
}

} // namespace
} // namespace kiln::tooling
