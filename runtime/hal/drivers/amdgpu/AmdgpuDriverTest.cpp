//===- AmdgpuDriverTest.cpp - The amdgpu driver where HSA cannot run ------===//
//
// No machine Kiln is tested on has an AMD GPU: these check that the driver
// fails cleanly, naming the library and how to point at another, and,
// over the HSA system of TestHsa.h, which GPUs each device URI opens.
//
//===----------------------------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/AmdgpuDriver.h"

#include "runtime/hal/drivers/amdgpu/TestHsa.h"
#include "runtime/hal/drivers/gpu/GpuBuffer.h"

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

class AmdgpuDriverUriTest : public ::testing::Test {
protected:
  void SetUp() override {
    KILN_SKIP_WITHOUT_TRANSFER_KERNELS();
    testing::TestHsaSystem system;
    system.Gpus = 3; // agents 2, 3 and 4
    Driver = createAmdgpuDriver(testing::testHsa(system));
  }
  StatusOr<std::shared_ptr<Device>> open(const char *text) {
    auto uri = DeviceUri::parse(text);
    EXPECT_TRUE(uri.ok()) << text;
    return Driver->createDevice(*uri);
  }
  // The GPU agent whose pool a device's memory comes from.
  static uint64_t gpuOf(Device &device) {
    auto buffer = device.allocator().allocate(16, MemoryType::DeviceLocal,
                                              BufferUsage::Transfer);
    EXPECT_TRUE(buffer.ok());
    auto address = dynamic_cast<gpu::GpuBuffer &>(**buffer).deviceAddress();
    return testing::testSystem.Allocations.at(reinterpret_cast<void *>(address))
               .Pool /
           16;
  }
  std::shared_ptr<hal::Driver> Driver;
};

TEST_F(AmdgpuDriverUriTest, TheGpusAreListedWithTheirFacts) {
  auto devices = Driver->enumerateDevices();
  ASSERT_TRUE(devices.ok()) << devices.status().toString();
  ASSERT_EQ(devices->size(), 3u);
  EXPECT_EQ((*devices)[0].Uri, "amdgpu://GPU-0000000000000002");
  EXPECT_EQ((*devices)[2].Uri, "amdgpu://GPU-0000000000000004");
  EXPECT_EQ((*devices)[0].Name, "Test GPU");
  auto property = [&](const char *key) {
    for (const auto &[name, value] : (*devices)[1].Properties)
      if (name == key)
        return value;
    return std::string();
  };
  EXPECT_EQ(property("ordinal"), "1");
  EXPECT_EQ(property("gpu-arch-name"), "gfx942");
  EXPECT_EQ(property("gpu-target-id"), "gfx942:sramecc+:xnack-");
  EXPECT_EQ(property("compute_units"), "304");
}

TEST_F(AmdgpuDriverUriTest, EachUriOpensTheGpusItNames) {
  auto first = open("amdgpu");
  ASSERT_TRUE(first.ok()) << first.status().toString();
  EXPECT_EQ((*first)->info().Uri, "amdgpu://GPU-0000000000000002");
  EXPECT_EQ((*first)->queueCount(), 2u);
  EXPECT_EQ(gpuOf(**first), 2u);
  first->reset();

  auto second = open("amdgpu:1");
  ASSERT_TRUE(second.ok()) << second.status().toString();
  EXPECT_EQ(gpuOf(**second), 3u);
  second->reset();

  auto byUuid = open("amdgpu://GPU-0000000000000004?queues=3");
  ASSERT_TRUE(byUuid.ok()) << byUuid.status().toString();
  EXPECT_EQ(gpuOf(**byUuid), 4u);
  EXPECT_EQ((*byUuid)->queueCount(), 3u);
  byUuid->reset();

  // One logical device over two GPUs, in the URI's order.
  auto logical = open("amdgpu://2,0?queues=1");
  ASSERT_TRUE(logical.ok()) << logical.status().toString();
  EXPECT_EQ((*logical)->info().Uri,
            "amdgpu://GPU-0000000000000004,GPU-0000000000000002");
  EXPECT_EQ((*logical)->info().Name, "Test GPU + Test GPU");
  EXPECT_EQ((*logical)->queueCount(), 2u);
  EXPECT_EQ(gpuOf(**logical), 4u);
  logical->reset();
  EXPECT_EQ(testing::testSystem.LiveQueues, 0);
}

TEST_F(AmdgpuDriverUriTest, BadUrisAreOneLineErrors) {
  for (const auto &[text, code] :
       std::vector<std::pair<const char *, StatusCode>>{
           {"amdgpu:3", StatusCode::NotFound},
           {"amdgpu://GPU-00000000000000ff", StatusCode::NotFound},
           {"amdgpu://0,0", StatusCode::InvalidArgument},
           {"amdgpu://?queues=0", StatusCode::InvalidArgument},
           {"amdgpu://?device_semaphores=1", StatusCode::InvalidArgument},
           {"cuda:0", StatusCode::InvalidArgument}}) {
    auto device = open(text);
    EXPECT_EQ(device.status().code(), code)
        << text << ": " << device.status().toString();
    EXPECT_EQ(device.status().message().find('\n'), std::string::npos);
  }
  EXPECT_EQ(testing::testSystem.LiveQueues, 0);
}

} // namespace
} // namespace kiln::hal::amdgpu
