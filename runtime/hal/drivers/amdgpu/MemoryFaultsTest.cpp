//===- MemoryFaultsTest.cpp - Memory faults to their GPU's subscribers ----===//
//
// The events are the test's, given to the handler as HSA would give them.
// Which faults a real GPU reports, and whether HSA leaves the process
// running after the handler, can only be seen on AMD hardware.
//
//===----------------------------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/MemoryFaults.h"

#include <gtest/gtest.h>

#include <vector>

namespace kiln::hal::amdgpu {
namespace {

hsa_amd_event_t faultOn(uint64_t agent, uint64_t address, uint32_t reasons) {
  hsa_amd_event_t event = {};
  event.event_type = HSA_AMD_GPU_MEMORY_FAULT_EVENT;
  event.memory_fault.agent.handle = agent;
  event.memory_fault.virtual_address = address;
  event.memory_fault.fault_reason_mask = reasons;
  return event;
}

TEST(MemoryFaultsTest, AFaultReachesItsGpusSubscribersOnly) {
  MemoryFaults faults;
  std::vector<Status> first, second;
  auto a = faults.subscribe(2, [&](const Status &s) { first.push_back(s); });
  auto b = faults.subscribe(3, [&](const Status &s) { second.push_back(s); });
  faults.deliver(faultOn(2, 0x7f001000,
                         HSA_AMD_MEMORY_FAULT_PAGE_NOT_PRESENT |
                             HSA_AMD_MEMORY_FAULT_READ_ONLY));
  ASSERT_EQ(first.size(), 1u);
  EXPECT_TRUE(second.empty());
  EXPECT_EQ(first[0].code(), StatusCode::Aborted);
  std::string message(first[0].message());
  EXPECT_NE(message.find("0x7f001000"), std::string::npos) << message;
  EXPECT_NE(message.find("page not present, write to a read-only page"),
            std::string::npos)
      << message;
  // Gone once unsubscribed.
  a.reset();
  faults.deliver(faultOn(2, 0, 0));
  EXPECT_EQ(first.size(), 1u);
}

TEST(MemoryFaultsTest, TheHandlerIsRegisteredOnceAndCalledAsHsaWould) {
  static int registered = 0;
  static hsa_amd_system_event_callback_t handler = nullptr;
  static void *handlerData = nullptr;
  HsaSymbols hsa;
  hsa.hsa_amd_register_system_event_handler =
      [](hsa_amd_system_event_callback_t callback, void *data) {
        ++registered;
        handler = callback;
        handlerData = data;
        return HSA_STATUS_SUCCESS;
      };
  MemoryFaults faults;
  EXPECT_TRUE(faults.install(hsa).ok());
  EXPECT_TRUE(faults.install(hsa).ok());
  EXPECT_EQ(registered, 1);
  int heard = 0;
  auto watch = faults.subscribe(5, [&](const Status &) { ++heard; });
  hsa_amd_event_t event = faultOn(5, 0x10, 0);
  EXPECT_EQ(handler(&event, handlerData), HSA_STATUS_SUCCESS);
  EXPECT_EQ(heard, 1);
}

} // namespace
} // namespace kiln::hal::amdgpu
