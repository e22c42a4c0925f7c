//===- ToolMain.h - The error contract shared by the runtime tools --------===//
//
// Every failure of a runtime tool is one line on stderr,
// "error: <Status::toString()>", and exit code 1: never a crash, a signal or
// an uncaught exception.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_TOOLING_TOOLMAIN_H
#define KILN_RUNTIME_TOOLING_TOOLMAIN_H

#include "runtime/base/Status.h"

#include <functional>

namespace kiln::tooling {

/// Runs `body` and turns its outcome into an exit code, reporting errors
/// (including a failed write of stdout) as one line on stderr.
int runToolMain(const std::function<Status()> &body);

/// Prints "error: <status>" to stderr and returns 1.
int reportError(const Status &status);

} // namespace kiln::tooling

#endif // KILN_RUNTIME_TOOLING_TOOLMAIN_H
