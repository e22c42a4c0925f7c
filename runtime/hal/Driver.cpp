//===- Driver.cpp ---------------------------------------------------------===//

#include "runtime/hal/Driver.h"

namespace kiln::hal {

Driver::~Driver() = default;

} // namespace kiln::hal
