//===- DriverRegistry.h - Drivers by name, devices by URI -----------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERREGISTRY_H
#define KILN_RUNTIME_HAL_DRIVERREGISTRY_H

#include "runtime/base/Status.h"
#include "runtime/hal/Device.h"
#include "runtime/hal/Driver.h"

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::hal {

class DriverRegistry {
public:
  DriverRegistry() = default;
  DriverRegistry(const DriverRegistry &) = delete;
  DriverRegistry &operator=(const DriverRegistry &) = delete;

  /// The process-wide registry holding the built-in drivers. Defined in
  /// kiln_hal_drivers (which calls registerBuiltinDrivers on first use), so
  /// linking that library is what makes the drivers available; static
  /// registration objects would be dropped from static libraries.
  static DriverRegistry &global();

  /// AlreadyExists when a driver of that name is registered.
  Status registerDriver(std::shared_ptr<Driver> driver);

  /// In registration order.
  std::vector<std::string> driverNames() const;

  /// NotFound: "unknown device 'x'; available: local-sync, local-task".
  StatusOr<std::shared_ptr<Driver>> getDriver(std::string_view name) const;

  /// Parses `uri` and asks its driver for the device.
  StatusOr<std::shared_ptr<Device>> createDevice(std::string_view uri) const;

private:
  mutable std::mutex Mutex;
  std::vector<std::shared_ptr<Driver>> Drivers;
};

} // namespace kiln::hal

#endif // KILN_RUNTIME_HAL_DRIVERREGISTRY_H
