//===- CudaEvent.h - Event of the CUDA driver -----------------------------===//
//
// The event carries no state: a stream-mode command buffer issues its
// commands into one stream, which runs them in order, so waitEvent needs
// nothing; a graph-mode one turns signal/wait pairs into graph edges when
// it records them (CudaGraphDependencies).
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
