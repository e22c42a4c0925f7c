//===- CpuTarget.h - What the host CPU can run ----------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_LOCAL_CPUTARGET_H
#define KILN_RUNTIME_HAL_DRIVERS_LOCAL_CPUTARGET_H

#include <string>
#include <string_view>
#include <vector>

namespace kiln::hal::local {

/// Whether code compiled for `target` ("x86-64", "x86-64-v2", "x86-64-v3",
/// "x86-64-v4" or "host") runs on this CPU, so an AVX-512 module is
/// reported unsupported instead of dying of SIGILL.
bool hostSupportsCpuTarget(std::string_view target);

/// The highest x86-64 level the host runs ("x86-64-v3"), or "" off x86-64.
std::string hostCpuTarget();

/// Vector and other features of note the host has ("avx2", "fma", ...).
std::vector<std::string> hostCpuFeatures();

/// The model name from /proc/cpuinfo, or "".
std::string hostCpuModel();

} // namespace kiln::hal::local

#endif // KILN_RUNTIME_HAL_DRIVERS_LOCAL_CPUTARGET_H
