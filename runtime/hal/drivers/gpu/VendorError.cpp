//===- VendorError.cpp ----------------------------------------------------===//

#include "runtime/hal/drivers/gpu/VendorError.h"

namespace kiln::hal::gpu {

Status vendorCallStatus(StatusCode code, const char *call,
                        const char *errorName, int64_t number, const char *file,
                        int line) {
  return Status(code,
                strCat(call, ": ", errorName ? errorName : "unknown error",
                       " (", number, ")"),
                file, line);
}

Status vendorStartFailure(const Status &failed, std::string_view what,
                          std::string_view path, std::string_view hint) {
  return Status(StatusCode::Unavailable,
                strCat("the ", what, " ", path, " cannot start (", hint,
                       "): ", failed.message()),
                failed.file(), failed.line());
}

} // namespace kiln::hal::gpu
