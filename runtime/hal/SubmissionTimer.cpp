//===- SubmissionTimer.cpp ------------------------------------------------===//

#include "runtime/hal/SubmissionTimer.h"

namespace kiln::hal {

SubmissionTimer::~SubmissionTimer() = default;

} // namespace kiln::hal
