//===- CudaEvent.h - Event of the CUDA driver -----------------------------===//
//
// A stream-mode command buffer issues its commands into one stream, which
// runs them in order, so waitEvent needs nothing and the event no state.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDAEVENT_H
#define KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDAEVENT_H

#include "runtime/hal/Event.h"

namespace kiln::hal::cuda {

class CudaEvent final : public Event {
public:
  CudaEvent() = default;
};

} // namespace kiln::hal::cuda

#endif // KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDAEVENT_H
