//===- FlagParser.cpp -----------------------------------------------------===//

#include "runtime/tooling/FlagParser.h"

#include <algorithm>
#include <charconv>

namespace kiln::tooling {

namespace {

constexpr size_t kHelpColumn = 30;

std::string shortened(std::string_view text) {
  if (text.size() <= 80)
    return std::string(text);
  return strCat(text.substr(0, 80), "...");
}

} // namespace

FlagParser::FlagParser(std::string usage, std::string summary)
    : Usage(std::move(usage)), Summary(std::move(summary)) {}

void FlagParser::addString(std::string name, std::string *value,
                           std::string help, std::string example) {
  Flags.push_back({std::move(name), Kind::String, value, 0, std::move(help),
                   std::move(example), *value});
}

void FlagParser::addList(std::string name, std::vector<std::string> *values,
                         std::string help, std::string example) {
  Flags.push_back({std::move(name), Kind::List, values, 0, std::move(help),
                   std::move(example), ""});
}

void FlagParser::addBool(std::string name, bool *value, std::string help) {
  Flags.push_back({std::move(name), Kind::Bool, value, 0, std::move(help), "",
                   *value ? "true" : ""});
}

void FlagParser::addInt(std::string name, int64_t *value, int64_t minimum,
                        std::string help, std::string example) {
  Flags.push_back({std::move(name), Kind::Int, value, minimum, std::move(help),
                   std::move(example), std::to_string(*value)});
}

void FlagParser::addAlias(std::string alias, std::string_view target) {
  Aliases.push_back({std::move(alias), std::string(target), {}, "", ""});
}

void FlagParser::addSplittingAlias(std::string alias, std::string_view target,
                                   Splitter split, std::string help,
                                   std::string example) {
  Aliases.push_back({std::move(alias), std::string(target), std::move(split),
                     std::move(help), std::move(example)});
}

void FlagParser::allowPositional(std::vector<std::string> *values,
                                 std::string help) {
  Positional = values;
  PositionalHelp = std::move(help);
}

FlagParser::Spelled FlagParser::find(std::string_view name) const {
  auto flagNamed = [&](std::string_view wanted) -> const Flag * {
    for (const Flag &flag : Flags)
      if (flag.Name == wanted)
        return &flag;
    return nullptr;
  };
  if (const Flag *flag = flagNamed(name))
    return {flag, nullptr};
  for (const Alias &alias : Aliases)
    if (alias.Name == name)
      return {flagNamed(alias.Target), &alias};
  return {};
}

bool FlagParser::isKnownFlag(std::string_view arg) const {
  if (arg.size() < 2 || arg[0] != '-')
    return false;
  std::string_view body = arg.substr(arg.starts_with("--") ? 2 : 1);
  return find(body.substr(0, body.find('='))).Target != nullptr;
}

Status FlagParser::assign(const Flag &flag, std::string_view spelled,
                          std::string_view value) {
  switch (flag.FlagKind) {
  case Kind::String:
    *static_cast<std::string *>(flag.Target) = std::string(value);
    return Status();
  case Kind::List:
    static_cast<std::vector<std::string> *>(flag.Target)->emplace_back(value);
    return Status();
  case Kind::Bool:
    if (value == "true" || value == "1") {
      *static_cast<bool *>(flag.Target) = true;
      return Status();
    }
    if (value == "false" || value == "0") {
      *static_cast<bool *>(flag.Target) = false;
      return Status();
    }
    return KILN_ERROR(InvalidArgument, "flag ", spelled,
                      " takes true or false, got '", shortened(value), "'");
  case Kind::Int: {
    int64_t number = 0;
    auto [end, error] =
        std::from_chars(value.data(), value.data() + value.size(), number);
    if (value.empty() || error != std::errc() ||
        end != value.data() + value.size())
      return KILN_ERROR(InvalidArgument, "flag ", spelled,
                        " takes an integer, got '", shortened(value), "'");
    if (number < flag.Minimum)
      return KILN_ERROR(InvalidArgument, "flag ", spelled,
                        " must be >= ", flag.Minimum, ", got ", number);
    *static_cast<int64_t *>(flag.Target) = number;
    return Status();
  }
  }
  return Status();
}

Status FlagParser::assign(const Spelled &flag, std::string_view spelled,
                          std::string_view value) {
  if (!flag.Via || !flag.Via->Split)
    return assign(*flag.Target, spelled, value);
  StatusOr<std::vector<std::string>> pieces = flag.Via->Split(value);
  if (!pieces.ok()) {
    Status status = pieces.status();
    return status.annotate(strCat("flag ", spelled));
  }
  for (const std::string &piece : *pieces)
    KILN_RETURN_IF_ERROR(assign(*flag.Target, spelled, piece));
  return Status();
}

Status FlagParser::parse(int argc, const char *const *argv) {
  bool flagsEnded = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i] ? argv[i] : "";
    bool isFlag = !flagsEnded && arg.size() > 1 && arg[0] == '-';
    if (!isFlag) {
      if (!Positional)
        return KILN_ERROR(InvalidArgument, "unexpected argument '",
                          shortened(arg),
                          "' (flags start with - or --; see --help)");
      Positional->emplace_back(arg);
      continue;
    }
    if (arg == "--") {
      flagsEnded = true;
      continue;
    }
    if (arg == "-h")
      arg = "--help";
    std::string_view body = arg.substr(arg.starts_with("--") ? 2 : 1);
    size_t equals = body.find('=');
    std::string_view name = body.substr(0, equals);
    // The flag as written, dashes included, so a message quotes the user.
    std::string spelled =
        strCat(arg.substr(0, arg.size() - body.size()), shortened(name));
    Spelled flag = find(name);
    if (!flag.Target)
      return KILN_ERROR(InvalidArgument, "unknown flag '", spelled,
                        "' (see --help)");
    SetNames.push_back(flag.Target->Name);
    if (equals != std::string_view::npos) {
      KILN_RETURN_IF_ERROR(assign(flag, spelled, body.substr(equals + 1)));
      continue;
    }
    if (flag.Target->FlagKind == Kind::Bool) {
      *static_cast<bool *>(flag.Target->Target) = true;
      continue;
    }
    // `--flag value`: a following flag is not taken as the value.
    if (i + 1 >= argc || !argv[i + 1] ||
        std::string_view(argv[i + 1]).starts_with("--") ||
        isKnownFlag(argv[i + 1])) {
      // A splitting alias's value is not the target's example.
      std::string example =
          flag.Via && flag.Via->Split ? "" : flag.Target->Example;
      return KILN_ERROR(InvalidArgument, "flag ", spelled, " needs a value (",
                        spelled, "=", example.empty() ? "..." : example, ")");
    }
    KILN_RETURN_IF_ERROR(assign(flag, spelled, argv[++i]));
  }
  return Status();
}

bool FlagParser::isSet(std::string_view name) const {
  return std::find(SetNames.begin(), SetNames.end(), name) != SetNames.end();
}

namespace {

constexpr size_t kHelpWidth = 80;

// Wraps `text` into lines that start at kHelpColumn and end by kHelpWidth.
std::string wrapped(std::string_view text) {
  std::string out;
  size_t column = kHelpColumn;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(' ', pos);
    if (end == std::string_view::npos)
      end = text.size();
    std::string_view word = text.substr(pos, end - pos);
    if (column > kHelpColumn && column + 1 + word.size() > kHelpWidth) {
      out += "\n" + std::string(kHelpColumn, ' ');
      column = kHelpColumn;
    } else if (column > kHelpColumn) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    pos = end + 1;
  }
  return out;
}

// Examples are meant to be pasted into a shell.
std::string shellQuoted(const std::string &value) {
  if (value.find_first_of(" []?*&;|<>()$'\"\\") == std::string::npos)
    return value;
  return "\"" + value + "\"";
}

} // namespace

std::string FlagParser::helpText() const {
  std::string text = strCat("Usage: ", Usage, "\n\n", Summary, "\n\nFlags:\n");
  for (const Flag &flag : Flags) {
    std::string left = "  --" + flag.Name;
    if (flag.FlagKind != Kind::Bool)
      left += "=<value>";
    std::string help = flag.Help;
    if (flag.FlagKind == Kind::List)
      help += " Repeatable.";
    if (!flag.Default.empty())
      help += strCat(" Default: ", flag.Default, ".");
    text += left;
    text += left.size() + 2 <= kHelpColumn
                ? std::string(kHelpColumn - left.size(), ' ')
                : "\n" + std::string(kHelpColumn, ' ');
    text += wrapped(help) + "\n";
    if (!flag.Example.empty())
      text += strCat(std::string(kHelpColumn, ' '), "e.g. --", flag.Name, "=",
                     shellQuoted(flag.Example), "\n");
    for (const Alias &alias : Aliases) {
      if (alias.Target != flag.Name)
        continue;
      std::string spelling = strCat(
          "--", alias.Name, flag.FlagKind == Kind::Bool ? "" : "=<value>");
      text += std::string(kHelpColumn, ' ') +
              wrapped(alias.Split ? strCat("Also ", spelling, ": ", alias.Help)
                                  : strCat("Also spelled ", spelling, "."));
      text += "\n";
      if (!alias.Example.empty())
        text += strCat(std::string(kHelpColumn, ' '), "e.g. --", alias.Name,
                       "=", shellQuoted(alias.Example), "\n");
    }
  }
  text += "\nA flag or alias may also start with a single dash: -name=value "
          "is --name=value.\n";
  if (Positional)
    text += strCat("\nPositional arguments:\n  ", PositionalHelp, "\n");
  return text;
}

} // namespace kiln::tooling
