//===- GpuEvent.h - Event of the GPU drivers ------------------------------===//
//
// The event carries no state. A submission runs a whole command buffer on
// its queue's one stream (a device's several queues are several streams,
// but a command buffer never spans two), so an event only orders commands
// within that stream: a stream-mode command buffer issues its commands
// into it in order, so waitEvent needs nothing; a graph-mode one turns
// signal/wait pairs into graph edges when it records them
// (GpuGraphDependencies). Work on different queues is ordered by
// semaphores (GpuSemaphore), not events.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_GPU_GPUEVENT_H
#define KILN_RUNTIME_HAL_DRIVERS_GPU_GPUEVENT_H

#include "runtime/hal/Event.h"

namespace kiln::hal::gpu {

class GpuEvent final : public Event {
public:
  GpuEvent() = default;
};

} // namespace kiln::hal::gpu

#endif // KILN_RUNTIME_HAL_DRIVERS_GPU_GPUEVENT_H
