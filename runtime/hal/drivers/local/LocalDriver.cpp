//===- LocalDriver.cpp ----------------------------------------------------===//

#include "runtime/hal/drivers/local/LocalDriver.h"

#include "runtime/hal/drivers/local/CpuAbi.h"
#include "runtime/hal/drivers/local/CpuTarget.h"
#include "runtime/hal/drivers/local/LocalDevice.h"

#include <sys/sysinfo.h>
#include <thread>

namespace kiln::hal::local {

namespace {

constexpr uint32_t kMaxWorkers = 1024;
// Two, so concurrent queues are there by default; the second costs nothing
// until used.
constexpr uint32_t kDefaultQueues = 2;

uint32_t defaultWorkers() {
  unsigned count = std::thread::hardware_concurrency();
  return count == 0 ? 1 : std::min<uint32_t>(count, kMaxWorkers);
}

std::string joined(const std::vector<std::string> &items) {
  std::string out;
  for (const std::string &item : items)
    out += strCat(out.empty() ? "" : " ", item);
  return out;
}

} // namespace

std::string_view LocalDriver::name() const {
  return DriverKind == Kind::Sync ? "local-sync" : "local-task";
}

DeviceInfo LocalDriver::makeInfo(std::string uri, uint32_t threads,
                                 uint32_t queues) const {
  DeviceInfo info;
  info.Uri = std::move(uri);
  std::string model = hostCpuModel();
  info.Name = model.empty() ? std::string("CPU") : model;
  info.Properties.emplace_back("driver", std::string(name()));
  info.Properties.emplace_back("threads", std::to_string(threads));
  info.Properties.emplace_back("queues", std::to_string(queues));
  info.Properties.emplace_back("executable_format", KILN_CPU_EXECUTABLE_FORMAT);
  info.Properties.emplace_back("cpu_target", hostCpuTarget());
  info.Properties.emplace_back("cpu_features", joined(hostCpuFeatures()));
  struct sysinfo system;
  if (::sysinfo(&system) == 0)
    info.Properties.emplace_back(
        "memory_bytes",
        std::to_string(uint64_t(system.totalram) *
                       (system.mem_unit ? system.mem_unit : 1)));
  return info;
}

StatusOr<std::vector<DeviceInfo>> LocalDriver::enumerateDevices() {
  bool sync = DriverKind == Kind::Sync;
  return std::vector<DeviceInfo>{makeInfo(strCat(name(), "://"),
                                          sync ? 1 : defaultWorkers(),
                                          sync ? 1 : kDefaultQueues)};
}

StatusOr<std::shared_ptr<Device>>
LocalDriver::createDevice(const DeviceUri &uri) {
  if (uri.driver() != name())
    return KILN_ERROR(InvalidArgument, "the ", name(),
                      " driver cannot open device URI ",
                      quoteForMessage(uri.text()));
  bool hasDevice =
      (uri.form() == DeviceUri::Form::Bare) ||
      (uri.form() == DeviceUri::Form::Ordinal && uri.ordinal() == 0u) ||
      (uri.form() == DeviceUri::Form::Path && uri.path().empty());
  if (!hasDevice)
    return KILN_ERROR(NotFound, "no device ", quoteForMessage(uri.text()), "; ",
                      name(), " has one device: ", name(), "://");
  LocalDevice::Options options;
  if (DriverKind == Kind::Sync) {
    KILN_RETURN_IF_ERROR(uri.checkParams({"unified"}));
  } else {
    KILN_RETURN_IF_ERROR(uri.checkParams({"workers", "queues", "unified"}));
    KILN_ASSIGN_OR_RETURN(std::optional<uint64_t> workers,
                          uri.uintParam("workers", 1, kMaxWorkers));
    options.Workers =
        workers ? static_cast<uint32_t>(*workers) : defaultWorkers();
    KILN_ASSIGN_OR_RETURN(std::optional<uint64_t> queues,
                          uri.uintParam("queues", 1, kMaxQueues));
    options.Queues = queues ? static_cast<uint32_t>(*queues) : kDefaultQueues;
  }
  KILN_ASSIGN_OR_RETURN(std::optional<bool> unified, uri.boolParam("unified"));
  options.Unified = unified.value_or(true);
  options.Info =
      makeInfo(uri.text(), DriverKind == Kind::Sync ? 1 : options.Workers,
               options.Queues);
  return std::shared_ptr<Device>(
      std::make_shared<LocalDevice>(std::move(options)));
}

std::shared_ptr<Driver> createLocalSyncDriver() {
  return std::make_shared<LocalDriver>(LocalDriver::Kind::Sync);
}

std::shared_ptr<Driver> createLocalTaskDriver() {
  return std::make_shared<LocalDriver>(LocalDriver::Kind::Task);
}

} // namespace kiln::hal::local
