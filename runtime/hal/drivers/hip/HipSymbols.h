//===- HipSymbols.h - libamdhip64, opened at run time ---------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_HIP_HIPSYMBOLS_H
#define KILN_RUNTIME_HAL_DRIVERS_HIP_HIPSYMBOLS_H

#include "runtime/base/DynamicLibrary.h"
#include "runtime/base/Status.h"

// For types and constants only: nothing links libamdhip64. The headers
// serve both vendors; this selects AMD's half.
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__
#endif
#include <hip/hip_runtime_api.h>

#include <memory>
#include <string>

namespace kiln::hal::hip {

/// The HIP runtime functions of HipSymbols.def, loaded from libamdhip64.
struct HipSymbols {
  /// Opens the library (`path`: a file or folder given by
  /// --hip_dylib_path, else $KILN_HIP_DYLIB_PATH, else the loader's
  /// search) and resolves every symbol; Unavailable when the library is
  /// missing or lacks a required function.
  static StatusOr<std::shared_ptr<const HipSymbols>>
  load(const std::string &path);

  std::unique_ptr<DynamicLibrary> Library;
  const char *(*hipGetErrorName)(hipError_t error) = nullptr;
#define KILN_HIP_SYMBOL(name, params) hipError_t(*name) params = nullptr;
#define KILN_HIP_OPTIONAL_SYMBOL KILN_HIP_SYMBOL
#include "runtime/hal/drivers/hip/HipSymbols.def"
#undef KILN_HIP_OPTIONAL_SYMBOL
#undef KILN_HIP_SYMBOL
};

} // namespace kiln::hal::hip

#endif // KILN_RUNTIME_HAL_DRIVERS_HIP_HIPSYMBOLS_H
