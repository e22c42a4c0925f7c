//===- FlagParser.h - Command-line flags for the runtime tools ------------===//
//
// Hand-rolled so the runtime tools stay free of LLVM: `--flag=value` and
// `--flag value`, booleans as `--flag` or `--flag=true|false`, repeatable
// list flags, optional positional arguments, `--` ending the flags. One dash
// works as well as two (`-flag=value`), as in IREE's and LLVM's tools, and
// a flag may have aliases: the spellings users paste from other stacks'
// documentation. The help text is generated from the registrations, so it
// lists exactly the flags and aliases that parse.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_TOOLING_FLAGPARSER_H
#define KILN_RUNTIME_TOOLING_FLAGPARSER_H

#include "runtime/base/Status.h"

#include <cstdint>
#include <functional>
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
  /// Makes `alias` another spelling of the flag `target`; the help lists it
  /// under the target. An alias of a flag never registered matches nothing.
  void addAlias(std::string alias, std::string_view target);
  /// Turns one flag value into several values of a list flag.
  using Splitter =
      std::function<StatusOr<std::vector<std::string>>(std::string_view)>;
  /// Makes `alias` a flag whose value `split` turns into values appended to
  /// the list flag `target`, in order (several inputs in one flag, say).
  /// `help` says how the value is split.
  void addSplittingAlias(std::string alias, std::string_view target,
                         Splitter split, std::string help, std::string example);
  /// Accepts arguments that are not flags; without this they are errors.
  void allowPositional(std::vector<std::string> *values, std::string help);

  /// Parses argv[1..argc-1]; unknown flags and bad values are errors naming
  /// the flag.
  Status parse(int argc, const char *const *argv);

  /// Whether `name` appeared on the command line (even with an empty value),
  /// under its own name or an alias.
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

  struct Alias {
    std::string Name;
    std::string Target;
    Splitter Split; // empty for a plain alias
    std::string Help;
    std::string Example;
  };
  // A flag as the command line names it: the flag, and the alias used.
  struct Spelled {
    const Flag *Target = nullptr;
    const Alias *Via = nullptr;
  };

  Spelled find(std::string_view name) const;
  // Whether `arg` is a flag this parser knows (`--module`, `-driver=cuda`).
  bool isKnownFlag(std::string_view arg) const;
  // `spelled` is the name as written, for messages.
  Status assign(const Flag &flag, std::string_view spelled,
                std::string_view value);
  Status assign(const Spelled &flag, std::string_view spelled,
                std::string_view value);

  std::string Usage;
  std::string Summary;
  std::vector<Flag> Flags;
  std::vector<Alias> Aliases;
  std::vector<std::string> SetNames;
  std::vector<std::string> *Positional = nullptr;
  std::string PositionalHelp;
};

} // namespace kiln::tooling

#endif // KILN_RUNTIME_TOOLING_FLAGPARSER_H
