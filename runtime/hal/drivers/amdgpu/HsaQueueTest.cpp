//===- HsaQueueTest.cpp - Queue and kernarg block through test HSA calls --===//
//
// The HSA functions are the test's: they record what they were asked, hand
// out heap memory for the kernarg pool and a queue object of the test's,
// and fail where a test says. What is checked is the queue's size, what
// the GPU is given access to, that everything made is released on every
// path, and that a queue error reaches onError.
//
//===----------------------------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/HsaQueue.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace kiln::hal::amdgpu {
namespace {

// What the test's HSA functions saw, and which one fails.
struct Calls {
  uint32_t MinSlots = 64, MaxSlots = 131072;
  uint32_t CreatedSlots = 0;
  hsa_queue_type32_t CreatedType = 0;
  void (*Callback)(hsa_status_t, hsa_queue_t *, void *) = nullptr;
  void *CallbackData = nullptr;
  const void *AllowedPointer = nullptr;
  uint64_t AllowedAgent = 0;
  int LiveBlocks = 0, LiveQueues = 0;
  const char *Failing = "";
  hsa_queue_t Queue = {};
};
Calls calls;

hsa_status_t failing(const char *name) {
  return std::string_view(calls.Failing) == name
             ? HSA_STATUS_ERROR_OUT_OF_RESOURCES
             : HSA_STATUS_SUCCESS;
}

class HsaQueueTest : public ::testing::Test {
protected:
  void SetUp() override {
    calls = Calls();
    auto hsa = std::make_shared<HsaSymbols>();
    hsa->hsa_status_string = [](hsa_status_t, const char **text) {
      *text = "test status";
      return HSA_STATUS_SUCCESS;
    };
    hsa->hsa_agent_get_info = [](hsa_agent_t, hsa_agent_info_t attribute,
                                 void *value) {
      *static_cast<uint32_t *>(value) =
          attribute == HSA_AGENT_INFO_QUEUE_MIN_SIZE ? calls.MinSlots
                                                     : calls.MaxSlots;
      return failing("hsa_agent_get_info");
    };
    hsa->hsa_amd_memory_pool_allocate = [](hsa_amd_memory_pool_t, size_t size,
                                           uint32_t, void **ptr) {
      if (hsa_status_t status = failing("hsa_amd_memory_pool_allocate"))
        return status;
      *ptr = std::aligned_alloc(4096, (size + 4095) / 4096 * 4096);
      ++calls.LiveBlocks;
      return HSA_STATUS_SUCCESS;
    };
    hsa->hsa_amd_memory_pool_free = [](void *ptr) {
      std::free(ptr);
      --calls.LiveBlocks;
      return HSA_STATUS_SUCCESS;
    };
    hsa->hsa_amd_agents_allow_access = [](uint32_t count,
                                          const hsa_agent_t *agents,
                                          const uint32_t *, const void *ptr) {
      calls.AllowedAgent = count == 1 ? agents[0].handle : 0;
      calls.AllowedPointer = ptr;
      return failing("hsa_amd_agents_allow_access");
    };
    hsa->hsa_queue_create =
        [](hsa_agent_t, uint32_t size, hsa_queue_type32_t type,
           void (*callback)(hsa_status_t, hsa_queue_t *, void *), void *data,
           uint32_t, uint32_t, hsa_queue_t **queue) {
          if (hsa_status_t status = failing("hsa_queue_create"))
            return status;
          calls.CreatedSlots = size;
          calls.CreatedType = type;
          calls.Callback = callback;
          calls.CallbackData = data;
          calls.Queue.size = size;
          *queue = &calls.Queue;
          ++calls.LiveQueues;
          return HSA_STATUS_SUCCESS;
        };
    hsa->hsa_queue_destroy = [](hsa_queue_t *) {
      --calls.LiveQueues;
      return HSA_STATUS_SUCCESS;
    };
    Hsa = std::move(hsa);
  }

  StatusOr<std::unique_ptr<HsaQueue>>
  create(HsaQueue::Options options = {},
         std::function<void(Status)> onError = {}) {
    return HsaQueue::create(Hsa, {42}, {7}, options, std::move(onError));
  }

  std::shared_ptr<const HsaSymbols> Hsa;
};

TEST(ChooseQueueSlotsTest, PowersOfTwoWithinTheAgentsLimits) {
  EXPECT_EQ(*chooseQueueSlots(4096, 64, 131072), 4096u);
  EXPECT_EQ(*chooseQueueSlots(1000, 64, 131072), 1024u);
  EXPECT_EQ(*chooseQueueSlots(0, 64, 131072), 64u);
  EXPECT_EQ(*chooseQueueSlots(10, 64, 131072), 64u);
  EXPECT_EQ(*chooseQueueSlots(uint64_t(1) << 40, 64, 131072), 131072u);
  EXPECT_EQ(chooseQueueSlots(64, 100, 131072).status().code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(chooseQueueSlots(64, 128, 64).status().code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(chooseQueueSlots(64, 0, 64).status().code(),
            StatusCode::InvalidArgument);
}

TEST_F(HsaQueueTest, ASingleProducerQueueAndAKernargBlockTheGpuSees) {
  auto made = create({1000, 65536});
  ASSERT_TRUE(made.ok()) << made.status().toString();
  HsaQueue &queue = **made;
  EXPECT_EQ(calls.CreatedSlots, 1024u);
  EXPECT_EQ(calls.CreatedType, HSA_QUEUE_TYPE_SINGLE);
  EXPECT_EQ(queue.queue(), &calls.Queue);
  KernargBlock block = queue.kernargs();
  EXPECT_EQ(block.Host.size(), 65536u);
  EXPECT_EQ(block.DeviceAddress,
            reinterpret_cast<uintptr_t>(block.Host.data()));
  EXPECT_EQ(calls.AllowedPointer, block.Host.data());
  EXPECT_EQ(calls.AllowedAgent, 42u);
  made->reset();
  EXPECT_EQ(calls.LiveBlocks, 0);
  EXPECT_EQ(calls.LiveQueues, 0);
}

TEST_F(HsaQueueTest, WhatWasMadeIsReleasedWhenALaterStepFails) {
  for (const char *step : {"hsa_agent_get_info", "hsa_amd_memory_pool_allocate",
                           "hsa_amd_agents_allow_access", "hsa_queue_create"}) {
    calls.Failing = step;
    auto made = create();
    EXPECT_EQ(made.status().code(), StatusCode::ResourceExhausted) << step;
    EXPECT_NE(made.status().message().find(step), std::string::npos)
        << made.status().toString();
    EXPECT_EQ(calls.LiveBlocks, 0) << step;
    EXPECT_EQ(calls.LiveQueues, 0) << step;
  }
}

TEST_F(HsaQueueTest, BadOptionsAndLimitsAreRefused) {
  EXPECT_EQ(create({4096, 0}).status().code(), StatusCode::InvalidArgument);
  EXPECT_EQ(create({4096, (uint64_t(1) << 32) + 1}).status().code(),
            StatusCode::InvalidArgument);
  calls.MinSlots = 100;
  EXPECT_EQ(create().status().code(), StatusCode::InvalidArgument);
  EXPECT_EQ(calls.LiveBlocks, 0);
}

TEST_F(HsaQueueTest, QueueErrorsReachOnError) {
  Status seen;
  auto made = create({}, [&](Status status) { seen = std::move(status); });
  ASSERT_TRUE(made.ok());
  ASSERT_TRUE(calls.Callback);
  // As HSA calls it from its own thread after a kernel's memory fault.
  calls.Callback(HSA_STATUS_ERROR_EXCEPTION, &calls.Queue, calls.CallbackData);
  EXPECT_FALSE(seen.ok());
  EXPECT_NE(seen.message().find("AQL queue"), std::string::npos)
      << seen.toString();
}

} // namespace
} // namespace kiln::hal::amdgpu
