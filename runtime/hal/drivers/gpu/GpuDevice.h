//===- GpuDevice.h - One GPU: its queues, memory and command buffers ------===//
//
// Each HAL queue (`queues`, 2 by default) is a GpuQueue: a stream of its
// own, an issue thread for submissions that wait on the host and a retire
// thread (see GpuQueue.h), all created with the device. Semaphores are
// GpuSemaphores, which the GPU waits on and signals itself, where the GPU
// can wait on and write 64-bit words from its streams; elsewhere, or with
// `device_semaphores=0`, they are host semaphores that the queues' threads
// wait for and signal. A command buffer runs on the one stream of the queue
// it is submitted to.
//
// Device URI parameters, the same for every GPU driver: `queues` (1 to 8:
// every stream that waits on another should have a hardware queue of its
// own, and CUDA gives a context 8 unless CUDA_DEVICE_MAX_CONNECTIONS says
// otherwise), `device_semaphores` (0 or 1; 1 where unsupported is an
// error) and `command_buffers` (graph, the default, or stream; see
// GpuCommandBuffer.h).
//
// A driver derives its device from this one: it finds the GPU, says which
// executables it runs and which features it lacks, and hands over its
// GpuApi.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_GPU_GPUDEVICE_H
#define KILN_RUNTIME_HAL_DRIVERS_GPU_GPUDEVICE_H

#include "runtime/hal/Device.h"
#include "runtime/hal/DeviceUri.h"
#include "runtime/hal/drivers/gpu/GpuAllocator.h"
#include "runtime/hal/drivers/gpu/GpuApi.h"
#include "runtime/hal/drivers/gpu/GpuCommandBuffer.h"
#include "runtime/hal/drivers/gpu/GpuExecutable.h"
#include "runtime/hal/drivers/gpu/GpuQueue.h"
#include "runtime/hal/drivers/gpu/GpuSubmissionTimer.h"

#include <memory>
#include <optional>
#include <vector>

namespace kiln::hal::gpu {

/// What a device URI's parameters ask for.
struct GpuDeviceOptions {
  static constexpr uint32_t kDefaultQueues = 2;
  static constexpr uint32_t kQueueLimit = 8;

  uint32_t Queues = kDefaultQueues;
  /// nullopt: wherever the GPU supports them.
  std::optional<bool> DeviceSemaphores;
  GpuCommandBufferKind CommandBuffers = GpuCommandBufferKind::Graph;

  /// From `queues`, `device_semaphores` and `command_buffers`;
  /// InvalidArgument for any other parameter or a bad value.
  static StatusOr<GpuDeviceOptions> fromUri(const DeviceUri &uri);
};

class GpuDevice : public Device {
public:
  const DeviceInfo &info() const override { return Info; }
  Allocator &allocator() override { return DeviceAllocator; }
  uint32_t queueCount() const override {
    return static_cast<uint32_t>(Queues.size());
  }

  /// A command buffer of the given kind, whatever the device's default
  /// (for any queue).
  StatusOr<std::shared_ptr<GpuCommandBuffer>>
  createGpuCommandBuffer(CommandBufferMode mode, uint32_t bindingCapacity,
                         GpuCommandBufferKind kind);
  GpuCommandBufferKind commandBufferKind() const { return CommandBufferKind; }
  /// Whether createSemaphore makes semaphores the GPU waits on and signals.
  bool deviceSemaphores() const { return DeviceSemaphores; }
  /// Loads `spec` where supportsExecutable says the device runs it.
  StatusOr<std::shared_ptr<Executable>>
  createExecutable(const ExecutableSpec &spec) override;
  StatusOr<std::shared_ptr<Event>> createEvent() override;
  /// Times submissions with GPU events in the submission's stream.
  StatusOr<std::shared_ptr<SubmissionTimer>> createSubmissionTimer() override;
  Status waitIdle(Timeout timeout) override;

protected:
  /// Whether the device's semaphores are GpuSemaphores: where
  /// `wordOperations` (the GPU waits on and writes 64-bit words from its
  /// streams) unless `options` says otherwise; FailedPrecondition when they
  /// ask for what the GPU cannot do. Adds the `queues` and
  /// `device_semaphores` properties to `info`.
  static StatusOr<bool> chooseDeviceSemaphores(const GpuDeviceOptions &options,
                                               bool wordOperations,
                                               DeviceInfo &info);
  /// The queues `options` asks for. All at once, with the device: creating
  /// a stream while other streams run may wait for them (the driver
  /// allocates for it), which would serialize the queues.
  static StatusOr<std::vector<std::unique_ptr<GpuQueue>>>
  createQueues(const std::shared_ptr<GpuApi> &api, const DeviceInfo &info,
               const GpuDeviceOptions &options, bool deviceSemaphores);
  GpuDevice(std::shared_ptr<GpuApi> api, DeviceInfo info,
            GpuDeviceLimits limits, uint64_t deviceBytes,
            GpuCommandBufferKind commandBufferKind, bool deviceSemaphores,
            std::vector<std::unique_ptr<GpuQueue>> queues);

  const std::shared_ptr<GpuApi> &api() const { return Api; }
  const GpuDeviceLimits &limits() const { return Limits; }
  /// The chip, for the error naming an executable the device cannot run:
  /// "compute capability 9.0", "gfx942".
  virtual std::string chipDescription() const = 0;
  /// What every GPU device lacks: mapped device memory, and concurrency
  /// its settings rule out (stream command buffers, one queue). A driver
  /// adds what its vendor does not promise.
  std::vector<UnsupportedFeature> sharedUnsupportedFeatures() const;

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
                std::shared_ptr<GpuSubmissionTimer> timer);

  DeviceInfo Info;
  GpuDeviceLimits Limits;
  GpuCommandBufferKind CommandBufferKind;
  bool DeviceSemaphores;
  std::shared_ptr<GpuApi> Api;
  GpuAllocator DeviceAllocator;
  // Declared last: destroyed first, so every submission has retired before
  // anything it uses is destroyed.
  std::vector<std::unique_ptr<GpuQueue>> Queues;
};

} // namespace kiln::hal::gpu

#endif // KILN_RUNTIME_HAL_DRIVERS_GPU_GPUDEVICE_H
