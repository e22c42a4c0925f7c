//===- HipDevice.cpp ------------------------------------------------------===//

#include "runtime/hal/drivers/hip/HipDevice.h"

#include "runtime/hal/Feature.h"
#include "runtime/hal/drivers/amd/AmdTarget.h"

namespace kiln::hal::hip {

StatusOr<HipDeviceLimits> HipDeviceLimits::query(const HipSymbols &symbols,
                                                 int ordinal) {
  HipDeviceLimits limits;
  auto read = [&](hipDeviceAttribute_t which, uint64_t &value) {
    int raw = 0;
    KILN_RETURN_IF_ERROR(
        KILN_HIP_CALL(symbols, hipDeviceGetAttribute, &raw, which, ordinal));
    value = static_cast<uint64_t>(raw);
    return Status();
  };
  const hipDeviceAttribute_t block[] = {hipDeviceAttributeMaxBlockDimX,
                                        hipDeviceAttributeMaxBlockDimY,
                                        hipDeviceAttributeMaxBlockDimZ};
  const hipDeviceAttribute_t grid[] = {hipDeviceAttributeMaxGridDimX,
                                       hipDeviceAttributeMaxGridDimY,
                                       hipDeviceAttributeMaxGridDimZ};
  for (int i = 0; i < 3; ++i) {
    KILN_RETURN_IF_ERROR(read(block[i], limits.Kernel.MaxBlockDim[i]));
    KILN_RETURN_IF_ERROR(read(grid[i], limits.Kernel.MaxGridDim[i]));
  }
  KILN_RETURN_IF_ERROR(read(hipDeviceAttributeMaxSharedMemoryPerBlock,
                            limits.Kernel.MaxSharedMemory));
  return limits;
}

StatusOr<std::shared_ptr<HipDevice>>
HipDevice::create(std::shared_ptr<HipContext> context, DeviceInfo info,
                  std::string archName, uint64_t deviceBytes,
                  gpu::GpuDeviceOptions options) {
  const HipSymbols &symbols = context->symbols();
  KILN_ASSIGN_OR_RETURN(HipDeviceLimits limits,
                        HipDeviceLimits::query(symbols, context->ordinal()));
  // A runtime that does not know the attribute cannot do the operations.
  int waitValue = 0;
  bool supported = symbols.hipDeviceGetAttribute(
                       &waitValue, hipDeviceAttributeCanUseStreamWaitValue,
                       context->ordinal()) == hipSuccess &&
                   waitValue != 0;
  KILN_ASSIGN_OR_RETURN(bool deviceSemaphores,
                        chooseDeviceSemaphores(options, supported, info));
  auto api = std::make_shared<HipApi>(std::move(context), archName);
  KILN_ASSIGN_OR_RETURN(std::vector<std::unique_ptr<gpu::GpuQueue>> queues,
                        createQueues(api, info, options, deviceSemaphores));
  return std::shared_ptr<HipDevice>(new HipDevice(
      std::move(api), std::move(info), limits, std::move(archName), deviceBytes,
      options.CommandBuffers, deviceSemaphores, std::move(queues)));
}

std::vector<UnsupportedFeature> HipDevice::unsupportedFeatures() const {
  std::vector<UnsupportedFeature> features = sharedUnsupportedFeatures();
  // Not measured: Kiln has not run on AMD hardware yet, and HIP, like CUDA,
  // does not promise that work on different streams overlaps.
  if (queueCount() >= 2)
    features.push_back({std::string(feature::kConcurrentQueues),
                        "HIP does not promise that work on different "
                        "streams overlaps"});
  return features;
}

bool HipDevice::supportsExecutable(std::string_view format,
                                   std::string_view target) const {
  return amd::amdSupportsExecutable(format, target, ArchName);
}

std::string HipDevice::chipDescription() const { return ArchName; }

} // namespace kiln::hal::hip
