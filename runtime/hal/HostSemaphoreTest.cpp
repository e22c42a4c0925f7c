//===- HostSemaphoreTest.cpp ---------------------------------------------===//

#include "runtime/hal/HostSemaphore.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace kiln::hal {
namespace {

using namespace std::chrono_literals;

TEST(HostSemaphoreTest, TimelineOnlyAdvances) {
  HostSemaphore semaphore(5);
  EXPECT_EQ(*semaphore.query(), 5u);
  EXPECT_TRUE(semaphore.signal(6).ok());
  EXPECT_TRUE(semaphore.signal(100).ok());
  EXPECT_EQ(*semaphore.query(), 100u);
  Status same = semaphore.signal(100);
  EXPECT_EQ(same.code(), StatusCode::InvalidArgument);
  EXPECT_NE(same.message().find("does not advance"), std::string_view::npos);
  EXPECT_EQ(semaphore.signal(7).code(), StatusCode::InvalidArgument);
  EXPECT_EQ(*semaphore.query(), 100u);
  // Values stop below 2^63 - 1 (what a GPU waiter compares as signed and
  // a failed device semaphore holds).
  Status tooLarge = semaphore.signal(kMaxSemaphoreValue + 1);
  EXPECT_EQ(tooLarge.code(), StatusCode::InvalidArgument);
  EXPECT_NE(tooLarge.message().find("exceeds"), std::string_view::npos);
  EXPECT_TRUE(semaphore.signal(kMaxSemaphoreValue).ok());
  EXPECT_FALSE(semaphore.signal(kMaxSemaphoreValue).ok());
}

TEST(HostSemaphoreTest, WaitsForReachedValuesReturnAtOnce) {
  HostSemaphore semaphore(10);
  EXPECT_TRUE(semaphore.wait(0, 0ns).ok());
  EXPECT_TRUE(semaphore.wait(10, 0ns).ok());
  EXPECT_TRUE(semaphore.wait(3, kInfiniteTimeout).ok());
}

TEST(HostSemaphoreTest, Timeouts) {
  HostSemaphore semaphore(0);
  EXPECT_EQ(semaphore.wait(1, 0ns).code(), StatusCode::DeadlineExceeded);
  EXPECT_EQ(semaphore.wait(1, -5ms).code(), StatusCode::DeadlineExceeded);
  auto start = std::chrono::steady_clock::now();
  Status status = semaphore.wait(1, 30ms);
  auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(status.code(), StatusCode::DeadlineExceeded);
  EXPECT_GE(elapsed, 30ms);
  // A huge finite timeout must not overflow into an immediate timeout.
  std::thread signaller([&] {
    std::this_thread::sleep_for(20ms);
    EXPECT_TRUE(semaphore.signal(1).ok());
  });
  EXPECT_TRUE(semaphore.wait(1, Timeout::max() - 1ns).ok());
  signaller.join();
}

TEST(HostSemaphoreTest, ManyWaitersWakeInValueOrder) {
  HostSemaphore semaphore(0);
  constexpr int kWaiters = 8;
  std::atomic<int> woken{0};
  std::vector<uint64_t> wokeAt(kWaiters, 0);
  std::vector<std::thread> threads;
  for (int i = 0; i < kWaiters; ++i)
    threads.emplace_back([&, i] {
      // Waiter i needs value i + 1; it then records the value it saw.
      EXPECT_TRUE(semaphore.wait(i + 1, 30s).ok());
      wokeAt[i] = *semaphore.query();
      ++woken;
    });
  for (int value = 1; value <= kWaiters; ++value) {
    std::this_thread::sleep_for(2ms);
    ASSERT_TRUE(semaphore.signal(value).ok());
  }
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(woken.load(), kWaiters);
  for (int i = 0; i < kWaiters; ++i)
    EXPECT_GE(wokeAt[i], uint64_t(i + 1));
}

TEST(HostSemaphoreTest, FailureReachesEveryWaiter) {
  HostSemaphore semaphore(1);
  std::vector<std::thread> threads;
  std::atomic<int> failed{0};
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&] {
      Status status = semaphore.wait(50, 30s);
      if (status.code() == StatusCode::Aborted &&
          status.message() == "device lost")
        ++failed;
    });
  std::this_thread::sleep_for(10ms);
  EXPECT_EQ(semaphore.fail(Status()).code(), StatusCode::InvalidArgument);
  ASSERT_TRUE(semaphore.fail(KILN_ERROR(Aborted, "device lost")).ok());
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failed.load(), 4);
  // The first failure sticks; everything afterwards reports it.
  ASSERT_TRUE(semaphore.fail(KILN_ERROR(Internal, "second")).ok());
  EXPECT_EQ(semaphore.query().status().message(), "device lost");
  EXPECT_EQ(semaphore.wait(0, 0ns).message(), "device lost");
  EXPECT_EQ(semaphore.signal(2).message(), "device lost");
  EXPECT_EQ(semaphore.poll(0)->message(), "device lost");
}

TEST(HostSemaphoreTest, PollAndWakers) {
  HostSemaphore semaphore(0);
  EXPECT_FALSE(semaphore.poll(1));
  auto waker = std::make_shared<Waker>();
  semaphore.addWaker(waker);
  semaphore.addWaker(waker); // registered once
  waker->arm();
  std::thread signaller([&] {
    std::this_thread::sleep_for(10ms);
    EXPECT_TRUE(semaphore.signal(1).ok());
  });
  EXPECT_TRUE(waker->sleep());
  signaller.join();
  ASSERT_TRUE(semaphore.poll(1));
  EXPECT_TRUE(semaphore.poll(1)->ok());
  // A signal between arm() and sleep() is not lost.
  waker->arm();
  ASSERT_TRUE(semaphore.signal(2).ok());
  EXPECT_TRUE(waker->sleep());
  waker->stop();
  EXPECT_FALSE(waker->sleep());
  // Expired wakers are dropped, never called.
  waker.reset();
  EXPECT_TRUE(semaphore.signal(3).ok());
}

} // namespace
} // namespace kiln::hal
