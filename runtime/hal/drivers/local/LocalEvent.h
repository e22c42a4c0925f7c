//===- LocalEvent.h - Event of the local drivers --------------------------===//
//
// Local command buffers run barrier-separated groups of commands, so a
// waitEvent is executed as a barrier and the event itself carries no state.
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
