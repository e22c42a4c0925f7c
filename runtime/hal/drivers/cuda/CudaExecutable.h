//===- CudaExecutable.h - A loaded CUDA module and its kernels ------------===//
//
// Formats: "cuda-cubin" (ptxas output for exactly the target chip) and
// "cuda-ptx" (NUL-terminated PTX text the driver compiles at load). Targets
// are chips, "sm_90" or the arch-specific "sm_90a". Kernel parameters are
// one device pointer per binding (base address plus the binding's offset),
// then one 32-bit value per push constant.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDAEXECUTABLE_H
#define KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDAEXECUTABLE_H

#include "runtime/hal/Executable.h"
#include "runtime/hal/drivers/cuda/CudaContext.h"

#include <array>
#include <memory>
#include <string_view>
#include <vector>

namespace kiln::hal::cuda {

/// What a device allows a kernel, read once when the device is opened.
struct CudaDeviceLimits {
  int ComputeMajor = 0;
  int ComputeMinor = 0;
  std::array<int, 3> MaxBlockDim = {};
  std::array<int, 3> MaxGridDim = {};
  /// Shared memory one block may use once its kernel opts in.
  int MaxSharedMemoryOptIn = 0;

  static StatusOr<CudaDeviceLimits> query(const CudaSymbols &symbols,
                                          CUdevice device);
};

/// Whether a variant runs on a device of compute capability major.minor: a
/// cubin only on exactly its chip; PTX on its chip or any newer one, except
/// arch-specific PTX (sm_90a), which only its own chip runs.
bool cudaSupportsExecutable(std::string_view format, std::string_view target,
                            int computeMajor, int computeMinor);

class CudaExecutable final : public Executable {
public:
  /// Loads `spec.Image` into `context` (JIT-compiling PTX) and looks up every
  /// entry point; checks each one's workgroup size and shared memory
  /// against the device's and the kernel's limits, raising the kernel's
  /// dynamic shared memory limit when it needs more than the default.
  static StatusOr<std::shared_ptr<CudaExecutable>>
  load(std::shared_ptr<CudaContext> context, const CudaDeviceLimits &limits,
       const ExecutableSpec &spec);
  ~CudaExecutable() override;

  CUfunction function(uint32_t entryPoint) const {
    return Functions[entryPoint];
  }

private:
  CudaExecutable(const ExecutableSpec &spec,
                 std::shared_ptr<CudaContext> context, CUmodule module)
      : Executable(spec), Context(std::move(context)), Module(module) {}

  std::shared_ptr<CudaContext> Context;
  CUmodule Module;
  std::vector<CUfunction> Functions;
};

} // namespace kiln::hal::cuda

#endif // KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDAEXECUTABLE_H
