//===- LocalDevice.h - The host CPU as a device ---------------------------===//
//
// One class serves both local drivers:
//  - local-sync runs each submission inside queueExecute, on the submitting
//    thread, workgroups one after another;
//  - local-task queues submissions to a device thread (a stream, in CUDA
//    terms) that waits for their semaphores, then runs each command buffer
//    level by level (LocalCommandBuffer), spreading the workgroups of all
//    dispatches of one level over a thread pool.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_LOCAL_LOCALDEVICE_H
#define KILN_RUNTIME_HAL_DRIVERS_LOCAL_LOCALDEVICE_H

#include "runtime/hal/Device.h"
#include "runtime/hal/HostQueue.h"
#include "runtime/hal/drivers/local/LocalAllocator.h"
#include "runtime/hal/drivers/local/TaskPool.h"

#include <memory>

namespace kiln::hal::local {

class LocalDevice final : public Device {
public:
  struct Options {
    DeviceInfo Info;
    // 0: local-sync (inline); N >= 1: local-task with N workers.
    uint32_t Workers = 0;
    bool Unified = true;
  };

  explicit LocalDevice(Options options);
  ~LocalDevice() override;

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
  StatusOr<std::shared_ptr<Semaphore>>
  createSemaphore(uint64_t initialValue) override;
  StatusOr<std::shared_ptr<Event>> createEvent() override;
  Status waitIdle(Timeout timeout) override;

protected:
  Status queueExecuteImpl(std::span<const SemaphoreValue> waitList,
                          const std::shared_ptr<CommandBuffer> &commandBuffer,
                          std::span<const std::shared_ptr<Buffer>> bindingTable,
                          std::span<const SemaphoreValue> signalList) override;

private:
  bool isSync() const { return Workers == 0; }

  DeviceInfo Info;
  uint32_t Workers;
  LocalAllocator DeviceAllocator;
  std::unique_ptr<TaskPool> Pool;
  // Declared last: destroyed first, so its thread stops before the pool.
  HostQueue Queue;
};

} // namespace kiln::hal::local

#endif // KILN_RUNTIME_HAL_DRIVERS_LOCAL_LOCALDEVICE_H
