//===- LocalDriverTest.cpp - URIs, options and CPU targets ----------------===//

#include "runtime/hal/drivers/local/LocalDriver.h"

#include "runtime/hal/BufferTransfer.h"
#include "runtime/hal/Feature.h"
#include "runtime/hal/drivers/local/CpuTarget.h"
#include "runtime/hal/drivers/local/LocalCommandBuffer.h"

#include <gtest/gtest.h>

#include <cstring>

namespace kiln::hal::local {
namespace {

StatusOr<std::shared_ptr<Device>> open(Driver &driver, std::string_view text) {
  KILN_ASSIGN_OR_RETURN(DeviceUri uri, DeviceUri::parse(text));
  return driver.createDevice(uri);
}

std::string property(const DeviceInfo &info, std::string_view key) {
  for (const auto &[name, value] : info.Properties)
    if (name == key)
      return value;
  return "<missing>";
}

TEST(LocalDriverTest, Names) {
  EXPECT_EQ(createLocalSyncDriver()->name(), "local-sync");
  EXPECT_EQ(createLocalTaskDriver()->name(), "local-task");
}

TEST(LocalDriverTest, EnumeratesOneDevice) {
  for (auto driver : {createLocalSyncDriver(), createLocalTaskDriver()}) {
    auto devices = driver->enumerateDevices();
    ASSERT_TRUE(devices.ok());
    ASSERT_EQ(devices->size(), 1u);
    const DeviceInfo &info = devices->front();
    EXPECT_EQ(info.Uri, std::string(driver->name()) + "://");
    EXPECT_FALSE(info.Name.empty());
    EXPECT_EQ(property(info, "driver"), driver->name());
    EXPECT_EQ(property(info, "executable_format"), "cpu-elf-x86_64");
    EXPECT_EQ(property(info, "cpu_target"), hostCpuTarget());
    EXPECT_NE(property(info, "threads"), "<missing>");
  }
}

TEST(LocalDriverTest, AcceptedSpellings) {
  auto sync = createLocalSyncDriver();
  auto task = createLocalTaskDriver();
  for (const char *uri : {"local-sync", "local-sync://", "local-sync:0",
                          "local-sync://?unified=0"})
    EXPECT_TRUE(open(*sync, uri).ok()) << uri;
  for (const char *uri : {"local-task", "local-task://", "local-task:0",
                          "local-task?workers=3", "local-task://?workers=1"})
    EXPECT_TRUE(open(*task, uri).ok()) << uri;
}

TEST(LocalDriverTest, RejectedSpellings) {
  auto sync = createLocalSyncDriver();
  auto task = createLocalTaskDriver();
  auto code = [](Driver &driver, const char *uri) {
    return open(driver, uri).status().code();
  };
  EXPECT_EQ(code(*sync, "local-sync:1"), StatusCode::NotFound);
  EXPECT_EQ(code(*sync, "local-sync://cpu0"), StatusCode::NotFound);
  EXPECT_EQ(code(*sync, "local-sync?workers=2"), StatusCode::InvalidArgument);
  EXPECT_EQ(code(*task, "local-task?workers=0"), StatusCode::InvalidArgument);
  EXPECT_EQ(code(*task, "local-task?workers=99999"),
            StatusCode::InvalidArgument);
  EXPECT_EQ(code(*task, "local-task?workers=two"), StatusCode::InvalidArgument);
  EXPECT_EQ(code(*task, "local-task?unified=maybe"),
            StatusCode::InvalidArgument);
  EXPECT_EQ(code(*task, "local-sync"), StatusCode::InvalidArgument);
  std::string message(open(*sync, "local-sync:3").status().message());
  EXPECT_NE(message.find("local-sync://"), std::string::npos) << message;
}

TEST(LocalDriverTest, WorkersAndFeatures) {
  auto task = createLocalTaskDriver();
  auto one = open(*task, "local-task://?workers=1");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(property((*one)->info(), "threads"), "1");
  EXPECT_EQ((*one)->info().Uri, "local-task://?workers=1");
  EXPECT_TRUE((*one)->unsupportedReason(feature::kConcurrentWorkgroups));
  EXPECT_TRUE((*one)->unsupportedReason(feature::kConcurrentCommands));
  EXPECT_FALSE((*one)->unsupportedReason(feature::kDeferredSubmission));
  auto four = open(*task, "local-task://?workers=4");
  ASSERT_TRUE(four.ok());
  EXPECT_EQ(property((*four)->info(), "threads"), "4");
  EXPECT_FALSE((*four)->unsupportedReason(feature::kConcurrentWorkgroups));
  EXPECT_FALSE((*four)->unsupportedReason(feature::kConcurrentCommands));
  auto two = open(*task, "local-task://?workers=2");
  ASSERT_TRUE(two.ok());
  EXPECT_FALSE((*two)->unsupportedReason(feature::kConcurrentCommands));

  auto sync = open(*createLocalSyncDriver(), "local-sync");
  ASSERT_TRUE(sync.ok());
  EXPECT_TRUE((*sync)->unsupportedReason(feature::kDeferredSubmission));
  EXPECT_TRUE((*sync)->unsupportedReason(feature::kConcurrentWorkgroups));
  EXPECT_TRUE((*sync)->unsupportedReason(feature::kConcurrentCommands));
  EXPECT_FALSE((*sync)->unsupportedReason(feature::kHostVisibleDeviceLocal));
}

// The schedule LocalCommandBuffer derives from barriers, events and
// dependOn: what a command waits for lands in an earlier level, and what
// nothing orders stays in the lowest level it may take (so it runs at once
// with the rest of that level).
TEST(LocalDriverTest, CommandLevels) {
  auto device = open(*createLocalTaskDriver(), "local-task://?workers=2");
  ASSERT_TRUE(device.ok());
  auto buffer = (*device)->allocator().allocate(64, MemoryType::HostVisible,
                                                BufferUsage::All);
  ASSERT_TRUE(buffer.ok());
  auto event = (*device)->createEvent();
  ASSERT_TRUE(event.ok());
  auto created = (*device)->createCommandBuffer(CommandBufferMode::OneShot, 0);
  ASSERT_TRUE(created.ok());
  auto commands = std::dynamic_pointer_cast<LocalCommandBuffer>(*created);
  ASSERT_TRUE(commands);
  // Records a fill after `dependencies`; its command number is its index.
  auto fill = [&](std::vector<uint32_t> dependencies) {
    EXPECT_TRUE(commands->dependOn(dependencies).ok());
    EXPECT_TRUE(commands->fill(BufferRef::direct(*buffer), 0, 1).ok());
  };
  ASSERT_TRUE(commands->begin().ok());
  // A barrier before anything is recorded orders nothing.
  ASSERT_TRUE(commands->executionBarrier().ok());
  fill({});     // 0
  fill({});     // 1
  fill({0});    // 2
  fill({2});    // 3
  fill({});     // 4: independent of the chain 0-2-3
  fill({1, 0}); // 5
  // Two barriers in a row are one.
  ASSERT_TRUE(commands->executionBarrier().ok());
  ASSERT_TRUE(commands->executionBarrier().ok());
  fill({});  // 6
  fill({1}); // 7: what it names is before the barrier anyway
  fill({6}); // 8
  ASSERT_TRUE(commands->signalEvent(*event).ok());
  fill({}); // 9: nothing orders it after 8
  ASSERT_TRUE(commands->waitEvent(*event).ok());
  fill({}); // 10
  ASSERT_TRUE(commands->end().ok());
  const uint32_t expected[] = {0, 0, 1, 2, 0, 1, 3, 3, 4, 3, 5};
  ASSERT_EQ(commands->commandCount(), std::size(expected));
  for (uint32_t command = 0; command < std::size(expected); ++command)
    EXPECT_EQ(commands->level(command), expected[command])
        << "command " << command;
}

TEST(LocalDriverTest, DiscreteGpuLikeAllocator) {
  auto device = open(*createLocalSyncDriver(), "local-sync://?unified=0");
  ASSERT_TRUE(device.ok());
  EXPECT_TRUE((*device)->unsupportedReason(feature::kHostVisibleDeviceLocal));
  Allocator &allocator = (*device)->allocator();
  EXPECT_FALSE(allocator.supportsMemoryType(MemoryType::DeviceLocal |
                                            MemoryType::HostVisible));
  EXPECT_FALSE(allocator
                   .allocate(16,
                             MemoryType::DeviceLocal | MemoryType::HostVisible,
                             BufferUsage::Transfer)
                   .ok());
  // Imports are copies: changing the source later changes nothing.
  std::vector<uint8_t> source = {1, 2, 3, 4};
  auto imported = allocator.importHostMemory(source, BufferUsage::All, nullptr);
  ASSERT_TRUE(imported.ok());
  source[0] = 99;
  auto mapped = (*imported)->mapRead();
  ASSERT_TRUE(mapped.ok());
  EXPECT_EQ((*mapped)[0], 1);
  EXPECT_NE(mapped->data(), source.data());
}

// readBuffers (the values a phase's shapes depend on): ranges of device
// memory the host cannot map go through one staging buffer the caller
// keeps, replaced only when too small; mapped memory is read in place.
TEST(LocalDriverTest, ReadBuffersStageThroughKeptMemory) {
  auto device = open(*createLocalSyncDriver(), "local-sync://?unified=0");
  ASSERT_TRUE(device.ok());
  Device &dev = **device;
  auto deviceBuffer = [&](std::vector<uint8_t> bytes) {
    auto buffer =
        dev.allocator().allocate(bytes.size(), MemoryType::DeviceLocal,
                                 BufferUsage::Transfer | BufferUsage::Dispatch);
    EXPECT_TRUE(buffer.ok());
    EXPECT_TRUE(writeBuffer(dev, *buffer, 0, bytes).ok());
    return *buffer;
  };
  std::shared_ptr<Buffer> a = deviceBuffer({1, 2, 3, 4, 5, 6, 7, 8});
  std::shared_ptr<Buffer> b = deviceBuffer({9, 10, 11});
  auto mapped = dev.allocator().allocate(
      2, MemoryType::HostVisible, BufferUsage::Transfer | BufferUsage::Mapping);
  ASSERT_TRUE(mapped.ok());
  ASSERT_TRUE(writeBuffer(dev, *mapped, 0, std::vector<uint8_t>{42, 43}).ok());

  std::vector<uint8_t> fromA(3), fromB(3), fromMapped(1), empty;
  std::vector<BufferRead> reads = {
      {a, 5, fromA}, {b, 0, fromB}, {*mapped, 1, fromMapped}, {a, 8, empty}};
  std::shared_ptr<Buffer> staging;
  ASSERT_TRUE(readBuffers(dev, reads, staging).ok());
  EXPECT_EQ(fromA, (std::vector<uint8_t>{6, 7, 8}));
  EXPECT_EQ(fromB, (std::vector<uint8_t>{9, 10, 11}));
  EXPECT_EQ(fromMapped, std::vector<uint8_t>{43});
  // Two staged ranges, each at a 16-byte boundary.
  ASSERT_TRUE(staging);
  EXPECT_EQ(staging->size(), 32u);

  // Fewer bytes: the same staging; more: a larger one.
  const Buffer *kept = staging.get();
  std::vector<uint8_t> again(2);
  std::vector<BufferRead> one = {{b, 1, again}};
  ASSERT_TRUE(readBuffers(dev, one, staging).ok());
  EXPECT_EQ(again, (std::vector<uint8_t>{10, 11}));
  EXPECT_EQ(staging.get(), kept);
  std::vector<uint8_t> c(4), d(4), e(4);
  std::vector<BufferRead> three = {{a, 0, c}, {a, 4, d}, {a, 2, e}};
  ASSERT_TRUE(readBuffers(dev, three, staging).ok());
  EXPECT_EQ(staging->size(), 48u);
  EXPECT_EQ(e, (std::vector<uint8_t>{3, 4, 5, 6}));

  // A range past a buffer fails in one line and reads nothing.
  std::vector<uint8_t> past(4, 0xEE);
  std::vector<BufferRead> bad = {{b, 0, fromB}, {b, 1, past}};
  Status status = readBuffers(dev, bad, staging);
  EXPECT_EQ(status.code(), StatusCode::OutOfRange) << status.toString();
  EXPECT_EQ(past, std::vector<uint8_t>(4, 0xEE));
  std::vector<BufferRead> none = {{nullptr, 0, past}};
  EXPECT_EQ(readBuffers(dev, none, staging).code(),
            StatusCode::InvalidArgument);
}

TEST(LocalDriverTest, UnifiedImportIsZeroCopyAndKeepsOwnerAlive) {
  auto device = open(*createLocalTaskDriver(), "local-task");
  ASSERT_TRUE(device.ok());
  auto owner = std::make_shared<std::vector<uint8_t>>(64, 7);
  std::weak_ptr<std::vector<uint8_t>> weak = owner;
  auto imported =
      (*device)->allocator().importHostMemory(*owner, BufferUsage::All, owner);
  ASSERT_TRUE(imported.ok());
  const uint8_t *data = owner->data();
  owner.reset();
  EXPECT_FALSE(weak.expired());
  auto mapped = (*imported)->mapRead();
  ASSERT_TRUE(mapped.ok());
  EXPECT_EQ(mapped->data(), data);
  EXPECT_TRUE((*imported)->isReadOnly());
  imported->reset();
  EXPECT_TRUE(weak.expired());
}

TEST(LocalDriverTest, AllocationsAreAlignedAndHugeOnesFailCleanly) {
  auto device = open(*createLocalSyncDriver(), "local-sync");
  ASSERT_TRUE(device.ok());
  Allocator &allocator = (*device)->allocator();
  // Both the heap and the mmap path, and an empty buffer.
  for (uint64_t size : {0ull, 1ull, 100ull, 1ull << 20}) {
    auto buffer =
        allocator.allocate(size, MemoryType::HostVisible, BufferUsage::All);
    ASSERT_TRUE(buffer.ok()) << size;
    auto mapped = (*buffer)->map();
    ASSERT_TRUE(mapped.ok());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(mapped->data()) % 64, 0u);
    EXPECT_EQ(mapped->size(), size);
    if (size)
      std::memset(mapped->data(), 0x5c, size);
  }
  // More than the host has (but under the HAL-wide cap) is a clean error.
  auto huge =
      allocator.allocate(Allocator::kMaxBufferSize, MemoryType::DeviceLocal,
                         BufferUsage::Dispatch);
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), StatusCode::ResourceExhausted);
}

TEST(CpuTargetTest, Levels) {
  EXPECT_TRUE(hostSupportsCpuTarget("x86-64"));
  EXPECT_TRUE(hostSupportsCpuTarget("host"));
  EXPECT_TRUE(hostSupportsCpuTarget(hostCpuTarget()));
  EXPECT_FALSE(hostSupportsCpuTarget("x86-64-v5"));
  EXPECT_FALSE(hostSupportsCpuTarget("sm_90"));
  EXPECT_FALSE(hostSupportsCpuTarget(""));
  // Levels are cumulative.
  bool previous = true;
  for (const char *level : {"x86-64-v2", "x86-64-v3", "x86-64-v4"}) {
    bool supported = hostSupportsCpuTarget(level);
    EXPECT_TRUE(previous || !supported) << level;
    previous = supported;
  }
}

} // namespace
} // namespace kiln::hal::local
