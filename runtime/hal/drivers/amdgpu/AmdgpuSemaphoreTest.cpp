//===- AmdgpuSemaphoreTest.cpp - Queued signals and device waits ----------===//
//
// The completion signals are heap words (TestSignals.h); the test decrements
// them where a packet processor would and retires as the device's retire
// thread would. What is checked is which signal a waiting submission gets,
// when it must wait on the host instead, and that values and failures
// reach host waiters.
//
//===----------------------------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/AmdgpuSemaphore.h"

#include "runtime/hal/drivers/amdgpu/TestSignals.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace kiln::hal::amdgpu {
namespace {

using namespace testing;

class AmdgpuSemaphoreTest : public ::testing::Test {
protected:
  std::shared_ptr<CompletionSignal> signal() {
    auto created = CompletionSignal::create(Hsa, 1);
    EXPECT_TRUE(created.ok());
    return *created;
  }

  std::shared_ptr<const HsaSymbols> Hsa = hostSignalSymbols();
};

TEST_F(AmdgpuSemaphoreTest, AReachedValueNeedsNoWait) {
  AmdgpuSemaphore semaphore(5);
  auto wait = semaphore.deviceWait(5);
  ASSERT_TRUE(wait.ok());
  EXPECT_TRUE(wait->Reached);
  EXPECT_FALSE(wait->Signal);
}

TEST_F(AmdgpuSemaphoreTest, AValueNothingIsQueuedForWaitsOnTheHost) {
  AmdgpuSemaphore semaphore(0);
  auto done = signal();
  ASSERT_TRUE(semaphore.noteQueued(3, done).ok());
  auto wait = semaphore.deviceWait(4);
  ASSERT_TRUE(wait.ok());
  EXPECT_FALSE(wait->Reached);
  EXPECT_FALSE(wait->Signal);
}

TEST_F(AmdgpuSemaphoreTest, AWaitGetsTheFirstQueuedSubmissionReachingIt) {
  AmdgpuSemaphore semaphore(0);
  auto two = signal(), five = signal(), nine = signal();
  // Noted out of value order, as submissions of several queues may be.
  ASSERT_TRUE(semaphore.noteQueued(5, five).ok());
  ASSERT_TRUE(semaphore.noteQueued(9, nine).ok());
  ASSERT_TRUE(semaphore.noteQueued(2, two).ok());
  EXPECT_EQ(semaphore.deviceWait(1)->Signal, two);
  EXPECT_EQ(semaphore.deviceWait(2)->Signal, two);
  EXPECT_EQ(semaphore.deviceWait(3)->Signal, five);
  EXPECT_EQ(semaphore.deviceWait(6)->Signal, nine);
  EXPECT_FALSE(semaphore.deviceWait(10)->Signal);
}

TEST_F(AmdgpuSemaphoreTest, PollQueuedLetsThroughWhatTheGpuCanWaitFor) {
  AmdgpuSemaphore semaphore(2);
  ASSERT_TRUE(semaphore.noteQueued(4, signal()).ok());
  EXPECT_TRUE(semaphore.pollQueued(2).value().ok());
  EXPECT_TRUE(semaphore.pollQueued(4).value().ok());
  EXPECT_FALSE(semaphore.pollQueued(5).has_value());
  ASSERT_TRUE(semaphore.fail(KILN_ERROR(Aborted, "lost")).ok());
  EXPECT_EQ(semaphore.pollQueued(1).value().code(), StatusCode::Aborted);
}

TEST_F(AmdgpuSemaphoreTest, RetiringAdvancesTheValueAndLetsSignalsGo) {
  AmdgpuSemaphore semaphore(0);
  {
    auto two = signal(), five = signal();
    ASSERT_TRUE(semaphore.noteQueued(2, two).ok());
    ASSERT_TRUE(semaphore.noteQueued(5, five).ok());
  }
  EXPECT_EQ(liveSignals.load(), 2);
  // A host thread waiting for 2 sees the retire thread's advance.
  std::thread waiter(
      [&] { EXPECT_TRUE(semaphore.wait(2, std::chrono::seconds(10)).ok()); });
  ASSERT_TRUE(semaphore.signalFromDevice(2).ok());
  waiter.join();
  EXPECT_EQ(*semaphore.query(), 2u);
  EXPECT_EQ(liveSignals.load(), 1);
  // The queue of 5 retires a submission signalling 4 late: no step back.
  ASSERT_TRUE(semaphore.signalFromDevice(5).ok());
  ASSERT_TRUE(semaphore.signalFromDevice(4).ok());
  EXPECT_EQ(*semaphore.query(), 5u);
  EXPECT_EQ(liveSignals.load(), 0);
}

TEST_F(AmdgpuSemaphoreTest, AWaitingSubmissionKeepsItsSignal) {
  AmdgpuSemaphore semaphore(0);
  ASSERT_TRUE(semaphore.noteQueued(1, signal()).ok());
  auto held = semaphore.deviceWait(1)->Signal;
  ASSERT_TRUE(semaphore.signalFromDevice(1).ok());
  // The barrier naming it may still be in a queue: alive until let go.
  EXPECT_EQ(liveSignals.load(), 1);
  held.reset();
  EXPECT_EQ(liveSignals.load(), 0);
}

TEST_F(AmdgpuSemaphoreTest, QueuedValuesMustAdvanceAndBeInRange) {
  AmdgpuSemaphore semaphore(4);
  EXPECT_EQ(semaphore.noteQueued(4, signal()).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(semaphore.noteQueued(kMaxSemaphoreValue + 1, signal()).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(semaphore.noteQueued(5, nullptr).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(semaphore.signalFromDevice(kMaxSemaphoreValue + 1).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(liveSignals.load(), 0);
}

TEST_F(AmdgpuSemaphoreTest, NoteQueuedWakesQueueThreads) {
  AmdgpuSemaphore semaphore(0);
  auto waker = std::make_shared<Waker>();
  semaphore.addWaker(waker);
  waker->arm();
  std::thread queuer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT_TRUE(semaphore.noteQueued(1, signal()).ok());
  });
  EXPECT_TRUE(waker->sleep());
  queuer.join();
  EXPECT_TRUE(semaphore.deviceWait(1)->Signal);
}

TEST_F(AmdgpuSemaphoreTest, AFailureReachesEveryWayOfWaiting) {
  AmdgpuSemaphore semaphore(0);
  ASSERT_TRUE(semaphore.noteQueued(3, signal()).ok());
  std::thread waiter([&] {
    EXPECT_EQ(semaphore.wait(3, kInfiniteTimeout).code(), StatusCode::Internal);
  });
  ASSERT_TRUE(semaphore.fail(KILN_ERROR(Internal, "kernel fault")).ok());
  waiter.join();
  EXPECT_EQ(liveSignals.load(), 0);
  EXPECT_EQ(semaphore.deviceWait(3).status().code(), StatusCode::Internal);
  EXPECT_EQ(semaphore.noteQueued(4, signal()).code(), StatusCode::Internal);
  EXPECT_EQ(semaphore.signalFromDevice(3).code(), StatusCode::Internal);
  EXPECT_EQ(semaphore.fail(Status()).code(), StatusCode::InvalidArgument);
}

} // namespace
} // namespace kiln::hal::amdgpu
