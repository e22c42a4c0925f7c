//===- AmdTestKernels.h - The code objects the AMD tests read -------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMD_AMDTESTKERNELS_H
#define KILN_RUNTIME_HAL_DRIVERS_AMD_AMDTESTKERNELS_H

#include "runtime/hal/drivers/amd/CodeObject.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace kiln::hal::amd {

/// The bytes of tests/amdgpu/TestKernels.ll built for `chip` ("gfx942",
/// "gfx1100"); empty where the build found no llc and ld.lld (the caller
/// skips).
inline std::vector<uint8_t> readTestKernels(const std::string &chip) {
  std::string path;
#ifdef KILN_AMD_TEST_HSACO_GFX942
  if (chip == "gfx942")
    path = KILN_AMD_TEST_HSACO_GFX942;
#endif
#ifdef KILN_AMD_TEST_HSACO_GFX1100
  if (chip == "gfx1100")
    path = KILN_AMD_TEST_HSACO_GFX1100;
#endif
  if (path.empty())
    return {};
  std::ifstream file(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(file), {});
}

/// A fixture holding the gfx942 test kernels read as a code object (whose
/// spans point into Image); skips where the build made none.
class TestKernelsTest : public ::testing::Test {
protected:
  void SetUp() override {
    Image = readTestKernels("gfx942");
    if (Image.empty())
      GTEST_SKIP() << "the build found no llc/ld.lld to make test kernels";
    auto object = readCodeObject(Image, "gfx942");
    ASSERT_TRUE(object.ok()) << object.status().toString();
    Object = std::move(object).value();
  }

  std::vector<uint8_t> Image;
  CodeObject Object;
};

} // namespace kiln::hal::amd

#endif // KILN_RUNTIME_HAL_DRIVERS_AMD_AMDTESTKERNELS_H
