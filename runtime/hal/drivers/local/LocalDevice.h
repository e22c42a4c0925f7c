//===- LocalDevice.h - The host CPU as a device ---------------------------===//
//
// One class serves both local drivers:
//  - local-sync runs each submission inside queueExecute, on the submitting
//    thread, workgroups one after another; it has one queue;
//  - local-task has `queues` queues (2 by default), each a thread (a
//    stream, in CUDA terms) that waits for its submissions' semaphores,
//    then runs each command buffer level by level (LocalCommandBuffer),
//    spreading the workgroups of all dispatches of one level over a thread
//    pool of `workers` threads of its own. Separate pools let two queues'
//    dispatches run at once (a pool runs one parallel loop at a time), so
//    queues that wait for each other's work cannot block one another. A
//    queue's thread and pool start with its first submission: a device
//    that only uses queue 0 pays for one.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_LOCAL_LOCALDEVICE_H
#define KILN_RUNTIME_HAL_DRIVERS_LOCAL_LOCALDEVICE_H

#include "runtime/hal/Device.h"
#include "runtime/hal/HostQueue.h"
#include "runtime/hal/drivers/local/LocalAllocator.h"
#include "runtime/hal/drivers/local/TaskPool.h"

#include <memory>
#include <mutex>
#include <vector>

namespace kiln::hal::local {

class LocalDevice final : public Device {
public:
  struct Options {
    DeviceInfo Info;
    // 0: local-sync (inline); N >= 1: local-task with N workers.
    uint32_t Workers = 0;
    // local-task only (local-sync has one queue).
    uint32_t Queues = 1;
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
  uint32_t queueCount() const override {
    return static_cast<uint32_t>(Queues.size());
  }
  StatusOr<std::shared_ptr<Event>> createEvent() override;
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

private:
  struct Queue {
    Queue(const std::string &deviceName, uint32_t workers);
    std::unique_ptr<TaskPool> Pool; // null for local-sync
    // Destroyed first: its thread stops before the pool.
    HostQueue Submissions;
  };

  bool isSync() const { return Workers == 0; }
  // Queue `index`, started on first use.
  Queue &queue(uint32_t index);

  DeviceInfo Info;
  uint32_t Workers;
  LocalAllocator DeviceAllocator;
  std::mutex QueuesMutex;
  std::vector<std::unique_ptr<Queue>> Queues; // null until first used
};

} // namespace kiln::hal::local

#endif // KILN_RUNTIME_HAL_DRIVERS_LOCAL_LOCALDEVICE_H
