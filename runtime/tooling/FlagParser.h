//===- FlagParser.h - Command-line flags for the runtime tools ------------===//
//
// Hand-rolled so the runtime tools stay free of LLVM: `--flag=value` and
// `--flag value`, booleans as `--flag` or `--flag=true|false`, repeatable
// list flags, optional positional arguments, `--` ending the flags. The help
// text is generated from the registrations, so it lists exactly the flags
// that parse.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_TOOLING_FLAGPARSER_H
#define KILN_RUNTIME_TOOLING_FLAGPARSER_H

#include "runtime/base/Status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::tooling {

class FlagParser {
public:
  /// `usage` is the first help line ("kiln-run-module [flags]"), `summary`
  /// says what the tool does.
  FlagParser(std::string usage, std::string summary);

  void addString(std::string name, std::string *value, std::string help,
                 std::string example);
  void addList(std::string name, std::vector<std::string> *values,
               std::string help, std::string example);
  void addBool(std::string name, bool *value, std::string help);
  void addInt(std::string name, int64_t *value, int64_t minimum,
              std::string help, std::string example);
  /// Accepts arguments that are not flags; without this they are errors.
  void allowPositional(std::vector<std::string> *values, std::string help);

  /// Parses argv[1..argc-1]; unknown flags and bad values are errors naming
  /// the flag.
  Status parse(int argc, const char *const *argv);

  /// Whether `name` appeared on the command line (even with an empty value).
  bool isSet(std::string_view name) const;

  std::string helpText() const;

private:
  enum class Kind { String, List, Bool, Int };
  struct Flag {
    std::string Name;
    Kind FlagKind;
    void *Target;
    int64_t Minimum;
    std::string Help;
    std::string Example;
    std::string Default;
  };

  const Flag *find(std::string_view name) const;
  Status assign(const Flag &flag, std::string_view value);

  std::string Usage;
  std::string Summary;
  std::vector<Flag> Flags;
  std::vector<std::string> SetNames;
  std::vector<std::string> *Positional = nullptr;
  std::string PositionalHelp;
};

} // namespace kiln::tooling

#endif // KILN_RUNTIME_TOOLING_FLAGPARSER_H
