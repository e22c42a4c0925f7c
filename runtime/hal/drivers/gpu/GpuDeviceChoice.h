//===- GpuDeviceChoice.h - Which GPU a device URI names -------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_GPU_GPUDEVICECHOICE_H
#define KILN_RUNTIME_HAL_DRIVERS_GPU_GPUDEVICECHOICE_H

#include "runtime/base/Status.h"
#include "runtime/hal/DeviceUri.h"

#include <functional>
#include <string>
#include <string_view>

namespace kiln::hal::gpu {

/// The ordinal `uri` selects among `count` GPUs of `vendor` ("CUDA"):
/// `driver` and `driver://` the first, `driver:N` the N-th, `driver://PATH`
/// the one whose own URI (`uriOf(ordinal)`, "cuda://GPU-...") is
/// `driver://PATH`. NotFound says what exists.
StatusOr<int>
chooseGpuOrdinal(const DeviceUri &uri, int count, std::string_view vendor,
                 const std::function<StatusOr<std::string>(int)> &uriOf);

} // namespace kiln::hal::gpu

#endif // KILN_RUNTIME_HAL_DRIVERS_GPU_GPUDEVICECHOICE_H
