//===- InflightSubmissionsTest.cpp - Retiring by completion signals -------===//
//
// Completion signals are heap words (TestSignals.h) the test decrements
// where a packet processor would; what is checked is which submissions
// retire, in which order, and what their semaphores then say.
//
//===----------------------------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/InflightSubmissions.h"

#include "runtime/hal/HostSemaphore.h"
#include "runtime/hal/drivers/amdgpu/AmdgpuSemaphore.h"
#include "runtime/hal/drivers/amdgpu/TestSignals.h"

#include <gtest/gtest.h>

namespace kiln::hal::amdgpu {
namespace {

using namespace testing;

class InflightSubmissionsTest : public ::testing::Test {
protected:
  // A submission signalling `signals`, its completion signal at 1.
  InflightSubmission submission(std::vector<SemaphoreValue> signals,
                                std::vector<SemaphoreValue> waits = {}) {
    InflightSubmission result;
    result.Done = *CompletionSignal::create(Hsa, 1);
    result.Signals = std::move(signals);
    result.Waits = std::move(waits);
    return result;
  }

  std::shared_ptr<const HsaSymbols> Hsa = hostSignalSymbols();
  std::shared_ptr<AmdgpuSemaphore> Device =
      std::make_shared<AmdgpuSemaphore>(0);
  InflightSubmissions Inflight;
};

TEST_F(InflightSubmissionsTest, SubmissionsRetireInQueueOrderOnceDone) {
  std::vector<uint64_t> handles;
  for (uint64_t value = 1; value <= 3; ++value) {
    InflightSubmission next = submission({{Device, value}});
    handles.push_back(next.Done->handle());
    ASSERT_TRUE(Inflight.add(std::move(next)).ok());
  }
  // The second is done before the first: nothing retires yet.
  completePacket(handles[1]);
  EXPECT_EQ(Inflight.retireDone(), 0u);
  EXPECT_EQ(*Device->query(), 0u);
  completePacket(handles[0]);
  EXPECT_EQ(Inflight.retireDone(), 2u);
  EXPECT_EQ(*Device->query(), 2u);
  EXPECT_EQ(Inflight.size(), 1u);
  completePacket(handles[2]);
  EXPECT_EQ(Inflight.retireDone(), 1u);
  EXPECT_EQ(*Device->query(), 3u);
  EXPECT_EQ(liveSignals.load(), 0);
}

TEST_F(InflightSubmissionsTest, AddingQueuesDeviceSignalsForOtherQueues) {
  auto host = std::make_shared<HostSemaphore>(0);
  InflightSubmission next = submission({{Device, 4}, {host, 1}});
  auto done = next.Done;
  ASSERT_TRUE(Inflight.add(std::move(next)).ok());
  // Another queue waiting for 3 barriers on this submission.
  EXPECT_EQ(Device->deviceWait(3)->Signal, done);
  completePacket(done->handle());
  EXPECT_EQ(Inflight.retireDone(), 1u);
  EXPECT_EQ(*Device->query(), 4u);
  EXPECT_EQ(*host->query(), 1u);
}

TEST_F(InflightSubmissionsTest, WhatItHoldsIsHeldUntilRetirement) {
  InflightSubmission next = submission({{Device, 1}});
  next.Barriers.push_back(*CompletionSignal::create(Hsa, 1));
  auto used = std::make_shared<int>(0);
  std::weak_ptr<int> watch = used;
  next.KeepAlive = std::move(used);
  auto done = next.Done;
  ASSERT_TRUE(Inflight.add(std::move(next)).ok());
  done.reset();
  EXPECT_EQ(liveSignals.load(), 2);
  // Done: the queue's own reference and the barrier's go.
  completePacket(Device->deviceWait(1)->Signal->handle());
  EXPECT_FALSE(watch.expired());
  EXPECT_EQ(Inflight.retireDone(), 1u);
  EXPECT_EQ(liveSignals.load(), 0);
  EXPECT_TRUE(watch.expired());
}

TEST_F(InflightSubmissionsTest, AWaitFailedMeanwhileFailsTheSignals) {
  auto input = std::make_shared<HostSemaphore>(0);
  auto host = std::make_shared<HostSemaphore>(0);
  InflightSubmission next = submission({{Device, 1}, {host, 1}}, {{input, 1}});
  auto done = next.Done;
  ASSERT_TRUE(Inflight.add(std::move(next)).ok());
  ASSERT_TRUE(input->fail(KILN_ERROR(DataLoss, "producer failed")).ok());
  completePacket(done->handle());
  EXPECT_EQ(Inflight.retireDone(), 1u);
  EXPECT_EQ(Device->query().status().code(), StatusCode::DataLoss);
  EXPECT_EQ(host->query().status().code(), StatusCode::DataLoss);
}

TEST_F(InflightSubmissionsTest, ASignalThatDoesNotAdvanceFailsAtOnce) {
  auto behind = std::make_shared<AmdgpuSemaphore>(5);
  ASSERT_TRUE(Inflight.add(submission({{behind, 5}})).ok());
  EXPECT_EQ(behind->query().status().code(), StatusCode::InvalidArgument);
}

TEST_F(InflightSubmissionsTest, FailAllFailsEverySignalThenReleasesIt) {
  auto host = std::make_shared<HostSemaphore>(0);
  InflightSubmission first = submission({{Device, 1}});
  // Another queue's barrier names it; it must not wait forever.
  auto barrier = first.Done;
  ASSERT_TRUE(Inflight.add(std::move(first)).ok());
  ASSERT_TRUE(Inflight.add(submission({{host, 1}})).ok());
  Inflight.failAll(KILN_ERROR(Aborted, "queue error"));
  EXPECT_EQ(Inflight.size(), 0u);
  EXPECT_EQ(Device->query().status().code(), StatusCode::Aborted);
  EXPECT_EQ(host->query().status().code(), StatusCode::Aborted);
  EXPECT_TRUE(barrier->done());
  // The queue is dead: later work is refused, its signals failed and its
  // completion signal released; the first failure stays.
  auto other = std::make_shared<HostSemaphore>(0);
  InflightSubmission late = submission({{other, 1}});
  auto lateDone = late.Done;
  EXPECT_EQ(Inflight.add(std::move(late)).code(), StatusCode::Aborted);
  EXPECT_EQ(other->query().status().code(), StatusCode::Aborted);
  EXPECT_TRUE(lateDone->done());
  Inflight.failAll(KILN_ERROR(Internal, "again"));
  EXPECT_EQ(Inflight.add(submission({})).code(), StatusCode::Aborted);
  barrier.reset();
  lateDone.reset();
  EXPECT_EQ(liveSignals.load(), 0);
}

TEST_F(InflightSubmissionsTest, FailingWithAnOkStatusIsAnInternalError) {
  auto host = std::make_shared<HostSemaphore>(0);
  ASSERT_TRUE(Inflight.add(submission({{host, 1}})).ok());
  Inflight.failAll(Status());
  EXPECT_EQ(host->query().status().code(), StatusCode::Internal);
}

TEST_F(InflightSubmissionsTest, ASubmissionWithoutACompletionSignalIsRefused) {
  InflightSubmission none;
  none.Signals = {{Device, 1}};
  EXPECT_EQ(Inflight.add(std::move(none)).code(), StatusCode::InvalidArgument);
  EXPECT_EQ(Inflight.size(), 0u);
  EXPECT_FALSE(Device->deviceWait(1)->Signal);
}

} // namespace
} // namespace kiln::hal::amdgpu
