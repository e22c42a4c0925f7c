//===- LocalDriver.h - The local-sync and local-task drivers --------------===//
//
// Both drivers expose one device, the host CPU:
//   local-sync, local-sync://, local-sync:0         (parameter: unified)
//   local-task, local-task://?workers=4, local-task:0 (workers, queues,
//                                                      unified)
// workers (threads per queue) defaults to
// std::thread::hardware_concurrency(); queues (1 to 64) to 2; unified=0
// makes the allocator behave like a discrete GPU's (see LocalAllocator).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_LOCAL_LOCALDRIVER_H
#define KILN_RUNTIME_HAL_DRIVERS_LOCAL_LOCALDRIVER_H

#include "runtime/hal/Driver.h"

#include <memory>

namespace kiln::hal::local {

class LocalDriver final : public Driver {
public:
  enum class Kind { Sync, Task };

  explicit LocalDriver(Kind kind) : DriverKind(kind) {}

  std::string_view name() const override;
  StatusOr<std::vector<DeviceInfo>> enumerateDevices() override;
  StatusOr<std::shared_ptr<Device>> createDevice(const DeviceUri &uri) override;

private:
  DeviceInfo makeInfo(std::string uri, uint32_t threads, uint32_t queues) const;

  Kind DriverKind;
};

/// The two local drivers.
std::shared_ptr<Driver> createLocalSyncDriver();
std::shared_ptr<Driver> createLocalTaskDriver();

} // namespace kiln::hal::local

#endif // KILN_RUNTIME_HAL_DRIVERS_LOCAL_LOCALDRIVER_H
