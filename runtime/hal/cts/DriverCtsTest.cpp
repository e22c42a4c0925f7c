//===- DriverCtsTest.cpp - Enumeration and device creation ----------------===//

#include "runtime/hal/cts/CtsFixture.h"

namespace kiln::hal::cts {
namespace {

class DriverCts : public CtsTest {};
KILN_CTS_INSTANTIATE(DriverCts);

TEST_P(DriverCts, EnumeratedDevicesOpenByTheirUri) {
  auto driver = DriverRegistry::global().getDriver(driverName());
  ASSERT_TRUE(driver.ok());
  EXPECT_EQ((*driver)->name(), driverName());
  auto devices = (*driver)->enumerateDevices();
  ASSERT_TRUE(devices.ok());
  for (const DeviceInfo &info : *devices) {
    EXPECT_FALSE(info.Name.empty());
    auto device = DriverRegistry::global().createDevice(info.Uri);
    ASSERT_TRUE(device.ok()) << info.Uri << ": " << device.status().toString();
    EXPECT_FALSE((*device)->info().Uri.empty());
  }
}

TEST_P(DriverCts, BareNameOpensTheDefaultDevice) {
  // With a variant's parameters, if any.
  auto device = DriverRegistry::global().createDevice(GetParam());
  ASSERT_TRUE(device.ok()) << device.status().toString();
}

TEST_P(DriverCts, BadUrisAreClearErrors) {
  auto absent =
      DriverRegistry::global().createDevice(driverName() + ":4000000000");
  ASSERT_FALSE(absent.ok());
  EXPECT_EQ(absent.status().code(), StatusCode::NotFound);
  auto unknownParam = DriverRegistry::global().createDevice(
      driverName() + "?no_such_parameter=1");
  ASSERT_FALSE(unknownParam.ok());
  EXPECT_EQ(unknownParam.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(unknownParam.status().message().find("no_such_parameter"),
            std::string_view::npos);
}

TEST_P(DriverCts, UnsupportedFeaturesHaveReasons) {
  for (const UnsupportedFeature &unsupported :
       device()->unsupportedFeatures()) {
    EXPECT_FALSE(unsupported.Feature.empty());
    EXPECT_FALSE(unsupported.Reason.empty()) << unsupported.Feature;
  }
}

} // namespace
} // namespace kiln::hal::cts
