//===- HipContext.cpp -----------------------------------------------------===//

#include "runtime/hal/drivers/hip/HipContext.h"

#include <vector>

namespace kiln::hal::hip {

namespace {
// The devices current before each push on this thread, innermost last.
thread_local std::vector<int> previousDevices;
} // namespace

// hipSetDevice fails only for an ordinal out of range, which the driver
// ruled out, so the calls below have nothing to report.
void HipContext::push() const {
  int previous = -1;
  if (Symbols->hipGetDevice(&previous) != hipSuccess)
    previous = -1;
  previousDevices.push_back(previous);
  if (previous != Ordinal)
    (void)Symbols->hipSetDevice(Ordinal);
}

void HipContext::pop() const {
  int previous = previousDevices.empty() ? -1 : previousDevices.back();
  if (!previousDevices.empty())
    previousDevices.pop_back();
  if (previous >= 0 && previous != Ordinal)
    (void)Symbols->hipSetDevice(previous);
}

void HipContext::bind() const { (void)Symbols->hipSetDevice(Ordinal); }

} // namespace kiln::hal::hip
