//===- AmdgpuAgentTest.cpp - One GPU's pools, limits and queues -----------===//
//
// Through the HSA system of TestHsa.h: what the agent reads and makes for
// its GPU, that it releases everything on every path, and that a queue
// error HSA reports becomes the agent's failure and fails that queue's
// work. How a real GPU reports a fault (which status, on which thread)
// can only be seen on AMD hardware.
//
//===----------------------------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/AmdgpuAgent.h"

#include "runtime/hal/HostSemaphore.h"
#include "runtime/hal/drivers/amdgpu/MemoryFaults.h"
#include "runtime/hal/drivers/amdgpu/TestHsa.h"

#include <gtest/gtest.h>

namespace kiln::hal::amdgpu {
namespace {

using namespace testing;
using namespace std::chrono_literals;

StatusOr<std::unique_ptr<AmdgpuAgent>>
makeAgent(const std::shared_ptr<HsaSymbols> &hsa, uint32_t queues = 2) {
  AmdgpuAgent::Options options;
  options.Queues = queues;
  options.Queue.KernargBytes = 4096;
  return AmdgpuAgent::create(hsa, {2}, {kHostAgent}, "amdgpu:0", options);
}

TEST(AmdgpuAgentTest, PoolsLimitsAndAQueueEachWithKernargMemory) {
  auto hsa = testHsa();
  auto agent = makeAgent(hsa, 3);
  ASSERT_TRUE(agent.ok()) << agent.status().toString();
  EXPECT_EQ((*agent)->agent().handle, 2u);
  EXPECT_EQ((*agent)->pools().Device.handle, 2 * 16 + kDevicePool);
  EXPECT_EQ((*agent)->pools().Kernarg.handle, kHostAgent * 16 + kKernargPool);
  EXPECT_EQ((*agent)->pools().Host.handle, kHostAgent * 16 + kHostPool);
  EXPECT_EQ((*agent)->limits().Processor, "gfx942");
  EXPECT_EQ((*agent)->limits().TargetId, "gfx942:sramecc+:xnack-");
  EXPECT_EQ((*agent)->limits().MaxLds, 65536u);
  EXPECT_EQ((*agent)->limits().MaxGrid[1], 65535u);
  EXPECT_EQ((*agent)->queueCount(), 3u);
  EXPECT_EQ(testSystem.LiveQueues, 3);
  // One kernarg block a queue, which the GPU may read.
  ASSERT_EQ(testSystem.Allocations.size(), 3u);
  for (const auto &[pointer, allocation] : testSystem.Allocations) {
    EXPECT_EQ(allocation.Pool, kHostAgent * 16 + kKernargPool);
    EXPECT_EQ(allocation.Access, std::vector<uint64_t>{2});
  }
  EXPECT_TRUE((*agent)->failure().ok());
  agent->reset();
  EXPECT_EQ(testSystem.LiveQueues, 0);
  EXPECT_TRUE(testSystem.Allocations.empty());
}

TEST(AmdgpuAgentTest, FailuresReleaseWhatWasMade) {
  for (const char *failing :
       {"hsa_agent_get_info", "hsa_amd_memory_pool_allocate",
        "hsa_amd_agents_allow_access", "hsa_queue_create"}) {
    TestHsaSystem system;
    system.Failing = failing;
    auto agent = makeAgent(testHsa(system));
    EXPECT_EQ(agent.status().code(), StatusCode::ResourceExhausted) << failing;
    EXPECT_NE(agent.status().message().find(failing), std::string::npos)
        << agent.status().toString();
    EXPECT_EQ(testSystem.LiveQueues, 0) << failing;
    EXPECT_TRUE(testSystem.Allocations.empty()) << failing;
  }
}

TEST(AmdgpuAgentTest, TheTargetIdComesFromTheIsaName) {
  EXPECT_EQ(*targetIdOfIsa("amdgcn-amd-amdhsa--gfx1100"), "gfx1100");
  EXPECT_EQ(*targetIdOfIsa("amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack+"),
            "gfx90a:sramecc-:xnack+");
  for (const char *bad :
       {"", "gfx942", "amdgcn-amd-amdhsa--", "amdgcn-amd-amdpal--gfx942"})
    EXPECT_EQ(targetIdOfIsa(bad).status().code(), StatusCode::InvalidArgument)
        << bad;
  TestHsaSystem system;
  system.IsaName = "spirv64";
  auto agent = makeAgent(testHsa(system));
  EXPECT_EQ(agent.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(agent.status().message().find("spirv64"), std::string::npos);
}

TEST(AmdgpuAgentTest, AGpuWithoutLdsIsRefused) {
  TestHsaSystem system;
  system.GroupBytes = 0;
  auto agent = makeAgent(testHsa(system));
  EXPECT_EQ(agent.status().code(), StatusCode::FailedPrecondition);
  EXPECT_NE(agent.status().message().find("group segment"), std::string::npos);
}

TEST(AmdgpuAgentTest, AQueueErrorFailsTheAgentAndThatQueuesWork) {
  auto hsa = testHsa();
  auto agent = makeAgent(hsa);
  ASSERT_TRUE(agent.ok()) << agent.status().toString();
  ASSERT_EQ(testSystem.Callbacks.size(), 2u);
  // What HSA does on its own thread when queue 1 faults.
  TestHsaSystem::Callback second = testSystem.Callbacks[1];
  std::thread([&] {
    second.Function(
        static_cast<hsa_status_t>(HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION),
        second.Queue, second.Data);
  }).join();
  Status failure = (*agent)->failure();
  ASSERT_FALSE(failure.ok());
  EXPECT_NE(failure.message().find("AQL queue"), std::string::npos)
      << failure.toString();
  EXPECT_NE(failure.message().find("gfx942 queue 1"), std::string::npos)
      << failure.toString();
  // A second error does not replace the first.
  TestHsaSystem::Callback first = testSystem.Callbacks[0];
  first.Function(HSA_STATUS_ERROR_INVALID_PACKET_FORMAT, first.Queue,
                 first.Data);
  EXPECT_NE((*agent)->failure().message().find("queue 1"), std::string::npos);
  // Work submitted to the failed queue fails with the error, unissued.
  auto done = std::make_shared<HostSemaphore>(0);
  QueueSubmission work;
  work.Signals = {{done, 1}};
  (*agent)->queue(1).submit(std::move(work));
  Status waited = done->wait(1, 10s);
  EXPECT_FALSE(waited.ok());
  EXPECT_NE(waited.message().find("AQL queue"), std::string::npos)
      << waited.toString();
  EXPECT_EQ(testSystem.Queues[1]->Write.load(), 0u);
}

TEST(AmdgpuAgentTest, AMemoryFaultOnItsGpuFailsEveryQueue) {
  auto hsa = testHsa();
  auto agent = makeAgent(hsa);
  ASSERT_TRUE(agent.ok()) << agent.status().toString();
  // What HSA's system event handler is given for a fault on agent 2.
  hsa_amd_event_t event = {};
  event.event_type = HSA_AMD_GPU_MEMORY_FAULT_EVENT;
  event.memory_fault.agent.handle = 2;
  event.memory_fault.virtual_address = 0xdead000;
  MemoryFaults::process().deliver(event);
  Status failure = (*agent)->failure();
  EXPECT_EQ(failure.code(), StatusCode::Aborted);
  EXPECT_NE(failure.message().find("0xdead000"), std::string::npos)
      << failure.toString();
  for (uint32_t index = 0; index < 2; ++index) {
    auto done = std::make_shared<HostSemaphore>(0);
    QueueSubmission work;
    work.Signals = {{done, 1}};
    (*agent)->queue(index).submit(std::move(work));
    EXPECT_EQ(done->wait(1, 10s).code(), StatusCode::Aborted) << index;
  }
  // Once the agent is gone, a fault on its GPU reaches nothing.
  agent->reset();
  MemoryFaults::process().deliver(event);
}

} // namespace
} // namespace kiln::hal::amdgpu
