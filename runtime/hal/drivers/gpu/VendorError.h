//===- VendorError.h - A failed vendor call as a one-line Status ----------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_GPU_VENDORERROR_H
#define KILN_RUNTIME_HAL_DRIVERS_GPU_VENDORERROR_H

#include "runtime/base/Status.h"

namespace kiln::hal::gpu {

/// "hipMalloc: hipErrorOutOfMemory (2)" with the caller's file:line;
/// `errorName` may be null (the library could not name the error).
Status vendorCallStatus(StatusCode code, const char *call,
                        const char *errorName, int64_t number, const char *file,
                        int line);

/// A vendor library that loaded but whose init call failed (`failed`): the
/// driver cannot work here, so Unavailable whatever the call said, as
/// "the HIP runtime PATH cannot start (HINT): hipInit: ...".
Status vendorStartFailure(const Status &failed, std::string_view what,
                          std::string_view path, std::string_view hint);

} // namespace kiln::hal::gpu

#endif // KILN_RUNTIME_HAL_DRIVERS_GPU_VENDORERROR_H
