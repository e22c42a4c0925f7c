//===- CudaContext.cpp ----------------------------------------------------===//

#include "runtime/hal/drivers/cuda/CudaContext.h"

namespace kiln::hal::cuda {

StatusOr<std::shared_ptr<CudaContext>>
CudaContext::retain(std::shared_ptr<const CudaSymbols> symbols,
                    CUdevice device) {
  CUcontext context = nullptr;
  KILN_RETURN_IF_ERROR(
      KILN_CUDA_CALL(*symbols, cuDevicePrimaryCtxRetain, &context, device));
  return std::shared_ptr<CudaContext>(
      new CudaContext(std::move(symbols), device, context));
}

CudaContext::~CudaContext() {
  // Nothing to report to: the release only fails for a bad device.
  Symbols->cuDevicePrimaryCtxRelease_v2(Device);
}

CudaContext::Scope::Scope(const CudaContext &context)
    : Symbols(context.symbols()) {
  // Push fails only for an invalid context, which retain() rules out.
  Symbols.cuCtxPushCurrent_v2(context.context());
}

CudaContext::Scope::~Scope() {
  CUcontext popped = nullptr;
  Symbols.cuCtxPopCurrent_v2(&popped);
}

} // namespace kiln::hal::cuda
