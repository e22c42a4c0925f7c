//===- HostQueue.cpp ------------------------------------------------------===//

#include "runtime/hal/HostQueue.h"

namespace kiln::hal {

namespace {

// Drops the work's references, then signals or fails every signal.
void finish(HostSubmission &submission, const Status &status) {
  submission.Work = nullptr;
  submission.Waits.clear();
  for (const auto &[semaphore, value] : submission.Signals) {
    if (!status.ok()) {
      semaphore->fail(status).ignoreError();
      continue;
    }
    // A value that does not advance would leave waiters hanging; fail the
    // semaphore so they see why.
    Status signalled = semaphore->signal(value);
    if (!signalled.ok())
      semaphore->fail(signalled).ignoreError();
  }
}

void run(HostSubmission &submission, Status status) {
  if (status.ok() && submission.Work)
    status = submission.Work();
  finish(submission, status);
}

} // namespace

StatusOr<std::vector<std::pair<std::shared_ptr<HostSemaphore>, uint64_t>>>
toHostSemaphores(std::span<const SemaphoreValue> values,
                 std::string_view what) {
  std::vector<std::pair<std::shared_ptr<HostSemaphore>, uint64_t>> result;
  for (const SemaphoreValue &value : values) {
    auto semaphore = std::dynamic_pointer_cast<HostSemaphore>(value.Timeline);
    if (!semaphore)
      return KILN_ERROR(InvalidArgument, "queueExecute: ", what,
                        " semaphore was not created by a Kiln device");
    result.emplace_back(std::move(semaphore), value.Value);
  }
  return result;
}

HostQueue::HostQueue(std::string deviceName, Mode mode,
                     std::function<void()> threadInit)
    : DeviceName(std::move(deviceName)) {
  if (mode == Mode::Inline)
    return;
  QueueWaker = std::make_shared<Waker>();
  Thread = std::thread([this, init = std::move(threadInit)] { main(init); });
}

HostQueue::~HostQueue() {
  if (!Thread.joinable())
    return;
  {
    std::lock_guard<std::mutex> lock(Mutex);
    ShuttingDown = true;
  }
  QueueCv.notify_all();
  QueueWaker->stop();
  Thread.join();
}

void HostQueue::submit(HostSubmission submission) {
  {
    std::lock_guard<std::mutex> lock(Mutex);
    ++Pending;
    if (Thread.joinable())
      Queue.push_back(std::move(submission));
  }
  if (Thread.joinable()) {
    QueueCv.notify_one();
    return;
  }
  Status status;
  for (const auto &[semaphore, value] : submission.Waits) {
    status = semaphore->wait(value, kInfiniteTimeout);
    if (!status.ok())
      break;
  }
  run(submission, status);
  finishOne();
}

void HostQueue::finishOne() {
  std::lock_guard<std::mutex> lock(Mutex);
  if (--Pending == 0)
    IdleCv.notify_all();
}

Status HostQueue::waitForAll(const HostSubmission &submission) {
  while (true) {
    QueueWaker->arm();
    bool reached = true;
    for (const auto &[semaphore, value] : submission.Waits) {
      semaphore->addWaker(QueueWaker);
      std::optional<Status> state = semaphore->poll(value);
      if (!state) {
        reached = false;
        continue;
      }
      if (!state->ok())
        return *state;
    }
    if (reached)
      return Status();
    if (!QueueWaker->sleep())
      return KILN_ERROR(Cancelled, "device ", DeviceName,
                        " was destroyed while a submission waited for its "
                        "semaphores");
  }
}

void HostQueue::main(const std::function<void()> &threadInit) {
  if (threadInit)
    threadInit();
  std::unique_lock<std::mutex> lock(Mutex);
  while (true) {
    QueueCv.wait(lock, [&] { return !Queue.empty() || ShuttingDown; });
    if (Queue.empty())
      return;
    HostSubmission submission = std::move(Queue.front());
    Queue.pop_front();
    lock.unlock();
    run(submission, waitForAll(submission));
    submission = HostSubmission();
    lock.lock();
    if (--Pending == 0)
      IdleCv.notify_all();
  }
}

Status HostQueue::waitIdle(Timeout timeout) {
  std::unique_lock<std::mutex> lock(Mutex);
  auto idle = [&] { return Pending == 0; };
  if (timeout == kInfiniteTimeout) {
    IdleCv.wait(lock, idle);
    return Status();
  }
  auto now = std::chrono::steady_clock::now();
  auto limit = std::chrono::steady_clock::time_point::max() - now;
  auto deadline = timeout >= limit
                      ? std::chrono::steady_clock::time_point::max()
                      : now + timeout;
  if (!IdleCv.wait_until(lock, deadline, idle))
    return KILN_ERROR(DeadlineExceeded, "device ", DeviceName, " still has ",
                      Pending, " submission(s) after the waitIdle timeout");
  return Status();
}

} // namespace kiln::hal
