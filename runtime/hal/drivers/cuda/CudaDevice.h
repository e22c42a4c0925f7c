//===- CudaDevice.h - One NVIDIA GPU: a context, a stream, a queue --------===//
//
// Submissions go to a host queue thread that waits for their semaphores,
// runs their command buffer on the device's stream (launching its graph, or
// issuing its commands one by one in stream mode) and signals once the
// stream has finished (a failed CUDA call fails the signals instead). The
// submitting thread never blocks.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDADEVICE_H
#define KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDADEVICE_H

#include "runtime/hal/Device.h"
#include "runtime/hal/HostQueue.h"
#include "runtime/hal/drivers/cuda/CudaAllocator.h"
#include "runtime/hal/drivers/cuda/CudaCommandBuffer.h"
#include "runtime/hal/drivers/cuda/CudaContext.h"
#include "runtime/hal/drivers/cuda/CudaExecutable.h"
#include "runtime/hal/drivers/cuda/CudaSubmissionTimer.h"

#include <memory>
#include <mutex>

namespace kiln::hal::cuda {

class CudaDevice final : public Device {
public:
  /// Retains `device`'s primary context and creates the stream. The kind of
  /// command buffer createCommandBuffer makes comes from
  /// KILN_CUDA_COMMAND_BUFFERS (graph when unset; InvalidArgument naming the
  /// valid values when it is anything else).
  static StatusOr<std::shared_ptr<CudaDevice>>
  create(std::shared_ptr<const CudaSymbols> symbols, CUdevice device,
         DeviceInfo info, uint64_t deviceBytes);

  const DeviceInfo &info() const override { return Info; }
  Allocator &allocator() override { return DeviceAllocator; }
  std::vector<UnsupportedFeature> unsupportedFeatures() const override;

  bool supportsExecutable(std::string_view format,
                          std::string_view target) const override;
  StatusOr<std::shared_ptr<Executable>>
  createExecutable(const ExecutableSpec &spec) override;
  StatusOr<std::shared_ptr<CommandBuffer>>
  createCommandBuffer(CommandBufferMode mode,
                      uint32_t bindingCapacity) override;
  /// A command buffer of the given kind, whatever the device's default.
  StatusOr<std::shared_ptr<CudaCommandBuffer>>
  createCudaCommandBuffer(CommandBufferMode mode, uint32_t bindingCapacity,
                          CudaCommandBufferKind kind);
  CudaCommandBufferKind commandBufferKind() const { return CommandBufferKind; }
  StatusOr<std::shared_ptr<Semaphore>>
  createSemaphore(uint64_t initialValue) override;
  StatusOr<std::shared_ptr<Event>> createEvent() override;
  /// Times submissions with CUDA events in the device's stream.
  StatusOr<std::shared_ptr<SubmissionTimer>> createSubmissionTimer() override;
  Status waitIdle(Timeout timeout) override;

protected:
  Status queueExecuteImpl(std::span<const SemaphoreValue> waitList,
                          const std::shared_ptr<CommandBuffer> &commandBuffer,
                          std::span<const std::shared_ptr<Buffer>> bindingTable,
                          std::span<const SemaphoreValue> signalList) override;
  Status
  queueExecuteTimedImpl(std::span<const SemaphoreValue> waitList,
                        const std::shared_ptr<CommandBuffer> &commandBuffer,
                        std::span<const std::shared_ptr<Buffer>> bindingTable,
                        std::span<const SemaphoreValue> signalList,
                        const std::shared_ptr<SubmissionTimer> &timer) override;

private:
  // Both queueExecute hooks; `timer` may be null.
  Status submit(std::span<const SemaphoreValue> waitList,
                const std::shared_ptr<CommandBuffer> &commandBuffer,
                std::span<const std::shared_ptr<Buffer>> bindingTable,
                std::span<const SemaphoreValue> signalList,
                std::shared_ptr<CudaSubmissionTimer> timer);
  CudaDevice(std::shared_ptr<CudaContext> context,
             std::shared_ptr<CUstream_st> stream, DeviceInfo info,
             CudaDeviceLimits limits, uint64_t deviceBytes,
             CudaCommandBufferKind commandBufferKind);

  DeviceInfo Info;
  CudaDeviceLimits Limits;
  CudaCommandBufferKind CommandBufferKind;
  std::shared_ptr<CudaContext> Context;
  // Destroyed with its last user, after the context is current again.
  std::shared_ptr<CUstream_st> Stream;
  CudaAllocator DeviceAllocator;
  // Orders issuing into Stream: a submission is issued on the submitting
  // thread when nothing queued before it is still unissued and its waits
  // are reached (no hop to the queue thread before the GPU starts), else
  // by the queue thread once its waits are reached. Unissued counts the
  // latter.
  std::mutex IssueMutex;
  uint64_t Unissued = 0;
  // Declared last: its thread stops (cancelling waiting submissions) before
  // anything it uses is destroyed.
  HostQueue Queue;
};

} // namespace kiln::hal::cuda

#endif // KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDADEVICE_H
