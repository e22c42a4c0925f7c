//===- HipApi.h - The shared GPU layer's calls, made through HIP ----------===//
//
// Implements gpu::GpuApi for one AMD GPU: with discovery (HipDriver) and
// the executable checks (HipDevice), the only place the runtime calls HIP.
// Handles are HIP's own (a GpuStreamHandle is a hipStream_t, a
// GpuFunctionHandle a hipFunction_t, ...), cast at the boundary.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_HIP_HIPAPI_H
#define KILN_RUNTIME_HAL_DRIVERS_HIP_HIPAPI_H

#include "runtime/hal/drivers/gpu/GpuApi.h"
#include "runtime/hal/drivers/hip/HipContext.h"

#include <memory>
#include <string>

namespace kiln::hal::hip {

class HipApi final : public gpu::GpuApi {
public:
  /// `targetId` is the GPU's ("gfx90a:sramecc+:xnack-"): code objects are
  /// checked against it before HIP sees them.
  HipApi(std::shared_ptr<HipContext> context, std::string targetId)
      : Context(std::move(context)), TargetId(std::move(targetId)) {}

  std::string_view name() const override { return "HIP"; }
  const void *contextId() const override { return Context.get(); }
  void bindThread() const override { Context->bind(); }

#include "runtime/hal/drivers/gpu/GpuApiOverrides.inc"

private:
  void pushContext() const override { Context->push(); }
  void popContext() const override { Context->pop(); }
  const HipSymbols &symbols() const { return Context->symbols(); }

  std::shared_ptr<HipContext> Context;
  std::string TargetId;
};

} // namespace kiln::hal::hip

#endif // KILN_RUNTIME_HAL_DRIVERS_HIP_HIPAPI_H
