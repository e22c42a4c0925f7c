//===- SymbolTable.h - Vendor API functions looked up at run time ---------===//
//
// GPU drivers never link their vendor library: each keeps a struct of
// function pointers generated from one X-macro list and fills it here, so a
// machine without the library still runs the CPU drivers.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_GPU_SYMBOLTABLE_H
#define KILN_RUNTIME_HAL_DRIVERS_GPU_SYMBOLTABLE_H

#include "runtime/base/DynamicLibrary.h"
#include "runtime/base/Status.h"

namespace kiln::hal::gpu {

/// Points `function` at `name` in `library`; NotFound names both (a driver
/// too old for a function Kiln uses).
template <typename Function>
Status loadSymbol(const DynamicLibrary &library, const char *name,
                  Function *&function) {
  KILN_ASSIGN_OR_RETURN(void *address, library.symbol(name));
  function = reinterpret_cast<Function *>(address);
  return Status();
}

} // namespace kiln::hal::gpu

#endif // KILN_RUNTIME_HAL_DRIVERS_GPU_SYMBOLTABLE_H
