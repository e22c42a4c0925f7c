//===- CudaDeviceTest.h - gtest fixture over the first CUDA device --------===//
//
// The cuda driver's own tests need a real GPU; without CUDA or a device
// each case skips, saying which. Fixtures derive from this one and call its
// SetUp first, returning when it skipped or failed.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDADEVICETEST_H
#define KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDADEVICETEST_H

#include "runtime/base/StatusTesting.h"
#include "runtime/hal/drivers/cuda/CudaDevice.h"
#include "runtime/hal/drivers/cuda/CudaDriver.h"

#include <gtest/gtest.h>

namespace kiln::hal::cuda {

class CudaDeviceTest : public ::testing::Test {
protected:
  static constexpr Timeout kWait = std::chrono::seconds(30);

  void SetUp() override {
    CudaDriver = createCudaDriver();
    auto devices = CudaDriver->enumerateDevices();
    if (!devices.ok())
      GTEST_SKIP() << "CUDA is unavailable: " << devices.status().toString();
    if (devices->empty())
      GTEST_SKIP() << "no CUDA device";
    Info = devices->front();
    KILN_ASSERT_OK_AND_ASSIGN(Cuda, open(Info.Uri));
  }

  void TearDown() override {
    if (Cuda) {
      Status idle = Cuda->waitIdle(kWait);
      EXPECT_TRUE(idle.ok()) << idle.toString();
    }
  }

  /// Whether SetUp (or a derived SetUp so far) skipped or failed.
  bool setUpStopped() const { return IsSkipped() || HasFatalFailure(); }

  /// Another device of the cuda driver, e.g. "cuda://?queues=4".
  StatusOr<std::shared_ptr<CudaDevice>> open(std::string_view text) {
    KILN_ASSIGN_OR_RETURN(DeviceUri uri, DeviceUri::parse(text));
    KILN_ASSIGN_OR_RETURN(std::shared_ptr<Device> device,
                          CudaDriver->createDevice(uri));
    auto cuda = std::dynamic_pointer_cast<CudaDevice>(device);
    if (!cuda)
      return KILN_ERROR(Internal, "the cuda driver made a device of another "
                                  "kind");
    return cuda;
  }

  std::shared_ptr<Driver> CudaDriver;
  DeviceInfo Info;
  std::shared_ptr<CudaDevice> Cuda;
};

} // namespace kiln::hal::cuda

#endif // KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDADEVICETEST_H
