//===- CudaSymbols.cpp ----------------------------------------------------===//

#include "runtime/hal/drivers/cuda/CudaSymbols.h"

#include "runtime/hal/drivers/gpu/VendorLibrary.h"

namespace kiln::hal::cuda {

StatusOr<std::shared_ptr<const CudaSymbols>> CudaSymbols::load() {
  auto symbols = std::make_shared<CudaSymbols>();
  gpu::VendorLibrarySearch search;
  search.What = "CUDA driver";
  search.Sonames = {"libcuda.so.1"};
  search.Hint = "install the NVIDIA driver or add the folder of libcuda.so.1 "
                "to LD_LIBRARY_PATH";
  KILN_ASSIGN_OR_RETURN(symbols->Library, gpu::openVendorLibrary(search));
#define KILN_CUDA_SYMBOL(name, params)                                         \
  KILN_RETURN_IF_ERROR(gpu::loadRequiredSymbol(*symbols->Library, #name,       \
                                               symbols->name, search.What));
#include "runtime/hal/drivers/cuda/CudaSymbols.def"
#undef KILN_CUDA_SYMBOL
  return std::shared_ptr<const CudaSymbols>(std::move(symbols));
}

} // namespace kiln::hal::cuda
