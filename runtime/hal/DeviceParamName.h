//===- DeviceParamName.h - gtest names for device-URI test parameters -----===//
//
// Tests parameterized over device URIs ("local-task://?workers=1") need a
// gtest-safe name for each: every character that is not a letter or digit
// becomes '_'. Test-only; header-only so it stays out of kiln_hal.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DEVICEPARAMNAME_H
#define KILN_RUNTIME_HAL_DEVICEPARAMNAME_H

#include <gtest/gtest.h>

#include <cctype>
#include <string>

namespace kiln::hal {

inline std::string
deviceParamName(const ::testing::TestParamInfo<std::string> &info) {
  std::string name = info.param;
  for (char &c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)))
      c = '_';
  return name;
}

} // namespace kiln::hal

#endif // KILN_RUNTIME_HAL_DEVICEPARAMNAME_H
