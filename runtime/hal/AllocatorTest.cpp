//===- AllocatorTest.cpp - Allocation checks every driver inherits --------===//

#include "runtime/hal/Allocator.h"

#include "runtime/hal/TestFakes.h"

#include <gtest/gtest.h>

#include <mutex>
#include <thread>

namespace kiln::hal {
namespace {

TEST(AllocatorTest, HugeSizesAreResourceExhaustedBeforeTheDriver) {
  test::FakeAllocator allocator;
  for (uint64_t size : {UINT64_MAX, UINT64_MAX - 63, uint64_t(1) << 63,
                        Allocator::kMaxBufferSize + 1}) {
    auto buffer = allocator.allocate(size, MemoryType::DeviceLocal,
                                     BufferUsage::Transfer);
    ASSERT_FALSE(buffer.ok()) << size;
    EXPECT_EQ(buffer.status().code(), StatusCode::ResourceExhausted);
    EXPECT_NE(buffer.status().message().find(std::to_string(size)),
              std::string_view::npos);
  }
  EXPECT_TRUE(allocator.Requests.empty());
  ASSERT_TRUE(
      allocator.allocate(0, MemoryType::DeviceLocal, BufferUsage::Transfer)
          .ok());
  EXPECT_EQ(allocator.Requests, std::vector<uint64_t>{0});
}

TEST(AllocatorTest, BadFlagsAreInvalidArgument) {
  test::FakeAllocator allocator;
  auto code = [&](MemoryType type, BufferUsage usage) {
    return allocator.allocate(16, type, usage).status().code();
  };
  EXPECT_EQ(code(MemoryType::None, BufferUsage::All),
            StatusCode::InvalidArgument);
  EXPECT_EQ(code(static_cast<MemoryType>(8), BufferUsage::Transfer),
            StatusCode::InvalidArgument);
  EXPECT_EQ(code(MemoryType::DeviceLocal, BufferUsage::None),
            StatusCode::InvalidArgument);
  EXPECT_EQ(code(MemoryType::DeviceLocal, static_cast<BufferUsage>(64)),
            StatusCode::InvalidArgument);
  // Mapping needs host-visible memory.
  EXPECT_EQ(code(MemoryType::DeviceLocal, BufferUsage::Mapping),
            StatusCode::InvalidArgument);
  // The fake, like a discrete GPU, has no memory that is both.
  EXPECT_EQ(code(MemoryType::DeviceLocal | MemoryType::HostVisible,
                 BufferUsage::Transfer),
            StatusCode::InvalidArgument);
  EXPECT_TRUE(allocator.Requests.empty());
}

TEST(AllocatorTest, ImportChecks) {
  test::FakeAllocator allocator;
  EXPECT_EQ(allocator
                .importHostMemory(std::span<const uint8_t>(), BufferUsage::None,
                                  nullptr)
                .status()
                .code(),
            StatusCode::InvalidArgument);
  const uint8_t bytes[] = {9, 8, 7};
  auto buffer = allocator.importHostMemory(bytes, BufferUsage::All, nullptr);
  ASSERT_TRUE(buffer.ok());
  EXPECT_TRUE((*buffer)->isReadOnly());
  EXPECT_EQ((*buffer)->map().status().code(), StatusCode::PermissionDenied);
  auto read = (*buffer)->mapRead();
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(std::vector<uint8_t>(read->begin(), read->end()),
            std::vector<uint8_t>({9, 8, 7}));
}

TEST(AllocatorStatisticsTest, LiveAndPeakBytesPerMemoryType) {
  test::FakeAllocator allocator;
  auto allocate = [&](uint64_t size, MemoryType type) {
    auto buffer = allocator.allocate(size, type, BufferUsage::Transfer);
    EXPECT_TRUE(buffer.ok()) << buffer.status().toString();
    return buffer.ok() ? *buffer : nullptr;
  };
  auto big = allocate(100, MemoryType::DeviceLocal);
  auto small = allocate(50, MemoryType::DeviceLocal);
  auto host = allocate(10, MemoryType::HostVisible);
  AllocatorStatistics stats = allocator.statistics();
  EXPECT_EQ(stats.DeviceLocal.LiveBytes, 150u);
  EXPECT_EQ(stats.DeviceLocal.LiveBuffers, 2u);
  EXPECT_EQ(stats.DeviceLocal.PeakBytes, 150u);
  EXPECT_EQ(stats.DeviceLocal.Allocations, 2u);
  EXPECT_EQ(stats.DeviceLocal.Frees, 0u);
  EXPECT_EQ(stats.HostVisible.LiveBytes, 10u);
  EXPECT_EQ(stats.HostVisible.Allocations, 1u);
  EXPECT_EQ(stats.DeviceLocalHostVisible.Allocations, 0u);
  EXPECT_EQ(stats.Imported.Allocations, 0u);

  // Dropping the last reference is the free; the peak stays.
  big.reset();
  stats = allocator.statistics();
  EXPECT_EQ(stats.DeviceLocal.LiveBytes, 50u);
  EXPECT_EQ(stats.DeviceLocal.LiveBuffers, 1u);
  EXPECT_EQ(stats.DeviceLocal.PeakBytes, 150u);
  EXPECT_EQ(stats.DeviceLocal.Frees, 1u);
  // A copy of the reference keeps the buffer alive.
  std::shared_ptr<Buffer> copy = small;
  small.reset();
  EXPECT_EQ(allocator.statistics().DeviceLocal.LiveBuffers, 1u);
  copy.reset();
  auto again = allocate(20, MemoryType::DeviceLocal);
  stats = allocator.statistics();
  EXPECT_EQ(stats.DeviceLocal.LiveBytes, 20u);
  EXPECT_EQ(stats.DeviceLocal.PeakBytes, 150u);
  EXPECT_EQ(stats.DeviceLocal.Allocations, 3u);
  EXPECT_EQ(stats.DeviceLocal.Frees, 2u);
  EXPECT_EQ(stats.DeviceLocal.TotalBytes, 170u);
  EXPECT_EQ(stats.forMemoryType(MemoryType::DeviceLocal), &stats.DeviceLocal);
  EXPECT_EQ(stats.forMemoryType(MemoryType::HostVisible), &stats.HostVisible);
  EXPECT_EQ(
      stats.forMemoryType(MemoryType::DeviceLocal | MemoryType::HostVisible),
      &stats.DeviceLocalHostVisible);
  EXPECT_EQ(stats.forMemoryType(MemoryType::None), nullptr);
  EXPECT_EQ(stats.forMemoryType(static_cast<MemoryType>(4)), nullptr);
}

TEST(AllocatorStatisticsTest, TheDriversBufferIsHandedOut) {
  // Drivers downcast buffers they are given (a CUDA device reads a
  // GpuBuffer's address), so counting must not hide the driver's object.
  test::FakeAllocator allocator;
  auto buffer =
      allocator.allocate(8, MemoryType::HostVisible, BufferUsage::All);
  ASSERT_TRUE(buffer.ok());
  auto fake = std::dynamic_pointer_cast<test::FakeBuffer>(*buffer);
  ASSERT_TRUE(fake);
  EXPECT_EQ(fake->Bytes.size(), 8u);
}

TEST(AllocatorStatisticsTest, OutOfMemoryIsCountedOtherFailuresAreNot) {
  test::FakeAllocator allocator;
  allocator.Capacity = 1000;
  EXPECT_EQ(
      allocator.allocate(1001, MemoryType::DeviceLocal, BufferUsage::Transfer)
          .status()
          .code(),
      StatusCode::ResourceExhausted);
  EXPECT_EQ(
      allocator
          .allocate(UINT64_MAX, MemoryType::HostVisible, BufferUsage::Transfer)
          .status()
          .code(),
      StatusCode::ResourceExhausted);
  EXPECT_FALSE(
      allocator.allocate(16, MemoryType::None, BufferUsage::Transfer).ok());
  AllocatorStatistics stats = allocator.statistics();
  EXPECT_EQ(stats.OutOfMemory, 2u);
  EXPECT_EQ(stats.DeviceLocal.Allocations, 0u);
  EXPECT_EQ(stats.HostVisible.Allocations, 0u);
}

TEST(AllocatorStatisticsTest, ImportsAreCountedApart) {
  test::FakeAllocator allocator;
  const uint8_t bytes[] = {1, 2, 3};
  auto imported = allocator.importHostMemory(bytes, BufferUsage::All, nullptr);
  ASSERT_TRUE(imported.ok());
  AllocatorStatistics stats = allocator.statistics();
  EXPECT_EQ(stats.Imported.LiveBytes, 3u);
  EXPECT_EQ(stats.Imported.Allocations, 1u);
  EXPECT_EQ(stats.HostVisible.Allocations, 0u);
  imported->reset();
  EXPECT_EQ(allocator.statistics().Imported.Frees, 1u);
  EXPECT_EQ(allocator.statistics().Imported.LiveBytes, 0u);
}

TEST(AllocatorStatisticsTest, BuffersMayOutliveTheirAllocator) {
  std::shared_ptr<Buffer> survivor;
  {
    test::FakeAllocator allocator;
    auto buffer =
        allocator.allocate(32, MemoryType::HostVisible, BufferUsage::All);
    ASSERT_TRUE(buffer.ok());
    survivor = *buffer;
  }
  // Released after the allocator is gone (ASan checks nothing dangles).
  ASSERT_TRUE(survivor->map().ok());
  survivor.reset();
}

TEST(AllocatorStatisticsTest, ConcurrentAllocationsAndFreesAddUp) {
  test::FakeAllocator allocator;
  // FakeAllocator records requests in a vector: give each thread its own
  // allocator calls through a mutex, and release outside it.
  std::mutex mutex;
  constexpr int kThreads = 4, kRounds = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRounds; ++i) {
        StatusOr<std::shared_ptr<Buffer>> buffer = [&] {
          std::lock_guard<std::mutex> lock(mutex);
          return allocator.allocate(t + 1, MemoryType::DeviceLocal,
                                    BufferUsage::Transfer);
        }();
        ASSERT_TRUE(buffer.ok());
        buffer->reset(); // released while other threads allocate
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  AllocatorStatistics stats = allocator.statistics();
  EXPECT_EQ(stats.DeviceLocal.Allocations, uint64_t(kThreads * kRounds));
  EXPECT_EQ(stats.DeviceLocal.Frees, uint64_t(kThreads * kRounds));
  EXPECT_EQ(stats.DeviceLocal.LiveBytes, 0u);
  EXPECT_EQ(stats.DeviceLocal.LiveBuffers, 0u);
  EXPECT_EQ(stats.DeviceLocal.TotalBytes,
            uint64_t(kRounds * kThreads * (kThreads + 1) / 2));
  EXPECT_LE(stats.DeviceLocal.PeakBytes, uint64_t(1 + 2 + 3 + 4));
  EXPECT_GE(stats.DeviceLocal.PeakBytes, uint64_t(kThreads));
}

TEST(BufferTest, MapNeedsHostVisibleAndMappingUsage) {
  test::FakeBuffer deviceLocal(8, MemoryType::DeviceLocal,
                               BufferUsage::Transfer);
  EXPECT_EQ(deviceLocal.map().status().code(), StatusCode::FailedPrecondition);
  EXPECT_EQ(deviceLocal.mapRead().status().code(),
            StatusCode::FailedPrecondition);
  test::FakeBuffer noMapping(8, MemoryType::HostVisible, BufferUsage::Transfer);
  EXPECT_EQ(noMapping.map().status().code(), StatusCode::FailedPrecondition);
  test::FakeBuffer mappable(8);
  auto span = mappable.map();
  ASSERT_TRUE(span.ok());
  EXPECT_EQ(span->size(), 8u);
  EXPECT_EQ(span->data(), mappable.Bytes.data());
}

TEST(MemoryTypeTest, Strings) {
  EXPECT_EQ(memoryTypeString(MemoryType::DeviceLocal | MemoryType::HostVisible),
            "DeviceLocal|HostVisible");
  EXPECT_EQ(memoryTypeString(MemoryType::None), "None");
  EXPECT_EQ(memoryTypeString(static_cast<MemoryType>(0x11)),
            "DeviceLocal|0x10");
  EXPECT_EQ(bufferUsageString(BufferUsage::All), "Transfer|Dispatch|Mapping");
}

} // namespace
} // namespace kiln::hal
