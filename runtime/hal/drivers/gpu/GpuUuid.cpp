//===- GpuUuid.cpp --------------------------------------------------------===//

#include "runtime/hal/drivers/gpu/GpuUuid.h"

#include <cstdio>

namespace kiln::hal::gpu {

std::string gpuUuidString(std::span<const uint8_t, 16> bytes) {
  std::string text = "GPU-";
  for (size_t i = 0; i < bytes.size(); ++i) {
    char hex[3];
    std::snprintf(hex, sizeof(hex), "%02x", static_cast<unsigned>(bytes[i]));
    text += hex;
    if (i == 3 || i == 5 || i == 7 || i == 9)
      text += '-';
  }
  return text;
}

} // namespace kiln::hal::gpu
