//===- SemaphoreCtsTest.cpp - Timelines and queue ordering ----------------===//

#include "runtime/hal/cts/CtsFixture.h"

#include <atomic>
#include <thread>

namespace kiln::hal::cts {
namespace {

using namespace std::chrono_literals;

class SemaphoreCts : public CtsTest {
protected:
  // A one-shot command buffer that fills `buffer` with `byte`.
  StatusOr<std::shared_ptr<CommandBuffer>>
  fillCommands(const std::shared_ptr<Buffer> &buffer, uint8_t byte) {
    KILN_ASSIGN_OR_RETURN(auto commands, beginCommands());
    KILN_RETURN_IF_ERROR(commands->fill(BufferRef::direct(buffer), byte, 1));
    KILN_RETURN_IF_ERROR(commands->end());
    return commands;
  }
};
KILN_CTS_INSTANTIATE(SemaphoreCts);

TEST_P(SemaphoreCts, QuerySignalWait) {
  KILN_CTS_ASSIGN(auto semaphore, device()->createSemaphore(3));
  KILN_CTS_ASSIGN(uint64_t value, semaphore->query());
  EXPECT_EQ(value, 3u);
  KILN_CTS_ASSERT_OK(semaphore->signal(10));
  EXPECT_EQ(semaphore->signal(10).code(), StatusCode::InvalidArgument);
  EXPECT_EQ(semaphore->signal(4).code(), StatusCode::InvalidArgument);
  KILN_CTS_ASSERT_OK(semaphore->wait(10, 0ns));
  KILN_CTS_ASSERT_OK(semaphore->wait(7, kWaitTimeout));
  EXPECT_EQ(semaphore->wait(11, 0ns).code(), StatusCode::DeadlineExceeded);
  EXPECT_EQ(semaphore->wait(11, 20ms).code(), StatusCode::DeadlineExceeded);
  KILN_CTS_ASSIGN(value, semaphore->query());
  EXPECT_EQ(value, 10u);
}

TEST_P(SemaphoreCts, WaitersOnOtherThreads) {
  KILN_CTS_ASSIGN(auto semaphore, device()->createSemaphore(0));
  std::atomic<int> done{0};
  std::vector<std::thread> waiters;
  for (uint64_t target : {1u, 2u, 2u, 5u})
    waiters.emplace_back([&, target] {
      if (semaphore->wait(target, kWaitTimeout).ok())
        ++done;
    });
  for (uint64_t value = 1; value <= 5; ++value) {
    std::this_thread::sleep_for(1ms);
    ASSERT_TRUE(semaphore->signal(value).ok());
  }
  for (std::thread &waiter : waiters)
    waiter.join();
  EXPECT_EQ(done.load(), 4);
}

TEST_P(SemaphoreCts, FailureWakesWaitersWithTheStatus) {
  KILN_CTS_ASSIGN(auto semaphore, device()->createSemaphore(0));
  Status seen;
  std::thread waiter([&] { seen = semaphore->wait(1, kWaitTimeout); });
  std::this_thread::sleep_for(5ms);
  KILN_CTS_ASSERT_OK(semaphore->fail(KILN_ERROR(Aborted, "kernel fault")));
  waiter.join();
  EXPECT_EQ(seen.code(), StatusCode::Aborted);
  EXPECT_EQ(seen.message(), "kernel fault");
  EXPECT_EQ(semaphore->query().status().code(), StatusCode::Aborted);
}

TEST_P(SemaphoreCts, SubmissionSignalsItsSignalList) {
  KILN_CTS_ASSIGN(auto buffer, deviceBuffer(64));
  KILN_CTS_ASSIGN(auto commands, fillCommands(buffer, 0x42));
  KILN_CTS_ASSIGN(auto a, device()->createSemaphore(0));
  KILN_CTS_ASSIGN(auto b, device()->createSemaphore(100));
  SemaphoreValue signals[] = {{a, 1}, {b, 200}};
  KILN_CTS_ASSERT_OK(device()->queueExecute({}, commands, {}, signals));
  KILN_CTS_ASSERT_OK(a->wait(1, kWaitTimeout));
  KILN_CTS_ASSERT_OK(b->wait(200, kWaitTimeout));
  KILN_CTS_ASSIGN(auto back, download(buffer));
  EXPECT_EQ(back, std::vector<uint8_t>(64, 0x42));
}

TEST_P(SemaphoreCts, WaitListSatisfiedByAnotherThread) {
  KILN_CTS_ASSIGN(auto buffer, deviceBuffer(64));
  KILN_CTS_ASSERT_OK(upload(buffer, std::vector<uint8_t>(64, 1)));
  KILN_CTS_ASSIGN(auto commands, fillCommands(buffer, 0x99));
  KILN_CTS_ASSIGN(auto gate, device()->createSemaphore(0));
  KILN_CTS_ASSIGN(auto done, device()->createSemaphore(0));
  std::atomic<bool> signalled{false};
  std::thread opener([&] {
    std::this_thread::sleep_for(20ms);
    signalled = true;
    EXPECT_TRUE(gate->signal(1).ok());
  });
  SemaphoreValue wait{gate, 1};
  SemaphoreValue signal{done, 1};
  KILN_CTS_ASSERT_OK(
      device()->queueExecute({&wait, 1}, commands, {}, {&signal, 1}));
  KILN_CTS_ASSERT_OK(done->wait(1, kWaitTimeout));
  EXPECT_TRUE(signalled.load());
  opener.join();
  KILN_CTS_ASSIGN(auto back, download(buffer));
  EXPECT_EQ(back, std::vector<uint8_t>(64, 0x99));
}

TEST_P(SemaphoreCts, DeferredSubmissionWaitsForTheHost) {
  KILN_CTS_REQUIRE(feature::kDeferredSubmission);
  KILN_CTS_ASSIGN(auto buffer, deviceBuffer(64));
  KILN_CTS_ASSERT_OK(upload(buffer, std::vector<uint8_t>(64, 1)));
  KILN_CTS_ASSIGN(auto first, fillCommands(buffer, 0x10));
  KILN_CTS_ASSIGN(auto gate, device()->createSemaphore(0));
  KILN_CTS_ASSIGN(auto done, device()->createSemaphore(0));
  SemaphoreValue wait{gate, 5};
  SemaphoreValue signal{done, 1};
  // Returns at once although the gate is closed; this thread opens it.
  KILN_CTS_ASSERT_OK(
      device()->queueExecute({&wait, 1}, first, {}, {&signal, 1}));
  EXPECT_EQ(done->wait(1, 30ms).code(), StatusCode::DeadlineExceeded);
  EXPECT_EQ(device()->waitIdle(0ns).code(), StatusCode::DeadlineExceeded);
  KILN_CTS_ASSERT_OK(gate->signal(4));
  EXPECT_EQ(done->wait(1, 10ms).code(), StatusCode::DeadlineExceeded);
  KILN_CTS_ASSERT_OK(gate->signal(5));
  KILN_CTS_ASSERT_OK(done->wait(1, kWaitTimeout));
  KILN_CTS_ASSIGN(auto back, download(buffer));
  EXPECT_EQ(back, std::vector<uint8_t>(64, 0x10));
}

TEST_P(SemaphoreCts, SubmissionsRunInOrder) {
  KILN_CTS_REQUIRE(feature::kDeferredSubmission);
  // The first submission is held by a gate; the second must not overtake
  // it, so the final contents come from the second fill.
  KILN_CTS_ASSIGN(auto buffer, deviceBuffer(64));
  KILN_CTS_ASSIGN(auto first, fillCommands(buffer, 0x01));
  KILN_CTS_ASSIGN(auto second, fillCommands(buffer, 0x02));
  KILN_CTS_ASSIGN(auto gate, device()->createSemaphore(0));
  KILN_CTS_ASSIGN(auto done, device()->createSemaphore(0));
  SemaphoreValue wait{gate, 1};
  SemaphoreValue one{done, 1}, two{done, 2};
  KILN_CTS_ASSERT_OK(device()->queueExecute({&wait, 1}, first, {}, {&one, 1}));
  KILN_CTS_ASSERT_OK(device()->queueExecute({}, second, {}, {&two, 1}));
  std::this_thread::sleep_for(10ms);
  KILN_CTS_ASSIGN(uint64_t value, done->query());
  EXPECT_EQ(value, 0u);
  KILN_CTS_ASSERT_OK(gate->signal(1));
  KILN_CTS_ASSERT_OK(done->wait(2, kWaitTimeout));
  KILN_CTS_ASSIGN(auto back, download(buffer));
  EXPECT_EQ(back, std::vector<uint8_t>(64, 0x02));
}

TEST_P(SemaphoreCts, FailedWaitPropagatesAndSkipsTheWork) {
  KILN_CTS_ASSIGN(auto buffer, deviceBuffer(64));
  KILN_CTS_ASSERT_OK(upload(buffer, std::vector<uint8_t>(64, 7)));
  KILN_CTS_ASSIGN(auto commands, fillCommands(buffer, 0xff));
  KILN_CTS_ASSIGN(auto gate, device()->createSemaphore(0));
  KILN_CTS_ASSIGN(auto done, device()->createSemaphore(0));
  KILN_CTS_ASSERT_OK(gate->fail(KILN_ERROR(DataLoss, "upstream failed")));
  SemaphoreValue wait{gate, 1};
  SemaphoreValue signal{done, 1};
  KILN_CTS_ASSERT_OK(
      device()->queueExecute({&wait, 1}, commands, {}, {&signal, 1}));
  Status status = done->wait(1, kWaitTimeout);
  EXPECT_EQ(status.code(), StatusCode::DataLoss);
  EXPECT_EQ(status.message(), "upstream failed");
  KILN_CTS_ASSERT_OK(device()->waitIdle(kWaitTimeout));
  KILN_CTS_ASSIGN(auto back, download(buffer));
  EXPECT_EQ(back, std::vector<uint8_t>(64, 7));
}

TEST_P(SemaphoreCts, NonAdvancingSignalFailsTheSemaphore) {
  // Waiters must learn that the value will never come, not hang.
  KILN_CTS_ASSIGN(auto done, device()->createSemaphore(10));
  SemaphoreValue signal{done, 5};
  KILN_CTS_ASSERT_OK(device()->queueExecute({}, nullptr, {}, {&signal, 1}));
  KILN_CTS_ASSERT_OK(device()->waitIdle(kWaitTimeout));
  EXPECT_EQ(done->wait(11, kWaitTimeout).code(), StatusCode::InvalidArgument);
}

TEST_P(SemaphoreCts, BarrierOnlySubmission) {
  KILN_CTS_ASSIGN(auto a, device()->createSemaphore(0));
  KILN_CTS_ASSIGN(auto b, device()->createSemaphore(0));
  KILN_CTS_ASSERT_OK(a->signal(2));
  SemaphoreValue wait{a, 2};
  SemaphoreValue signal{b, 9};
  KILN_CTS_ASSERT_OK(
      device()->queueExecute({&wait, 1}, nullptr, {}, {&signal, 1}));
  KILN_CTS_ASSERT_OK(b->wait(9, kWaitTimeout));
  KILN_CTS_ASSERT_OK(device()->waitIdle(kWaitTimeout));
}

} // namespace
} // namespace kiln::hal::cts
