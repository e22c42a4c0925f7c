//===- TaskPool.h - Worker threads that share a parallel loop -------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_LOCAL_TASKPOOL_H
#define KILN_RUNTIME_HAL_DRIVERS_LOCAL_TASKPOOL_H

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace kiln::hal::local {

class TaskPool {
public:
  /// `workerCount` threads run each loop: the calling thread and
  /// workerCount - 1 pool threads (none for 1).
  explicit TaskPool(uint32_t workerCount);
  ~TaskPool();
  TaskPool(const TaskPool &) = delete;
  TaskPool &operator=(const TaskPool &) = delete;

  uint32_t workerCount() const {
    return static_cast<uint32_t>(Threads.size()) + 1;
  }

  /// Calls body(begin, end) over [0, count) in chunks of at most `grain`
  /// items taken from a shared atomic counter by every worker, and returns
  /// when all are done. One loop at a time: calls are serialized.
  void parallelFor(uint64_t count, uint64_t grain,
                   const std::function<void(uint64_t, uint64_t)> &body);

private:
  struct Loop {
    const std::function<void(uint64_t, uint64_t)> *Body;
    uint64_t Count;
    uint64_t Grain;
    std::atomic<uint64_t> Next{0};
    std::atomic<uint64_t> Done{0};
  };

  void workerMain();
  void runChunks(Loop &loop);

  std::vector<std::thread> Threads;
  std::mutex CallMutex; // serializes parallelFor
  std::mutex Mutex;
  std::condition_variable WorkCv;
  std::condition_variable DoneCv;
  Loop *Current = nullptr;
  uint64_t Generation = 0;
  uint32_t Busy = 0; // workers holding Current
  bool Stop = false;
};

} // namespace kiln::hal::local

#endif // KILN_RUNTIME_HAL_DRIVERS_LOCAL_TASKPOOL_H
