//===- CudaExecutable.h - Which CUDA executables a device runs ------------===//
//
// Formats: "cuda-cubin" (ptxas output for exactly the target chip) and
// "cuda-ptx" (NUL-terminated PTX text the driver compiles at load). Targets
// are chips, "sm_90" or the arch-specific "sm_90a". Loading and the checks
// against the device's limits are the shared GpuExecutable's.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDAEXECUTABLE_H
#define KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDAEXECUTABLE_H

#include "runtime/hal/drivers/cuda/CudaSymbols.h"
#include "runtime/hal/drivers/gpu/GpuExecutable.h"

#include <string_view>

namespace kiln::hal::cuda {

/// What a device allows a kernel, read once when the device is opened.
struct CudaDeviceLimits {
  int ComputeMajor = 0;
  int ComputeMinor = 0;
  gpu::GpuDeviceLimits Kernel;

  static StatusOr<CudaDeviceLimits> query(const CudaSymbols &symbols,
                                          CUdevice device);
};

/// Whether a variant runs on a device of compute capability major.minor: a
/// cubin only on exactly its chip; PTX on its chip or any newer one, except
/// arch-specific PTX (sm_90a), which only its own chip runs.
bool cudaSupportsExecutable(std::string_view format, std::string_view target,
                            int computeMajor, int computeMinor);

} // namespace kiln::hal::cuda

#endif // KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDAEXECUTABLE_H
