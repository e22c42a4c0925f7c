//===- WaitPlanTest.cpp - Wait lists as barrier-AND packets ---------------===//
//
// Completion signals are heap words (TestSignals.h). Besides what the plan
// holds, the packets are read as a packet processor reads barrier-AND
// packets: each waits until every signal it names is zero (a null handle
// counts as zero), so a chain holds back what follows until every signal
// of the wait list is done.
//
//===----------------------------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/WaitPlan.h"

#include "runtime/hal/drivers/amdgpu/AmdgpuSemaphore.h"
#include "runtime/hal/drivers/amdgpu/TestSignals.h"

#include <gtest/gtest.h>

namespace kiln::hal::amdgpu {
namespace {

using namespace testing;

// Whether every barrier-AND packet of `packets` would let the queue go on.
bool chainPasses(const std::vector<hsa_barrier_and_packet_t> &packets) {
  for (const auto &packet : packets)
    for (const hsa_signal_t &signal : packet.dep_signal)
      if (signal.handle && loadSignal(signal) != 0)
        return false;
  return true;
}

class WaitPlanTest : public ::testing::Test {
protected:
  // A semaphore at 0 with a submission queued to signal 1.
  SemaphoreValue queuedWait() {
    auto semaphore = std::make_shared<AmdgpuSemaphore>(0);
    auto done = CompletionSignal::create(Hsa, 1);
    EXPECT_TRUE(done.ok());
    EXPECT_TRUE(semaphore->noteQueued(1, *done).ok());
    return {semaphore, 1};
  }

  std::shared_ptr<const HsaSymbols> Hsa = hostSignalSymbols();
  AqlFences Fences{true, FenceScope::System, FenceScope::Agent};
};

TEST_F(WaitPlanTest, NDependenciesTakeFiveAPacketInWaitListOrder) {
  for (size_t count : {0u, 1u, 5u, 6u, 10u, 11u}) {
    std::vector<SemaphoreValue> waits;
    for (size_t i = 0; i < count; ++i)
      waits.push_back(queuedWait());
    auto plan = planWaits(waits);
    ASSERT_TRUE(plan.ok()) << plan.status().toString();
    ASSERT_EQ(plan->Signals.size(), count);
    EXPECT_TRUE(plan->HostWaits.empty());
    auto packets = barrierPackets(*plan, Fences);
    ASSERT_EQ(packets.size(), (count + 4) / 5) << count;
    for (size_t i = 0; i < count; ++i)
      EXPECT_EQ(packets[i / 5].dep_signal[i % 5].handle,
                plan->Signals[i]->handle());
    for (const auto &packet : packets) {
      EXPECT_EQ(packet.header, aqlHeader(HSA_PACKET_TYPE_BARRIER_AND, Fences));
      EXPECT_EQ(packet.completion_signal.handle, 0u);
    }
    // The chain holds until the last signal is zero, whichever it is.
    for (size_t i = count; i-- > 0;) {
      EXPECT_FALSE(chainPasses(packets)) << count << " " << i;
      completePacket(plan->Signals[i]->handle());
    }
    EXPECT_TRUE(chainPasses(packets));
  }
  EXPECT_EQ(liveSignals.load(), 0);
}

TEST_F(WaitPlanTest, OneSignalNamedTwiceTakesOneSlot) {
  auto a = std::make_shared<AmdgpuSemaphore>(0);
  auto b = std::make_shared<AmdgpuSemaphore>(7);
  auto done = *CompletionSignal::create(Hsa, 1);
  // One submission signalling both semaphores.
  ASSERT_TRUE(a->noteQueued(1, done).ok());
  ASSERT_TRUE(b->noteQueued(8, done).ok());
  SemaphoreValue waits[] = {{a, 1}, {b, 8}, {a, 1}};
  auto plan = planWaits(waits);
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->Signals.size(), 1u);
  EXPECT_EQ(plan->Signals[0], done);
  EXPECT_EQ(barrierPackets(*plan, Fences).size(), 1u);
}

TEST_F(WaitPlanTest, ReachedValuesAndZeroSignalsNeedNoPacket) {
  auto reached = std::make_shared<AmdgpuSemaphore>(3);
  SemaphoreValue finished = queuedWait();
  auto *semaphore = static_cast<AmdgpuSemaphore *>(finished.Timeline.get());
  // Done on the GPU, not yet retired.
  completePacket(semaphore->deviceWait(1)->Signal->handle());
  SemaphoreValue waits[] = {{reached, 2}, finished};
  auto plan = planWaits(waits);
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->Signals.empty());
  EXPECT_TRUE(plan->HostWaits.empty());
  EXPECT_TRUE(barrierPackets(*plan, Fences).empty());
}

TEST_F(WaitPlanTest, WhatTheGpuCannotWaitForIsLeftToTheHost) {
  auto unqueued = std::make_shared<AmdgpuSemaphore>(0);
  auto host = std::make_shared<HostSemaphore>(0);
  auto hostReached = std::make_shared<HostSemaphore>(4);
  SemaphoreValue queued = queuedWait();
  SemaphoreValue waits[] = {{unqueued, 1}, {host, 1}, {hostReached, 4}, queued};
  auto plan = planWaits(waits);
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->HostWaits.size(), 2u);
  EXPECT_EQ(plan->HostWaits[0].Timeline, unqueued);
  EXPECT_EQ(plan->HostWaits[1].Timeline, host);
  EXPECT_EQ(plan->Signals.size(), 1u);
}

TEST_F(WaitPlanTest, TheQueueThreadHoldsBackWhatPlanningLeavesToTheHost) {
  auto unqueued = std::make_shared<AmdgpuSemaphore>(0);
  auto host = std::make_shared<HostSemaphore>(0);
  SemaphoreValue queued = queuedWait();
  EXPECT_FALSE(gpuCanWait({unqueued, 1}).has_value());
  EXPECT_FALSE(gpuCanWait({host, 1}).has_value());
  EXPECT_TRUE(gpuCanWait(queued).value().ok());
  ASSERT_TRUE(host->signal(1).ok());
  EXPECT_TRUE(gpuCanWait({host, 1}).value().ok());
  ASSERT_TRUE(unqueued->fail(KILN_ERROR(Aborted, "lost")).ok());
  EXPECT_EQ(gpuCanWait({unqueued, 1}).value().code(), StatusCode::Aborted);
}

TEST_F(WaitPlanTest, BadEntriesAndFailuresAreErrors) {
  SemaphoreValue noSemaphore[] = {{nullptr, 1}};
  EXPECT_EQ(planWaits(noSemaphore).status().code(),
            StatusCode::InvalidArgument);
  SemaphoreValue tooLarge[] = {
      {std::make_shared<AmdgpuSemaphore>(0), kMaxSemaphoreValue + 1}};
  EXPECT_EQ(planWaits(tooLarge).status().code(), StatusCode::InvalidArgument);
  auto failedDevice = std::make_shared<AmdgpuSemaphore>(0);
  ASSERT_TRUE(failedDevice->fail(KILN_ERROR(Aborted, "device lost")).ok());
  auto failedHost = std::make_shared<HostSemaphore>(0);
  ASSERT_TRUE(failedHost->fail(KILN_ERROR(DataLoss, "bad input")).ok());
  SemaphoreValue device[] = {queuedWait(), {failedDevice, 1}};
  EXPECT_EQ(planWaits(device).status().code(), StatusCode::Aborted);
  SemaphoreValue host[] = {{failedHost, 1}};
  EXPECT_EQ(planWaits(host).status().code(), StatusCode::DataLoss);
}

} // namespace
} // namespace kiln::hal::amdgpu
