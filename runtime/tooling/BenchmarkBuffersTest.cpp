//===- BenchmarkBuffersTest.cpp -------------------------------------------===//

#include "runtime/tooling/BenchmarkBuffers.h"
#include "runtime/hal/DeviceParamName.h"

#include "runtime/hal/DriverRegistry.h"
#include "runtime/tooling/BenchmarkTestModule.h"

#include <gtest/gtest.h>

namespace kiln::tooling {
namespace {

using test::hostTensor;

TEST(BenchmarkBuffersTest, TensorByteSize) {
  EXPECT_EQ(tensorByteSize({ElementType::F32, {4096, 4096}}), uint64_t(64)
                                                                  << 20);
  EXPECT_EQ(tensorByteSize({ElementType::F16, {3}}), 6u);
  EXPECT_EQ(tensorByteSize({ElementType::I8, {}}), 1u);
  EXPECT_EQ(tensorByteSize({ElementType::F32, {2, 0}}), 0u);
}

class BenchmarkBuffersDeviceTest
    : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    auto device = hal::DriverRegistry::global().createDevice(GetParam());
    ASSERT_TRUE(device.ok()) << device.status().toString();
    Device = *device;
  }
  std::shared_ptr<hal::Device> Device;
};

INSTANTIATE_TEST_SUITE_P(Devices, BenchmarkBuffersDeviceTest,
                         // Unified memory, and staging as on a discrete GPU.
                         ::testing::Values("local-sync",
                                           "local-task://?unified=0"),
                         hal::deviceParamName);

TEST_P(BenchmarkBuffersDeviceTest, UploadThenDownloadRoundTrips) {
  std::vector<HostTensor> tensors = {
      hostTensor(ElementType::I32, {3}, module::test::randomBytes(12, 1)),
      hostTensor(ElementType::F32, {0}, {}),
      hostTensor(ElementType::I8, {2, 5}, module::test::randomBytes(10, 2))};
  auto buffers = uploadTensors(*Device, tensors);
  ASSERT_TRUE(buffers.ok()) << buffers.status().toString();
  ASSERT_EQ(buffers->size(), 3u);
  for (size_t i = 0; i < tensors.size(); ++i) {
    EXPECT_EQ((*buffers)[i]->size(), tensors[i].Data.size()) << i;
    EXPECT_TRUE(
        hal::hasAll((*buffers)[i]->memoryType(), hal::MemoryType::DeviceLocal));
  }
  std::vector<module::TensorSpec> specs;
  for (const HostTensor &tensor : tensors)
    specs.push_back({tensor.Type, tensor.Shape});
  auto back = downloadTensors(*Device, *buffers, specs);
  ASSERT_TRUE(back.ok()) << back.status().toString();
  ASSERT_EQ(back->size(), 3u);
  for (size_t i = 0; i < tensors.size(); ++i) {
    EXPECT_EQ((*back)[i].Type, tensors[i].Type) << i;
    EXPECT_EQ((*back)[i].Shape, tensors[i].Shape) << i;
    EXPECT_EQ((*back)[i].Data, tensors[i].Data) << i;
  }
}

TEST_P(BenchmarkBuffersDeviceTest, DownloadReadsOnlyTheTensorsBytes) {
  std::vector<uint8_t> bytes = module::test::randomBytes(16, 3);
  auto buffers =
      uploadTensors(*Device, {hostTensor(ElementType::I8, {16}, bytes)});
  ASSERT_TRUE(buffers.ok()) << buffers.status().toString();
  auto back = downloadTensors(*Device, *buffers, {{ElementType::I16, {3}}});
  ASSERT_TRUE(back.ok()) << back.status().toString();
  EXPECT_EQ((*back)[0].Data,
            std::vector<uint8_t>(bytes.begin(), bytes.begin() + 6));
}

TEST_P(BenchmarkBuffersDeviceTest, DownloadErrors) {
  auto buffers = allocateDeviceBuffers(*Device, {8});
  ASSERT_TRUE(buffers.ok()) << buffers.status().toString();
  auto tooMany = downloadTensors(*Device, *buffers, {});
  EXPECT_EQ(tooMany.status().message(),
            "downloadTensors: 1 buffer(s) for 0 tensor(s)");
  auto tooSmall = downloadTensors(*Device, *buffers, {{ElementType::F32, {3}}});
  EXPECT_EQ(tooSmall.status().message(),
            "downloadTensors: buffer 0 cannot hold a 3xf32");
}

} // namespace
} // namespace kiln::tooling
