//===- Semaphore.cpp ------------------------------------------------------===//

#include "runtime/hal/Semaphore.h"

namespace kiln::hal {

Semaphore::~Semaphore() = default;

} // namespace kiln::hal
