//===- GpuDriver.cpp ------------------------------------------------------===//

#include "runtime/hal/drivers/gpu/GpuDriver.h"

#include "runtime/hal/drivers/gpu/GpuDeviceChoice.h"

namespace kiln::hal::gpu {

StatusOr<std::vector<DeviceInfo>> GpuDriver::enumerateDevices() {
  KILN_ASSIGN_OR_RETURN(int count, deviceCount());
  std::vector<DeviceInfo> devices;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    KILN_ASSIGN_OR_RETURN(DeviceInfo info, describeDevice(ordinal));
    devices.push_back(std::move(info));
  }
  return devices;
}

StatusOr<std::shared_ptr<Device>>
GpuDriver::createDevice(const DeviceUri &uri) {
  if (uri.driver() != name())
    return KILN_ERROR(InvalidArgument, "the ", name(),
                      " driver cannot open device URI ",
                      quoteForMessage(uri.text()));
  KILN_ASSIGN_OR_RETURN(GpuDeviceOptions options,
                        GpuDeviceOptions::fromUri(uri));
  KILN_ASSIGN_OR_RETURN(int count, deviceCount());
  KILN_ASSIGN_OR_RETURN(
      int ordinal,
      chooseGpuOrdinal(
          uri, count, vendor(), [&](int candidate) -> StatusOr<std::string> {
            KILN_ASSIGN_OR_RETURN(DeviceInfo info, describeDevice(candidate));
            return info.Uri;
          }));
  return openDevice(ordinal, options);
}

} // namespace kiln::hal::gpu
