//===- HipSymbols.cpp -----------------------------------------------------===//

#include "runtime/hal/drivers/hip/HipSymbols.h"

#include "runtime/hal/drivers/gpu/VendorLibrary.h"

namespace kiln::hal::hip {

StatusOr<std::shared_ptr<const HipSymbols>>
HipSymbols::load(const std::string &path) {
  auto symbols = std::make_shared<HipSymbols>();
  gpu::VendorLibrarySearch search;
  search.What = "HIP runtime (libamdhip64.so)";
  search.Override = path;
  search.EnvVariable = "KILN_HIP_DYLIB_PATH";
  // The unversioned name first (a ROCm install's own), then the sonames of
  // ROCm 6 and 5.
  search.Sonames = {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"};
  search.Hint = "install ROCm's HIP runtime, or point --hip_dylib_path= (or "
                "KILN_HIP_DYLIB_PATH) at libamdhip64.so or its folder";
  KILN_ASSIGN_OR_RETURN(symbols->Library, gpu::openVendorLibrary(search));
  const DynamicLibrary &library = *symbols->Library;
  KILN_RETURN_IF_ERROR(gpu::loadRequiredSymbol(
      library, "hipGetErrorName", symbols->hipGetErrorName, search.What));
#define KILN_HIP_SYMBOL(name, params)                                          \
  KILN_RETURN_IF_ERROR(                                                        \
      gpu::loadRequiredSymbol(library, #name, symbols->name, search.What));
#define KILN_HIP_OPTIONAL_SYMBOL(name, params)                                 \
  gpu::loadOptionalSymbol(library, #name, symbols->name);
#include "runtime/hal/drivers/hip/HipSymbols.def"
#undef KILN_HIP_OPTIONAL_SYMBOL
#undef KILN_HIP_SYMBOL
  if (!symbols->hipGetDevicePropertiesR0000 && !symbols->hipGetDeviceProperties)
    return KILN_ERROR(Unavailable, "the ", search.What,
                      " has neither hipGetDevicePropertiesR0000 nor "
                      "hipGetDeviceProperties");
  return std::shared_ptr<const HipSymbols>(std::move(symbols));
}

} // namespace kiln::hal::hip
