//===- ModuleDump.h - Human-readable description of a module --------------===//
//
// What kiln-dump-module prints: functions with signatures and steps,
// executables with their variants and entry points, and the constants'
// size and place in the file.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_TOOLING_MODULEDUMP_H
#define KILN_RUNTIME_TOOLING_MODULEDUMP_H

#include "runtime/module/ModuleFile.h"

#include <string>

namespace kiln::tooling {

/// "(4xf32, 4xf32) -> (4xf32)" for a module function.
std::string functionSignatureString(const kiln::schema::Function &function);

/// The full multi-line description of a verified module.
std::string dumpModule(const module::ModuleFile &file);

} // namespace kiln::tooling

#endif // KILN_RUNTIME_TOOLING_MODULEDUMP_H
