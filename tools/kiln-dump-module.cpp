//===- kiln-dump-module.cpp - Describe a Kiln module ----------------------===//
//
// Prints a module's functions (signatures, arena, steps), executables
// (variants, entry points) and constants size. Needs no device.
//
//===----------------------------------------------------------------------===//

#include "runtime/module/ModuleFile.h"
#include "runtime/tooling/FlagParser.h"
#include "runtime/tooling/ModuleDump.h"
#include "runtime/tooling/ToolMain.h"

#include <iostream>

using namespace kiln;

int main(int argc, char **argv) {
  return tooling::runToolMain([&]() -> Status {
    std::string modulePath;
    bool help = false;
    std::vector<std::string> positional;
    tooling::FlagParser flags(
        "kiln-dump-module [--module=]<module.kiln>",
        "Prints the functions, steps, executables and constants of a Kiln "
        "module after verifying it.");
    flags.addString("module", &modulePath, "The module file to describe.",
                    "model.kiln");
    flags.addBool("help", &help, "Prints this help and exits.");
    flags.allowPositional(&positional,
                          "<module.kiln>  the module file, instead of "
                          "--module");
    KILN_RETURN_IF_ERROR(flags.parse(argc, argv));
    if (help) {
      std::cout << flags.helpText();
      return Status();
    }
    if (positional.size() > 1 || (!positional.empty() && !modulePath.empty()))
      return KILN_ERROR(InvalidArgument,
                        "give exactly one module (--module=<file> or a "
                        "positional path)");
    if (!positional.empty())
      modulePath = positional[0];
    if (modulePath.empty())
      return KILN_ERROR(InvalidArgument,
                        "no module given; use --module=<file.kiln> (see "
                        "--help)");
    KILN_ASSIGN_OR_RETURN(auto file, module::ModuleFile::open(modulePath));
    std::cout << tooling::dumpModule(*file);
    return Status();
  });
}
