//===- TaskPool.cpp -------------------------------------------------------===//

#include "runtime/hal/drivers/local/TaskPool.h"

#include <algorithm>

namespace kiln::hal::local {

TaskPool::TaskPool(uint32_t workerCount) {
  for (uint32_t i = 1; i < workerCount; ++i)
    Threads.emplace_back([this] { workerMain(); });
}

TaskPool::~TaskPool() {
  {
    std::lock_guard<std::mutex> lock(Mutex);
    Stop = true;
  }
  WorkCv.notify_all();
  for (std::thread &thread : Threads)
    thread.join();
}

void TaskPool::runChunks(Loop &loop) {
  while (true) {
    uint64_t begin = loop.Next.fetch_add(loop.Grain, std::memory_order_relaxed);
    if (begin >= loop.Count)
      return;
    uint64_t end = std::min(loop.Count, begin + loop.Grain);
    (*loop.Body)(begin, end);
    // acq_rel: the loop's effects happen-before parallelFor returns.
    if (loop.Done.fetch_add(end - begin, std::memory_order_acq_rel) +
            (end - begin) ==
        loop.Count) {
      std::lock_guard<std::mutex> lock(Mutex);
      DoneCv.notify_all();
    }
  }
}

void TaskPool::workerMain() {
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(Mutex);
  while (true) {
    WorkCv.wait(lock, [&] { return Stop || (Current && Generation != seen); });
    if (Stop)
      return;
    seen = Generation;
    Loop *loop = Current;
    ++Busy;
    lock.unlock();
    runChunks(*loop);
    lock.lock();
    if (--Busy == 0)
      DoneCv.notify_all();
  }
}

void TaskPool::parallelFor(
    uint64_t count, uint64_t grain,
    const std::function<void(uint64_t, uint64_t)> &body) {
  if (count == 0)
    return;
  grain = std::max<uint64_t>(grain, 1);
  if (Threads.empty() || count <= grain) {
    for (uint64_t begin = 0; begin < count; begin += grain)
      body(begin, std::min(count, begin + grain));
    return;
  }
  std::lock_guard<std::mutex> callLock(CallMutex);
  Loop loop;
  loop.Body = &body;
  loop.Count = count;
  loop.Grain = grain;
  {
    std::lock_guard<std::mutex> lock(Mutex);
    Current = &loop;
    ++Generation;
  }
  WorkCv.notify_all();
  runChunks(loop);
  std::unique_lock<std::mutex> lock(Mutex);
  // The loop lives on this stack: wait until no worker can still touch it.
  DoneCv.wait(lock, [&] {
    return loop.Done.load(std::memory_order_acquire) == count && Busy == 0;
  });
  Current = nullptr;
}

} // namespace kiln::hal::local
