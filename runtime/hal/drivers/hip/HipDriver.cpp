//===- HipDriver.cpp ------------------------------------------------------===//

#include "runtime/hal/drivers/hip/HipDriver.h"

#include "runtime/hal/DeviceUri.h"
#include "runtime/hal/drivers/amd/AmdTarget.h"
#include "runtime/hal/drivers/gpu/GpuDriver.h"
#include "runtime/hal/drivers/gpu/GpuUuid.h"
#include "runtime/hal/drivers/gpu/VendorError.h"
#include "runtime/hal/drivers/gpu/VendorRuntime.h"
#include "runtime/hal/drivers/hip/HipDevice.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <mutex>

namespace kiln::hal::hip {

namespace {

// AMD GPUs report their UUID as 16 hex digits in ASCII ("GPU-" plus those
// is how rocm-smi and HIP_VISIBLE_DEVICES spell it); anything else is
// printed as bytes, as for NVIDIA.
std::string uuidString(const hipUUID &uuid) {
  const auto *bytes = reinterpret_cast<const uint8_t *>(uuid.bytes);
  if (std::all_of(bytes, bytes + 16,
                  [](uint8_t c) { return std::isxdigit(c) != 0; }))
    return strCat("GPU-", std::string_view(uuid.bytes, 16));
  return gpu::gpuUuidString(std::span<const uint8_t, 16>(bytes, 16));
}

class HipDriver final : public gpu::GpuDriver {
public:
  std::string_view name() const override { return "hip"; }
  Status availability() override { return symbols().status(); }
  Status setOption(std::string_view key, std::string_view value) override;

private:
  struct Described {
    DeviceInfo Info;
    std::string ArchName;
    uint64_t MemoryBytes = 0;
  };

  std::string_view vendor() const override { return "AMD (HIP)"; }
  StatusOr<int> deviceCount() override;
  StatusOr<DeviceInfo> describeDevice(int ordinal) override;
  StatusOr<std::shared_ptr<Device>>
  openDevice(int ordinal, const gpu::GpuDeviceOptions &options) override;

  // Loads libamdhip64 and initializes it once; the outcome is kept.
  StatusOr<std::shared_ptr<const HipSymbols>> symbols();
  StatusOr<Described> describe(const HipSymbols &symbols, int ordinal);
  std::shared_ptr<HipContext>
  context(const std::shared_ptr<const HipSymbols> &symbols, int ordinal);

  gpu::VendorRuntime<HipSymbols> Runtime{"hip", "dylib_path"};
  bool NoDevice = false; // hipInit said hipErrorNoDevice
  std::mutex Mutex;      // guards Contexts
  std::map<int, std::weak_ptr<HipContext>> Contexts;
};

Status HipDriver::setOption(std::string_view key, std::string_view value) {
  if (key != "dylib_path")
    return Driver::setOption(key, value);
  return Runtime.setPath(value);
}

StatusOr<std::shared_ptr<const HipSymbols>> HipDriver::symbols() {
  return Runtime.get([this](const std::string &path)
                         -> StatusOr<std::shared_ptr<const HipSymbols>> {
    KILN_ASSIGN_OR_RETURN(std::shared_ptr<const HipSymbols> loaded,
                          HipSymbols::load(path));
    hipError_t result = loaded->hipInit(0);
    // A machine with the runtime but no GPU has no devices; not an error.
    NoDevice = result == hipErrorNoDevice;
    if (result != hipSuccess && !NoDevice)
      return gpu::vendorStartFailure(
          hipErrorToStatus(*loaded, result, "hipInit", __FILE__, __LINE__),
          "HIP runtime", loaded->Library->loadedPath(),
          "no usable AMD GPU or /dev/kfd, or --hip_dylib_path= should name "
          "another");
    return loaded;
  });
}

StatusOr<int> HipDriver::deviceCount() {
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<const HipSymbols> loaded, symbols());
  if (NoDevice)
    return 0;
  int count = 0;
  hipError_t result = loaded->hipGetDeviceCount(&count);
  if (result == hipErrorNoDevice)
    return 0;
  KILN_RETURN_IF_ERROR(hipErrorToStatus(*loaded, result, "hipGetDeviceCount",
                                        __FILE__, __LINE__));
  return count;
}

StatusOr<HipDriver::Described> HipDriver::describe(const HipSymbols &symbols,
                                                   int ordinal) {
  Described described;
  hipDevice_t device = 0;
  KILN_RETURN_IF_ERROR(KILN_HIP_CALL(symbols, hipDeviceGet, &device, ordinal));
  char name[256] = {};
  KILN_RETURN_IF_ERROR(
      KILN_HIP_CALL(symbols, hipDeviceGetName, name, sizeof(name) - 1, device));
  hipUUID uuid = {};
  KILN_RETURN_IF_ERROR(KILN_HIP_CALL(symbols, hipDeviceGetUuid, &uuid, device));
  size_t memory = 0;
  KILN_RETURN_IF_ERROR(
      KILN_HIP_CALL(symbols, hipDeviceTotalMem, &memory, device));
  described.MemoryBytes = memory;
  // Room for a properties layout larger than the one these headers know.
  std::vector<hipDeviceProp_t> properties(4);
  auto getProperties = symbols.hipGetDevicePropertiesR0000
                           ? symbols.hipGetDevicePropertiesR0000
                           : symbols.hipGetDeviceProperties;
  KILN_RETURN_IF_ERROR(
      hipErrorToStatus(symbols, getProperties(properties.data(), ordinal),
                       "hipGetDeviceProperties", __FILE__, __LINE__));
  const char *arch = properties[0].gcnArchName;
  described.ArchName =
      std::string(arch, strnlen(arch, sizeof(properties[0].gcnArchName)));
  // A runtime whose properties layout is not the one read here would put
  // something else where the name is: say so rather than match no
  // executable for an unexplained reason.
  if (!described.ArchName.starts_with("gfx"))
    return KILN_ERROR(Unavailable, "HIP device ", ordinal,
                      ": the runtime reports no gfx architecture (gcnArchName ",
                      quoteForMessage(described.ArchName),
                      "); its hipGetDeviceProperties layout may not be "
                      "ROCm 5's");
  int driverVersion = 0, runtimeVersion = 0;
  KILN_RETURN_IF_ERROR(
      KILN_HIP_CALL(symbols, hipDriverGetVersion, &driverVersion));
  KILN_RETURN_IF_ERROR(
      KILN_HIP_CALL(symbols, hipRuntimeGetVersion, &runtimeVersion));
  auto attribute = [&](hipDeviceAttribute_t which) -> StatusOr<int> {
    int value = 0;
    KILN_RETURN_IF_ERROR(
        KILN_HIP_CALL(symbols, hipDeviceGetAttribute, &value, which, ordinal));
    return value;
  };
  KILN_ASSIGN_OR_RETURN(int major,
                        attribute(hipDeviceAttributeComputeCapabilityMajor));
  KILN_ASSIGN_OR_RETURN(int minor,
                        attribute(hipDeviceAttributeComputeCapabilityMinor));
  KILN_ASSIGN_OR_RETURN(int units,
                        attribute(hipDeviceAttributeMultiprocessorCount));
  KILN_ASSIGN_OR_RETURN(int wave, attribute(hipDeviceAttributeWarpSize));
  KILN_ASSIGN_OR_RETURN(int shared,
                        attribute(hipDeviceAttributeMaxSharedMemoryPerBlock));
  KILN_ASSIGN_OR_RETURN(int threads,
                        attribute(hipDeviceAttributeMaxThreadsPerBlock));

  DeviceInfo &info = described.Info;
  info.Uri = strCat("hip://", uuidString(uuid));
  info.Name = name;
  auto add = [&](const char *key, auto value) {
    info.Properties.emplace_back(key, strCat(value));
  };
  add("driver", "hip");
  add("ordinal", ordinal);
  add("amdhip64_dylib_path", symbols.Library->loadedPath());
  add("gpu-compute-capability", strCat(major, ".", minor));
  // What --hip-target takes; the features the runtime reports follow.
  add("gpu-arch-name", amd::amdProcessorName(described.ArchName));
  add("gpu-target-id", described.ArchName);
  add("compute_units", units);
  add("wavefront_size", wave);
  add("memory_bytes", described.MemoryBytes);
  add("shared_memory_per_block_bytes", shared);
  add("max_threads_per_block", threads);
  add("driver_version", driverVersion);
  add("runtime_version", runtimeVersion);
  return described;
}

std::shared_ptr<HipContext>
HipDriver::context(const std::shared_ptr<const HipSymbols> &symbols,
                   int ordinal) {
  std::lock_guard<std::mutex> lock(Mutex);
  std::shared_ptr<HipContext> context = Contexts[ordinal].lock();
  if (!context) {
    context = std::make_shared<HipContext>(symbols, ordinal);
    Contexts[ordinal] = context;
  }
  return context;
}

StatusOr<DeviceInfo> HipDriver::describeDevice(int ordinal) {
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<const HipSymbols> loaded, symbols());
  KILN_ASSIGN_OR_RETURN(Described described, describe(*loaded, ordinal));
  return std::move(described.Info);
}

StatusOr<std::shared_ptr<Device>>
HipDriver::openDevice(int ordinal, const gpu::GpuDeviceOptions &options) {
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<const HipSymbols> loaded, symbols());
  KILN_ASSIGN_OR_RETURN(Described chosen, describe(*loaded, ordinal));
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<HipDevice> device,
                        HipDevice::create(context(loaded, ordinal),
                                          std::move(chosen.Info),
                                          std::move(chosen.ArchName),
                                          chosen.MemoryBytes, options));
  return std::shared_ptr<Device>(std::move(device));
}

} // namespace

std::shared_ptr<Driver> createHipDriver() {
  return std::make_shared<HipDriver>();
}

} // namespace kiln::hal::hip
