//===- AliasedFlag.h - A string flag and its other spellings ----*- C++ -*-===//
//
// Kiln's compiler flags also answer to IREE's spellings (--cuda-target is
// --iree-cuda-target, --hip-target is --iree-hip-target and
// --iree-rocm-target-chip): one option and an alias per other name, each
// alias's help naming the option.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_ALIASEDFLAG_H
#define KILN_TOOLS_ALIASEDFLAG_H

#include "compiler/target/ChipTable.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

namespace kiln {

class AliasedFlag {
public:
  AliasedFlag(llvm::StringRef name, llvm::StringRef init,
              std::initializer_list<const char *> aliases,
              llvm::cl::OptionCategory &category, llvm::StringRef help = "")
      : AliasHelp(("Alias for --" + name).str()),
        Value(name, llvm::cl::init(init.str()), llvm::cl::desc(help),
              llvm::cl::cat(category)) {
    for (const char *alias : aliases)
      Aliases.push_back(std::make_unique<llvm::cl::alias>(
          llvm::StringRef(alias), llvm::cl::desc(AliasHelp),
          llvm::cl::aliasopt(Value)));
  }

  /// For help text computed at run time (a chip table's names).
  void setHelp(std::string help) {
    Help = std::move(help);
    Value.setDescription(Help);
  }

  const std::string &value() const { return Value.getValue(); }
  llvm::StringRef name() const { return Value.ArgStr; }

private:
  std::string AliasHelp, Help;
  llvm::cl::opt<std::string> Value;
  std::vector<std::unique_ptr<llvm::cl::alias>> Aliases;
};

/// False, after a one-line error listing `known`, when `flag` names no chip
/// of its table (`found` is the table's answer).
inline bool checkChipFlag(const AliasedFlag &flag, bool found,
                          const std::vector<std::string> &known) {
  if (found)
    return true;
  llvm::errs() << "error: "
               << unknownChipMessage(flag.name(), flag.value(), known) << "\n";
  return false;
}

} // namespace kiln

#endif // KILN_TOOLS_ALIASEDFLAG_H
