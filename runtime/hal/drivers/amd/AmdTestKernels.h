//===- AmdTestKernels.h - The code objects the AMD tests read -------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMD_AMDTESTKERNELS_H
#define KILN_RUNTIME_HAL_DRIVERS_AMD_AMDTESTKERNELS_H

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

} // namespace kiln::hal::amd

#endif // KILN_RUNTIME_HAL_DRIVERS_AMD_AMDTESTKERNELS_H
