//===- GpuSubmissionTimer.cpp ---------------------------------------------===//

#include "runtime/hal/drivers/gpu/GpuSubmissionTimer.h"

namespace kiln::hal::gpu {

StatusOr<std::shared_ptr<GpuSubmissionTimer>>
GpuSubmissionTimer::create(std::shared_ptr<GpuApi> api) {
  GpuApi::Scope scope(*api);
  KILN_ASSIGN_OR_RETURN(GpuEventHandle start, api->createTimingEvent());
  StatusOr<GpuEventHandle> end = api->createTimingEvent();
  if (!end.ok()) {
    api->destroyEvent(start);
    return end.status();
  }
  return std::shared_ptr<GpuSubmissionTimer>(
      new GpuSubmissionTimer(std::move(api), start, *end));
}

GpuSubmissionTimer::~GpuSubmissionTimer() {
  // The queue holds the timer until its submission finished, so neither
  // event is pending.
  GpuApi::Scope scope(*Api);
  Api->destroyEvent(Start);
  Api->destroyEvent(End);
}

StatusOr<double> GpuSubmissionTimer::elapsedSeconds() const {
  std::lock_guard<std::mutex> lock(Mutex);
  if (Seconds)
    return *Seconds;
  if (!Ended)
    return KILN_ERROR(FailedPrecondition,
                      "no submission timed with this timer has finished");
  GpuApi::Scope scope(*Api);
  KILN_ASSIGN_OR_RETURN(std::optional<double> seconds,
                        Api->elapsedSeconds(Start, End));
  if (!seconds)
    return KILN_ERROR(FailedPrecondition,
                      "the submission timed with this timer has not finished");
  Seconds = seconds;
  return *Seconds;
}

Status GpuSubmissionTimer::recordStart(GpuStreamHandle stream) {
  {
    std::lock_guard<std::mutex> lock(Mutex);
    Seconds.reset();
    Ended = false;
  }
  return Api->recordEvent(Start, stream);
}

Status GpuSubmissionTimer::recordEnd(GpuStreamHandle stream) {
  KILN_RETURN_IF_ERROR(Api->recordEvent(End, stream));
  std::lock_guard<std::mutex> lock(Mutex);
  Ended = true;
  return Status();
}

} // namespace kiln::hal::gpu
