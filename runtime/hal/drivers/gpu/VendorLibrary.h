//===- VendorLibrary.h - A vendor library and its functions, at run time --===//
//
// GPU drivers never link their vendor library (libcuda, libamdhip64,
// libhsa-runtime64): each opens it here and fills a struct of function
// pointers generated from one X-macro list, so a machine without the
// library still runs the CPU drivers and says why the GPU one cannot.
//
// A list has required entries, without which the driver cannot work (a
// library too old for Kiln), and optional ones the driver checks for null
// before use (newer spellings, features some versions lack).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_GPU_VENDORLIBRARY_H
#define KILN_RUNTIME_HAL_DRIVERS_GPU_VENDORLIBRARY_H

#include "runtime/base/DynamicLibrary.h"
#include "runtime/base/Status.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln::hal::gpu {

/// Where to look for a vendor library, in this order: `Override` (a driver
/// option from a tool flag), then the environment variable `EnvVariable`,
/// each a file or a folder holding one of `Sonames`; then `Sonames` as the
/// dynamic loader finds them (LD_LIBRARY_PATH, the cache, the default
/// folders).
struct VendorLibrarySearch {
  /// "HIP runtime", for messages.
  std::string What;
  std::string Override;
  /// Null for none.
  const char *EnvVariable = nullptr;
  /// Most preferred first: "libamdhip64.so", "libamdhip64.so.6", ...
  std::vector<std::string> Sonames;
  /// How a user points Kiln at the library, for the error when it is not
  /// found: "set --amdgpu_libhsa_search_path=DIR".
  std::string Hint;
};

/// The first library `search` finds; Unavailable naming every place tried
/// (the loader's reason for the last) and the hint, on one line. A path
/// given by the override or the variable that does not load is an error
/// even when the loader would find another copy: the user asked for it.
StatusOr<std::unique_ptr<DynamicLibrary>>
openVendorLibrary(const VendorLibrarySearch &search);

/// Points `function` at `name` in `library`; Unavailable naming both and
/// `what` (a library too old for a function Kiln needs).
template <typename Function>
Status loadRequiredSymbol(const DynamicLibrary &library, const char *name,
                          Function *&function, std::string_view what) {
  StatusOr<void *> address = library.symbol(name);
  if (!address.ok())
    return Status(
        StatusCode::Unavailable,
        strCat("the ", what, " is too old: ", address.status().message()),
        address.status().file(), address.status().line());
  function = reinterpret_cast<Function *>(*address);
  return Status();
}

/// Points `function` at `name` in `library`, or leaves it null.
template <typename Function>
void loadOptionalSymbol(const DynamicLibrary &library, const char *name,
                        Function *&function) {
  StatusOr<void *> address = library.symbol(name);
  function = address.ok() ? reinterpret_cast<Function *>(*address) : nullptr;
}

} // namespace kiln::hal::gpu

#endif // KILN_RUNTIME_HAL_DRIVERS_GPU_VENDORLIBRARY_H
