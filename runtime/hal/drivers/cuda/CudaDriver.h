//===- CudaDriver.h - The `cuda` driver: NVIDIA GPUs through libcuda ------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDADRIVER_H
#define KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDADRIVER_H

#include "runtime/hal/Driver.h"

#include <memory>

namespace kiln::hal::cuda {

/// Registered everywhere; it opens libcuda.so.1 on first use, so without a
/// CUDA driver it reports Unavailable while the other drivers keep working.
/// Devices: `cuda` (ordinal 0), `cuda:N`, `cuda://GPU-<uuid>`.
std::shared_ptr<Driver> createCudaDriver();

} // namespace kiln::hal::cuda

#endif // KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDADRIVER_H
