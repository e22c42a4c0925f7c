//===- SubmissionTimerCtsTest.cpp - Timing submissions by the device ------===//

#include "runtime/hal/cts/CtsFixture.h"

#include <cstring>

namespace kiln::hal::cts {
namespace {

class SubmissionTimerCts : public CtsTest {
protected:
  // The device's timer, or a skip where it has no clock of its own.
  StatusOr<std::shared_ptr<SubmissionTimer>> timerOrSkip(bool &skip) {
    StatusOr<std::shared_ptr<SubmissionTimer>> timer =
        device()->createSubmissionTimer();
    skip = !timer.ok() && timer.status().code() == StatusCode::Unimplemented;
    return timer;
  }

  Status submitTimedAndWait(const std::shared_ptr<CommandBuffer> &commands,
                            const std::shared_ptr<SubmissionTimer> &timer) {
    KILN_ASSIGN_OR_RETURN(std::shared_ptr<Semaphore> done,
                          device()->createSemaphore(0));
    SemaphoreValue signal{done, 1};
    KILN_RETURN_IF_ERROR(
        device()->queueExecute({}, commands, {}, {&signal, 1}, timer));
    return done->wait(1, kWaitTimeout);
  }
};
KILN_CTS_INSTANTIATE(SubmissionTimerCts);

// Stands in for a timer of another device.
class ForeignTimer final : public SubmissionTimer {
public:
  StatusOr<double> elapsedSeconds() const override { return 0.0; }
};

TEST_P(SubmissionTimerCts, TimedWorkRunsAndTakesTime) {
  bool skip = false;
  auto timer = timerOrSkip(skip);
  if (skip)
    GTEST_SKIP() << GetParam() << ": " << timer.status().message();
  ASSERT_TRUE(timer.ok()) << timer.status().toString();
  EXPECT_EQ((*timer)->elapsedSeconds().status().code(),
            StatusCode::FailedPrecondition);

  // Large enough (64 MiB) that its time is well above the clock's
  // resolution.
  constexpr uint64_t kBytes = uint64_t(64) << 20;
  KILN_ASSERT_OK_AND_ASSIGN(auto buffer, deviceBuffer(kBytes));
  for (uint32_t pattern : {0x11223344u, 0x55667788u}) {
    KILN_ASSERT_OK_AND_ASSIGN(auto commands, beginCommands());
    KILN_ASSERT_OK(commands->fill(BufferRef::direct(buffer), pattern, 4));
    KILN_ASSERT_OK(commands->end());
    KILN_ASSERT_OK(submitTimedAndWait(commands, *timer));
    KILN_ASSERT_OK_AND_ASSIGN(double seconds, (*timer)->elapsedSeconds());
    EXPECT_GT(seconds, 0.0);
    // Filling 64 MiB takes far less than a second on any GPU.
    EXPECT_LT(seconds, 1.0);
    KILN_ASSERT_OK_AND_ASSIGN(auto back, download(buffer));
    ASSERT_EQ(back.size(), kBytes);
    uint32_t first = 0;
    std::memcpy(&first, back.data(), 4);
    EXPECT_EQ(first, pattern);
  }
}

TEST_P(SubmissionTimerCts, DevicesWithoutAClockSaySo) {
  auto timer = device()->createSubmissionTimer();
  if (timer.ok())
    GTEST_SKIP() << GetParam() << " times submissions";
  EXPECT_EQ(timer.status().code(), StatusCode::Unimplemented);
  EXPECT_NE(timer.status().message().find(device()->info().Uri),
            std::string::npos)
      << timer.status().toString();
}

TEST_P(SubmissionTimerCts, ForeignTimersAndTimersWithoutWorkAreRefused) {
  auto foreign = std::make_shared<ForeignTimer>();
  KILN_ASSERT_OK_AND_ASSIGN(auto done, device()->createSemaphore(0));
  SemaphoreValue signal{done, 1};
  Status status =
      device()->queueExecute({}, nullptr, {}, {&signal, 1}, foreign);
  EXPECT_EQ(status.code(), StatusCode::InvalidArgument) << status.toString();
  EXPECT_NE(status.message().find("timer without a command buffer"),
            std::string::npos)
      << status.toString();

  KILN_ASSERT_OK_AND_ASSIGN(auto buffer, deviceBuffer(64));
  KILN_ASSERT_OK_AND_ASSIGN(auto commands, beginCommands());
  KILN_ASSERT_OK(commands->fill(BufferRef::direct(buffer), 0x5a, 1));
  KILN_ASSERT_OK(commands->end());
  status = submitTimedAndWait(commands, foreign);
  EXPECT_EQ(status.code(), StatusCode::InvalidArgument) << status.toString();
}

} // namespace
} // namespace kiln::hal::cts
