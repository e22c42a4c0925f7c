//===- CudaDevice.h - One NVIDIA GPU: a context and its queues ------------===//
//
// Each HAL queue (`queues`, 2 by default) is a CudaQueue: a stream of its
// own, an issue thread for submissions that wait on the host and a retire
// thread (see CudaQueue.h), all created with the device. Semaphores are
// CudaSemaphores, which the GPU waits on and signals itself, where the GPU can
// do stream memory operations on 64-bit values
// (CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_ MEM_OPS); elsewhere, or with
// `device_semaphores=0`, they are host semaphores that the queues' threads wait
// for and signal. A command buffer runs on the one stream of the queue it is
// submitted to.
//
// Device URI parameters: `queues` (1 to 8: every stream that waits on
// another should have a hardware queue of its own, and CUDA gives a context
// 8 unless CUDA_DEVICE_MAX_CONNECTIONS says otherwise) and
// `device_semaphores` (0 or 1; 1 where unsupported is an error).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDADEVICE_H
#define KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDADEVICE_H

#include "runtime/hal/Device.h"
#include "runtime/hal/DeviceUri.h"
#include "runtime/hal/drivers/cuda/CudaAllocator.h"
#include "runtime/hal/drivers/cuda/CudaCommandBuffer.h"
#include "runtime/hal/drivers/cuda/CudaContext.h"
#include "runtime/hal/drivers/cuda/CudaExecutable.h"
#include "runtime/hal/drivers/cuda/CudaQueue.h"
#include "runtime/hal/drivers/cuda/CudaSubmissionTimer.h"

#include <memory>
#include <optional>
#include <vector>

namespace kiln::hal::cuda {

/// What a device URI's parameters ask for.
struct CudaDeviceOptions {
  static constexpr uint32_t kDefaultQueues = 2;
  static constexpr uint32_t kQueueLimit = 8;

  uint32_t Queues = kDefaultQueues;
  /// nullopt: wherever the GPU supports them.
  std::optional<bool> DeviceSemaphores;

  /// From `queues` and `device_semaphores`; InvalidArgument for any other
  /// parameter or a bad value.
  static StatusOr<CudaDeviceOptions> fromUri(const DeviceUri &uri);
};

class CudaDevice final : public Device {
public:
  /// Retains `device`'s primary context and creates the queues. The kind of
  /// command buffer createCommandBuffer makes comes from
  /// KILN_CUDA_COMMAND_BUFFERS (graph when unset; InvalidArgument naming the
  /// valid values when it is anything else).
  static StatusOr<std::shared_ptr<CudaDevice>>
  create(std::shared_ptr<const CudaSymbols> symbols, CUdevice device,
         DeviceInfo info, uint64_t deviceBytes, CudaDeviceOptions options);

  const DeviceInfo &info() const override { return Info; }
  Allocator &allocator() override { return DeviceAllocator; }
  std::vector<UnsupportedFeature> unsupportedFeatures() const override;

  bool supportsExecutable(std::string_view format,
                          std::string_view target) const override;
  StatusOr<std::shared_ptr<Executable>>
  createExecutable(const ExecutableSpec &spec) override;
  uint32_t queueCount() const override {
    return static_cast<uint32_t>(Queues.size());
  }
  /// A command buffer of the given kind, whatever the device's default
  /// (for any queue).
  StatusOr<std::shared_ptr<CudaCommandBuffer>>
  createCudaCommandBuffer(CommandBufferMode mode, uint32_t bindingCapacity,
                          CudaCommandBufferKind kind);
  CudaCommandBufferKind commandBufferKind() const { return CommandBufferKind; }
  /// Whether createSemaphore makes semaphores the GPU waits on and signals.
  bool deviceSemaphores() const { return DeviceSemaphores; }
  StatusOr<std::shared_ptr<Event>> createEvent() override;
  /// Times submissions with CUDA events in the submission's stream.
  StatusOr<std::shared_ptr<SubmissionTimer>> createSubmissionTimer() override;
  Status waitIdle(Timeout timeout) override;

protected:
  StatusOr<std::shared_ptr<CommandBuffer>>
  createCommandBufferImpl(CommandBufferMode mode,
                          uint32_t bindingCapacity) override;
  StatusOr<std::shared_ptr<Semaphore>>
  createSemaphoreImpl(uint64_t initialValue) override;
  Status queueExecuteImpl(uint32_t queue,
                          std::span<const SemaphoreValue> waitList,
                          const std::shared_ptr<CommandBuffer> &commandBuffer,
                          std::span<const std::shared_ptr<Buffer>> bindingTable,
                          std::span<const SemaphoreValue> signalList) override;
  Status
  queueExecuteTimedImpl(uint32_t queue,
                        std::span<const SemaphoreValue> waitList,
                        const std::shared_ptr<CommandBuffer> &commandBuffer,
                        std::span<const std::shared_ptr<Buffer>> bindingTable,
                        std::span<const SemaphoreValue> signalList,
                        const std::shared_ptr<SubmissionTimer> &timer) override;

private:
  // Both queueExecute hooks; `timer` may be null.
  Status submit(uint32_t queue, std::span<const SemaphoreValue> waitList,
                const std::shared_ptr<CommandBuffer> &commandBuffer,
                std::span<const std::shared_ptr<Buffer>> bindingTable,
                std::span<const SemaphoreValue> signalList,
                std::shared_ptr<CudaSubmissionTimer> timer);
  CudaDevice(std::shared_ptr<CudaContext> context, DeviceInfo info,
             CudaDeviceLimits limits, uint64_t deviceBytes,
             CudaCommandBufferKind commandBufferKind, bool deviceSemaphores,
             std::vector<std::unique_ptr<CudaQueue>> queues);

  DeviceInfo Info;
  CudaDeviceLimits Limits;
  CudaCommandBufferKind CommandBufferKind;
  bool DeviceSemaphores;
  std::shared_ptr<CudaContext> Context;
  CudaAllocator DeviceAllocator;
  // Declared last: destroyed first, so every submission has retired before
  // anything it uses is destroyed.
  std::vector<std::unique_ptr<CudaQueue>> Queues;
};

} // namespace kiln::hal::cuda

#endif // KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDADEVICE_H
