//===- HostTensor.cpp -----------------------------------------------------===//

#include "runtime/base/HostTensor.h"

namespace kiln {

std::string tensorTypeString(const std::vector<int64_t> &shape,
                             ElementType type) {
  std::string s;
  // A dynamic dimension (-1 in a module's signature) prints as MLIR's `?`.
  for (int64_t d : shape)
    s += (d < 0 ? std::string("?") : std::to_string(d)) + "x";
  s += elementTypeName(type);
  return s;
}

std::string HostTensor::typeString() const {
  return tensorTypeString(Shape, Type);
}

} // namespace kiln
