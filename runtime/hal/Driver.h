//===- Driver.h - A kind of device and the code that talks to it ----------===//
#ifndef KILN_RUNTIME_HAL_DRIVER_H
#define KILN_RUNTIME_HAL_DRIVER_H

#include "runtime/base/Status.h"
#include "runtime/hal/Device.h"
#include "runtime/hal/DeviceInfo.h"
#include "runtime/hal/DeviceUri.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::hal {

class Driver {
public:
  virtual ~Driver();

  /// The URI scheme that selects this driver: "local-sync", "cuda".
  virtual std::string_view name() const = 0;

  /// OK when the driver can work on this machine, whether or not it finds
  /// a device; otherwise why not (its vendor library is missing or cannot
  /// start), which `--list_drivers` prints.
  virtual Status availability() { return Status(); }

  /// Sets a driver option a tool flag carries (`--amdgpu_libhsa_search_path`
  /// is option `libhsa_search_path` of `amdgpu`), before the driver is
  /// first used; InvalidArgument for an option the driver does not have,
  /// FailedPrecondition once it is too late to change.
  virtual Status setOption(std::string_view key, std::string_view value);

  /// The devices present; an empty list when the driver works but finds
  /// none, an error when it cannot work at all (library missing).
  virtual StatusOr<std::vector<DeviceInfo>> enumerateDevices() = 0;

  /// `uri.driver()` is name(). Unknown parameters, paths or ordinals are
  /// errors that say what exists.
  virtual StatusOr<std::shared_ptr<Device>>
  createDevice(const DeviceUri &uri) = 0;

  /// Device URI parameter lists ("k=v&k2=v2") that change how the driver
  /// works enough that the conformance suite runs once more with each
  /// (cuda: command_buffers=stream); none by default.
  virtual std::vector<std::string> conformanceVariants() const { return {}; }
};

} // namespace kiln::hal

#endif // KILN_RUNTIME_HAL_DRIVER_H
