//===- ChipTable.h - A vendor's table of chip, code and product names -----===//
//
// The CUDA and AMD back ends each keep one table of the chips they know:
// a row per chip (its facts as the vendor's target struct), each with the
// code and product names that also mean it, a product giving its own
// processor count. The lookup and the name list are the same for both.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_TARGET_CHIPTABLE_H
#define KILN_COMPILER_TARGET_CHIPTABLE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// A code name (Processors 0: the chip's own count) or a product.
struct ChipAlias {
  llvm::StringLiteral Name;
  int64_t Processors;
};

/// One chip: `Facts` (the vendor's target struct) has a `Chip` name and a
/// processor count member.
template <typename Facts> struct ChipRow {
  Facts Target;
  /// Code and product names that mean this chip.
  std::initializer_list<ChipAlias> Aliases;
};

/// The chip `name` names in `rows` (a chip, or a code or product name),
/// with a product's processor count in `processors`.
template <typename Facts>
std::optional<Facts> resolveChip(llvm::ArrayRef<ChipRow<Facts>> rows,
                                 llvm::StringRef name,
                                 int64_t Facts::*processors) {
  for (const ChipRow<Facts> &row : rows) {
    if (row.Target.Chip == name)
      return row.Target;
    for (const ChipAlias &alias : row.Aliases) {
      if (alias.Name != name)
        continue;
      Facts target = row.Target;
      if (alias.Processors)
        target.*processors = alias.Processors;
      return target;
    }
  }
  return std::nullopt;
}

/// Every name `rows` knows, chips first.
template <typename Facts>
std::vector<std::string> chipNames(llvm::ArrayRef<ChipRow<Facts>> rows) {
  std::vector<std::string> names;
  for (const ChipRow<Facts> &row : rows)
    names.push_back(row.Target.Chip.str());
  for (const ChipRow<Facts> &row : rows)
    for (const ChipAlias &alias : row.Aliases)
      names.push_back(alias.Name.str());
  return names;
}

/// "hopper, h100, h200 -> sm_90a; ..." for a chip flag's --help: each
/// chip's code and product names.
template <typename Facts>
std::string describeChipAliases(llvm::ArrayRef<ChipRow<Facts>> rows) {
  std::string text;
  for (const ChipRow<Facts> &row : rows) {
    if (row.Aliases.size() == 0)
      continue;
    if (!text.empty())
      text += "; ";
    text += llvm::join(llvm::map_range(row.Aliases,
                                       [](const ChipAlias &alias) {
                                         return alias.Name.str();
                                       }),
                       ", ") +
            " -> " + row.Target.Chip.str();
  }
  return text;
}

/// The one error for a chip flag naming no chip: "unknown --cuda-target
/// 'x'; known: sm_60, ...".
inline std::string unknownChipMessage(llvm::StringRef flag,
                                      llvm::StringRef value,
                                      llvm::ArrayRef<std::string> known) {
  return ("unknown --" + flag + " '" + value +
          "'; known: " + llvm::join(known, ", "))
      .str();
}

} // namespace kiln

#endif // KILN_COMPILER_TARGET_CHIPTABLE_H
