//===- CudaContext.h - A GPU's primary context, shared by its objects -----===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDACONTEXT_H
#define KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDACONTEXT_H

#include "runtime/hal/drivers/cuda/CudaStatus.h"

#include <memory>

namespace kiln::hal::cuda {

/// Retains the device's primary context (the one the CUDA runtime and other
/// libraries in the process use too) and releases it when the last device,
/// buffer or stream holding it is gone.
class CudaContext {
public:
  static StatusOr<std::shared_ptr<CudaContext>>
  retain(std::shared_ptr<const CudaSymbols> symbols, CUdevice device);
  ~CudaContext();
  CudaContext(const CudaContext &) = delete;
  CudaContext &operator=(const CudaContext &) = delete;

  const CudaSymbols &symbols() const { return *Symbols; }
  CUcontext context() const { return Context; }
  CUdevice device() const { return Device; }

  /// Makes the context current on this thread for the scope's lifetime:
  /// HAL calls arrive on any thread.
  class Scope {
  public:
    explicit Scope(const CudaContext &context);
    ~Scope();
    Scope(const Scope &) = delete;
    Scope &operator=(const Scope &) = delete;

  private:
    const CudaSymbols &Symbols;
  };

private:
  CudaContext(std::shared_ptr<const CudaSymbols> symbols, CUdevice device,
              CUcontext context)
      : Symbols(std::move(symbols)), Device(device), Context(context) {}

  std::shared_ptr<const CudaSymbols> Symbols;
  CUdevice Device;
  CUcontext Context;
};

} // namespace kiln::hal::cuda

#endif // KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDACONTEXT_H
