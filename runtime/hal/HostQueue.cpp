//===- HostQueue.cpp ------------------------------------------------------===//

#include "runtime/hal/HostQueue.h"

namespace kiln::hal {

void signalOrFail(std::span<const SemaphoreValue> signals,
                  const Status &status) {
  for (const SemaphoreValue &signal : signals) {
    if (!status.ok()) {
      signal.Timeline->fail(status).ignoreError();
      continue;
    }
    Status signalled = signal.Timeline->signal(signal.Value);
    if (!signalled.ok())
      signal.Timeline->fail(signalled).ignoreError();
  }
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
  for (const SemaphoreValue &wait : submission.Waits) {
    status = wait.Timeline->wait(wait.Value, kInfiniteTimeout);
    if (!status.ok())
      break;
  }
  submission.Waits.clear();
  submission.Run(std::move(status));
  submission = HostSubmission();
  std::lock_guard<std::mutex> lock(Mutex);
  if (--Pending == 0)
    IdleCv.notify_all();
}

Status HostQueue::waitForAll(const HostSubmission &submission) {
  while (true) {
    QueueWaker->arm();
    bool reached = true;
    for (const SemaphoreValue &wait : submission.Waits) {
      wait.Timeline->addWaker(QueueWaker);
      std::optional<Status> state = submission.Ready
                                        ? submission.Ready(wait)
                                        : wait.Timeline->poll(wait.Value);
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
    Status waited = waitForAll(submission);
    submission.Waits.clear();
    submission.Run(std::move(waited));
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
  if (!IdleCv.wait_until(lock, deadlineAfter(timeout), idle))
    return KILN_ERROR(DeadlineExceeded, "device ", DeviceName, " still has ",
                      Pending, " submission(s) after the waitIdle timeout");
  return Status();
}

} // namespace kiln::hal
