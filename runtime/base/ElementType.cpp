//===- ElementType.cpp ----------------------------------------------------===//

#include "runtime/base/ElementType.h"

#include <string>

namespace kiln {

namespace {
struct TypeInfo {
  ElementType Type;
  std::string_view Name;
  size_t Size;
};
constexpr TypeInfo kTypes[] = {
    {ElementType::F32, "f32", 4},   {ElementType::F16, "f16", 2},
    {ElementType::BF16, "bf16", 2}, {ElementType::F64, "f64", 8},
    {ElementType::I1, "i1", 1},     {ElementType::I8, "i8", 1},
    {ElementType::I16, "i16", 2},   {ElementType::I32, "i32", 4},
    {ElementType::I64, "i64", 8},   {ElementType::U8, "ui8", 1},
    {ElementType::U16, "ui16", 2},  {ElementType::U32, "ui32", 4},
    {ElementType::U64, "ui64", 8},
};
} // namespace

size_t elementTypeSize(ElementType type) {
  for (const TypeInfo &info : kTypes)
    if (info.Type == type)
      return info.Size;
  return 0;
}

std::string_view elementTypeName(ElementType type) {
  for (const TypeInfo &info : kTypes)
    if (info.Type == type)
      return info.Name;
  return "?";
}

std::optional<ElementType> parseElementType(std::string_view name) {
  if (name.size() > 1 && name[0] == 'u' && name[1] != 'i')
    return parseElementType(std::string("ui") + std::string(name.substr(1)));
  for (const TypeInfo &info : kTypes)
    if (info.Name == name)
      return info.Type;
  return std::nullopt;
}

} // namespace kiln
