//===- CudaSymbols.h - libcuda.so.1, opened at run time -------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDASYMBOLS_H
#define KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDASYMBOLS_H

#include "runtime/base/DynamicLibrary.h"
#include "runtime/base/Status.h"

// For types and constants only: nothing links libcuda.
#include <cuda.h>

#include <memory>

namespace kiln::hal::cuda {

/// The driver API functions of CudaSymbols.def, loaded from libcuda.so.1.
struct CudaSymbols {
  /// Opens the library and resolves every symbol; Unavailable when the
  /// library is missing or lacks a function.
  static StatusOr<std::shared_ptr<const CudaSymbols>> load();

  std::unique_ptr<DynamicLibrary> Library;
#define KILN_CUDA_SYMBOL(name, params) CUresult(CUDAAPI *name) params = nullptr;
#include "runtime/hal/drivers/cuda/CudaSymbols.def"
#undef KILN_CUDA_SYMBOL
};

} // namespace kiln::hal::cuda

#endif // KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDASYMBOLS_H
