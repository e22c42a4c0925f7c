//===- DriverRegistry.cpp -------------------------------------------------===//

#include "runtime/hal/DriverRegistry.h"

namespace kiln::hal {

Status DriverRegistry::registerDriver(std::shared_ptr<Driver> driver) {
  if (!driver)
    return KILN_ERROR(InvalidArgument, "cannot register a null driver");
  std::lock_guard<std::mutex> lock(Mutex);
  for (const auto &existing : Drivers)
    if (existing->name() == driver->name())
      return KILN_ERROR(AlreadyExists, "driver '", driver->name(),
                        "' is already registered");
  Drivers.push_back(std::move(driver));
  return Status();
}

std::vector<std::string> DriverRegistry::driverNames() const {
  std::lock_guard<std::mutex> lock(Mutex);
  std::vector<std::string> names;
  for (const auto &driver : Drivers)
    names.emplace_back(driver->name());
  return names;
}

StatusOr<std::shared_ptr<Driver>>
DriverRegistry::getDriver(std::string_view name) const {
  std::lock_guard<std::mutex> lock(Mutex);
  std::string available;
  for (const auto &driver : Drivers) {
    if (driver->name() == name)
      return driver;
    available += strCat(available.empty() ? "" : ", ", driver->name());
  }
  return KILN_ERROR(
      NotFound, "unknown device ", quoteForMessage(name),
      "; available: ", available.empty() ? std::string("none") : available);
}

StatusOr<std::shared_ptr<Device>>
DriverRegistry::createDevice(std::string_view uri) const {
  KILN_ASSIGN_OR_RETURN(DeviceUri parsed, DeviceUri::parse(uri));
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<Driver> driver,
                        getDriver(parsed.driver()));
  return driver->createDevice(parsed);
}

} // namespace kiln::hal
