//===- GpuDeviceChoice.cpp ------------------------------------------------===//

#include "runtime/hal/drivers/gpu/GpuDeviceChoice.h"

namespace kiln::hal::gpu {

StatusOr<int>
chooseGpuOrdinal(const DeviceUri &uri, int count, std::string_view vendor,
                 const std::function<StatusOr<std::string>(int)> &uriOf) {
  auto absent = [&](std::string_view why) {
    return KILN_ERROR(NotFound, "no device ", quoteForMessage(uri.text()), ": ",
                      why, " (see --list_devices)");
  };
  if (count <= 0)
    return absent(strCat("no ", vendor, " device is present"));
  if (uri.form() == DeviceUri::Form::Ordinal) {
    if (*uri.ordinal() >= static_cast<uint32_t>(count))
      return absent(strCat("there are ", count, " ", vendor, " device(s)"));
    return static_cast<int>(*uri.ordinal());
  }
  if (uri.form() == DeviceUri::Form::Bare || uri.path().empty())
    return 0;
  std::string wanted = strCat(uri.driver(), "://", uri.path());
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    KILN_ASSIGN_OR_RETURN(std::string found, uriOf(ordinal));
    if (found == wanted)
      return ordinal;
  }
  return absent(strCat("no ", vendor, " device has that UUID"));
}

} // namespace kiln::hal::gpu
