//===- Device.h - One device: memory, code, queued work -------------------===//
#ifndef KILN_RUNTIME_HAL_DEVICE_H
#define KILN_RUNTIME_HAL_DEVICE_H

#include "runtime/base/Status.h"
#include "runtime/hal/Allocator.h"
#include "runtime/hal/Buffer.h"
#include "runtime/hal/CommandBuffer.h"
#include "runtime/hal/DeviceInfo.h"
#include "runtime/hal/Event.h"
#include "runtime/hal/Executable.h"
#include "runtime/hal/QueueAffinity.h"
#include "runtime/hal/Semaphore.h"
#include "runtime/hal/SubmissionTimer.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::hal {

/// A behaviour from hal/Feature.h this device lacks, and why.
struct UnsupportedFeature {
  std::string Feature;
  std::string Reason;
};

class Device {
public:
  virtual ~Device();
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

  virtual const DeviceInfo &info() const = 0;
  virtual Allocator &allocator() = 0;

  virtual std::vector<UnsupportedFeature> unsupportedFeatures() const {
    return {};
  }
  /// Why `feature` is unsupported, or nullopt when it is supported.
  std::optional<std::string> unsupportedReason(std::string_view feature) const;

  /// Whether createExecutable can load this format for this target here
  /// (for CPUs: whether the host has the instruction set).
  virtual bool supportsExecutable(std::string_view format,
                                  std::string_view target) const = 0;
  virtual StatusOr<std::shared_ptr<Executable>>
  createExecutable(const ExecutableSpec &spec) = 0;

  /// The device's queues, numbered from 0 (at least one, at most
  /// kMaxQueues). See QueueAffinity.h.
  virtual uint32_t queueCount() const = 0;

  /// `bindingCapacity` is the number of binding-table slots indirect refs
  /// may name; `affinity` the queues the buffer may be submitted to (at
  /// least one of this device's: InvalidArgument otherwise).
  StatusOr<std::shared_ptr<CommandBuffer>>
  createCommandBuffer(CommandBufferMode mode, uint32_t bindingCapacity,
                      QueueAffinity affinity = kAnyQueue);
  /// InvalidArgument for an initial value above kMaxSemaphoreValue.
  StatusOr<std::shared_ptr<Semaphore>> createSemaphore(uint64_t initialValue);
  virtual StatusOr<std::shared_ptr<Event>> createEvent() = 0;

  /// Queues `commandBuffer` (may be null: only waits, then signals) to run
  /// once every wait-list value is reached, resolving its binding slots to
  /// `bindingTable`; signals the signal list when done, or fails it with the
  /// error. Returns once queued: completion is observed only through the
  /// semaphores. Buffers, semaphores and the command buffer are kept alive
  /// until the work is done.
  /// The submission goes to the lowest queue that `affinity` and the
  /// command buffer's affinity share (InvalidArgument when they share none
  /// of the device's); submissions to one queue run in order, submissions
  /// to different queues only in the order semaphores give them.
  /// With a `timer` (from this device's createSubmissionTimer; needs a
  /// command buffer) the commands are also timed by the device's clock.
  Status queueExecute(std::span<const SemaphoreValue> waitList,
                      const std::shared_ptr<CommandBuffer> &commandBuffer,
                      std::span<const std::shared_ptr<Buffer>> bindingTable,
                      std::span<const SemaphoreValue> signalList,
                      const std::shared_ptr<SubmissionTimer> &timer = nullptr,
                      QueueAffinity affinity = kAnyQueue);

  /// A timer for queueExecute. Unimplemented on devices without a clock of
  /// their own (the CPU drivers: host time is their time).
  virtual StatusOr<std::shared_ptr<SubmissionTimer>> createSubmissionTimer();

  /// Blocks until every submission to every queue finished
  /// (DeadlineExceeded after `timeout`).
  virtual Status waitIdle(Timeout timeout = kInfiniteTimeout) = 0;

protected:
  Device() = default;

  /// Called after the driver-independent checks of createCommandBuffer
  /// (which then records the buffer's affinity).
  virtual StatusOr<std::shared_ptr<CommandBuffer>>
  createCommandBufferImpl(CommandBufferMode mode, uint32_t bindingCapacity) = 0;
  /// Called after createSemaphore checked the value.
  virtual StatusOr<std::shared_ptr<Semaphore>>
  createSemaphoreImpl(uint64_t initialValue) = 0;
  /// Called after the driver-independent checks of queueExecute, with the
  /// queue (< queueCount()) the submission goes to.
  virtual Status
  queueExecuteImpl(uint32_t queue, std::span<const SemaphoreValue> waitList,
                   const std::shared_ptr<CommandBuffer> &commandBuffer,
                   std::span<const std::shared_ptr<Buffer>> bindingTable,
                   std::span<const SemaphoreValue> signalList) = 0;
  /// queueExecuteImpl for a submission timed with `timer` (not null, the
  /// command buffer neither). Only devices that create timers override it.
  virtual Status
  queueExecuteTimedImpl(uint32_t queue,
                        std::span<const SemaphoreValue> waitList,
                        const std::shared_ptr<CommandBuffer> &commandBuffer,
                        std::span<const std::shared_ptr<Buffer>> bindingTable,
                        std::span<const SemaphoreValue> signalList,
                        const std::shared_ptr<SubmissionTimer> &timer);

private:
  // `affinity` restricted to this device's queues.
  QueueAffinity validQueues(QueueAffinity affinity) const;
};

} // namespace kiln::hal

#endif // KILN_RUNTIME_HAL_DEVICE_H
