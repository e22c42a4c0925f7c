//===- KernelPlan.h - What the amdgpu driver needs to dispatch a kernel ---===//
//
// Made from an executable spec and its checked code object before HSA
// loads anything: for each entry point, the descriptor symbol to look up,
// the LDS and scratch its dispatch packets ask for, and its kernarg layout.
// A code object whose kernels do not fit the entry points (missing, other
// arguments, a workgroup beyond the kernel's limit or LDS beyond the GPU's)
// is refused here, on one line, without a GPU.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMDGPU_KERNELPLAN_H
#define KILN_RUNTIME_HAL_DRIVERS_AMDGPU_KERNELPLAN_H

#include "runtime/hal/Executable.h"
#include "runtime/hal/drivers/amd/CodeObject.h"
#include "runtime/hal/drivers/amdgpu/KernargLayout.h"

#include <array>
#include <string>
#include <vector>

namespace kiln::hal::amdgpu {

struct KernelPlan {
  /// "<name>.kd", as hsa_executable_get_symbol_by_name takes it.
  std::string Symbol;
  /// The entry point's: the kernel is compiled for exactly this one.
  std::array<uint32_t, 3> WorkgroupSize = {1, 1, 1};
  /// Static LDS plus the entry point's dynamic shared memory.
  uint32_t GroupSegmentBytes = 0;
  /// The dynamic part alone, which a hidden argument reports.
  uint32_t DynamicGroupSegmentBytes = 0;
  uint32_t PrivateSegmentBytes = 0;
  KernargLayout Kernargs;
};

/// One plan per entry point of `spec`, in order. `maxGroupSegmentBytes` is
/// the GPU's LDS per workgroup.
StatusOr<std::vector<KernelPlan>> planKernels(const amd::CodeObject &object,
                                              const ExecutableSpec &spec,
                                              uint32_t maxGroupSegmentBytes);

} // namespace kiln::hal::amdgpu

#endif // KILN_RUNTIME_HAL_DRIVERS_AMDGPU_KERNELPLAN_H
