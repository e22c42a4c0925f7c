//===- LocalEvent.h - Event of the local drivers --------------------------===//
//
// Local command buffers run their commands in levels, and a waitEvent
// starts a new level as a barrier does (everything before the signal is
// before it too), so the event itself carries no state.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_LOCAL_LOCALEVENT_H
#define KILN_RUNTIME_HAL_DRIVERS_LOCAL_LOCALEVENT_H

#include "runtime/hal/Event.h"

namespace kiln::hal::local {

class LocalEvent final : public Event {
public:
  LocalEvent() = default;
};

} // namespace kiln::hal::local

#endif // KILN_RUNTIME_HAL_DRIVERS_LOCAL_LOCALEVENT_H
