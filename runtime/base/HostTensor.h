//===- HostTensor.h - A dense tensor in host memory -----------------------===//
//
// What callers hand to and get back from module functions: the tensor-string
// parser and npy reader produce these, function invocation consumes them.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_BASE_HOSTTENSOR_H
#define KILN_RUNTIME_BASE_HOSTTENSOR_H

#include "runtime/base/ElementType.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {

struct HostTensor {
  ElementType Type = ElementType::F32;
  std::vector<int64_t> Shape;
  // Row-major, densely packed, elementTypeSize(Type) bytes per element.
  std::vector<uint8_t> Data;

  int64_t elementCount() const {
    int64_t n = 1;
    for (int64_t d : Shape)
      n *= d;
    return n;
  }
  /// "2x3xf32" (a rank-0 tensor is just "f32").
  std::string typeString() const;
};

/// Formats a shape and type as "2x3xf32".
std::string tensorTypeString(const std::vector<int64_t> &shape,
                             ElementType type);

} // namespace kiln

#endif // KILN_RUNTIME_BASE_HOSTTENSOR_H
