//===- AmdgpuDriver.cpp ---------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/AmdgpuDriver.h"

#include "runtime/hal/drivers/amdgpu/AmdgpuDevice.h"
#include "runtime/hal/drivers/amdgpu/DeviceSelection.h"
#include "runtime/hal/drivers/amdgpu/HsaSymbols.h"
#include "runtime/hal/drivers/amdgpu/MemoryFaults.h"
#include "runtime/hal/drivers/gpu/VendorError.h"
#include "runtime/hal/drivers/gpu/VendorRuntime.h"

#include <cstring>
#include <optional>

namespace kiln::hal::amdgpu {

namespace {

class AmdgpuDriver final : public Driver {
public:
  explicit AmdgpuDriver(std::shared_ptr<const HsaSymbols> started = nullptr)
      : Started(std::move(started)) {}

  std::string_view name() const override { return "amdgpu"; }
  Status availability() override { return symbols().status(); }
  Status setOption(std::string_view key, std::string_view value) override;
  StatusOr<std::vector<DeviceInfo>> enumerateDevices() override;
  StatusOr<std::shared_ptr<Device>> createDevice(const DeviceUri &uri) override;

private:
  // Loads libhsa-runtime64 and initializes it once; the outcome is kept.
  StatusOr<std::shared_ptr<const HsaSymbols>> symbols();
  // HSA's agents: the GPUs in its order, and the first CPU.
  struct Agents {
    std::vector<hsa_agent_t> Gpus;
    std::optional<hsa_agent_t> Host;
  };
  StatusOr<Agents> listAgents(const HsaSymbols &hsa);
  StatusOr<DeviceInfo> describe(const HsaSymbols &hsa, hsa_agent_t agent,
                                size_t ordinal);
  StatusOr<std::vector<DeviceInfo>> describeAll(const HsaSymbols &hsa,
                                                const Agents &agents);

  gpu::VendorRuntime<HsaSymbols> Runtime{"amdgpu", "libhsa_search_path"};
  // Set when made over HSA started elsewhere.
  std::shared_ptr<const HsaSymbols> Started;
};

Status AmdgpuDriver::setOption(std::string_view key, std::string_view value) {
  if (key != "libhsa_search_path")
    return Driver::setOption(key, value);
  return Runtime.setPath(value);
}

StatusOr<std::shared_ptr<const HsaSymbols>> AmdgpuDriver::symbols() {
  if (Started)
    return Started;
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
    // Without a handler of its own, HSA ends the process at a GPU memory
    // fault; with it, the faulting GPU's device fails.
    KILN_RETURN_IF_ERROR(MemoryFaults::process().install(*loaded));
    return loaded;
  });
}

StatusOr<AmdgpuDriver::Agents> AmdgpuDriver::listAgents(const HsaSymbols &hsa) {
  struct Visit {
    const HsaSymbols &Hsa;
    Agents Found;
  } visit{hsa, {}};
  auto callback = [](hsa_agent_t agent, void *data) -> hsa_status_t {
    auto &state = *static_cast<Visit *>(data);
    hsa_device_type_t type;
    hsa_status_t status =
        state.Hsa.hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type);
    if (status != HSA_STATUS_SUCCESS)
      return status;
    if (type == HSA_DEVICE_TYPE_GPU)
      state.Found.Gpus.push_back(agent);
    else if (type == HSA_DEVICE_TYPE_CPU && !state.Found.Host)
      state.Found.Host = agent;
    return HSA_STATUS_SUCCESS;
  };
  KILN_RETURN_IF_ERROR(
      KILN_HSA_CALL(hsa, hsa_iterate_agents, callback, &visit));
  return std::move(visit.Found);
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
  KILN_ASSIGN_OR_RETURN(std::string targetId, readTargetId(hsa, agent));
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
  // HSA started elsewhere may not say where it came from.
  if (hsa.Library)
    add("libhsa_path", hsa.Library->loadedPath());
  add("gpu-arch-name", arch);
  add("gpu-target-id", targetId);
  add("compute_units", units);
  add("wavefront_size", wavefront);
  return info;
}

StatusOr<std::vector<DeviceInfo>>
AmdgpuDriver::describeAll(const HsaSymbols &hsa, const Agents &agents) {
  std::vector<DeviceInfo> devices;
  for (size_t i = 0; i < agents.Gpus.size(); ++i) {
    KILN_ASSIGN_OR_RETURN(DeviceInfo info, describe(hsa, agents.Gpus[i], i));
    devices.push_back(std::move(info));
  }
  return devices;
}

StatusOr<std::vector<DeviceInfo>> AmdgpuDriver::enumerateDevices() {
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<const HsaSymbols> hsa, symbols());
  KILN_ASSIGN_OR_RETURN(Agents agents, listAgents(*hsa));
  return describeAll(*hsa, agents);
}

StatusOr<std::shared_ptr<Device>>
AmdgpuDriver::createDevice(const DeviceUri &uri) {
  if (uri.driver() != name())
    return KILN_ERROR(InvalidArgument,
                      "the amdgpu driver cannot open device URI ",
                      quoteForMessage(uri.text()));
  KILN_ASSIGN_OR_RETURN(AmdgpuAgent::Options options,
                        AmdgpuDevice::optionsFromUri(uri));
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<const HsaSymbols> hsa, symbols());
  KILN_ASSIGN_OR_RETURN(Agents agents, listAgents(*hsa));
  KILN_ASSIGN_OR_RETURN(std::vector<DeviceInfo> devices,
                        describeAll(*hsa, agents));
  std::vector<std::string> uuids;
  for (const DeviceInfo &info : devices)
    uuids.push_back(info.Uri.substr(std::strlen("amdgpu://")));
  KILN_ASSIGN_OR_RETURN(std::vector<uint32_t> chosen, selectGpus(uri, uuids));
  if (!agents.Host)
    return KILN_ERROR(NotFound, "HSA lists no CPU agent, whose memory pools "
                                "the amdgpu driver needs");
  // One GPU keeps its own description; several are named together, in
  // the URI's order.
  DeviceInfo info = devices[chosen.front()];
  std::vector<hsa_agent_t> gpus;
  for (size_t i = 0; i < chosen.size(); ++i) {
    gpus.push_back(agents.Gpus[chosen[i]]);
    if (i == 0)
      continue;
    info.Uri += "," + uuids[chosen[i]];
    info.Name += " + " + devices[chosen[i]].Name;
  }
  KILN_ASSIGN_OR_RETURN(
      std::shared_ptr<AmdgpuDevice> device,
      AmdgpuDevice::create(hsa, std::move(info), gpus, *agents.Host, options));
  return std::shared_ptr<Device>(std::move(device));
}

} // namespace

std::shared_ptr<Driver> createAmdgpuDriver() {
  return std::make_shared<AmdgpuDriver>();
}

std::shared_ptr<Driver>
createAmdgpuDriver(std::shared_ptr<const HsaSymbols> started) {
  return std::make_shared<AmdgpuDriver>(std::move(started));
}

} // namespace kiln::hal::amdgpu
