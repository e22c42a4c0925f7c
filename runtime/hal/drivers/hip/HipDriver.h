//===- HipDriver.h - The `hip` driver: AMD GPUs through the HIP runtime ---===//
//
// Devices: `hip` (the first GPU), `hip:N`, `hip://GPU-<uuid>` (as
// --list_devices prints it), with the shared GPU device parameters
// (GpuDevice.h). libamdhip64.so is opened at run time: from the driver
// option `dylib_path` (--hip_dylib_path), else $KILN_HIP_DYLIB_PATH, else
// the loader's search; where it is missing or hipInit fails the driver is
// listed as unavailable, saying why.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_HIP_HIPDRIVER_H
#define KILN_RUNTIME_HAL_DRIVERS_HIP_HIPDRIVER_H

#include "runtime/hal/Driver.h"

#include <memory>

namespace kiln::hal::hip {

std::shared_ptr<Driver> createHipDriver();

} // namespace kiln::hal::hip

#endif // KILN_RUNTIME_HAL_DRIVERS_HIP_HIPDRIVER_H
