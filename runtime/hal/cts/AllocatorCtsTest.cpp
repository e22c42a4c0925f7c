//===- AllocatorCtsTest.cpp - Buffers: allocation, mapping, import --------===//

#include "runtime/hal/cts/CtsFixture.h"

#include <cstring>

namespace kiln::hal::cts {
namespace {

class AllocatorCts : public CtsTest {};
KILN_CTS_INSTANTIATE(AllocatorCts);

TEST_P(AllocatorCts, HostVisibleRoundTrip) {
  for (uint64_t size : {1ull, 63ull, 4096ull, 3ull << 20}) {
    KILN_CTS_ASSIGN(auto buffer, hostBuffer(size));
    EXPECT_EQ(buffer->size(), size);
    EXPECT_TRUE(hasAll(buffer->memoryType(), MemoryType::HostVisible));
    std::vector<uint8_t> bytes = randomBytes(size);
    KILN_CTS_ASSERT_OK(upload(buffer, bytes));
    KILN_CTS_ASSIGN(auto back, download(buffer));
    EXPECT_EQ(back, bytes) << size;
  }
}

TEST_P(AllocatorCts, DeviceLocalRoundTripThroughStaging) {
  KILN_CTS_ASSIGN(auto buffer, deviceBuffer(1000));
  EXPECT_TRUE(hasAll(buffer->memoryType(), MemoryType::DeviceLocal));
  EXPECT_EQ(buffer->map().status().code(), StatusCode::FailedPrecondition);
  std::vector<uint8_t> bytes = randomBytes(1000);
  KILN_CTS_ASSERT_OK(upload(buffer, bytes));
  KILN_CTS_ASSIGN(auto back, download(buffer));
  EXPECT_EQ(back, bytes);
}

TEST_P(AllocatorCts, HostVisibleDeviceLocal) {
  KILN_CTS_REQUIRE(feature::kHostVisibleDeviceLocal);
  MemoryType both = MemoryType::DeviceLocal | MemoryType::HostVisible;
  EXPECT_TRUE(device()->allocator().supportsMemoryType(both));
  KILN_CTS_ASSIGN(auto buffer,
                  device()->allocator().allocate(256, both, BufferUsage::All));
  KILN_CTS_ASSIGN(auto mapped, buffer->map());
  std::vector<uint8_t> bytes = randomBytes(256);
  std::memcpy(mapped.data(), bytes.data(), bytes.size());
  KILN_CTS_ASSIGN(auto back, download(buffer));
  EXPECT_EQ(back, bytes);
}

TEST_P(AllocatorCts, ZeroSizedBuffer) {
  KILN_CTS_ASSIGN(auto buffer, hostBuffer(0));
  EXPECT_EQ(buffer->size(), 0u);
  KILN_CTS_ASSIGN(auto mapped, buffer->map());
  EXPECT_EQ(mapped.size(), 0u);
}

TEST_P(AllocatorCts, ImpossibleSizesAreResourceExhausted) {
  for (uint64_t size : {UINT64_MAX, UINT64_MAX - 4095, uint64_t(1) << 62,
                        Allocator::kMaxBufferSize}) {
    for (MemoryType type : {MemoryType::DeviceLocal, MemoryType::HostVisible}) {
      auto buffer =
          device()->allocator().allocate(size, type, BufferUsage::Transfer);
      ASSERT_FALSE(buffer.ok()) << size;
      EXPECT_EQ(buffer.status().code(), StatusCode::ResourceExhausted)
          << buffer.status().toString();
    }
  }
}

TEST_P(AllocatorCts, OutOfMemoryIsResourceExhaustedAndTheDeviceRecovers) {
  KILN_CTS_REQUIRE(feature::kBoundedDeviceMemory);
  // 1 TiB: more than any GPU has, yet under the allocator's own size limit,
  // so the driver itself is asked and refuses.
  constexpr uint64_t kHuge = uint64_t(1) << 40;
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto huge = device()->allocator().allocate(kHuge, MemoryType::DeviceLocal,
                                               BufferUsage::Transfer);
    ASSERT_FALSE(huge.ok());
    EXPECT_EQ(huge.status().code(), StatusCode::ResourceExhausted)
        << huge.status().toString();
    // The device still allocates, copies and fills.
    KILN_CTS_ASSIGN(auto buffer, deviceBuffer(1 << 20));
    std::vector<uint8_t> bytes = randomBytes(1 << 20);
    KILN_CTS_ASSERT_OK(upload(buffer, bytes));
    KILN_CTS_ASSIGN(auto back, download(buffer));
    EXPECT_EQ(back, bytes);
  }
}

TEST_P(AllocatorCts, InvalidRequestsAreInvalidArgument) {
  Allocator &allocator = device()->allocator();
  EXPECT_EQ(allocator.allocate(16, MemoryType::None, BufferUsage::All)
                .status()
                .code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(
      allocator.allocate(16, MemoryType::DeviceLocal, BufferUsage::Mapping)
          .status()
          .code(),
      StatusCode::InvalidArgument);
}

TEST_P(AllocatorCts, ImportedMemoryIsReadOnlyAndReadable) {
  auto owner = std::make_shared<std::vector<uint8_t>>(randomBytes(777));
  KILN_CTS_ASSIGN(
      auto imported,
      device()->allocator().importHostMemory(
          *owner, BufferUsage::Transfer | BufferUsage::Dispatch, owner));
  EXPECT_TRUE(imported->isReadOnly());
  EXPECT_EQ(imported->size(), 777u);
  EXPECT_EQ(imported->map().status().code() == StatusCode::Ok, false);
  // Readable by the device: copy it out.
  KILN_CTS_ASSIGN(auto target, hostBuffer(777));
  KILN_CTS_ASSIGN(auto commands, beginCommands());
  KILN_CTS_ASSERT_OK(
      commands->copy(BufferRef::direct(imported), BufferRef::direct(target)));
  // And never writable by transfers.
  EXPECT_EQ(commands->fill(BufferRef::direct(imported), 0, 1).code(),
            StatusCode::PermissionDenied);
  KILN_CTS_ASSERT_OK(commands->end());
  KILN_CTS_ASSERT_OK(submitAndWait(commands));
  KILN_CTS_ASSIGN(auto back, download(target));
  EXPECT_EQ(back, *owner);
}

} // namespace
} // namespace kiln::hal::cts
