//===- LocalDevice.h - The host CPU as a device ---------------------------===//
//
// One class serves both local drivers:
//  - local-sync runs each submission inside queueExecute, on the submitting
//    thread, workgroups one after another;
//  - local-task queues submissions to a device thread (a stream, in CUDA
//    terms) that waits for their semaphores, then spreads the workgroups of
//    each barrier-separated group of dispatches over a thread pool.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_LOCAL_LOCALDEVICE_H
#define KILN_RUNTIME_HAL_DRIVERS_LOCAL_LOCALDEVICE_H

#include "runtime/hal/Device.h"
#include "runtime/hal/drivers/local/LocalAllocator.h"
#include "runtime/hal/drivers/local/LocalSemaphore.h"
#include "runtime/hal/drivers/local/TaskPool.h"

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

namespace kiln::hal::local {

class LocalCommandBuffer;

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
  struct Submission {
    std::vector<std::pair<std::shared_ptr<LocalSemaphore>, uint64_t>> Waits;
    std::vector<std::pair<std::shared_ptr<LocalSemaphore>, uint64_t>> Signals;
    std::shared_ptr<LocalCommandBuffer> Commands;
    std::vector<std::shared_ptr<Buffer>> Table; // keeps the buffers alive
    std::vector<uint8_t *> SlotBases;
  };

  bool isSync() const { return Workers == 0; }
  void queueMain();
  // Blocks until every wait is reached (OK), one fails (its status) or the
  // device shuts down (Cancelled).
  Status waitForAll(const Submission &submission);
  void run(Submission &submission, Status waitStatus);
  void finishOne();

  DeviceInfo Info;
  uint32_t Workers;
  LocalAllocator DeviceAllocator;
  std::unique_ptr<TaskPool> Pool;

  std::mutex QueueMutex;
  std::condition_variable QueueCv;
  std::condition_variable IdleCv;
  std::deque<Submission> Queue;
  uint64_t Pending = 0; // queued or running submissions
  bool ShuttingDown = false;
  std::shared_ptr<Waker> QueueWaker;
  std::thread QueueThread;
};

} // namespace kiln::hal::local

#endif // KILN_RUNTIME_HAL_DRIVERS_LOCAL_LOCALDEVICE_H
