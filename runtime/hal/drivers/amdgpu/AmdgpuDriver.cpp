//===- AmdgpuDriver.cpp ---------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/AmdgpuDriver.h"

#include "runtime/hal/drivers/amdgpu/DeviceSelection.h"
#include "runtime/hal/drivers/amdgpu/HsaSymbols.h"
#include "runtime/hal/drivers/gpu/VendorError.h"
#include "runtime/hal/drivers/gpu/VendorRuntime.h"

#include <cstring>

namespace kiln::hal::amdgpu {

namespace {

class AmdgpuDriver final : public Driver {
public:
  std::string_view name() const override { return "amdgpu"; }
  Status availability() override { return symbols().status(); }
  Status setOption(std::string_view key, std::string_view value) override;
  StatusOr<std::vector<DeviceInfo>> enumerateDevices() override;
  StatusOr<std::shared_ptr<Device>> createDevice(const DeviceUri &uri) override;

private:
  // Loads libhsa-runtime64 and initializes it once; the outcome is kept.
  StatusOr<std::shared_ptr<const HsaSymbols>> symbols();
  StatusOr<std::vector<hsa_agent_t>> gpuAgents(const HsaSymbols &hsa);
  StatusOr<DeviceInfo> describe(const HsaSymbols &hsa, hsa_agent_t agent,
                                size_t ordinal);

  gpu::VendorRuntime<HsaSymbols> Runtime{"amdgpu", "libhsa_search_path"};
};

Status AmdgpuDriver::setOption(std::string_view key, std::string_view value) {
  if (key != "libhsa_search_path")
    return Driver::setOption(key, value);
  return Runtime.setPath(value);
}

StatusOr<std::shared_ptr<const HsaSymbols>> AmdgpuDriver::symbols() {
  return Runtime.get([](const std::string &path)
                         -> StatusOr<std::shared_ptr<const HsaSymbols>> {
    KILN_ASSIGN_OR_RETURN(std::shared_ptr<const HsaSymbols> loaded,
                          HsaSymbols::load(path));
    // hsa_init applies ROCR_VISIBLE_DEVICES. It is never shut down: the
    // runtime is shared with whatever else in the process uses HSA.
    hsa_status_t status = loaded->hsa_init();
    if (status != HSA_STATUS_SUCCESS)
      return gpu::vendorStartFailure(
          hsaStatusToStatus(*loaded, status, "hsa_init", __FILE__, __LINE__),
          "HSA runtime", loaded->Library->loadedPath(),
          "no usable AMD GPU or /dev/kfd, or --amdgpu_libhsa_search_path= "
          "should name another");
    return loaded;
  });
}

StatusOr<std::vector<hsa_agent_t>>
AmdgpuDriver::gpuAgents(const HsaSymbols &hsa) {
  struct Visit {
    const HsaSymbols &Hsa;
    std::vector<hsa_agent_t> Agents;
    Status Failed;
  } visit{hsa, {}, Status()};
  auto callback = [](hsa_agent_t agent, void *data) -> hsa_status_t {
    auto &state = *static_cast<Visit *>(data);
    hsa_device_type_t type;
    hsa_status_t status =
        state.Hsa.hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type);
    if (status != HSA_STATUS_SUCCESS)
      return status;
    if (type == HSA_DEVICE_TYPE_GPU)
      state.Agents.push_back(agent);
    return HSA_STATUS_SUCCESS;
  };
  KILN_RETURN_IF_ERROR(
      KILN_HSA_CALL(hsa, hsa_iterate_agents, callback, &visit));
  return std::move(visit.Agents);
}

StatusOr<DeviceInfo> AmdgpuDriver::describe(const HsaSymbols &hsa,
                                            hsa_agent_t agent, size_t ordinal) {
  // Sizes from hsa.h and hsa_ext_amd.h for each string attribute.
  KILN_ASSIGN_OR_RETURN(std::string arch,
                        hsaAgentString(hsa, agent, HSA_AGENT_INFO_NAME, 64));
  KILN_ASSIGN_OR_RETURN(
      std::string product,
      hsaAgentString(hsa, agent, HSA_AMD_AGENT_INFO_PRODUCT_NAME, 64));
  KILN_ASSIGN_OR_RETURN(
      std::string uuid,
      hsaAgentString(hsa, agent, HSA_AMD_AGENT_INFO_UUID, 21));
  uint32_t units = 0, wavefront = 0;
  KILN_RETURN_IF_ERROR(KILN_HSA_CALL(
      hsa, hsa_agent_get_info, agent,
      static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT),
      &units));
  KILN_RETURN_IF_ERROR(KILN_HSA_CALL(hsa, hsa_agent_get_info, agent,
                                     HSA_AGENT_INFO_WAVEFRONT_SIZE,
                                     &wavefront));
  DeviceInfo info;
  info.Uri = strCat("amdgpu://", uuid);
  info.Name = product.empty() ? arch : product;
  auto add = [&](const char *key, auto value) {
    info.Properties.emplace_back(key, strCat(value));
  };
  add("driver", "amdgpu");
  add("ordinal", ordinal);
  add("libhsa_path", hsa.Library->loadedPath());
  add("gpu-arch-name", arch);
  add("compute_units", units);
  add("wavefront_size", wavefront);
  return info;
}

StatusOr<std::vector<DeviceInfo>> AmdgpuDriver::enumerateDevices() {
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<const HsaSymbols> hsa, symbols());
  KILN_ASSIGN_OR_RETURN(std::vector<hsa_agent_t> agents, gpuAgents(*hsa));
  std::vector<DeviceInfo> devices;
  for (size_t i = 0; i < agents.size(); ++i) {
    KILN_ASSIGN_OR_RETURN(DeviceInfo info, describe(*hsa, agents[i], i));
    devices.push_back(std::move(info));
  }
  return devices;
}

StatusOr<std::shared_ptr<Device>>
AmdgpuDriver::createDevice(const DeviceUri &uri) {
  if (uri.driver() != name())
    return KILN_ERROR(InvalidArgument,
                      "the amdgpu driver cannot open device URI ",
                      quoteForMessage(uri.text()));
  KILN_RETURN_IF_ERROR(uri.checkParams({}));
  KILN_ASSIGN_OR_RETURN(std::vector<DeviceInfo> devices, enumerateDevices());
  std::vector<std::string> uuids;
  for (const DeviceInfo &info : devices)
    uuids.push_back(info.Uri.substr(std::strlen("amdgpu://")));
  KILN_ASSIGN_OR_RETURN(std::vector<uint32_t> chosen, selectGpus(uri, uuids));
  return KILN_ERROR(Unimplemented, "the amdgpu driver finds AMD GPUs but "
                                   "cannot run on them yet (its queues and "
                                   "command buffers are not written); use "
                                   "--device=hip");
}

} // namespace

std::shared_ptr<Driver> createAmdgpuDriver() {
  return std::make_shared<AmdgpuDriver>();
}

} // namespace kiln::hal::amdgpu
