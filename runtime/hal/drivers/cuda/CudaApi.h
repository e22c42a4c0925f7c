//===- CudaApi.h - The shared GPU layer's calls, made through libcuda -----===//
//
// Implements gpu::GpuApi for one device's primary context: the only place
// besides discovery (CudaDriver) and the executable checks (CudaDevice)
// where the runtime calls CUDA. Handles are CUDA's own (a GpuStreamHandle is
// a CUstream, a GpuFunctionHandle a CUfunction, ...), cast at the boundary.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDAAPI_H
#define KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDAAPI_H

#include "runtime/hal/drivers/cuda/CudaContext.h"
#include "runtime/hal/drivers/gpu/GpuApi.h"

#include <memory>

namespace kiln::hal::cuda {

class CudaApi final : public gpu::GpuApi {
public:
  explicit CudaApi(std::shared_ptr<CudaContext> context)
      : Context(std::move(context)) {}

  const CudaContext &context() const { return *Context; }

  std::string_view name() const override { return "CUDA"; }
  const void *contextId() const override { return Context->context(); }
  void bindThread() const override;

#include "runtime/hal/drivers/gpu/GpuApiOverrides.inc"

private:
  void pushContext() const override;
  void popContext() const override;
  const CudaSymbols &symbols() const { return Context->symbols(); }

  std::shared_ptr<CudaContext> Context;
};

} // namespace kiln::hal::cuda

#endif // KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDAAPI_H
