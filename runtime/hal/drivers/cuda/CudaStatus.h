//===- CudaStatus.h - CUresult to Status, naming the failed call ----------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDASTATUS_H
#define KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDASTATUS_H

#include "runtime/base/Status.h"
#include "runtime/hal/drivers/cuda/CudaSymbols.h"

namespace kiln::hal::cuda {

/// The Status code a CUresult means to a caller: out of memory is
/// ResourceExhausted, a fault inside a kernel Aborted, a bad argument
/// InvalidArgument, a missing or unusable driver/GPU NotFound/Unavailable.
StatusCode cudaResultCode(CUresult result);

/// OK for CUDA_SUCCESS, else "cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY" with
/// the caller's file:line.
Status cudaResultToStatus(const CudaSymbols &symbols, CUresult result,
                          const char *call, const char *file, int line);

} // namespace kiln::hal::cuda

/// Calls symbols.name(args...) and returns its result as a Status.
#define KILN_CUDA_CALL(symbols, name, ...)                                     \
  ::kiln::hal::cuda::cudaResultToStatus(                                       \
      (symbols), (symbols).name(__VA_ARGS__), #name, __FILE__, __LINE__)

#endif // KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDASTATUS_H
