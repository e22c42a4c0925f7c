//===- HelpFlags.h - Unknown flags that look like -h ------------*- C++ -*-===//
//
// LLVM's command line library lets single-letter options combine into
// groups, -h (help) among them, and prints the help and exits 0 the moment
// a group reaches h: an unknown flag starting with h (--hip-target=gfx942)
// looked like success to a script. The compilers' mains reject such flags
// before LLVM parses them.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_HELPFLAGS_H
#define KILN_TOOLS_HELPFLAGS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

namespace kiln {

/// False, after a one-line error, when an argument before "--" starts with
/// -h or --h and is no spelling of the help options nor a registered option
/// (--hip-target).
inline bool checkHelpLikeFlags(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    if (arg == "--")
      return true;
    llvm::StringRef name = arg;
    if (!name.consume_front("--") && !name.consume_front("-"))
      continue;
    name = name.split('=').first;
    if (!name.starts_with("h") || name == "h" || name == "help" ||
        name == "help-hidden" || name == "help-list" ||
        name == "help-list-hidden" ||
        llvm::cl::getRegisteredOptions().count(name))
      continue;
    llvm::errs() << "error: unknown option '" << arg << "' (see --help)\n";
    return false;
  }
  return true;
}

} // namespace kiln

#endif // KILN_TOOLS_HELPFLAGS_H
