//===- ElementType.h - Tensor element types known to the runtime ----------===//
//
// Values mirror kiln.schema.ElementType so a module's types convert by cast.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_BASE_ELEMENTTYPE_H
#define KILN_RUNTIME_BASE_ELEMENTTYPE_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace kiln {

enum class ElementType : uint8_t {
  F32 = 0,
  F16 = 1,
  BF16 = 2,
  F64 = 3,
  I1 = 4, // one byte per element
  I8 = 5,
  I16 = 6,
  I32 = 7,
  I64 = 8,
  U8 = 9,
  U16 = 10,
  U32 = 11,
  U64 = 12,
};

inline constexpr uint8_t kMaxElementType = 12;

/// Storage size of one element in bytes.
size_t elementTypeSize(ElementType type);

/// The spelling used in tensor strings and MLIR: "f32", "i1", "ui8", ...
std::string_view elementTypeName(ElementType type);

/// Parses the spelling produced by elementTypeName ("u8" is accepted too).
std::optional<ElementType> parseElementType(std::string_view name);

} // namespace kiln

#endif // KILN_RUNTIME_BASE_ELEMENTTYPE_H
