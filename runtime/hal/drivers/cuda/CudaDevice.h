//===- CudaDevice.h - One NVIDIA GPU: the shared GPU device over CUDA -----===//
//
// Queues, semaphores, memory and command buffers are the shared GPU layer's
// (GpuDevice.h, which also describes the device URI parameters), over the
// device's primary context (CudaApi). What is CUDA's own: semaphores live
// on the GPU where it can do stream memory operations on 64-bit values
// (CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS), the executables it
// runs (compute capability), and what CUDA was seen to run at once.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDADEVICE_H
#define KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDADEVICE_H

#include "runtime/hal/drivers/cuda/CudaApi.h"
#include "runtime/hal/drivers/cuda/CudaExecutable.h"
#include "runtime/hal/drivers/gpu/GpuDevice.h"

#include <memory>
#include <vector>

namespace kiln::hal::cuda {

class CudaDevice final : public gpu::GpuDevice {
public:
  /// Retains `device`'s primary context and creates the queues.
  static StatusOr<std::shared_ptr<CudaDevice>>
  create(std::shared_ptr<const CudaSymbols> symbols, CUdevice device,
         DeviceInfo info, uint64_t deviceBytes, gpu::GpuDeviceOptions options);

  std::vector<UnsupportedFeature> unsupportedFeatures() const override;
  bool supportsExecutable(std::string_view format,
                          std::string_view target) const override;

private:
  std::string chipDescription() const override;
  CudaDevice(std::shared_ptr<CudaApi> api, DeviceInfo info,
             CudaDeviceLimits limits, uint64_t deviceBytes,
             gpu::GpuCommandBufferKind commandBufferKind, bool deviceSemaphores,
             std::vector<std::unique_ptr<gpu::GpuQueue>> queues)
      : GpuDevice(std::move(api), std::move(info), limits.Kernel, deviceBytes,
                  commandBufferKind, deviceSemaphores, std::move(queues)),
        ComputeMajor(limits.ComputeMajor), ComputeMinor(limits.ComputeMinor) {}

  int ComputeMajor;
  int ComputeMinor;
};

} // namespace kiln::hal::cuda

#endif // KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDADEVICE_H
