//===- HsaSymbols.cpp -----------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/HsaSymbols.h"

#include "runtime/hal/drivers/gpu/VendorError.h"
#include "runtime/hal/drivers/gpu/VendorLibrary.h"

#include <cstring>
#include <vector>

namespace kiln::hal::amdgpu {

StatusOr<std::shared_ptr<const HsaSymbols>>
HsaSymbols::load(const std::string &searchPath) {
  auto symbols = std::make_shared<HsaSymbols>();
  gpu::VendorLibrarySearch search;
  search.What = "HSA runtime (libhsa-runtime64.so)";
  search.Override = searchPath;
  search.EnvVariable = "KILN_AMDGPU_LIBHSA_PATH";
  search.Sonames = {"libhsa-runtime64.so", "libhsa-runtime64.so.1"};
  search.Hint = "install ROCm's HSA runtime, or point "
                "--amdgpu_libhsa_search_path= (or KILN_AMDGPU_LIBHSA_PATH) "
                "at libhsa-runtime64.so or its folder";
  KILN_ASSIGN_OR_RETURN(symbols->Library, gpu::openVendorLibrary(search));
#define KILN_HSA_SYMBOL(name, params)                                          \
  KILN_RETURN_IF_ERROR(gpu::loadRequiredSymbol(*symbols->Library, #name,       \
                                               symbols->name, search.What));
#define KILN_HSA_VALUE_SYMBOL(type, name, params) KILN_HSA_SYMBOL(name, params)
#include "runtime/hal/drivers/amdgpu/HsaSymbols.def"
#undef KILN_HSA_VALUE_SYMBOL
#undef KILN_HSA_SYMBOL
  return std::shared_ptr<const HsaSymbols>(std::move(symbols));
}

Status hsaStatusToStatus(const HsaSymbols &symbols, hsa_status_t status,
                         const char *call, const char *file, int line) {
  if (status == HSA_STATUS_SUCCESS || status == HSA_STATUS_INFO_BREAK)
    return Status();
  StatusCode code = StatusCode::Internal;
  switch (status) {
  case HSA_STATUS_ERROR_OUT_OF_RESOURCES:
    code = StatusCode::ResourceExhausted;
    break;
  case HSA_STATUS_ERROR_INVALID_ARGUMENT:
  case HSA_STATUS_ERROR_INVALID_CODE_OBJECT:
  case HSA_STATUS_ERROR_INVALID_ISA:
  case HSA_STATUS_ERROR_INVALID_SYMBOL_NAME:
    code = StatusCode::InvalidArgument;
    break;
  case HSA_STATUS_ERROR_NOT_INITIALIZED:
  case HSA_STATUS_ERROR_INVALID_RUNTIME_STATE:
    code = StatusCode::Unavailable;
    break;
  default:
    break;
  }
  const char *text = nullptr;
  if (symbols.hsa_status_string(status, &text) != HSA_STATUS_SUCCESS)
    text = nullptr;
  return gpu::vendorCallStatus(code, call, text, static_cast<int64_t>(status),
                               file, line);
}

StatusOr<std::string> hsaAgentString(const HsaSymbols &symbols,
                                     hsa_agent_t agent, int attribute,
                                     size_t size) {
  // One byte more than HSA writes, so the text always ends.
  std::vector<char> text(size + 1, 0);
  KILN_RETURN_IF_ERROR(KILN_HSA_CALL(symbols, hsa_agent_get_info, agent,
                                     static_cast<hsa_agent_info_t>(attribute),
                                     text.data()));
  return std::string(text.data(), strnlen(text.data(), size));
}

} // namespace kiln::hal::amdgpu
