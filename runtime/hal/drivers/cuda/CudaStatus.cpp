//===- CudaStatus.cpp -----------------------------------------------------===//

#include "runtime/hal/drivers/cuda/CudaStatus.h"

#include "runtime/hal/drivers/gpu/VendorError.h"

namespace kiln::hal::cuda {

StatusCode cudaResultCode(CUresult result) {
  switch (result) {
  case CUDA_SUCCESS:
    return StatusCode::Ok;
  case CUDA_ERROR_OUT_OF_MEMORY:
  case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    return StatusCode::ResourceExhausted;
  // Faults inside a kernel: the context is unusable afterwards.
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_LAUNCH_FAILED:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_ECC_UNCORRECTABLE:
    return StatusCode::Aborted;
  case CUDA_ERROR_LAUNCH_TIMEOUT:
    return StatusCode::DeadlineExceeded;
  case CUDA_ERROR_INVALID_VALUE:
  case CUDA_ERROR_INVALID_HANDLE:
  case CUDA_ERROR_INVALID_DEVICE:
  case CUDA_ERROR_INVALID_IMAGE:
  case CUDA_ERROR_INVALID_PTX:
  case CUDA_ERROR_INVALID_SOURCE:
  case CUDA_ERROR_NO_BINARY_FOR_GPU:
    return StatusCode::InvalidArgument;
  case CUDA_ERROR_NO_DEVICE:
  case CUDA_ERROR_NOT_FOUND:
    return StatusCode::NotFound;
  case CUDA_ERROR_NOT_INITIALIZED:
  case CUDA_ERROR_DEINITIALIZED:
  case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
  case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
  case CUDA_ERROR_DEVICE_UNAVAILABLE:
  case CUDA_ERROR_STUB_LIBRARY:
    return StatusCode::Unavailable;
  case CUDA_ERROR_NOT_SUPPORTED:
    return StatusCode::Unimplemented;
  default:
    return StatusCode::Internal;
  }
}

Status cudaResultToStatus(const CudaSymbols &symbols, CUresult result,
                          const char *call, const char *file, int line) {
  if (result == CUDA_SUCCESS)
    return Status();
  const char *name = nullptr;
  if (symbols.cuGetErrorName(result, &name) != CUDA_SUCCESS)
    name = nullptr;
  return gpu::vendorCallStatus(cudaResultCode(result), call, name,
                               static_cast<int>(result), file, line);
}

} // namespace kiln::hal::cuda
