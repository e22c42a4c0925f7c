//===- GpuSubmissionTimer.h - A submission timed by GPU events ------------===//
//
// Two events recorded into the queue's stream, one before a submission's
// commands and one after; the GPU stamps each when the stream reaches it,
// so their difference is the commands' time on the GPU, with none of the
// host's submission and synchronization cost.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_GPU_GPUSUBMISSIONTIMER_H
#define KILN_RUNTIME_HAL_DRIVERS_GPU_GPUSUBMISSIONTIMER_H

#include "runtime/hal/SubmissionTimer.h"
#include "runtime/hal/drivers/gpu/GpuApi.h"

#include <memory>
#include <mutex>
#include <optional>

namespace kiln::hal::gpu {

class GpuSubmissionTimer final : public SubmissionTimer {
public:
  static StatusOr<std::shared_ptr<GpuSubmissionTimer>>
  create(std::shared_ptr<GpuApi> api);
  ~GpuSubmissionTimer() override;

  StatusOr<double> elapsedSeconds() const override;

  // Where the submission is issued, with the context current.
  /// Records the start event into `stream` and forgets the last result.
  Status recordStart(GpuStreamHandle stream);
  Status recordEnd(GpuStreamHandle stream);

private:
  GpuSubmissionTimer(std::shared_ptr<GpuApi> api, GpuEventHandle start,
                     GpuEventHandle end)
      : Api(std::move(api)), Start(start), End(end) {}

  std::shared_ptr<GpuApi> Api;
  GpuEventHandle Start;
  GpuEventHandle End;
  // Written where the submission is issued; read, and the time kept, by
  // whoever waited for it. The time is read from the events on the first
  // elapsedSeconds() after the end: the GPU writes a submission's signal
  // values after its end event, so a waiter that saw them finds the events
  // complete.
  mutable std::mutex Mutex;
  bool Ended = false;
  mutable std::optional<double> Seconds;
};

} // namespace kiln::hal::gpu

#endif // KILN_RUNTIME_HAL_DRIVERS_GPU_GPUSUBMISSIONTIMER_H
