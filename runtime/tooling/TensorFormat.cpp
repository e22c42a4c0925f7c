//===- TensorFormat.cpp ---------------------------------------------------===//

#include "runtime/tooling/TensorFormat.h"

#include "runtime/base/Status.h"
#include "runtime/tooling/HalfFloat.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace kiln::tooling {

namespace {

template <typename T> T load(const uint8_t *data) {
  T value;
  std::memcpy(&value, data, sizeof(T));
  return value;
}

std::string formatFloat(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*g", digits, value);
  return buffer;
}

std::string formatInteger(int64_t value) { return std::to_string(value); }
std::string formatUnsigned(uint64_t value) { return std::to_string(value); }

class Formatter {
public:
  explicit Formatter(const HostTensor &tensor)
      : Tensor(tensor), ElementSize(elementTypeSize(tensor.Type)) {}

  std::string run() {
    Out = Tensor.typeString() + "=";
    if (Tensor.Shape.empty()) {
      Out += formatElement(Tensor.Type, Tensor.Data.data());
      return Out;
    }
    // No values, so nothing to print: brackets for each empty row would
    // make the line as long as the product of the other dimensions, which
    // cost no memory (1000000x1000000x0xf32).
    if (Tensor.Data.empty())
      return Out;
    if (Tensor.Shape.size() == 1) {
      row(0, static_cast<size_t>(Tensor.Shape[0]));
      return Out;
    }
    // Outer level unbracketed, every inner level bracketed.
    size_t rowLength = static_cast<size_t>(Tensor.Shape.back());
    size_t index = 0;
    for (int64_t i = 0; i < Tensor.Shape[0]; ++i)
      level(1, index, rowLength);
    return Out;
  }

private:
  void row(size_t first, size_t count) {
    for (size_t i = 0; i < count; ++i) {
      if (i)
        Out += ' ';
      Out += formatElement(Tensor.Type,
                           Tensor.Data.data() + (first + i) * ElementSize);
    }
  }

  void level(size_t dim, size_t &index, size_t rowLength) {
    Out += '[';
    if (dim + 1 == Tensor.Shape.size()) {
      row(index, rowLength);
      index += rowLength;
    } else {
      for (int64_t i = 0; i < Tensor.Shape[dim]; ++i)
        level(dim + 1, index, rowLength);
    }
    Out += ']';
  }

  const HostTensor &Tensor;
  size_t ElementSize;
  std::string Out;
};

} // namespace

std::string formatElement(ElementType type, const uint8_t *data) {
  switch (type) {
  case ElementType::F32:
    return formatFloat(load<float>(data), 7);
  case ElementType::F16:
    return formatFloat(halfToFloat(load<uint16_t>(data)), 5);
  case ElementType::BF16:
    return formatFloat(bfloat16ToFloat(load<uint16_t>(data)), 4);
  case ElementType::F64:
    return formatFloat(load<double>(data), 15);
  case ElementType::I1:
    return data[0] ? "1" : "0";
  case ElementType::I8:
    return formatInteger(load<int8_t>(data));
  case ElementType::I16:
    return formatInteger(load<int16_t>(data));
  case ElementType::I32:
    return formatInteger(load<int32_t>(data));
  case ElementType::I64:
    return formatInteger(load<int64_t>(data));
  case ElementType::U8:
    return formatUnsigned(load<uint8_t>(data));
  case ElementType::U16:
    return formatUnsigned(load<uint16_t>(data));
  case ElementType::U32:
    return formatUnsigned(load<uint32_t>(data));
  case ElementType::U64:
    return formatUnsigned(load<uint64_t>(data));
  }
  return "?";
}

std::string formatTensor(const HostTensor &tensor) {
  int64_t count = 1;
  for (int64_t dim : tensor.Shape) {
    if (dim < 0 || __builtin_mul_overflow(count, dim, &count))
      return tensor.typeString() + "=<invalid shape>";
  }
  uint64_t byteSize = 0;
  if (elementTypeSize(tensor.Type) == 0 ||
      __builtin_mul_overflow(static_cast<uint64_t>(count),
                             elementTypeSize(tensor.Type), &byteSize) ||
      tensor.Data.size() != byteSize)
    return strCat(tensor.typeString(), "=<", tensor.Data.size(),
                  " bytes, which do not match the shape>");
  return Formatter(tensor).run();
}

} // namespace kiln::tooling
