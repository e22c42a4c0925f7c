//===- AmdgpuDriverTest.cpp - The amdgpu driver where HSA cannot run ------===//
//
// No machine Kiln is tested on has an AMD GPU: these check that the driver
// fails cleanly, naming the library and how to point at another.
//
//===----------------------------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/AmdgpuDriver.h"

#include <gtest/gtest.h>

namespace kiln::hal::amdgpu {
namespace {

TEST(AmdgpuDriverTest, MissingLibraryNamesItAndTheFlag) {
  auto driver = createAmdgpuDriver();
  ASSERT_TRUE(
      driver->setOption("libhsa_search_path", "/nonexistent/kiln-rocm").ok());
  Status available = driver->availability();
  ASSERT_FALSE(available.ok());
  EXPECT_EQ(available.code(), StatusCode::Unavailable);
  EXPECT_NE(available.message().find("libhsa-runtime64"), std::string::npos)
      << available.toString();
  EXPECT_NE(available.message().find("--amdgpu_libhsa_search_path="),
            std::string::npos);
  EXPECT_EQ(available.message().find('\n'), std::string::npos);
  auto uri = DeviceUri::parse("amdgpu://0,1");
  ASSERT_TRUE(uri.ok());
  EXPECT_EQ(driver->createDevice(*uri).status().code(),
            StatusCode::Unavailable);
}

TEST(AmdgpuDriverTest, OptionsAreCheckedAndSetBeforeUse) {
  auto driver = createAmdgpuDriver();
  EXPECT_EQ(driver->setOption("dylib_path", "/x").code(),
            StatusCode::InvalidArgument);
  (void)driver->availability();
  EXPECT_EQ(driver->setOption("libhsa_search_path", "/x").code(),
            StatusCode::FailedPrecondition);
}

TEST(AmdgpuDriverTest, WithoutAnAmdGpuNoDeviceOpens) {
  // Debian's libhsa-runtime64 may be installed, but without /dev/kfd
  // hsa_init fails (or finds no GPU).
  auto driver = createAmdgpuDriver();
  auto uri = DeviceUri::parse("amdgpu");
  ASSERT_TRUE(uri.ok());
  auto device = driver->createDevice(*uri);
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.status().message().find('\n'), std::string::npos);
}

} // namespace
} // namespace kiln::hal::amdgpu
