//===- Event.h - Ordering between commands of one command buffer ----------===//
//
// Commands recorded after CommandBuffer::waitEvent(e) run after every
// command recorded before the matching signalEvent(e). Unlike a barrier it
// orders only those two groups, which a CUDA graph turns into exact edges.
// Events order commands of one command buffer only: a submission runs the
// whole buffer on one queue (one CUDA stream), so an event never has to
// cross queues. Work on different queues is ordered by semaphores.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_EVENT_H
#define KILN_RUNTIME_HAL_EVENT_H

namespace kiln::hal {

class Event {
public:
  virtual ~Event();

protected:
  Event() = default;
};

} // namespace kiln::hal

#endif // KILN_RUNTIME_HAL_EVENT_H
