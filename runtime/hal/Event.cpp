//===- Event.cpp ----------------------------------------------------------===//

#include "runtime/hal/Event.h"

namespace kiln::hal {

Event::~Event() = default;

} // namespace kiln::hal
