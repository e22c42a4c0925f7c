//===- BuiltinDrivers.h - The drivers every runtime build carries ---------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_BUILTINDRIVERS_H
#define KILN_RUNTIME_HAL_DRIVERS_BUILTINDRIVERS_H

#include "runtime/hal/DriverRegistry.h"

namespace kiln::hal {

/// Registers local-sync and local-task (and, as they are added, drivers
/// whose vendor libraries are opened at run time). DriverRegistry::global()
/// calls it once; tests call it on a registry of their own.
void registerBuiltinDrivers(DriverRegistry &registry);

} // namespace kiln::hal

#endif // KILN_RUNTIME_HAL_DRIVERS_BUILTINDRIVERS_H
