//===- GpuUuid.h - A GPU's 16-byte UUID as device URIs spell it -----------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_GPU_GPUUUID_H
#define KILN_RUNTIME_HAL_DRIVERS_GPU_GPUUUID_H

#include <cstdint>
#include <span>
#include <string>

namespace kiln::hal::gpu {

/// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi prints it; the
/// path of `cuda://GPU-...` and of `hip://` where the UUID is binary.
std::string gpuUuidString(std::span<const uint8_t, 16> bytes);

} // namespace kiln::hal::gpu

#endif // KILN_RUNTIME_HAL_DRIVERS_GPU_GPUUUID_H
