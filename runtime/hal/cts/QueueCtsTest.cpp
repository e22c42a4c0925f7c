//===- QueueCtsTest.cpp - A device's queues: order within, overlap across -===//

#include "runtime/hal/cts/CtsFixture.h"

namespace kiln::hal::cts {
namespace {

class QueueCts : public KernelCtsTest {
protected:
  uint32_t lastQueue() { return device()->queueCount() - 1; }

  // One rendezvous party for `queue` on `state` that gives up after
  // `timeoutMs`. It has run once already, on a state where the other party
  // had arrived (so it met at once), and `state` is zero again: whatever a
  // device does at a buffer's first submission (CUDA loads the kernel and
  // instantiates the graph, which may wait for every running stream) is
  // done before the cases below run it against another party. The state is
  // a direct ref, so later submissions change nothing in the recording
  // either (patching a CUDA graph's parameters has been seen to wait for
  // running streams too).
  StatusOr<std::shared_ptr<CommandBuffer>>
  warmParty(const std::shared_ptr<Buffer> &state, uint32_t timeoutMs,
            uint32_t queue) {
    KILN_ASSIGN_OR_RETURN(
        std::shared_ptr<CommandBuffer> commands,
        device()->createCommandBuffer(CommandBufferMode::Reusable, 0,
                                      queueAffinity(queue)));
    KILN_RETURN_IF_ERROR(commands->begin());
    KILN_RETURN_IF_ERROR(meet(*commands, state, timeoutMs));
    KILN_RETURN_IF_ERROR(commands->end());
    KILN_RETURN_IF_ERROR(upload(state, {1, 0, 0, 0, 0, 0, 0, 0}));
    KILN_RETURN_IF_ERROR(submitAndWait(commands));
    KILN_ASSIGN_OR_RETURN(auto meeting, readMeeting(state));
    if (meeting != std::pair<uint32_t, uint32_t>{2, 1})
      return KILN_ERROR(Internal, "the warm-up party did not meet at once");
    KILN_RETURN_IF_ERROR(upload(state, std::vector<uint8_t>(8, 0)));
    return commands;
  }
};
KILN_CTS_INSTANTIATE(QueueCts);

TEST_P(QueueCts, EveryQueueRunsWork) {
  uint32_t count = device()->queueCount();
  ASSERT_GE(count, 1u);
  ASSERT_LE(count, kMaxQueues);
  if (count < kMaxQueues) {
    auto beyond = device()->createCommandBuffer(CommandBufferMode::OneShot, 0,
                                                queueAffinity(count));
    EXPECT_EQ(beyond.status().code(), StatusCode::InvalidArgument);
  }
  KILN_ASSERT_OK_AND_ASSIGN(auto buffer, deviceBuffer(64 * count));
  KILN_ASSERT_OK_AND_ASSIGN(auto done, device()->createSemaphore(0));
  for (uint32_t queue = 0; queue < count; ++queue) {
    KILN_ASSERT_OK_AND_ASSIGN(
        auto commands, device()->createCommandBuffer(CommandBufferMode::OneShot,
                                                     0, queueAffinity(queue)));
    KILN_ASSERT_OK(commands->begin());
    KILN_ASSERT_OK(commands->fill(BufferRef::direct(buffer, 64 * queue, 64),
                                  queue + 1, 1));
    KILN_ASSERT_OK(commands->end());
    // Each waits for the one before, on another queue.
    SemaphoreValue wait{done, queue};
    SemaphoreValue signal{done, queue + 1};
    KILN_ASSERT_OK(device()->queueExecute(
        {&wait, 1}, commands, {}, {&signal, 1}, nullptr, queueAffinity(queue)));
  }
  KILN_ASSERT_OK(done->wait(count, kWaitTimeout));
  KILN_ASSERT_OK_AND_ASSIGN(auto back, download(buffer));
  for (uint32_t queue = 0; queue < count; ++queue)
    EXPECT_EQ(back[64 * queue + 63], queue + 1) << "queue " << queue;
}

TEST_P(QueueCts, DifferentQueuesRunAtOnce) {
  KILN_CTS_REQUIRE(feature::kConcurrentQueues);
  // Without this the ordering case below would pass on a device that merely
  // runs all its queues one after another.
  KILN_ASSERT_OK_AND_ASSIGN(auto state, meetingState());
  KILN_ASSERT_OK_AND_ASSIGN(auto first, warmParty(state, kMeetMs, 0));
  KILN_ASSERT_OK_AND_ASSIGN(auto second,
                            warmParty(state, kMeetMs, lastQueue()));
  KILN_ASSERT_OK_AND_ASSIGN(auto done, device()->createSemaphore(0));
  KILN_ASSERT_OK_AND_ASSIGN(auto alsoDone, device()->createSemaphore(0));
  SemaphoreValue one{done, 1}, two{alsoDone, 1};
  KILN_ASSERT_OK(device()->queueExecute({}, first, {}, {&one, 1}));
  KILN_ASSERT_OK(device()->queueExecute({}, second, {}, {&two, 1}));
  KILN_ASSERT_OK(done->wait(1, kWaitTimeout));
  KILN_ASSERT_OK(alsoDone->wait(1, kWaitTimeout));
  KILN_ASSERT_OK_AND_ASSIGN(auto meeting, readMeeting(state));
  EXPECT_EQ(meeting, kBothMet);
}

TEST_P(QueueCts, SemaphoreOrdersQueues) {
  KILN_CTS_REQUIRE(feature::kConcurrentQueues);
  KILN_ASSERT_OK_AND_ASSIGN(auto state, meetingState());
  KILN_ASSERT_OK_AND_ASSIGN(auto first, warmParty(state, kOrderedMs, 0));
  KILN_ASSERT_OK_AND_ASSIGN(auto second,
                            warmParty(state, kMeetMs, lastQueue()));
  KILN_ASSERT_OK_AND_ASSIGN(auto between, device()->createSemaphore(0));
  KILN_ASSERT_OK_AND_ASSIGN(auto done, device()->createSemaphore(0));
  // The waiting side goes first: its queue must hold it until the other
  // queue's work signals, not run it because nothing is queued before it.
  SemaphoreValue wait{between, 1}, signal{done, 1};
  KILN_ASSERT_OK(device()->queueExecute({&wait, 1}, second, {}, {&signal, 1}));
  SemaphoreValue handOver{between, 1};
  KILN_ASSERT_OK(device()->queueExecute({}, first, {}, {&handOver, 1}));
  KILN_ASSERT_OK(done->wait(1, kWaitTimeout));
  KILN_ASSERT_OK_AND_ASSIGN(auto meeting, readMeeting(state));
  EXPECT_EQ(meeting, kOnlySecondMet);
}

TEST_P(QueueCts, OneQueueRunsInOrder) {
  KILN_ASSERT_OK_AND_ASSIGN(auto state, meetingState());
  KILN_ASSERT_OK_AND_ASSIGN(auto first,
                            warmParty(state, kOrderedMs, lastQueue()));
  KILN_ASSERT_OK_AND_ASSIGN(auto second,
                            warmParty(state, kMeetMs, lastQueue()));
  KILN_ASSERT_OK_AND_ASSIGN(auto done, device()->createSemaphore(0));
  SemaphoreValue one{done, 1}, two{done, 2};
  KILN_ASSERT_OK(device()->queueExecute({}, first, {}, {&one, 1}));
  KILN_ASSERT_OK(device()->queueExecute({}, second, {}, {&two, 1}));
  KILN_ASSERT_OK(done->wait(2, kWaitTimeout));
  KILN_ASSERT_OK_AND_ASSIGN(auto meeting, readMeeting(state));
  EXPECT_EQ(meeting, kOnlySecondMet);
}

} // namespace
} // namespace kiln::hal::cts
