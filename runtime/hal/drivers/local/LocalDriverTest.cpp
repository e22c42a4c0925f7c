//===- LocalDriverTest.cpp - URIs, options and CPU targets ----------------===//

#include "runtime/hal/drivers/local/LocalDriver.h"

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
