//===- AmdTarget.h - Which AMD code objects a GPU runs --------------------===//
//
// Shared by the hip and amdgpu drivers. Executables for AMD GPUs have the
// format "amdgpu-hsaco" (a code object v5 ELF for amdgcn-amd-amdhsa) and
// name the processor they were compiled for as their target ("gfx942").
// Runtimes report a GPU's processor with its target features appended
// ("gfx90a:sramecc+:xnack-"); a code object compiled for the processor
// without features runs whatever their setting.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMD_AMDTARGET_H
#define KILN_RUNTIME_HAL_DRIVERS_AMD_AMDTARGET_H

#include <string_view>

namespace kiln::hal::amd {

inline constexpr std::string_view kHsacoFormat = "amdgpu-hsaco";

/// "gfx90a:sramecc+:xnack-" -> "gfx90a"; the processor part of a target id.
std::string_view amdProcessorName(std::string_view targetId);

/// Whether an executable of `format` compiled for `target` runs on a GPU
/// whose target id (or processor) is `deviceTarget`: an hsaco for the same
/// processor. A target with features must not contradict the device's
/// ("xnack+" on an "xnack-" GPU), as the loader would refuse it.
bool amdSupportsExecutable(std::string_view format, std::string_view target,
                           std::string_view deviceTarget);

} // namespace kiln::hal::amd

#endif // KILN_RUNTIME_HAL_DRIVERS_AMD_AMDTARGET_H
