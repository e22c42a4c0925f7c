//===- AmdgpuDriver.h - The `amdgpu` driver: AMD GPUs through HSA ---------===//
//
// libhsa-runtime64 is found through the driver option `libhsa_search_path`
// (--amdgpu_libhsa_search_path), then $KILN_AMDGPU_LIBHSA_PATH, then the
// loader's search; without it, or where hsa_init fails, the driver is
// listed as unavailable saying why. It lists the GPU agents HSA reports
// (ROCR_VISIBLE_DEVICES applied) as `amdgpu://GPU-<uuid>`, and reads device
// URIs naming one GPU or several (DeviceSelection.h), opening one
// AmdgpuDevice over the GPUs a URI names (AmdgpuDevice.h).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AMDGPUDRIVER_H
#define KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AMDGPUDRIVER_H

#include "runtime/hal/Driver.h"
#include "runtime/hal/drivers/amdgpu/HsaSymbols.h"

#include <memory>

namespace kiln::hal::amdgpu {

std::shared_ptr<Driver> createAmdgpuDriver();

/// A driver over HSA functions already loaded and initialized (by an
/// application that started HSA itself, or a test's own), instead of
/// finding libhsa-runtime64.
std::shared_ptr<Driver>
createAmdgpuDriver(std::shared_ptr<const HsaSymbols> started);

} // namespace kiln::hal::amdgpu

#endif // KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AMDGPUDRIVER_H
