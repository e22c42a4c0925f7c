//===- AllocatorTest.cpp - Allocation checks every driver inherits --------===//

#include "runtime/hal/Allocator.h"

#include "runtime/hal/TestFakes.h"

#include <gtest/gtest.h>

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
