//===- CudaDriver.cpp -----------------------------------------------------===//

#include "runtime/hal/drivers/cuda/CudaDriver.h"

#include "runtime/hal/drivers/cuda/CudaDevice.h"
#include "runtime/hal/drivers/gpu/GpuDriver.h"
#include "runtime/hal/drivers/gpu/GpuUuid.h"
#include "runtime/hal/drivers/gpu/VendorRuntime.h"

namespace kiln::hal::cuda {

namespace {

class CudaDriver final : public gpu::GpuDriver {
public:
  std::string_view name() const override { return "cuda"; }
  Status availability() override { return symbols().status(); }

private:
  struct Described {
    CUdevice Handle;
    DeviceInfo Info;
    uint64_t MemoryBytes;
  };

  std::string_view vendor() const override { return "CUDA"; }
  StatusOr<int> deviceCount() override;
  StatusOr<DeviceInfo> describeDevice(int ordinal) override;
  StatusOr<std::shared_ptr<Device>>
  openDevice(int ordinal, const gpu::GpuDeviceOptions &options) override;

  // Loads libcuda and initializes it once; the outcome is kept, so a
  // missing driver costs one dlopen per process.
  StatusOr<std::shared_ptr<const CudaSymbols>> symbols();
  StatusOr<Described> describe(const CudaSymbols &symbols, int ordinal);

  // No option: libcuda.so.1 is where the NVIDIA driver installed it.
  gpu::VendorRuntime<CudaSymbols> Runtime{"cuda", ""};
  bool NoDevice = false; // cuInit said CUDA_ERROR_NO_DEVICE
};

StatusOr<std::shared_ptr<const CudaSymbols>> CudaDriver::symbols() {
  return Runtime.get([this](const std::string &)
                         -> StatusOr<std::shared_ptr<const CudaSymbols>> {
    KILN_ASSIGN_OR_RETURN(std::shared_ptr<const CudaSymbols> loaded,
                          CudaSymbols::load());
    CUresult result = loaded->cuInit(0);
    // A machine with the driver but no GPU has no devices; not an error.
    NoDevice = result == CUDA_ERROR_NO_DEVICE;
    if (result != CUDA_SUCCESS && !NoDevice)
      return cudaResultToStatus(*loaded, result, "cuInit", __FILE__, __LINE__)
          .annotate("the CUDA driver cannot start");
    return loaded;
  });
}

StatusOr<int> CudaDriver::deviceCount() {
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<const CudaSymbols> loaded, symbols());
  if (NoDevice)
    return 0;
  int count = 0;
  KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(*loaded, cuDeviceGetCount, &count));
  return count;
}

StatusOr<CudaDriver::Described> CudaDriver::describe(const CudaSymbols &symbols,
                                                     int ordinal) {
  Described described;
  KILN_RETURN_IF_ERROR(
      KILN_CUDA_CALL(symbols, cuDeviceGet, &described.Handle, ordinal));
  CUdevice device = described.Handle;
  char name[256] = {};
  KILN_RETURN_IF_ERROR(
      KILN_CUDA_CALL(symbols, cuDeviceGetName, name, sizeof(name), device));
  CUuuid uuid;
  KILN_RETURN_IF_ERROR(
      KILN_CUDA_CALL(symbols, cuDeviceGetUuid_v2, &uuid, device));
  size_t memory = 0;
  KILN_RETURN_IF_ERROR(
      KILN_CUDA_CALL(symbols, cuDeviceTotalMem_v2, &memory, device));
  described.MemoryBytes = memory;
  int version = 0;
  KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(symbols, cuDriverGetVersion, &version));
  auto attribute = [&](CUdevice_attribute which) -> StatusOr<int> {
    int value = 0;
    KILN_RETURN_IF_ERROR(
        KILN_CUDA_CALL(symbols, cuDeviceGetAttribute, &value, which, device));
    return value;
  };
  KILN_ASSIGN_OR_RETURN(
      int major, attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR));
  KILN_ASSIGN_OR_RETURN(
      int minor, attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
  KILN_ASSIGN_OR_RETURN(int sms,
                        attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT));
  KILN_ASSIGN_OR_RETURN(int l2, attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE));
  KILN_ASSIGN_OR_RETURN(
      int shared, attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK));
  KILN_ASSIGN_OR_RETURN(
      int sharedOptIn,
      attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
  KILN_ASSIGN_OR_RETURN(int threads,
                        attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK));

  DeviceInfo &info = described.Info;
  info.Uri = strCat("cuda://",
                    gpu::gpuUuidString(std::span<const uint8_t, 16>(
                        reinterpret_cast<const uint8_t *>(uuid.bytes), 16)));
  info.Name = name;
  auto add = [&](const char *key, auto value) {
    info.Properties.emplace_back(key, strCat(value));
  };
  add("driver", "cuda");
  add("ordinal", ordinal);
  add("compute_capability", strCat(major, ".", minor));
  add("cuda_target", strCat("sm_", major, minor));
  // From Hopper on, the arch-specific target (what --cuda-target=h100 and
  // friends select) enables instructions such as wgmma, and runs only on
  // exactly this compute capability.
  if (major >= 9)
    add("cuda_target_arch_specific", strCat("sm_", major, minor, "a"));
  add("multiprocessors", sms);
  add("memory_bytes", described.MemoryBytes);
  add("l2_cache_bytes", l2);
  add("shared_memory_per_block_bytes", shared);
  add("shared_memory_per_block_optin_bytes", sharedOptIn);
  add("max_threads_per_block", threads);
  add("driver_version", strCat(version / 1000, ".", version % 1000 / 10));
  return described;
}

StatusOr<DeviceInfo> CudaDriver::describeDevice(int ordinal) {
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<const CudaSymbols> loaded, symbols());
  KILN_ASSIGN_OR_RETURN(Described described, describe(*loaded, ordinal));
  return std::move(described.Info);
}

StatusOr<std::shared_ptr<Device>>
CudaDriver::openDevice(int ordinal, const gpu::GpuDeviceOptions &options) {
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<const CudaSymbols> loaded, symbols());
  KILN_ASSIGN_OR_RETURN(Described chosen, describe(*loaded, ordinal));
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<CudaDevice> device,
                        CudaDevice::create(loaded, chosen.Handle,
                                           std::move(chosen.Info),
                                           chosen.MemoryBytes, options));
  return std::shared_ptr<Device>(std::move(device));
}

} // namespace

std::shared_ptr<Driver> createCudaDriver() {
  return std::make_shared<CudaDriver>();
}

} // namespace kiln::hal::cuda
