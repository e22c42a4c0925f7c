//===- CudaSymbols.cpp ----------------------------------------------------===//

#include "runtime/hal/drivers/cuda/CudaSymbols.h"

#include "runtime/hal/drivers/gpu/SymbolTable.h"

namespace kiln::hal::cuda {

StatusOr<std::shared_ptr<const CudaSymbols>> CudaSymbols::load() {
  auto symbols = std::make_shared<CudaSymbols>();
  auto library = DynamicLibrary::open("libcuda.so.1");
  if (!library.ok())
    return Status(StatusCode::Unavailable,
                  strCat("no CUDA driver: ", library.status().message()),
                  library.status().file(), library.status().line());
  symbols->Library = std::move(library).value();
#define KILN_CUDA_SYMBOL(name, params)                                         \
  if (Status status =                                                          \
          gpu::loadSymbol(*symbols->Library, #name, symbols->name);            \
      !status.ok())                                                            \
    return Status(StatusCode::Unavailable,                                     \
                  strCat("the CUDA driver is too old: ", status.message()),    \
                  status.file(), status.line());
#include "runtime/hal/drivers/cuda/CudaSymbols.def"
#undef KILN_CUDA_SYMBOL
  return std::shared_ptr<const CudaSymbols>(std::move(symbols));
}

} // namespace kiln::hal::cuda
