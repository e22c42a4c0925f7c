//===- DeviceSelection.h - Which GPUs an amdgpu device URI names ----------===//
//
// One amdgpu device may span several GPUs (one logical device, a queue set
// per GPU), so its URI names a list: `amdgpu` and `amdgpu://` the first
// GPU, `amdgpu:N` the N-th, `amdgpu://GPU-<uuid>` one by UUID,
// `amdgpu://GPU-a,GPU-b` and `amdgpu://0,1` several. Ordinals count the
// GPUs HSA reports, which ROCR_VISIBLE_DEVICES has already filtered and
// renumbered (the HSA runtime applies it at hsa_init), as every ROCm tool
// counts them. Pure logic, tested without a GPU.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMDGPU_DEVICESELECTION_H
#define KILN_RUNTIME_HAL_DRIVERS_AMDGPU_DEVICESELECTION_H

#include "runtime/base/Status.h"
#include "runtime/hal/DeviceUri.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace kiln::hal::amdgpu {

/// The indices into `uuids` (the GPUs present, in HSA's order, each
/// "GPU-<hex>") that `uri` selects, in the URI's order. InvalidArgument for
/// a malformed list or a GPU named twice, NotFound for one absent, both on
/// one line saying what exists.
StatusOr<std::vector<uint32_t>> selectGpus(const DeviceUri &uri,
                                           std::span<const std::string> uuids);

} // namespace kiln::hal::amdgpu

#endif // KILN_RUNTIME_HAL_DRIVERS_AMDGPU_DEVICESELECTION_H
