//===- ToolMain.cpp -------------------------------------------------------===//

#include "runtime/tooling/ToolMain.h"

#include <csignal>
#include <cstdio>
#include <exception>
#include <iostream>

namespace kiln::tooling {

int reportError(const Status &status) {
  std::cout.flush();
  std::fprintf(stderr, "error: %s\n", status.toString().c_str());
  return 1;
}

int runToolMain(const std::function<Status()> &body) {
  // A closed stdout (`| head`) becomes a write error, not a SIGPIPE death.
  std::signal(SIGPIPE, SIG_IGN);
  Status status;
  try {
    status = body();
  } catch (const std::bad_alloc &) {
    status = KILN_ERROR(ResourceExhausted, "out of host memory");
  } catch (const std::exception &e) {
    status = KILN_ERROR(Internal, "unexpected exception: ", e.what());
  } catch (...) {
    status = KILN_ERROR(Internal, "unexpected exception");
  }
  if (!status.ok())
    return reportError(status);
  std::cout.flush();
  if (!std::cout || std::fflush(stdout) != 0)
    return reportError(KILN_ERROR(Unavailable, "cannot write to stdout"));
  return 0;
}

} // namespace kiln::tooling
