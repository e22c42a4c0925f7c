//===- TensorParser.cpp ---------------------------------------------------===//

#include "runtime/tooling/TensorParser.h"

#include "runtime/module/Verifier.h"
#include "runtime/tooling/HalfFloat.h"
#include "runtime/tooling/Npy.h"
#include "runtime/tooling/TensorAllocation.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

namespace kiln::tooling {

namespace {

constexpr size_t kMaxQuotedChars = 96;
constexpr std::string_view kKnownTypes =
    "f32, f16, bf16, f64, i1, i8, i16, i32, i64, ui8, ui16, ui32, ui64";

std::string_view trim(std::string_view text) {
  size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos)
    return {};
  size_t end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

// Long inputs (a splat of a big tensor written out) stay readable in errors.
std::string shorten(std::string_view text) {
  if (text.size() <= kMaxQuotedChars)
    return std::string(text);
  return strCat(text.substr(0, kMaxQuotedChars), "...");
}

bool isSeparator(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',';
}

template <typename T>
Status parseInteger(std::string_view token, ElementType type, uint8_t *out) {
  std::string_view digits = token;
  if (!digits.empty() && digits[0] == '+')
    digits.remove_prefix(1);
  bool negative = !digits.empty() && digits[0] == '-';
  std::string_view magnitude = negative ? digits.substr(1) : digits;
  if (magnitude.empty() ||
      magnitude.find_first_not_of("0123456789") != std::string_view::npos)
    return KILN_ERROR(InvalidArgument, "value '", shorten(token),
                      "' is not an integer (for ", elementTypeName(type), ")");
  // Parse as the widest type of the same signedness, then range-check, so
  // "300" for i8 reads "out of range" rather than "not an integer".
  using Wide = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
  Wide value = 0;
  bool inRange;
  if constexpr (std::is_unsigned_v<T>) {
    inRange =
        !negative || magnitude.find_first_not_of('0') == std::string_view::npos;
    digits = magnitude;
  } else {
    inRange = true;
  }
  if (inRange) {
    auto result =
        std::from_chars(digits.data(), digits.data() + digits.size(), value);
    inRange = result.ec == std::errc() &&
              value >= static_cast<Wide>(std::numeric_limits<T>::min()) &&
              value <= static_cast<Wide>(std::numeric_limits<T>::max());
  }
  if (!inRange)
    return KILN_ERROR(InvalidArgument, "value '", shorten(token),
                      "' is out of range for ", elementTypeName(type), " [",
                      +std::numeric_limits<T>::min(), ", ",
                      +std::numeric_limits<T>::max(), "]");
  T narrow = static_cast<T>(value);
  std::memcpy(out, &narrow, sizeof(T));
  return Status();
}

StatusOr<double> parseFloating(std::string_view token, ElementType type) {
  // strtod needs a terminator; it also accepts leading spaces, which a token
  // never has.
  std::string copy(token);
  errno = 0;
  char *end = nullptr;
  double value = std::strtod(copy.c_str(), &end);
  if (copy.empty() || end != copy.c_str() + copy.size() ||
      std::isspace(static_cast<unsigned char>(copy[0])))
    return KILN_ERROR(InvalidArgument, "value '", shorten(token),
                      "' is not a number (for ", elementTypeName(type), ")");
  // Underflow to zero or a subnormal is fine; overflow is not.
  if (errno == ERANGE && std::isinf(value))
    return KILN_ERROR(InvalidArgument, "value '", shorten(token),
                      "' is out of range for ", elementTypeName(type));
  return value;
}

Status parseBool(std::string_view token, uint8_t *out) {
  std::string lower(token);
  for (char &c : lower)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "true" || lower == "1") {
    *out = 1;
    return Status();
  }
  if (lower == "false" || lower == "0") {
    *out = 0;
    return Status();
  }
  return KILN_ERROR(InvalidArgument, "value '", shorten(token),
                    "' is not a boolean (for i1: true, false, 1 or 0)");
}

// A parsed value list: plain values and [...] groups.
struct Node {
  bool IsGroup = false;
  std::string_view Token;
  std::vector<Node> Children;
};

class ValueParser {
public:
  explicit ValueParser(std::string_view text) : Text(text) {}

  Status parse(std::vector<Node> &out) {
    KILN_RETURN_IF_ERROR(parseItems(out, 0));
    return Status();
  }

private:
  Status parseItems(std::vector<Node> &out, size_t depth) {
    while (true) {
      while (Pos < Text.size() && isSeparator(Text[Pos]))
        ++Pos;
      if (Pos == Text.size()) {
        if (depth > 0)
          return KILN_ERROR(InvalidArgument, "missing ']'");
        return Status();
      }
      char c = Text[Pos];
      if (c == '[') {
        // Deeper than any allowed rank: stop before recursion gets deep.
        if (depth >= module::kMaxTensorRank + 1)
          return KILN_ERROR(InvalidArgument, "brackets are nested more than ",
                            module::kMaxTensorRank + 1, " deep");
        ++Pos;
        Node group;
        group.IsGroup = true;
        KILN_RETURN_IF_ERROR(parseItems(group.Children, depth + 1));
        out.push_back(std::move(group));
        continue;
      }
      if (c == ']') {
        if (depth == 0)
          return KILN_ERROR(InvalidArgument, "unmatched ']' at offset ", Pos);
        ++Pos;
        return Status();
      }
      size_t begin = Pos;
      while (Pos < Text.size() && !isSeparator(Text[Pos]) && Text[Pos] != '[' &&
             Text[Pos] != ']')
        ++Pos;
      Node value;
      value.Token = Text.substr(begin, Pos - begin);
      out.push_back(std::move(value));
    }
  }

  std::string_view Text;
  size_t Pos = 0;
};

std::string indexPath(const std::vector<size_t> &path) {
  std::string result;
  for (size_t index : path)
    result += strCat("[", index, "]");
  return result;
}

// Matches bracket groups against the shape, collecting values in row-major
// order.
class ShapeMatcher {
public:
  ShapeMatcher(const std::vector<int64_t> &shape, std::string typeString)
      : Shape(shape), TypeString(std::move(typeString)) {}

  Status match(const std::vector<Node> &items, size_t level,
               std::vector<std::string_view> &values) {
    size_t groups = 0;
    for (const Node &item : items)
      groups += item.IsGroup ? 1 : 0;
    std::string where =
        Path.empty() ? std::string() : strCat(" in ", indexPath(Path));
    if (groups != 0 && groups != items.size()) {
      std::string_view stray;
      for (const Node &item : items)
        if (!item.IsGroup && stray.empty())
          stray = item.Token;
      return KILN_ERROR(InvalidArgument, "brackets do not match the shape of ",
                        TypeString, ": value '", shorten(stray),
                        "' is mixed with [...] groups", where);
    }
    auto expected = static_cast<size_t>(Shape[level]);
    bool leaf = level + 1 == Shape.size();
    if (leaf) {
      if (groups != 0)
        return KILN_ERROR(InvalidArgument,
                          "brackets do not match the shape of ", TypeString,
                          ": too many nested brackets", where);
      if (items.size() != expected)
        return KILN_ERROR(InvalidArgument, "expected ", expected, " values",
                          Path.empty() ? " for " : strCat(where, " of "),
                          TypeString, ", got ", items.size());
      for (const Node &item : items)
        values.push_back(item.Token);
      return Status();
    }
    if (groups == 0 && !items.empty())
      return KILN_ERROR(InvalidArgument, "brackets do not match the shape of ",
                        TypeString, ": expected ", expected, " [...] groups",
                        where, ", got ", items.size(), " values");
    if (items.size() != expected)
      return KILN_ERROR(InvalidArgument, "brackets do not match the shape of ",
                        TypeString, ": expected ", expected, " [...] groups",
                        where, ", got ", items.size());
    for (size_t i = 0; i < items.size(); ++i) {
      Path.push_back(i);
      KILN_RETURN_IF_ERROR(match(items[i].Children, level + 1, values));
      Path.pop_back();
    }
    return Status();
  }

private:
  const std::vector<int64_t> &Shape;
  std::string TypeString;
  std::vector<size_t> Path;
};

// Fills a tensor of `type` from the text after '=', or with zeros when there
// is no '='. Memory is allocated only once the values are known to fit the
// type, so a malformed string costs nothing however large its type.
Status parseValues(const ParsedTensorType &type,
                   std::optional<std::string_view> text, HostTensor &result) {
  result.Type = type.Type;
  result.Shape = type.Shape;
  if (!text) {
    KILN_ASSIGN_OR_RETURN(result, allocateHostTensor(type.Type, type.Shape));
    return Status();
  }
  std::vector<Node> items;
  KILN_RETURN_IF_ERROR(ValueParser(*text).parse(items));
  std::string typeString = result.typeString();
  auto count = static_cast<size_t>(result.elementCount());
  bool anyGroup = false;
  for (const Node &item : items)
    anyGroup |= item.IsGroup;

  size_t elementSize = elementTypeSize(type.Type);
  std::vector<std::string_view> values;
  if (!anyGroup) {
    if (items.size() == 1 && count != 1) {
      // A splat: its one value is parsed before the tensor is allocated.
      std::vector<uint8_t> element(elementSize);
      KILN_RETURN_IF_ERROR(
          parseElement(items[0].Token, type.Type, element.data()));
      KILN_ASSIGN_OR_RETURN(result, allocateHostTensor(type.Type, type.Shape));
      for (size_t i = 0; i < count; ++i)
        std::memcpy(result.Data.data() + i * elementSize, element.data(),
                    elementSize);
      return Status();
    }
    if (items.size() != count)
      return KILN_ERROR(InvalidArgument, "expected ", count, " values for ",
                        typeString, ", got ", items.size());
    for (const Node &item : items)
      values.push_back(item.Token);
  } else {
    if (result.Shape.empty())
      return KILN_ERROR(InvalidArgument, "a rank-0 tensor (", typeString,
                        ") takes one value without brackets");
    ShapeMatcher matcher(result.Shape, typeString);
    Status status;
    if (items.size() == 1 && items[0].IsGroup) {
      // Fully bracketed ("[[1 2][3 4]]"), or, for a leading dim of 1, the
      // outer brackets left out as the result printer does ("[1 2 3]").
      status = matcher.match(items[0].Children, 0, values);
      if (!status.ok() && result.Shape[0] == 1) {
        values.clear();
        ShapeMatcher outerless(result.Shape, typeString);
        if (outerless.match(items, 0, values).ok())
          status = Status();
      }
    } else {
      status = matcher.match(items, 0, values);
    }
    KILN_RETURN_IF_ERROR(status);
  }
  // Every element has a token of its own here, so the tensor is at most 8
  // bytes per character of the text.
  KILN_ASSIGN_OR_RETURN(result, allocateHostTensor(type.Type, type.Shape));
  for (size_t i = 0; i < values.size(); ++i)
    KILN_RETURN_IF_ERROR(parseElement(values[i], type.Type,
                                      result.Data.data() + i * elementSize));
  return Status();
}

} // namespace

StatusOr<ParsedTensorType> parseTensorType(std::string_view text) {
  text = trim(text);
  if (text.empty())
    return KILN_ERROR(InvalidArgument, "missing tensor type (like 4xf32)");
  ParsedTensorType result;
  size_t begin = 0;
  while (true) {
    size_t x = text.find('x', begin);
    if (x == std::string_view::npos)
      break;
    std::string_view dim = text.substr(begin, x - begin);
    if (dim == "?")
      return KILN_ERROR(InvalidArgument, "dynamic dimension '?' in '",
                        shorten(text), "': give a static size");
    int64_t value = 0;
    auto [end, error] =
        std::from_chars(dim.data(), dim.data() + dim.size(), value);
    if (dim.empty() || error != std::errc() || end != dim.data() + dim.size() ||
        value < 0 || dim[0] == '-')
      return KILN_ERROR(InvalidArgument, "bad dimension '", shorten(dim),
                        "' in '", shorten(text),
                        "': expected a non-negative integer");
    result.Shape.push_back(value);
    if (result.Shape.size() > module::kMaxTensorRank)
      return KILN_ERROR(InvalidArgument, "rank of '", shorten(text),
                        "' exceeds the maximum of ", module::kMaxTensorRank);
    begin = x + 1;
  }
  std::string_view typeName = text.substr(begin);
  if (typeName.empty())
    return KILN_ERROR(InvalidArgument, "missing element type in '",
                      shorten(text), "' (known: ", kKnownTypes, ")");
  std::optional<ElementType> type = parseElementType(typeName);
  if (!type)
    return KILN_ERROR(InvalidArgument, "unknown element type '",
                      shorten(typeName), "' (known: ", kKnownTypes, ")");
  result.Type = *type;
  KILN_RETURN_IF_ERROR(tensorByteSize(result.Shape, result.Type).status());
  return result;
}

Status parseElement(std::string_view token, ElementType type, uint8_t *out) {
  switch (type) {
  case ElementType::I1:
    return parseBool(token, out);
  case ElementType::I8:
    return parseInteger<int8_t>(token, type, out);
  case ElementType::I16:
    return parseInteger<int16_t>(token, type, out);
  case ElementType::I32:
    return parseInteger<int32_t>(token, type, out);
  case ElementType::I64:
    return parseInteger<int64_t>(token, type, out);
  case ElementType::U8:
    return parseInteger<uint8_t>(token, type, out);
  case ElementType::U16:
    return parseInteger<uint16_t>(token, type, out);
  case ElementType::U32:
    return parseInteger<uint32_t>(token, type, out);
  case ElementType::U64:
    return parseInteger<uint64_t>(token, type, out);
  case ElementType::F64: {
    KILN_ASSIGN_OR_RETURN(double value, parseFloating(token, type));
    std::memcpy(out, &value, sizeof(value));
    return Status();
  }
  case ElementType::F32:
  case ElementType::F16:
  case ElementType::BF16: {
    KILN_ASSIGN_OR_RETURN(double value, parseFloating(token, type));
    uint16_t half = 0;
    bool overflow = false;
    if (type == ElementType::F32) {
      auto single = static_cast<float>(value);
      overflow = std::isinf(single) && !std::isinf(value);
      std::memcpy(out, &single, sizeof(single));
    } else {
      half = type == ElementType::F16 ? doubleToHalf(value)
                                      : doubleToBFloat16(value);
      overflow =
          (half & 0x7fff) == (type == ElementType::F16 ? 0x7c00 : 0x7f80) &&
          !std::isinf(value);
      std::memcpy(out, &half, sizeof(half));
    }
    if (overflow)
      return KILN_ERROR(InvalidArgument, "value '", shorten(token),
                        "' is out of range for ", elementTypeName(type));
    return Status();
  }
  }
  return KILN_ERROR(InvalidArgument, "unknown element type ",
                    unsigned(static_cast<uint8_t>(type)));
}

StatusOr<HostTensor> parseTensor(std::string_view text,
                                 const TensorTypeCheck &check) {
  std::string_view trimmed = trim(text);
  if (!trimmed.empty() && trimmed[0] == '@') {
    std::string path(trim(trimmed.substr(1)));
    if (path.empty())
      return KILN_ERROR(InvalidArgument, "invalid tensor '", shorten(text),
                        "': missing file name after '@'");
    return readNpy(path, check);
  }
  std::string context = strCat("invalid tensor '", shorten(text), "'");
  size_t equals = trimmed.find('=');
  auto type = parseTensorType(trimmed.substr(0, equals));
  if (!type.ok())
    return Status(type.status()).annotate(context);
  // The caller's verdict on the type is its own error, not a malformed
  // string.
  if (check)
    KILN_RETURN_IF_ERROR(check(*type));
  std::optional<std::string_view> values;
  if (equals != std::string_view::npos)
    values = trimmed.substr(equals + 1);
  HostTensor result;
  Status status = parseValues(*type, values, result);
  if (!status.ok())
    return status.annotate(context);
  return result;
}

} // namespace kiln::tooling
