//===- CudaDevice.cpp -----------------------------------------------------===//

#include "runtime/hal/drivers/cuda/CudaDevice.h"

#include "runtime/hal/Feature.h"

namespace kiln::hal::cuda {

StatusOr<std::shared_ptr<CudaDevice>>
CudaDevice::create(std::shared_ptr<const CudaSymbols> symbols, CUdevice device,
                   DeviceInfo info, uint64_t deviceBytes,
                   gpu::GpuDeviceOptions options) {
  KILN_ASSIGN_OR_RETURN(CudaDeviceLimits limits,
                        CudaDeviceLimits::query(*symbols, device));
  // A driver that does not know the attribute cannot do the operations.
  int memoryOperations = 0;
  bool supported =
      symbols->cuDeviceGetAttribute(
          &memoryOperations, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS,
          device) == CUDA_SUCCESS &&
      memoryOperations != 0;
  KILN_ASSIGN_OR_RETURN(bool deviceSemaphores,
                        chooseDeviceSemaphores(options, supported, info));
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<CudaContext> context,
                        CudaContext::retain(std::move(symbols), device));
  auto api = std::make_shared<CudaApi>(std::move(context));
  KILN_ASSIGN_OR_RETURN(std::vector<std::unique_ptr<gpu::GpuQueue>> queues,
                        createQueues(api, info, options, deviceSemaphores));
  return std::shared_ptr<CudaDevice>(new CudaDevice(
      std::move(api), std::move(info), limits, deviceBytes,
      options.CommandBuffers, deviceSemaphores, std::move(queues)));
}

std::vector<UnsupportedFeature> CudaDevice::unsupportedFeatures() const {
  std::vector<UnsupportedFeature> features = sharedUnsupportedFeatures();
  if (queueCount() < 2)
    return features;
  if (commandBufferKind() == gpu::GpuCommandBufferKind::Graph)
    // Measured, not documented by CUDA: on an H100 with driver 580 a graph
    // launched into one stream did not start while a graph launched into
    // another stream ran. Queues still order only through semaphores.
    features.push_back({std::string(feature::kConcurrentQueues),
                        "graph command buffers: the CUDA driver was seen to "
                        "run graphs launched into different streams one "
                        "after another"});
  else
    // CUDA does not promise that streams overlap, and on an H100 with driver
    // 580 two one-block kernels on this device's two streams ran one after
    // the other in 6 of 15 fresh devices (always with
    // CUDA_DEVICE_MAX_CONNECTIONS=1, still with 32). Queues may overlap;
    // nothing may count on it.
    features.push_back({std::string(feature::kConcurrentQueues),
                        "stream command buffers: CUDA may run work on "
                        "different streams one after another (seen on an "
                        "H100 in 6 of 15 runs)"});
  return features;
}

bool CudaDevice::supportsExecutable(std::string_view format,
                                    std::string_view target) const {
  return cudaSupportsExecutable(format, target, ComputeMajor, ComputeMinor);
}

std::string CudaDevice::chipDescription() const {
  return strCat("compute capability ", ComputeMajor, ".", ComputeMinor);
}

} // namespace kiln::hal::cuda
