//===- CudaDevice.cpp -----------------------------------------------------===//

#include "runtime/hal/drivers/cuda/CudaDevice.h"

#include "runtime/hal/Feature.h"
#include "runtime/hal/drivers/cuda/CudaEvent.h"
#include "runtime/hal/drivers/cuda/CudaGraphCommandBuffer.h"
#include "runtime/hal/drivers/cuda/CudaStreamCommandBuffer.h"
#include "runtime/hal/drivers/gpu/GpuBuffer.h"

namespace kiln::hal::cuda {

StatusOr<std::shared_ptr<CudaDevice>>
CudaDevice::create(std::shared_ptr<const CudaSymbols> symbols, CUdevice device,
                   DeviceInfo info, uint64_t deviceBytes) {
  // Read first: a bad value is reported before any CUDA work.
  KILN_ASSIGN_OR_RETURN(CudaCommandBufferKind kind,
                        cudaCommandBufferKindFromEnvironment());
  KILN_ASSIGN_OR_RETURN(CudaDeviceLimits limits,
                        CudaDeviceLimits::query(*symbols, device));
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<CudaContext> context,
                        CudaContext::retain(std::move(symbols), device));
  CudaContext::Scope scope(*context);
  CUstream raw = nullptr;
  // Non-blocking: the legacy default stream, which other libraries in the
  // process may use, does not serialize with Kiln's work.
  KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(context->symbols(), cuStreamCreate, &raw,
                                      CU_STREAM_NON_BLOCKING));
  std::shared_ptr<CUstream_st> stream(raw, [context](CUstream doomed) {
    CudaContext::Scope scope(*context);
    context->symbols().cuStreamDestroy_v2(doomed);
  });
  return std::shared_ptr<CudaDevice>(
      new CudaDevice(std::move(context), std::move(stream), std::move(info),
                     limits, deviceBytes, kind));
}

CudaDevice::CudaDevice(std::shared_ptr<CudaContext> context,
                       std::shared_ptr<CUstream_st> stream, DeviceInfo info,
                       CudaDeviceLimits limits, uint64_t deviceBytes,
                       CudaCommandBufferKind commandBufferKind)
    : Info(std::move(info)), Limits(limits),
      CommandBufferKind(commandBufferKind), Context(std::move(context)),
      Stream(stream), DeviceAllocator(Context, Stream, deviceBytes),
      Queue(Info.Uri, HostQueue::Mode::Threaded, [context = Context] {
        // The queue thread issues every command; its context never changes.
        context->symbols().cuCtxSetCurrent(context->context());
      }) {}

std::vector<UnsupportedFeature> CudaDevice::unsupportedFeatures() const {
  std::vector<UnsupportedFeature> features = {
      {std::string(feature::kHostVisibleDeviceLocal),
       "a discrete GPU: device memory is not mapped on the host, and "
       "host-visible memory is pinned host memory"}};
  // Follows the kind createCommandBuffer makes. Graph mode gives commands
  // no ordering links no edge, so CUDA may run them at once.
  if (CommandBufferKind == CudaCommandBufferKind::Stream)
    features.push_back({std::string(feature::kConcurrentCommands),
                        "stream command buffers issue commands one after "
                        "another on one stream"});
  return features;
}

bool CudaDevice::supportsExecutable(std::string_view format,
                                    std::string_view target) const {
  return cudaSupportsExecutable(format, target, Limits.ComputeMajor,
                                Limits.ComputeMinor);
}

StatusOr<std::shared_ptr<Executable>>
CudaDevice::createExecutable(const ExecutableSpec &spec) {
  KILN_RETURN_IF_ERROR(validateExecutableSpec(spec));
  if (!supportsExecutable(spec.Format, spec.Target))
    return KILN_ERROR(FailedPrecondition, "executable '", spec.Name, "' (",
                      spec.Format, "/", spec.Target, ") cannot run on ",
                      Info.Uri, ", compute capability ", Limits.ComputeMajor,
                      ".", Limits.ComputeMinor);
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<CudaExecutable> executable,
                        CudaExecutable::load(Context, Limits, spec));
  return std::shared_ptr<Executable>(std::move(executable));
}

StatusOr<std::shared_ptr<CommandBuffer>>
CudaDevice::createCommandBuffer(CommandBufferMode mode,
                                uint32_t bindingCapacity) {
  KILN_ASSIGN_OR_RETURN(
      std::shared_ptr<CudaCommandBuffer> commands,
      createCudaCommandBuffer(mode, bindingCapacity, CommandBufferKind));
  return std::shared_ptr<CommandBuffer>(std::move(commands));
}

StatusOr<std::shared_ptr<CudaCommandBuffer>>
CudaDevice::createCudaCommandBuffer(CommandBufferMode mode,
                                    uint32_t bindingCapacity,
                                    CudaCommandBufferKind kind) {
  if (kind == CudaCommandBufferKind::Graph)
    return std::shared_ptr<CudaCommandBuffer>(
        std::make_shared<CudaGraphCommandBuffer>(mode, bindingCapacity, Context,
                                                 Limits));
  return std::shared_ptr<CudaCommandBuffer>(
      std::make_shared<CudaStreamCommandBuffer>(mode, bindingCapacity, Context,
                                                Limits));
}

StatusOr<std::shared_ptr<Semaphore>>
CudaDevice::createSemaphore(uint64_t initialValue) {
  return std::shared_ptr<Semaphore>(
      std::make_shared<HostSemaphore>(initialValue));
}

StatusOr<std::shared_ptr<Event>> CudaDevice::createEvent() {
  return std::shared_ptr<Event>(std::make_shared<CudaEvent>());
}

StatusOr<std::shared_ptr<SubmissionTimer>> CudaDevice::createSubmissionTimer() {
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<CudaSubmissionTimer> timer,
                        CudaSubmissionTimer::create(Context));
  return std::shared_ptr<SubmissionTimer>(std::move(timer));
}

Status CudaDevice::queueExecuteImpl(
    std::span<const SemaphoreValue> waitList,
    const std::shared_ptr<CommandBuffer> &commandBuffer,
    std::span<const std::shared_ptr<Buffer>> bindingTable,
    std::span<const SemaphoreValue> signalList) {
  return submit(waitList, commandBuffer, bindingTable, signalList, nullptr);
}

Status CudaDevice::queueExecuteTimedImpl(
    std::span<const SemaphoreValue> waitList,
    const std::shared_ptr<CommandBuffer> &commandBuffer,
    std::span<const std::shared_ptr<Buffer>> bindingTable,
    std::span<const SemaphoreValue> signalList,
    const std::shared_ptr<SubmissionTimer> &timer) {
  auto cudaTimer = std::dynamic_pointer_cast<CudaSubmissionTimer>(timer);
  if (!cudaTimer)
    return KILN_ERROR(InvalidArgument, "queueExecute: timer was not created "
                                       "by a CUDA device");
  return submit(waitList, commandBuffer, bindingTable, signalList,
                std::move(cudaTimer));
}

Status CudaDevice::submit(std::span<const SemaphoreValue> waitList,
                          const std::shared_ptr<CommandBuffer> &commandBuffer,
                          std::span<const std::shared_ptr<Buffer>> bindingTable,
                          std::span<const SemaphoreValue> signalList,
                          std::shared_ptr<CudaSubmissionTimer> timer) {
  HostSubmission submission;
  KILN_ASSIGN_OR_RETURN(submission.Waits, toHostSemaphores(waitList, "wait"));
  KILN_ASSIGN_OR_RETURN(submission.Signals,
                        toHostSemaphores(signalList, "signal"));
  if (!commandBuffer) {
    // Issues nothing, but later submissions still come after its waits.
    std::lock_guard<std::mutex> lock(IssueMutex);
    ++Unissued;
    submission.Work = [this] {
      std::lock_guard<std::mutex> lock(IssueMutex);
      --Unissued;
      return Status();
    };
    Queue.submit(std::move(submission));
    return Status();
  }
  auto commands = std::dynamic_pointer_cast<CudaCommandBuffer>(commandBuffer);
  if (!commands)
    return KILN_ERROR(InvalidArgument, "queueExecute: command buffer was "
                                       "not created by a CUDA device");
  std::vector<CUdeviceptr> slotAddresses;
  for (size_t slot = 0; slot < bindingTable.size(); ++slot) {
    CUdeviceptr address = 0;
    if (bindingTable[slot]) {
      auto *buffer = dynamic_cast<gpu::GpuBuffer *>(bindingTable[slot].get());
      if (!buffer)
        return KILN_ERROR(InvalidArgument, "binding slot ", slot,
                          " holds a buffer not allocated by a CUDA device");
      address = buffer->deviceAddress();
    }
    slotAddresses.push_back(address);
  }
  // Issues the commands into the stream; the context must be current.
  auto issue = [stream = Stream, commands = std::move(commands),
                slotAddresses = std::move(slotAddresses), timer]() -> Status {
    KILN_RETURN_IF_ERROR(timer ? timer->recordStart(stream.get()) : Status());
    KILN_RETURN_IF_ERROR(commands->execute(stream.get(), slotAddresses));
    return timer ? timer->recordEnd(stream.get()) : Status();
  };
  // Waits for the stream, on the queue thread, then the queue signals.
  // Even after a failed issue, what was issued must finish before the
  // table's buffers (held until then) are released.
  auto finish = [context = Context, stream = Stream,
                 table = std::vector<std::shared_ptr<Buffer>>(
                     bindingTable.begin(), bindingTable.end()),
                 timer](Status issued) {
    Status synced =
        KILN_CUDA_CALL(context->symbols(), cuStreamSynchronize, stream.get());
    if (!issued.ok())
      return issued;
    if (synced.ok() && timer)
      synced = timer->measure();
    return synced;
  };

  std::lock_guard<std::mutex> lock(IssueMutex);
  bool reached = Unissued == 0;
  for (const auto &[semaphore, value] : submission.Waits) {
    std::optional<Status> state = semaphore->poll(value);
    reached = reached && state && state->ok();
  }
  if (reached) {
    // The common synchronous call: the GPU starts without waiting for the
    // queue thread to wake, and that wake-up overlaps the GPU's work.
    Status issued;
    {
      CudaContext::Scope scope(*Context);
      issued = issue();
    }
    submission.Waits.clear();
    submission.Work = [finish = std::move(finish),
                       issued = std::move(issued)]() mutable {
      return finish(std::move(issued));
    };
  } else {
    ++Unissued;
    submission.Work = [this, issue = std::move(issue),
                       finish = std::move(finish)]() mutable {
      Status issued;
      {
        std::lock_guard<std::mutex> lock(IssueMutex);
        issued = issue();
        --Unissued;
      }
      return finish(std::move(issued));
    };
  }
  Queue.submit(std::move(submission));
  return Status();
}

Status CudaDevice::waitIdle(Timeout timeout) { return Queue.waitIdle(timeout); }

} // namespace kiln::hal::cuda
