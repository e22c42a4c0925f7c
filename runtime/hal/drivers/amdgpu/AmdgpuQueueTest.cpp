//===- AmdgpuQueueTest.cpp - Issue and retire threads over a host ring ----===//
//
// The HSA queue is memory the test owns (a ring, indices, a doorbell word)
// and completion signals are heap words (TestSignals.h). The test reads
// what the issue thread published and, where a packet processor would,
// decrements a packet's completion signal and advances the read index;
// nothing runs the packets. Kernels here have no kernel arguments, so
// dispatch packets are all there is to read.
//
//===----------------------------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/AmdgpuQueue.h"

#include "runtime/hal/HostSemaphore.h"
#include "runtime/hal/drivers/amdgpu/AmdgpuSemaphore.h"
#include "runtime/hal/drivers/amdgpu/TestQueue.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace kiln::hal::amdgpu {
namespace {

using namespace testing;
using namespace std::chrono_literals;

// Declared after the AmdgpuQueue it serves, so it goes first: a test that
// failed halfway has its published packets finished, and the queue's
// destructor does not wait forever for them.
struct FinishOnExit {
  TestQueue &Ring;
  ~FinishOnExit() {
    for (uint64_t i = Ring.Read; i < Ring.Write; ++i)
      Ring.complete(i);
  }
};

class AmdgpuQueueTest : public ::testing::Test {
protected:
  void SetUp() override {
    useTestQueues(*Hsa);
    Kernel.KernelObject = 0xa000;
  }

  std::unique_ptr<AmdgpuQueue> queue(TestQueue &ring) {
    return std::make_unique<AmdgpuQueue>(
        Hsa, &ring.Queue, KernargBlock{Kernargs, 0x7f0000000000}, "amdgpu");
  }
  QueueSubmission dispatch(std::vector<SemaphoreValue> waits,
                           std::vector<SemaphoreValue> signals) {
    QueueSubmission submission;
    submission.Waits = std::move(waits);
    submission.Dispatches = {{&Kernel, {4, 1, 1}, {}, {}}};
    submission.Signals = std::move(signals);
    return submission;
  }

  void TearDown() override { FinishOnExit finish{Ring}; }

  std::shared_ptr<HsaSymbols> Hsa = hostSignalSymbols();
  AmdgpuKernel Kernel;
  uint8_t Kernargs[1024] = {};
  // The queue most tests use; destroyed before its ring.
  TestQueue Ring;
  std::unique_ptr<AmdgpuQueue> Amdgpu = queue(Ring);
};

TEST_F(AmdgpuQueueTest, ADispatchIsPublishedAndRetiresIntoItsSignals) {
  auto device = std::make_shared<AmdgpuSemaphore>(0);
  auto host = std::make_shared<HostSemaphore>(0);
  QueueSubmission work = dispatch({}, {{device, 1}, {host, 1}});
  auto used = std::make_shared<int>(0);
  std::weak_ptr<int> watch = used;
  work.KeepAlive = std::move(used);
  Amdgpu->submit(std::move(work));
  ASSERT_TRUE(Ring.published(0));
  auto packet = Ring.at<hsa_kernel_dispatch_packet_t>(0);
  EXPECT_EQ(packet.kernel_object, 0xa000u);
  EXPECT_EQ(packet.grid_size_x, 4u);
  EXPECT_NE(packet.completion_signal.handle, 0u);
  // Queued (just after the doorbell), so other queues may wait on the
  // GPU; not done yet.
  EXPECT_TRUE(eventually([&] { return device->pollQueued(1).has_value(); }));
  EXPECT_TRUE(device->pollQueued(1).value_or(Status()).ok());
  EXPECT_EQ(host->wait(1, 5ms).code(), StatusCode::DeadlineExceeded);
  Ring.complete(0);
  EXPECT_TRUE(host->wait(1, 10s).ok());
  EXPECT_TRUE(device->wait(1, 10s).ok());
  EXPECT_TRUE(Amdgpu->waitIdle(10s).ok());
  EXPECT_TRUE(watch.expired());
}

TEST_F(AmdgpuQueueTest, AnotherQueuesWorkIsWaitedForOnTheGpu) {
  TestQueue first, second;
  auto producer = queue(first);
  auto consumer = queue(second);
  FinishOnExit finishFirst{first}, finishSecond{second};
  auto between = std::make_shared<AmdgpuSemaphore>(0);
  auto out = std::make_shared<HostSemaphore>(0);
  producer->submit(dispatch({}, {{between, 1}}));
  ASSERT_TRUE(first.published(0));
  // Issued before the producer is done: a barrier on its signal first.
  consumer->submit(dispatch({{between, 1}}, {{out, 1}}));
  ASSERT_TRUE(second.published(1));
  auto barrier = second.at<hsa_barrier_and_packet_t>(0);
  EXPECT_EQ(barrier.dep_signal[0].handle,
            first.at<hsa_kernel_dispatch_packet_t>(0).completion_signal.handle);
  EXPECT_EQ(second.at<hsa_kernel_dispatch_packet_t>(1).kernel_object, 0xa000u);
  first.complete(0);
  second.complete(0);
  second.complete(1);
  EXPECT_TRUE(out->wait(1, 10s).ok());
  // The producer's retire thread is its own: it may get there after.
  EXPECT_TRUE(between->wait(1, 10s).ok());
}

TEST_F(AmdgpuQueueTest, AHostWaitHoldsTheSubmissionBack) {
  auto input = std::make_shared<HostSemaphore>(0);
  auto out = std::make_shared<HostSemaphore>(0);
  Amdgpu->submit(dispatch({{input, 1}}, {{out, 1}}));
  std::this_thread::sleep_for(10ms);
  EXPECT_EQ(Ring.Doorbell.load(), -1);
  ASSERT_TRUE(input->signal(1).ok());
  ASSERT_TRUE(Ring.published(0));
  // Reached before it was planned: no barrier, the dispatch alone.
  EXPECT_EQ(Ring.at<hsa_kernel_dispatch_packet_t>(0).kernel_object, 0xa000u);
  Ring.complete(0);
  EXPECT_TRUE(out->wait(1, 10s).ok());
}

TEST_F(AmdgpuQueueTest, AQueueErrorFailsWhatIsInFlightAndWhatComesAfter) {
  auto first = std::make_shared<HostSemaphore>(0);
  auto later = std::make_shared<HostSemaphore>(0);
  Amdgpu->submit(dispatch({}, {{first, 1}}));
  ASSERT_TRUE(Ring.published(0));
  // HSA's queue error callback; the packet is never completed.
  Amdgpu->fail(KILN_ERROR(Aborted, "memory fault"));
  EXPECT_EQ(first->wait(1, 10s).code(), StatusCode::Aborted);
  Amdgpu->submit(dispatch({}, {{later, 1}}));
  EXPECT_EQ(later->wait(1, 10s).code(), StatusCode::Aborted);
  // Nothing waits forever for the packets the queue will never run.
  EXPECT_TRUE(Amdgpu->waitIdle(10s).ok());
}

TEST_F(AmdgpuQueueTest, AQueueErrorEndsAWaitForRingSlots) {
  auto full = std::make_shared<HostSemaphore>(0);
  auto blocked = std::make_shared<HostSemaphore>(0);
  QueueSubmission filling = dispatch({}, {{full, 1}});
  filling.Dispatches.resize(Ring.Ring.size(), filling.Dispatches[0]);
  Amdgpu->submit(std::move(filling));
  ASSERT_TRUE(Ring.published(Ring.Ring.size() - 1));
  // No slot is free until the GPU moves, which it never will.
  Amdgpu->submit(dispatch({}, {{blocked, 1}}));
  EXPECT_EQ(blocked->wait(1, 20ms).code(), StatusCode::DeadlineExceeded);
  Amdgpu->fail(KILN_ERROR(Aborted, "memory fault"));
  EXPECT_EQ(blocked->wait(1, 10s).code(), StatusCode::Aborted);
  EXPECT_EQ(full->wait(1, 10s).code(), StatusCode::Aborted);
  EXPECT_TRUE(Amdgpu->waitIdle(10s).ok());
}

TEST_F(AmdgpuQueueTest, FailedWaitsAndShutdownFailTheSignalsAndWriteNothing) {
  auto failed = std::make_shared<HostSemaphore>(0);
  ASSERT_TRUE(failed->fail(KILN_ERROR(DataLoss, "bad input")).ok());
  auto never = std::make_shared<HostSemaphore>(0);
  auto first = std::make_shared<HostSemaphore>(0);
  auto second = std::make_shared<HostSemaphore>(0);
  Amdgpu->submit(dispatch({{failed, 1}}, {{first, 1}}));
  EXPECT_EQ(first->wait(1, 10s).code(), StatusCode::DataLoss);
  Amdgpu->submit(dispatch({{never, 1}}, {{second, 1}}));
  Amdgpu.reset();
  EXPECT_EQ(second->wait(1, 10s).code(), StatusCode::Cancelled);
  EXPECT_EQ(Ring.Doorbell.load(), -1);
  EXPECT_EQ(Ring.Write.load(), 0u);
}

} // namespace
} // namespace kiln::hal::amdgpu
