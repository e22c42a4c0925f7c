//===- CudaSubmissionTimer.cpp --------------------------------------------===//

#include "runtime/hal/drivers/cuda/CudaSubmissionTimer.h"

namespace kiln::hal::cuda {

StatusOr<std::shared_ptr<CudaSubmissionTimer>>
CudaSubmissionTimer::create(std::shared_ptr<CudaContext> context) {
  CudaContext::Scope scope(*context);
  const CudaSymbols &symbols = context->symbols();
  // Default flags: timing enabled (CU_EVENT_DISABLE_TIMING would drop the
  // timestamps) and no blocking sync, which only matters to host waits.
  CUevent start = nullptr;
  KILN_RETURN_IF_ERROR(
      KILN_CUDA_CALL(symbols, cuEventCreate, &start, CU_EVENT_DEFAULT));
  CUevent end = nullptr;
  if (Status status =
          KILN_CUDA_CALL(symbols, cuEventCreate, &end, CU_EVENT_DEFAULT);
      !status.ok()) {
    symbols.cuEventDestroy_v2(start);
    return status;
  }
  return std::shared_ptr<CudaSubmissionTimer>(
      new CudaSubmissionTimer(std::move(context), start, end));
}

CudaSubmissionTimer::~CudaSubmissionTimer() {
  // The queue holds the timer until its submission finished, so neither
  // event is pending; destroying one fails only for a bad handle.
  CudaContext::Scope scope(*Context);
  Context->symbols().cuEventDestroy_v2(Start);
  Context->symbols().cuEventDestroy_v2(End);
}

StatusOr<double> CudaSubmissionTimer::elapsedSeconds() const {
  std::lock_guard<std::mutex> lock(Mutex);
  if (Seconds)
    return *Seconds;
  if (!Ended)
    return KILN_ERROR(FailedPrecondition,
                      "no submission timed with this timer has finished");
  CudaContext::Scope scope(*Context);
  float milliseconds = 0;
  CUresult result =
      Context->symbols().cuEventElapsedTime(&milliseconds, Start, End);
  if (result == CUDA_ERROR_NOT_READY)
    return KILN_ERROR(FailedPrecondition,
                      "the submission timed with this timer has not finished");
  KILN_RETURN_IF_ERROR(cudaResultToStatus(
      Context->symbols(), result, "cuEventElapsedTime", __FILE__, __LINE__));
  Seconds = static_cast<double>(milliseconds) / 1000.0;
  return *Seconds;
}

Status CudaSubmissionTimer::recordStart(CUstream stream) {
  {
    std::lock_guard<std::mutex> lock(Mutex);
    Seconds.reset();
    Ended = false;
  }
  return KILN_CUDA_CALL(Context->symbols(), cuEventRecord, Start, stream);
}

Status CudaSubmissionTimer::recordEnd(CUstream stream) {
  KILN_RETURN_IF_ERROR(
      KILN_CUDA_CALL(Context->symbols(), cuEventRecord, End, stream));
  std::lock_guard<std::mutex> lock(Mutex);
  Ended = true;
  return Status();
}

} // namespace kiln::hal::cuda
