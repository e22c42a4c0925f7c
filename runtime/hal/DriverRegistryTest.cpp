//===- DriverRegistryTest.cpp ---------------------------------------------===//

#include "runtime/hal/DriverRegistry.h"

#include "runtime/hal/TestFakes.h"

#include <gtest/gtest.h>

namespace kiln::hal {
namespace {

TEST(DriverRegistryTest, RegisterLookupAndCreate) {
  DriverRegistry registry;
  EXPECT_TRUE(registry.driverNames().empty());
  ASSERT_TRUE(
      registry.registerDriver(std::make_shared<test::FakeDriver>("b")).ok());
  ASSERT_TRUE(
      registry.registerDriver(std::make_shared<test::FakeDriver>("a")).ok());
  EXPECT_EQ(registry.driverNames(), (std::vector<std::string>{"b", "a"}));
  Status duplicate =
      registry.registerDriver(std::make_shared<test::FakeDriver>("a"));
  EXPECT_EQ(duplicate.code(), StatusCode::AlreadyExists);
  EXPECT_EQ(registry.registerDriver(nullptr).code(),
            StatusCode::InvalidArgument);

  auto driver = registry.getDriver("a");
  ASSERT_TRUE(driver.ok());
  EXPECT_EQ((*driver)->name(), "a");

  auto device = registry.createDevice("b://?");
  EXPECT_EQ(device.status().code(), StatusCode::InvalidArgument);
  device = registry.createDevice("b?x=1");
  EXPECT_EQ(device.status().code(), StatusCode::InvalidArgument);
  device = registry.createDevice("b:2");
  ASSERT_TRUE(device.ok()) << device.status().toString();
  EXPECT_EQ((*device)->info().Uri, "b:2");
}

TEST(DriverRegistryTest, UnknownDriverListsAvailable) {
  DriverRegistry registry;
  auto none = registry.getDriver("cuda");
  EXPECT_EQ(none.status().code(), StatusCode::NotFound);
  EXPECT_EQ(none.status().message(), "unknown device 'cuda'; available: none");
  ASSERT_TRUE(
      registry.registerDriver(std::make_shared<test::FakeDriver>("local-sync"))
          .ok());
  ASSERT_TRUE(
      registry.registerDriver(std::make_shared<test::FakeDriver>("local-task"))
          .ok());
  auto device = registry.createDevice("cuda:0");
  EXPECT_EQ(device.status().code(), StatusCode::NotFound);
  EXPECT_EQ(device.status().message(),
            "unknown device 'cuda'; available: local-sync, local-task");
}

TEST(DeviceTest, QueueExecuteChecksBeforeTheDriver) {
  test::FakeDevice device("fake://");
  EXPECT_EQ(device.unsupportedReason("teleport"), "physics");
  EXPECT_FALSE(device.unsupportedReason("walk"));

  auto commands = device.createCommandBuffer(CommandBufferMode::OneShot, 2);
  ASSERT_TRUE(commands.ok());
  // Not ended yet.
  EXPECT_EQ(device.queueExecute({}, *commands, {}, {}).code(),
            StatusCode::FailedPrecondition);
  ASSERT_TRUE((*commands)->begin().ok());
  ASSERT_TRUE((*commands)->fill(BufferRef::slot(1, 0, 8), 3, 1).ok());
  ASSERT_TRUE((*commands)->end().ok());
  // Slot 1 is needed.
  EXPECT_EQ(device.queueExecute({}, *commands, {}, {}).code(),
            StatusCode::InvalidArgument);
  SemaphoreValue nullSemaphore{nullptr, 1};
  std::vector<std::shared_ptr<Buffer>> table = {
      nullptr, std::make_shared<test::FakeBuffer>(8)};
  EXPECT_EQ(
      device.queueExecute({&nullSemaphore, 1}, *commands, table, {}).code(),
      StatusCode::InvalidArgument);
  EXPECT_EQ(
      device.queueExecute({}, *commands, table, {&nullSemaphore, 1}).code(),
      StatusCode::InvalidArgument);
  EXPECT_EQ(device.queueExecute({}, nullptr, table, {}).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(device.Submissions, 0);
  EXPECT_TRUE(device.queueExecute({}, *commands, table, {}).ok());
  EXPECT_EQ(device.Submissions, 1);
  // One-shot.
  EXPECT_EQ(device.queueExecute({}, *commands, table, {}).code(),
            StatusCode::FailedPrecondition);
  EXPECT_TRUE(device.queueExecute({}, nullptr, {}, {}).ok());
}

TEST(ExecutableTest, SpecValidation) {
  const uint8_t image[] = {1};
  ExecutableSpec spec;
  spec.Name = "e";
  spec.Format = "fake";
  spec.Target = "t";
  spec.Image = image;
  EntryPointSpec entry;
  entry.Name = "main";
  spec.EntryPoints = {entry};
  EXPECT_TRUE(validateExecutableSpec(spec).ok());

  auto broken = [&](auto edit) {
    ExecutableSpec copy = spec;
    edit(copy);
    Status status = validateExecutableSpec(copy);
    EXPECT_EQ(status.code(), StatusCode::InvalidArgument);
    return std::string(status.message());
  };
  broken([](ExecutableSpec &s) { s.Image = {}; });
  broken([](ExecutableSpec &s) { s.Format.clear(); });
  broken([](ExecutableSpec &s) { s.EntryPoints.clear(); });
  broken([](ExecutableSpec &s) { s.EntryPoints[0].Name.clear(); });
  EXPECT_NE(broken([](ExecutableSpec &s) {
              s.EntryPoints.push_back(s.EntryPoints[0]);
            }).find("twice"),
            std::string::npos);
  broken([](ExecutableSpec &s) {
    s.EntryPoints[0].BindingCount = kMaxBindings + 1;
  });
  broken([](ExecutableSpec &s) {
    s.EntryPoints[0].PushConstantCount = kMaxPushConstants + 1;
  });
  broken([](ExecutableSpec &s) { s.EntryPoints[0].WorkgroupSize[1] = 0; });
}

} // namespace
} // namespace kiln::hal
