//===- HipStatus.h - hipError_t to Status, naming the failed call ---------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_HIP_HIPSTATUS_H
#define KILN_RUNTIME_HAL_DRIVERS_HIP_HIPSTATUS_H

#include "runtime/base/Status.h"
#include "runtime/hal/drivers/hip/HipSymbols.h"

namespace kiln::hal::hip {

/// The Status code a hipError_t means to a caller, as for CUDA: out of
/// memory is ResourceExhausted, a fault inside a kernel Aborted, a bad
/// argument or image InvalidArgument, no usable GPU NotFound/Unavailable.
StatusCode hipErrorCode(hipError_t error);

/// OK for hipSuccess, else "hipMalloc: hipErrorOutOfMemory (2)" with the
/// caller's file:line.
Status hipErrorToStatus(const HipSymbols &symbols, hipError_t error,
                        const char *call, const char *file, int line);

} // namespace kiln::hal::hip

/// Calls symbols.name(args...) and returns its result as a Status.
#define KILN_HIP_CALL(symbols, name, ...)                                      \
  ::kiln::hal::hip::hipErrorToStatus((symbols), (symbols).name(__VA_ARGS__),   \
                                     #name, __FILE__, __LINE__)

#endif // KILN_RUNTIME_HAL_DRIVERS_HIP_HIPSTATUS_H
