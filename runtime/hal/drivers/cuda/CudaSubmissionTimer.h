//===- CudaSubmissionTimer.h - A submission timed by CUDA events ----------===//
//
// Two events recorded into the device's stream, one before a submission's
// commands and one after; the GPU stamps each when the stream reaches it,
// so their difference is the commands' time on the GPU, with none of the
// host's submission and synchronization cost.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDASUBMISSIONTIMER_H
#define KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDASUBMISSIONTIMER_H

#include "runtime/hal/SubmissionTimer.h"
#include "runtime/hal/drivers/cuda/CudaContext.h"

#include <memory>
#include <mutex>
#include <optional>

namespace kiln::hal::cuda {

class CudaSubmissionTimer final : public SubmissionTimer {
public:
  static StatusOr<std::shared_ptr<CudaSubmissionTimer>>
  create(std::shared_ptr<CudaContext> context);
  ~CudaSubmissionTimer() override;

  StatusOr<double> elapsedSeconds() const override;

  // Where the submission is issued, with the context current.
  /// Records the start event into `stream` and forgets the last result.
  Status recordStart(CUstream stream);
  Status recordEnd(CUstream stream);

private:
  CudaSubmissionTimer(std::shared_ptr<CudaContext> context, CUevent start,
                      CUevent end)
      : Context(std::move(context)), Start(start), End(end) {}

  std::shared_ptr<CudaContext> Context;
  CUevent Start;
  CUevent End;
  // Written where the submission is issued; read, and the time kept, by
  // whoever waited for it. The time is read from the events on the first
  // elapsedSeconds() after the end: the GPU writes a submission's signal
  // values after its end event, so a waiter that saw them finds the events
  // complete.
  mutable std::mutex Mutex;
  bool Ended = false;
  mutable std::optional<double> Seconds;
};

} // namespace kiln::hal::cuda

#endif // KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDASUBMISSIONTIMER_H
