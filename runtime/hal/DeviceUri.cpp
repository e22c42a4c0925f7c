//===- DeviceUri.cpp ------------------------------------------------------===//

#include "runtime/hal/DeviceUri.h"

#include <algorithm>

namespace kiln::hal {

namespace {

bool isLower(char c) { return c >= 'a' && c <= 'z'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isAlpha(char c) { return isLower(c) || (c >= 'A' && c <= 'Z'); }

bool isDriverChar(char c) {
  return isLower(c) || isDigit(c) || c == '-' || c == '_';
}
bool isKeyChar(char c) {
  return isAlpha(c) || isDigit(c) || c == '-' || c == '_' || c == '.';
}
// Printable ASCII other than space; the characters that delimit URI parts
// are rejected by the callers.
bool isVisibleAscii(char c) { return c > ' ' && c < 0x7f; }

int hexValue(char c) {
  if (isDigit(c))
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

class Parser {
public:
  explicit Parser(std::string_view text) : Text(text) {}

  Status error(std::string_view reason) const {
    return KILN_ERROR(InvalidArgument, "invalid device URI ",
                      quoteForMessage(Text), ": ", reason);
  }

  // Decodes a path or parameter value; `delimiters` may not appear raw.
  StatusOr<std::string> decode(std::string_view part, std::string_view what,
                               std::string_view delimiters) const {
    std::string out;
    out.reserve(part.size());
    for (size_t i = 0; i < part.size(); ++i) {
      char c = part[i];
      if (!isVisibleAscii(c))
        return error(strCat("invalid character ",
                            quoteForMessage(std::string_view(&c, 1)), " in ",
                            what, " (percent-encode it)"));
      if (delimiters.find(c) != std::string_view::npos || c == '#')
        return error(strCat("unexpected '", c, "' in ", what));
      if (c != '%') {
        out += c;
        continue;
      }
      int high = i + 2 < part.size() ? hexValue(part[i + 1]) : -1;
      int low = i + 2 < part.size() ? hexValue(part[i + 2]) : -1;
      if (high < 0 || low < 0)
        return error(strCat("bad percent escape in ", what));
      out += static_cast<char>(high * 16 + low);
      i += 2;
    }
    return out;
  }

  std::string_view Text;
};

} // namespace

std::string quoteForMessage(std::string_view text) {
  constexpr size_t kMaxShown = 200;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "'";
  for (size_t i = 0; i < text.size() && i < kMaxShown; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= ' ' && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (text.size() > kMaxShown)
    out += "...";
  out += "'";
  return out;
}

StatusOr<DeviceUri> DeviceUri::parse(std::string_view text) {
  Parser parser(text);
  if (text.empty())
    return parser.error("empty");
  DeviceUri uri;
  uri.Text = std::string(text);

  size_t driverEnd = 0;
  while (driverEnd < text.size() && isDriverChar(text[driverEnd]))
    ++driverEnd;
  std::string_view driver = text.substr(0, driverEnd);
  if (driver.empty() || !isLower(driver.front()))
    return parser.error("the driver name must start with a lowercase letter "
                        "and use only a-z, 0-9, '-' and '_'");
  uri.Driver = std::string(driver);

  std::string_view rest = text.substr(driverEnd);
  size_t queryStart = rest.find('?');
  std::string_view query = queryStart == std::string_view::npos
                               ? std::string_view()
                               : rest.substr(queryStart + 1);
  bool hasQuery = queryStart != std::string_view::npos;
  std::string_view locator = rest.substr(0, queryStart);

  if (locator.empty()) {
    uri.UriForm = Form::Bare;
  } else if (locator.substr(0, 3) == "://") {
    uri.UriForm = Form::Path;
    KILN_ASSIGN_OR_RETURN(uri.Path,
                          parser.decode(locator.substr(3), "the path", ""));
  } else if (locator.front() == ':') {
    uri.UriForm = Form::Ordinal;
    std::string_view digits = locator.substr(1);
    if (digits.empty())
      return parser.error("expected a device ordinal after ':' (or '://' "
                          "before a path)");
    if (!std::all_of(digits.begin(), digits.end(), isDigit))
      return parser.error(strCat("the device ordinal ", quoteForMessage(digits),
                                 " is not a decimal number (use '://' "
                                 "before a path)"));
    if (digits.size() > 1 && digits.front() == '0')
      return parser.error("the device ordinal has a leading zero");
    uint64_t value = 0;
    for (char c : digits) {
      value = value * 10 + static_cast<uint64_t>(c - '0');
      if (value > UINT32_MAX)
        return parser.error("the device ordinal is too large");
    }
    uri.Ordinal = static_cast<uint32_t>(value);
  } else {
    return parser.error(strCat("unexpected ",
                               quoteForMessage(locator.substr(0, 1)),
                               " after the driver name; expected ':N', "
                               "'://path' or '?key=value'"));
  }

  if (hasQuery) {
    if (query.empty())
      return parser.error("empty parameter list after '?'");
    size_t start = 0;
    while (start <= query.size()) {
      size_t end = query.find('&', start);
      if (end == std::string_view::npos)
        end = query.size();
      std::string_view item = query.substr(start, end - start);
      if (item.empty())
        return parser.error("empty parameter (stray '&')");
      size_t equals = item.find('=');
      if (equals == std::string_view::npos)
        return parser.error(
            strCat("parameter ", quoteForMessage(item), " has no '=value'"));
      std::string_view key = item.substr(0, equals);
      if (key.empty() || !std::all_of(key.begin(), key.end(), isKeyChar))
        return parser.error(strCat("bad parameter name ", quoteForMessage(key),
                                   " (use A-Z, a-z, 0-9, '-', '_', '.')"));
      KILN_ASSIGN_OR_RETURN(std::string value,
                            parser.decode(item.substr(equals + 1),
                                          strCat("the value of '", key, "'"),
                                          "=?"));
      if (uri.param(key))
        return parser.error(strCat("parameter '", key, "' given twice"));
      uri.Params.emplace_back(std::string(key), std::move(value));
      start = end + 1;
    }
  }
  return uri;
}

std::optional<std::string_view> DeviceUri::param(std::string_view key) const {
  for (const auto &[name, value] : Params)
    if (name == key)
      return std::string_view(value);
  return std::nullopt;
}

Status
DeviceUri::checkParams(std::initializer_list<std::string_view> known) const {
  for (const auto &param : Params) {
    if (std::find(known.begin(), known.end(), param.first) != known.end())
      continue;
    std::string knownList;
    for (std::string_view name : known)
      knownList += strCat(knownList.empty() ? "" : ", ", name);
    return KILN_ERROR(InvalidArgument, "unknown parameter '", param.first,
                      "' in device URI ", quoteForMessage(Text), "; the ",
                      Driver, " driver knows ",
                      knownList.empty() ? std::string("none") : knownList);
  }
  return Status();
}

StatusOr<std::optional<uint64_t>>
DeviceUri::uintParam(std::string_view key, uint64_t min, uint64_t max) const {
  std::optional<std::string_view> text = param(key);
  if (!text)
    return std::optional<uint64_t>();
  auto bad = [&]() {
    return KILN_ERROR(InvalidArgument, "parameter '", key, "' in device URI ",
                      quoteForMessage(Text), " must be an integer in [", min,
                      ", ", max, "], got ", quoteForMessage(*text));
  };
  if (text->empty() || text->size() > 20 ||
      !std::all_of(text->begin(), text->end(), isDigit))
    return bad();
  uint64_t value = 0;
  for (char c : *text) {
    uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10)
      return bad();
    value = value * 10 + digit;
  }
  if (value < min || value > max)
    return bad();
  return std::optional<uint64_t>(value);
}

StatusOr<std::optional<bool>> DeviceUri::boolParam(std::string_view key) const {
  std::optional<std::string_view> text = param(key);
  if (!text)
    return std::optional<bool>();
  if (*text == "1" || *text == "true")
    return std::optional<bool>(true);
  if (*text == "0" || *text == "false")
    return std::optional<bool>(false);
  return KILN_ERROR(InvalidArgument, "parameter '", key, "' in device URI ",
                    quoteForMessage(Text), " must be 1, 0, true or false, got ",
                    quoteForMessage(*text));
}

} // namespace kiln::hal
