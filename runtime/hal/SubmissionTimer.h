//===- SubmissionTimer.h - A submission's duration by the device's clock --===//
//
// A host clock around a submission also counts the submission itself, the
// queue thread's hand-off and the wait for completion; for a short kernel
// that overhead is most of the number. A device with a clock of its own
// (CUDA events) times the submitted commands there instead. Devices without
// one (the CPU drivers, whose clock is the host's) do not create timers.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_SUBMISSIONTIMER_H
#define KILN_RUNTIME_HAL_SUBMISSIONTIMER_H

#include "runtime/base/Status.h"

namespace kiln::hal {

/// Passed to Device::queueExecute; each submission timed with it replaces
/// the previous measurement. Use one timer for one submission at a time.
class SubmissionTimer {
public:
  virtual ~SubmissionTimer();
  SubmissionTimer(const SubmissionTimer &) = delete;
  SubmissionTimer &operator=(const SubmissionTimer &) = delete;

  /// Seconds from the start of the last timed submission's first command to
  /// the end of its last, by the device's clock. Valid once the submission's
  /// signal list is signalled; FailedPrecondition before that, and when the
  /// last timed submission failed.
  virtual StatusOr<double> elapsedSeconds() const = 0;

protected:
  SubmissionTimer() = default;
};

} // namespace kiln::hal

#endif // KILN_RUNTIME_HAL_SUBMISSIONTIMER_H
