//===- HipDriverTest.cpp - The hip driver where HIP cannot run ------------===//
//
// No machine Kiln is tested on has an AMD GPU: these check that the driver
// fails cleanly, saying which library and how to point at another.
//
//===----------------------------------------------------------------------===//

#include "runtime/hal/drivers/hip/HipDriver.h"

#include <gtest/gtest.h>

namespace kiln::hal::hip {
namespace {

TEST(HipDriverTest, MissingLibraryNamesItAndTheFlag) {
  auto driver = createHipDriver();
  ASSERT_TRUE(driver->setOption("dylib_path", "/nonexistent/kiln-hip").ok());
  Status available = driver->availability();
  ASSERT_FALSE(available.ok());
  EXPECT_EQ(available.code(), StatusCode::Unavailable);
  EXPECT_NE(available.message().find("libamdhip64"), std::string::npos)
      << available.toString();
  EXPECT_NE(available.message().find("/nonexistent/kiln-hip"),
            std::string::npos);
  EXPECT_EQ(available.message().find('\n'), std::string::npos);
  auto uri = DeviceUri::parse("hip");
  ASSERT_TRUE(uri.ok());
  auto device = driver->createDevice(*uri);
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.status().code(), StatusCode::Unavailable);
  EXPECT_FALSE(driver->enumerateDevices().ok());
}

TEST(HipDriverTest, OptionsAreCheckedAndSetBeforeUse) {
  auto driver = createHipDriver();
  Status unknown = driver->setOption("no_such_option", "1");
  EXPECT_EQ(unknown.code(), StatusCode::InvalidArgument);
  EXPECT_NE(unknown.message().find("no_such_option"), std::string::npos);
  // Whatever this machine has, the driver has started once asked.
  (void)driver->availability();
  EXPECT_EQ(driver->setOption("dylib_path", "/x").code(),
            StatusCode::FailedPrecondition);
}

TEST(HipDriverTest, WithoutAnAmdGpuNoDeviceOpens) {
  // Here the library may be installed (Debian's ROCm 5.2) but there is no
  // GPU and no /dev/kfd: hipInit fails, or finds no device.
  auto driver = createHipDriver();
  auto uri = DeviceUri::parse("hip:0");
  ASSERT_TRUE(uri.ok());
  auto device = driver->createDevice(*uri);
  if (device.ok())
    GTEST_SKIP() << "an AMD GPU is present";
  EXPECT_TRUE(device.status().code() == StatusCode::Unavailable ||
              device.status().code() == StatusCode::NotFound)
      << device.status().toString();
  EXPECT_EQ(device.status().message().find('\n'), std::string::npos);
}

} // namespace
} // namespace kiln::hal::hip
