//===- HipStatus.cpp ------------------------------------------------------===//

#include "runtime/hal/drivers/hip/HipStatus.h"

#include "runtime/hal/drivers/gpu/VendorError.h"

namespace kiln::hal::hip {

StatusCode hipErrorCode(hipError_t error) {
  switch (error) {
  case hipSuccess:
    return StatusCode::Ok;
  case hipErrorOutOfMemory:
  case hipErrorLaunchOutOfResources:
    return StatusCode::ResourceExhausted;
  // Faults inside a kernel: the device is unusable afterwards.
  case hipErrorIllegalAddress:
  case hipErrorLaunchFailure:
  case hipErrorAssert:
  case hipErrorECCNotCorrectable:
    return StatusCode::Aborted;
  case hipErrorLaunchTimeOut:
    return StatusCode::DeadlineExceeded;
  case hipErrorInvalidValue:
  case hipErrorInvalidHandle:
  case hipErrorInvalidImage:
  case hipErrorInvalidKernelFile:
  case hipErrorNoBinaryForGpu:
  case hipErrorInvalidDeviceFunction:
    return StatusCode::InvalidArgument;
  case hipErrorNoDevice:
  case hipErrorNotFound:
    return StatusCode::NotFound;
  case hipErrorInvalidDevice:
  case hipErrorNotInitialized:
  case hipErrorDeinitialized:
  case hipErrorInsufficientDriver:
    return StatusCode::Unavailable;
  case hipErrorNotSupported:
    return StatusCode::Unimplemented;
  default:
    return StatusCode::Internal;
  }
}

Status hipErrorToStatus(const HipSymbols &symbols, hipError_t error,
                        const char *call, const char *file, int line) {
  if (error == hipSuccess)
    return Status();
  return gpu::vendorCallStatus(hipErrorCode(error), call,
                               symbols.hipGetErrorName(error),
                               static_cast<int>(error), file, line);
}

} // namespace kiln::hal::hip
