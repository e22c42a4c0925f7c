//===- HostQueueTest.cpp - Queue threads waiting on any kind of semaphore -===//

#include "runtime/hal/HostQueue.h"
#include "runtime/hal/HostSemaphore.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace kiln::hal {
namespace {

using namespace std::chrono_literals;

// A semaphore whose word a "device" writes behind its back and reports
// later, as a CUDA semaphore's GPU writes are reported when the device
// retires the submission.
class DeviceWrittenSemaphore final : public HostSemaphore {
public:
  explicit DeviceWrittenSemaphore(uint64_t *word) : HostSemaphore(word, 0) {}
  void deviceWrite(uint64_t value) { storeValue(value); }
  void deviceRetired() { notifyChanged(); }
};

TEST(HostQueueTest, WaitsForAValueADeviceWrote) {
  uint64_t word = 0;
  auto semaphore = std::make_shared<DeviceWrittenSemaphore>(&word);
  auto done = std::make_shared<HostSemaphore>(0);
  HostQueue queue("test", HostQueue::Mode::Threaded);
  std::atomic<bool> ran{false};
  HostSubmission submission;
  submission.Waits = {{semaphore, 2}};
  submission.Run = [&, done](Status waited) {
    ran = true;
    signalOrFail({{SemaphoreValue{done, 1}}}, waited);
  };
  queue.submit(std::move(submission));
  semaphore->deviceWrite(1);
  semaphore->deviceRetired();
  std::this_thread::sleep_for(10ms);
  EXPECT_FALSE(ran.load());
  // The host reads the word directly: a waiter spinning on it sees the
  // write before the device reports it; a sleeping one once it does.
  semaphore->deviceWrite(2);
  EXPECT_TRUE(semaphore->poll(2).has_value());
  std::this_thread::sleep_for(10ms);
  semaphore->deviceRetired();
  ASSERT_TRUE(done->wait(1, 30s).ok());
  EXPECT_TRUE(ran.load());
  EXPECT_EQ(word, 2u);
  EXPECT_TRUE(queue.waitIdle(30s).ok());
}

TEST(HostQueueTest, SleepingWaiterWakesWhenTheDeviceReports) {
  uint64_t word = 0;
  DeviceWrittenSemaphore semaphore(&word);
  std::thread device([&] {
    // Past the waiter's spin: it sleeps on the condition variable.
    std::this_thread::sleep_for(20ms);
    semaphore.deviceWrite(5);
    semaphore.deviceRetired();
  });
  EXPECT_TRUE(semaphore.wait(5, 30s).ok());
  device.join();
}

TEST(HostQueueTest, DestroyedQueueCancelsWaitingSubmissions) {
  auto never = std::make_shared<HostSemaphore>(0);
  auto done = std::make_shared<HostSemaphore>(0);
  {
    HostQueue queue("doomed", HostQueue::Mode::Threaded);
    HostSubmission submission;
    submission.Waits = {{never, 1}};
    submission.Run = [done](Status waited) {
      signalOrFail({{SemaphoreValue{done, 1}}}, waited);
    };
    queue.submit(std::move(submission));
    EXPECT_EQ(queue.waitIdle(5ms).code(), StatusCode::DeadlineExceeded);
  }
  Status status = done->wait(1, 0ns);
  EXPECT_EQ(status.code(), StatusCode::Cancelled);
  EXPECT_NE(status.message().find("doomed"), std::string_view::npos);
}

TEST(HostQueueTest, SignalOrFail) {
  auto a = std::make_shared<HostSemaphore>(0);
  auto b = std::make_shared<HostSemaphore>(10);
  signalOrFail({{SemaphoreValue{a, 1}, SemaphoreValue{b, 5}}}, Status());
  EXPECT_EQ(*a->query(), 1u);
  // Not advancing: the semaphore fails, so its waiters learn why.
  EXPECT_EQ(b->query().status().code(), StatusCode::InvalidArgument);
  auto c = std::make_shared<HostSemaphore>(0);
  signalOrFail({{SemaphoreValue{a, 2}, SemaphoreValue{c, 1}}},
               KILN_ERROR(Aborted, "work failed"));
  EXPECT_EQ(a->query().status().code(), StatusCode::Aborted);
  EXPECT_EQ(c->wait(1, 0ns).message(), "work failed");
}

TEST(HostQueueTest, InlineModeRunsOnTheSubmittingThread) {
  HostQueue queue("inline", HostQueue::Mode::Inline);
  auto gate = std::make_shared<HostSemaphore>(0);
  std::thread opener([&] {
    std::this_thread::sleep_for(10ms);
    EXPECT_TRUE(gate->signal(1).ok());
  });
  std::thread::id ranOn;
  HostSubmission submission;
  submission.Waits = {{gate, 1}};
  submission.Run = [&](Status waited) {
    EXPECT_TRUE(waited.ok());
    ranOn = std::this_thread::get_id();
  };
  queue.submit(std::move(submission));
  EXPECT_EQ(ranOn, std::this_thread::get_id());
  opener.join();
  EXPECT_TRUE(queue.waitIdle(0ns).ok());
}

} // namespace
} // namespace kiln::hal
