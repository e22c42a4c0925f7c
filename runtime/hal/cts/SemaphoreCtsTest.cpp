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
  KILN_ASSERT_OK_AND_ASSIGN(auto semaphore, device()->createSemaphore(3));
  KILN_ASSERT_OK_AND_ASSIGN(uint64_t value, semaphore->query());
  EXPECT_EQ(value, 3u);
  KILN_ASSERT_OK(semaphore->signal(10));
  EXPECT_EQ(semaphore->signal(10).code(), StatusCode::InvalidArgument);
  EXPECT_EQ(semaphore->signal(4).code(), StatusCode::InvalidArgument);
  KILN_ASSERT_OK(semaphore->wait(10, 0ns));
  KILN_ASSERT_OK(semaphore->wait(7, kWaitTimeout));
  EXPECT_EQ(semaphore->wait(11, 0ns).code(), StatusCode::DeadlineExceeded);
  EXPECT_EQ(semaphore->wait(11, 20ms).code(), StatusCode::DeadlineExceeded);
  KILN_ASSERT_OK_AND_ASSIGN(value, semaphore->query());
  EXPECT_EQ(value, 10u);
}

TEST_P(SemaphoreCts, WaitersOnOtherThreads) {
  KILN_ASSERT_OK_AND_ASSIGN(auto semaphore, device()->createSemaphore(0));
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
  KILN_ASSERT_OK_AND_ASSIGN(auto semaphore, device()->createSemaphore(0));
  Status seen;
  std::thread waiter([&] { seen = semaphore->wait(1, kWaitTimeout); });
  std::this_thread::sleep_for(5ms);
  KILN_ASSERT_OK(semaphore->fail(KILN_ERROR(Aborted, "kernel fault")));
  waiter.join();
  EXPECT_EQ(seen.code(), StatusCode::Aborted);
  EXPECT_EQ(seen.message(), "kernel fault");
  EXPECT_EQ(semaphore->query().status().code(), StatusCode::Aborted);
}

TEST_P(SemaphoreCts, SubmissionSignalsItsSignalList) {
  KILN_ASSERT_OK_AND_ASSIGN(auto buffer, deviceBuffer(64));
  KILN_ASSERT_OK_AND_ASSIGN(auto commands, fillCommands(buffer, 0x42));
  KILN_ASSERT_OK_AND_ASSIGN(auto a, device()->createSemaphore(0));
  KILN_ASSERT_OK_AND_ASSIGN(auto b, device()->createSemaphore(100));
  SemaphoreValue signals[] = {{a, 1}, {b, 200}};
  KILN_ASSERT_OK(device()->queueExecute({}, commands, {}, signals));
  KILN_ASSERT_OK(a->wait(1, kWaitTimeout));
  KILN_ASSERT_OK(b->wait(200, kWaitTimeout));
  KILN_ASSERT_OK_AND_ASSIGN(auto back, download(buffer));
  EXPECT_EQ(back, std::vector<uint8_t>(64, 0x42));
}

TEST_P(SemaphoreCts, WaitListSatisfiedByAnotherThread) {
  KILN_ASSERT_OK_AND_ASSIGN(auto buffer, deviceBuffer(64));
  KILN_ASSERT_OK(upload(buffer, std::vector<uint8_t>(64, 1)));
  KILN_ASSERT_OK_AND_ASSIGN(auto commands, fillCommands(buffer, 0x99));
  KILN_ASSERT_OK_AND_ASSIGN(auto gate, device()->createSemaphore(0));
  KILN_ASSERT_OK_AND_ASSIGN(auto done, device()->createSemaphore(0));
  std::atomic<bool> signalled{false};
  std::thread opener([&] {
    std::this_thread::sleep_for(20ms);
    signalled = true;
    EXPECT_TRUE(gate->signal(1).ok());
  });
  SemaphoreValue wait{gate, 1};
  SemaphoreValue signal{done, 1};
  KILN_ASSERT_OK(
      device()->queueExecute({&wait, 1}, commands, {}, {&signal, 1}));
  KILN_ASSERT_OK(done->wait(1, kWaitTimeout));
  EXPECT_TRUE(signalled.load());
  opener.join();
  KILN_ASSERT_OK_AND_ASSIGN(auto back, download(buffer));
  EXPECT_EQ(back, std::vector<uint8_t>(64, 0x99));
}

TEST_P(SemaphoreCts, DeferredSubmissionWaitsForTheHost) {
  KILN_CTS_REQUIRE(feature::kDeferredSubmission);
  KILN_ASSERT_OK_AND_ASSIGN(auto buffer, deviceBuffer(64));
  KILN_ASSERT_OK(upload(buffer, std::vector<uint8_t>(64, 1)));
  KILN_ASSERT_OK_AND_ASSIGN(auto first, fillCommands(buffer, 0x10));
  KILN_ASSERT_OK_AND_ASSIGN(auto gate, device()->createSemaphore(0));
  KILN_ASSERT_OK_AND_ASSIGN(auto done, device()->createSemaphore(0));
  SemaphoreValue wait{gate, 5};
  SemaphoreValue signal{done, 1};
  // Returns at once although the gate is closed; this thread opens it.
  KILN_ASSERT_OK(device()->queueExecute({&wait, 1}, first, {}, {&signal, 1}));
  EXPECT_EQ(done->wait(1, 30ms).code(), StatusCode::DeadlineExceeded);
  EXPECT_EQ(device()->waitIdle(0ns).code(), StatusCode::DeadlineExceeded);
  KILN_ASSERT_OK(gate->signal(4));
  EXPECT_EQ(done->wait(1, 10ms).code(), StatusCode::DeadlineExceeded);
  KILN_ASSERT_OK(gate->signal(5));
  KILN_ASSERT_OK(done->wait(1, kWaitTimeout));
  KILN_ASSERT_OK_AND_ASSIGN(auto back, download(buffer));
  EXPECT_EQ(back, std::vector<uint8_t>(64, 0x10));
}

TEST_P(SemaphoreCts, SubmissionsRunInOrder) {
  KILN_CTS_REQUIRE(feature::kDeferredSubmission);
  // The first submission is held by a gate; the second must not overtake
  // it, so the final contents come from the second fill.
  KILN_ASSERT_OK_AND_ASSIGN(auto buffer, deviceBuffer(64));
  KILN_ASSERT_OK_AND_ASSIGN(auto first, fillCommands(buffer, 0x01));
  KILN_ASSERT_OK_AND_ASSIGN(auto second, fillCommands(buffer, 0x02));
  KILN_ASSERT_OK_AND_ASSIGN(auto gate, device()->createSemaphore(0));
  KILN_ASSERT_OK_AND_ASSIGN(auto done, device()->createSemaphore(0));
  SemaphoreValue wait{gate, 1};
  SemaphoreValue one{done, 1}, two{done, 2};
  KILN_ASSERT_OK(device()->queueExecute({&wait, 1}, first, {}, {&one, 1}));
  KILN_ASSERT_OK(device()->queueExecute({}, second, {}, {&two, 1}));
  std::this_thread::sleep_for(10ms);
  KILN_ASSERT_OK_AND_ASSIGN(uint64_t value, done->query());
  EXPECT_EQ(value, 0u);
  KILN_ASSERT_OK(gate->signal(1));
  KILN_ASSERT_OK(done->wait(2, kWaitTimeout));
  KILN_ASSERT_OK_AND_ASSIGN(auto back, download(buffer));
  EXPECT_EQ(back, std::vector<uint8_t>(64, 0x02));
}

TEST_P(SemaphoreCts, FailedWaitPropagatesAndSkipsTheWork) {
  KILN_ASSERT_OK_AND_ASSIGN(auto buffer, deviceBuffer(64));
  KILN_ASSERT_OK(upload(buffer, std::vector<uint8_t>(64, 7)));
  KILN_ASSERT_OK_AND_ASSIGN(auto commands, fillCommands(buffer, 0xff));
  KILN_ASSERT_OK_AND_ASSIGN(auto gate, device()->createSemaphore(0));
  KILN_ASSERT_OK_AND_ASSIGN(auto done, device()->createSemaphore(0));
  KILN_ASSERT_OK(gate->fail(KILN_ERROR(DataLoss, "upstream failed")));
  SemaphoreValue wait{gate, 1};
  SemaphoreValue signal{done, 1};
  KILN_ASSERT_OK(
      device()->queueExecute({&wait, 1}, commands, {}, {&signal, 1}));
  Status status = done->wait(1, kWaitTimeout);
  EXPECT_EQ(status.code(), StatusCode::DataLoss);
  EXPECT_EQ(status.message(), "upstream failed");
  KILN_ASSERT_OK(device()->waitIdle(kWaitTimeout));
  KILN_ASSERT_OK_AND_ASSIGN(auto back, download(buffer));
  EXPECT_EQ(back, std::vector<uint8_t>(64, 7));
}

TEST_P(SemaphoreCts, FailureAfterSubmissionReachesEveryWaiter) {
  KILN_CTS_REQUIRE(feature::kDeferredSubmission);
  // gate -> (queue 0) first -> middle -> (last queue) second -> last: both
  // are queued, waiting, when the gate fails. Each waiter sees the failure,
  // however far down the chain, and no queue is left stuck (TearDown's
  // waitIdle would time out).
  KILN_ASSERT_OK_AND_ASSIGN(auto buffer, deviceBuffer(64));
  KILN_ASSERT_OK_AND_ASSIGN(auto first, fillCommands(buffer, 0x01));
  KILN_ASSERT_OK_AND_ASSIGN(auto second, fillCommands(buffer, 0x02));
  KILN_ASSERT_OK_AND_ASSIGN(auto gate, device()->createSemaphore(0));
  KILN_ASSERT_OK_AND_ASSIGN(auto middle, device()->createSemaphore(0));
  KILN_ASSERT_OK_AND_ASSIGN(auto last, device()->createSemaphore(0));
  SemaphoreValue gateOpen{gate, 1}, middleDone{middle, 1}, lastDone{last, 1};
  KILN_ASSERT_OK(
      device()->queueExecute({&gateOpen, 1}, first, {}, {&middleDone, 1}));
  KILN_ASSERT_OK(device()->queueExecute(
      {&middleDone, 1}, second, {}, {&lastDone, 1}, nullptr,
      queueAffinity(device()->queueCount() - 1)));
  Status seenMiddle, seenLast;
  std::thread middleWaiter([&] { seenMiddle = middle->wait(1, kWaitTimeout); });
  std::thread lastWaiter([&] { seenLast = last->wait(1, kWaitTimeout); });
  std::this_thread::sleep_for(5ms);
  KILN_ASSERT_OK(gate->fail(KILN_ERROR(DataLoss, "the gate broke")));
  middleWaiter.join();
  lastWaiter.join();
  for (const Status &seen : {seenMiddle, seenLast}) {
    EXPECT_EQ(seen.code(), StatusCode::DataLoss) << seen.toString();
    EXPECT_EQ(seen.message(), "the gate broke");
  }
  KILN_ASSERT_OK(device()->waitIdle(kWaitTimeout));
  // Later waits and queries see it too.
  EXPECT_EQ(last->query().status().code(), StatusCode::DataLoss);
  EXPECT_EQ(middle->wait(1, 0ns).code(), StatusCode::DataLoss);
}

TEST_P(SemaphoreCts, ChainAcrossQueuesCarriesData) {
  // Each step copies what the step before wrote; the steps are ordered only
  // by one timeline, and the last runs on another queue. Every copy must see
  // the previous one's bytes.
  constexpr uint64_t kSize = 64 * 1024;
  std::vector<uint8_t> bytes = randomBytes(kSize);
  KILN_ASSERT_OK_AND_ASSIGN(auto source, deviceBuffer(kSize));
  KILN_ASSERT_OK_AND_ASSIGN(auto middle, deviceBuffer(kSize));
  KILN_ASSERT_OK_AND_ASSIGN(auto target, deviceBuffer(kSize));
  KILN_ASSERT_OK(upload(source, bytes));
  KILN_ASSERT_OK_AND_ASSIGN(auto timeline, device()->createSemaphore(0));
  auto step = [&](const std::shared_ptr<Buffer> &from,
                  const std::shared_ptr<Buffer> &to, uint64_t value,
                  uint32_t queue) -> Status {
    KILN_ASSIGN_OR_RETURN(auto commands, beginCommands());
    KILN_RETURN_IF_ERROR(
        commands->copy(BufferRef::direct(from), BufferRef::direct(to)));
    KILN_RETURN_IF_ERROR(commands->end());
    SemaphoreValue wait{timeline, value - 1}, signal{timeline, value};
    return device()->queueExecute({&wait, 1}, commands, {}, {&signal, 1},
                                  nullptr, queueAffinity(queue));
  };
  uint32_t lastQueue = device()->queueCount() - 1;
  if (device()->unsupportedReason(feature::kDeferredSubmission)) {
    // Submitting blocks until the waits are reached: go in order.
    KILN_ASSERT_OK(timeline->signal(1));
    KILN_ASSERT_OK(step(source, middle, 2, 0));
    KILN_ASSERT_OK(step(middle, target, 3, lastQueue));
  } else {
    // Backwards: each step waits for a value nothing has been asked to
    // signal yet when it is queued.
    KILN_ASSERT_OK(step(middle, target, 3, lastQueue));
    KILN_ASSERT_OK(step(source, middle, 2, 0));
    KILN_ASSERT_OK(timeline->signal(1));
  }
  KILN_ASSERT_OK(timeline->wait(3, kWaitTimeout));
  KILN_ASSERT_OK_AND_ASSIGN(auto back, download(target));
  EXPECT_EQ(back, bytes);
}

TEST_P(SemaphoreCts, NonAdvancingSignalFailsTheSemaphore) {
  // Waiters must learn that the value will never come, not hang.
  KILN_ASSERT_OK_AND_ASSIGN(auto done, device()->createSemaphore(10));
  SemaphoreValue signal{done, 5};
  KILN_ASSERT_OK(device()->queueExecute({}, nullptr, {}, {&signal, 1}));
  KILN_ASSERT_OK(device()->waitIdle(kWaitTimeout));
  EXPECT_EQ(done->wait(11, kWaitTimeout).code(), StatusCode::InvalidArgument);
}

TEST_P(SemaphoreCts, BarrierOnlySubmission) {
  KILN_ASSERT_OK_AND_ASSIGN(auto a, device()->createSemaphore(0));
  KILN_ASSERT_OK_AND_ASSIGN(auto b, device()->createSemaphore(0));
  KILN_ASSERT_OK(a->signal(2));
  SemaphoreValue wait{a, 2};
  SemaphoreValue signal{b, 9};
  KILN_ASSERT_OK(device()->queueExecute({&wait, 1}, nullptr, {}, {&signal, 1}));
  KILN_ASSERT_OK(b->wait(9, kWaitTimeout));
  KILN_ASSERT_OK(device()->waitIdle(kWaitTimeout));
}

} // namespace
} // namespace kiln::hal::cts
