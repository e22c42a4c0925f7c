//===- HsaSymbols.h - libhsa-runtime64, opened at run time ----------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMDGPU_HSASYMBOLS_H
#define KILN_RUNTIME_HAL_DRIVERS_AMDGPU_HSASYMBOLS_H

#include "runtime/base/DynamicLibrary.h"
#include "runtime/base/Status.h"

// For types and constants only: nothing links libhsa-runtime64.
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <memory>
#include <string>

namespace kiln::hal::amdgpu {

/// The HSA runtime functions of HsaSymbols.def.
struct HsaSymbols {
  /// Opens libhsa-runtime64 (`searchPath`: a file or folder from
  /// --amdgpu_libhsa_search_path, else $KILN_AMDGPU_LIBHSA_PATH, else the
  /// loader's search) and resolves every symbol; Unavailable when the
  /// library is missing or lacks a function.
  static StatusOr<std::shared_ptr<const HsaSymbols>>
  load(const std::string &searchPath);

  std::unique_ptr<DynamicLibrary> Library;
#define KILN_HSA_SYMBOL(name, params) hsa_status_t(*name) params = nullptr;
#define KILN_HSA_VALUE_SYMBOL(type, name, params) type(*name) params = nullptr;
#include "runtime/hal/drivers/amdgpu/HsaSymbols.def"
#undef KILN_HSA_VALUE_SYMBOL
#undef KILN_HSA_SYMBOL
};

/// OK for HSA_STATUS_SUCCESS, else "hsa_init:
/// HSA_STATUS_ERROR_OUT_OF_RESOURCES: ... (4104)" with the caller's
/// file:line: resource and memory errors ResourceExhausted, bad arguments
/// InvalidArgument, an unusable runtime Unavailable.
Status hsaStatusToStatus(const HsaSymbols &symbols, hsa_status_t status,
                         const char *call, const char *file, int line);

/// A fixed-size string attribute of an agent (`size` bytes, as hsa.h or
/// hsa_ext_amd.h gives it), cut at its NUL.
StatusOr<std::string> hsaAgentString(const HsaSymbols &symbols,
                                     hsa_agent_t agent, int attribute,
                                     size_t size);

} // namespace kiln::hal::amdgpu

/// Calls symbols.name(args...) and returns its result as a Status.
#define KILN_HSA_CALL(symbols, name, ...)                                      \
  ::kiln::hal::amdgpu::hsaStatusToStatus(                                      \
      (symbols), (symbols).name(__VA_ARGS__), #name, __FILE__, __LINE__)

#endif // KILN_RUNTIME_HAL_DRIVERS_AMDGPU_HSASYMBOLS_H
