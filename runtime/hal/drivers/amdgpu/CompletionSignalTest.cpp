//===- CompletionSignalTest.cpp - Over heap words standing in for signals -===//

#include "runtime/hal/drivers/amdgpu/CompletionSignal.h"

#include "runtime/hal/drivers/amdgpu/TestSignals.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace kiln::hal::amdgpu {
namespace {

using namespace testing;

TEST(CompletionSignalTest, DoneOnceEveryPacketNamingItIs) {
  auto hsa = hostSignalSymbols();
  auto signal = CompletionSignal::create(hsa, 2);
  ASSERT_TRUE(signal.ok()) << signal.status().toString();
  EXPECT_EQ(liveSignals.load(), 1);
  EXPECT_EQ(loadSignal({(*signal)->handle()}), 2);
  EXPECT_FALSE((*signal)->done());
  completePacket((*signal)->handle());
  EXPECT_FALSE((*signal)->done());
  completePacket((*signal)->handle());
  EXPECT_TRUE((*signal)->done());
  // Decremented once too often is still done, not pending forever.
  completePacket((*signal)->handle());
  EXPECT_TRUE((*signal)->done());
  signal->reset();
  EXPECT_EQ(liveSignals.load(), 0);
}

TEST(CompletionSignalTest, WaitDoneReturnsOnceDone) {
  auto hsa = hostSignalSymbols();
  auto signal = *CompletionSignal::create(hsa, 1);
  std::thread processor([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    completePacket(signal->handle());
  });
  signal->waitDone();
  EXPECT_TRUE(signal->done());
  processor.join();
}

TEST(CompletionSignalTest, ReleasingOneWakesItsWaiter) {
  auto hsa = hostSignalSymbols();
  auto signal = *CompletionSignal::create(hsa, 3);
  std::thread host([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    signal->release();
  });
  signal->waitDone();
  EXPECT_EQ(loadSignal({signal->handle()}), 0);
  host.join();
}

TEST(CompletionSignalTest, PacketCountsOutOfRangeAreRefused) {
  auto hsa = hostSignalSymbols();
  for (int64_t packets : {int64_t(0), int64_t(-1), int64_t(1) << 32}) {
    auto signal = CompletionSignal::create(hsa, packets);
    EXPECT_EQ(signal.status().code(), StatusCode::InvalidArgument) << packets;
  }
  EXPECT_EQ(liveSignals.load(), 0);
}

TEST(CompletionSignalTest, HsaFailingToCreateOneIsAnError) {
  auto hsa = hostSignalSymbols();
  hsa->hsa_signal_create = [](hsa_signal_value_t, uint32_t, const hsa_agent_t *,
                              hsa_signal_t *) {
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  };
  hsa->hsa_status_string = [](hsa_status_t, const char **text) {
    *text = "out of resources";
    return HSA_STATUS_SUCCESS;
  };
  auto signal = CompletionSignal::create(hsa, 1);
  EXPECT_EQ(signal.status().code(), StatusCode::ResourceExhausted);
  EXPECT_NE(signal.status().message().find("hsa_signal_create"),
            std::string::npos)
      << signal.status().toString();
}

} // namespace
} // namespace kiln::hal::amdgpu
