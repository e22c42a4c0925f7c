//===- Driver.cpp ---------------------------------------------------------===//

#include "runtime/hal/Driver.h"

namespace kiln::hal {

Driver::~Driver() = default;

Status Driver::setOption(std::string_view key, std::string_view) {
  return KILN_ERROR(InvalidArgument, "the ", name(), " driver has no option '",
                    key, "'");
}

} // namespace kiln::hal
