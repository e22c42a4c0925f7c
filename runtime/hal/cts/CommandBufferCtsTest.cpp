//===- CommandBufferCtsTest.cpp - Fill, copy, barriers, replay ------------===//

#include "runtime/hal/cts/CtsFixture.h"

#include <cstring>

namespace kiln::hal::cts {
namespace {

class CommandBufferCts : public CtsTest {};
KILN_CTS_INSTANTIATE(CommandBufferCts);

// What fill() must produce: the pattern's low bytes repeated in memory
// order over [offset, offset + length), everything else untouched.
std::vector<uint8_t> expectedFill(std::vector<uint8_t> bytes, uint64_t offset,
                                  uint64_t length, uint32_t pattern,
                                  uint8_t patternLength) {
  for (uint64_t i = 0; i < length; ++i)
    bytes[offset + i] =
        static_cast<uint8_t>(pattern >> (8 * (i % patternLength)));
  return bytes;
}

TEST_P(CommandBufferCts, FillPatterns) {
  struct Case {
    uint64_t Offset, Length;
    uint32_t Pattern;
    uint8_t PatternLength;
  };
  const Case cases[] = {{3, 17, 0xa5, 1},
                        {6, 34, 0xbeef, 2},
                        {12, 400, 0xdeadbeef, 4},
                        {0, 512, 0x01020304, 4},
                        {8, 0, 0x77, 1}};
  for (const Case &c : cases) {
    KILN_ASSERT_OK_AND_ASSIGN(auto buffer, deviceBuffer(512));
    std::vector<uint8_t> initial = randomBytes(512);
    KILN_ASSERT_OK(upload(buffer, initial));
    KILN_ASSERT_OK_AND_ASSIGN(auto commands, beginCommands());
    KILN_ASSERT_OK(commands->fill(BufferRef::direct(buffer, c.Offset, c.Length),
                                  c.Pattern, c.PatternLength));
    KILN_ASSERT_OK(commands->end());
    KILN_ASSERT_OK(submitAndWait(commands));
    KILN_ASSERT_OK_AND_ASSIGN(auto back, download(buffer));
    EXPECT_EQ(back, expectedFill(initial, c.Offset, c.Length, c.Pattern,
                                 c.PatternLength))
        << "pattern length " << unsigned(c.PatternLength);
  }
}

TEST_P(CommandBufferCts, CopySubranges) {
  KILN_ASSERT_OK_AND_ASSIGN(auto source, deviceBuffer(300));
  KILN_ASSERT_OK_AND_ASSIGN(auto target, deviceBuffer(300));
  std::vector<uint8_t> sourceBytes = randomBytes(300);
  std::vector<uint8_t> targetBytes = randomBytes(300);
  KILN_ASSERT_OK(upload(source, sourceBytes));
  KILN_ASSERT_OK(upload(target, targetBytes));
  KILN_ASSERT_OK_AND_ASSIGN(auto commands, beginCommands());
  KILN_ASSERT_OK(commands->copy(BufferRef::direct(source, 7, 101),
                                BufferRef::direct(target, 150, 101)));
  // Non-overlapping ranges of one buffer.
  KILN_ASSERT_OK(commands->copy(BufferRef::direct(source, 0, 50),
                                BufferRef::direct(source, 200, 50)));
  KILN_ASSERT_OK(commands->end());
  KILN_ASSERT_OK(submitAndWait(commands));
  std::memcpy(targetBytes.data() + 150, sourceBytes.data() + 7, 101);
  std::memcpy(sourceBytes.data() + 200, sourceBytes.data(), 50);
  KILN_ASSERT_OK_AND_ASSIGN(auto targetBack, download(target));
  KILN_ASSERT_OK_AND_ASSIGN(auto sourceBack, download(source));
  EXPECT_EQ(targetBack, targetBytes);
  EXPECT_EQ(sourceBack, sourceBytes);
}

TEST_P(CommandBufferCts, BarriersOrderAChain) {
  // fill A; barrier; copy A -> B; barrier; copy B -> C: C must see the fill.
  KILN_ASSERT_OK_AND_ASSIGN(auto a, deviceBuffer(4096));
  KILN_ASSERT_OK_AND_ASSIGN(auto b, deviceBuffer(4096));
  KILN_ASSERT_OK_AND_ASSIGN(auto c, deviceBuffer(4096));
  KILN_ASSERT_OK(upload(b, randomBytes(4096)));
  KILN_ASSERT_OK(upload(c, randomBytes(4096)));
  KILN_ASSERT_OK_AND_ASSIGN(auto commands, beginCommands());
  KILN_ASSERT_OK(commands->fill(BufferRef::direct(a), 0x12345678, 4));
  KILN_ASSERT_OK(commands->executionBarrier());
  KILN_ASSERT_OK(commands->copy(BufferRef::direct(a), BufferRef::direct(b)));
  KILN_ASSERT_OK(commands->executionBarrier());
  KILN_ASSERT_OK(commands->copy(BufferRef::direct(b), BufferRef::direct(c)));
  KILN_ASSERT_OK(commands->end());
  KILN_ASSERT_OK(submitAndWait(commands));
  KILN_ASSERT_OK_AND_ASSIGN(auto back, download(c));
  EXPECT_EQ(back, expectedFill(back, 0, 4096, 0x12345678, 4));
  for (size_t i = 0; i < 4096; i += 4)
    ASSERT_EQ(back[i], 0x78) << i;
}

TEST_P(CommandBufferCts, DependOnOrdersAChain) {
  // fill A; copy A -> B after it; copy B -> C after that, with no barrier,
  // and an unrelated fill of D recorded in between that nothing waits for.
  KILN_ASSERT_OK_AND_ASSIGN(auto a, deviceBuffer(4096));
  KILN_ASSERT_OK_AND_ASSIGN(auto b, deviceBuffer(4096));
  KILN_ASSERT_OK_AND_ASSIGN(auto c, deviceBuffer(4096));
  KILN_ASSERT_OK_AND_ASSIGN(auto d, deviceBuffer(4096));
  KILN_ASSERT_OK(upload(b, randomBytes(4096)));
  KILN_ASSERT_OK(upload(c, randomBytes(4096)));
  KILN_ASSERT_OK_AND_ASSIGN(auto commands, beginCommands());
  uint32_t fill = commands->commandCount();
  KILN_ASSERT_OK(commands->fill(BufferRef::direct(a), 0x12345678, 4));
  KILN_ASSERT_OK(commands->fill(BufferRef::direct(d), 0x9a, 1));
  KILN_ASSERT_OK(commands->dependOn({&fill, 1}));
  uint32_t firstCopy = commands->commandCount();
  KILN_ASSERT_OK(commands->copy(BufferRef::direct(a), BufferRef::direct(b)));
  KILN_ASSERT_OK(commands->dependOn({&firstCopy, 1}));
  KILN_ASSERT_OK(commands->copy(BufferRef::direct(b), BufferRef::direct(c)));
  KILN_ASSERT_OK(commands->end());
  KILN_ASSERT_OK(submitAndWait(commands));
  std::vector<uint8_t> filled =
      expectedFill(std::vector<uint8_t>(4096), 0, 4096, 0x12345678, 4);
  KILN_ASSERT_OK_AND_ASSIGN(auto backB, download(b));
  KILN_ASSERT_OK_AND_ASSIGN(auto backC, download(c));
  KILN_ASSERT_OK_AND_ASSIGN(auto backD, download(d));
  EXPECT_EQ(backB, filled);
  EXPECT_EQ(backC, filled);
  EXPECT_EQ(backD, std::vector<uint8_t>(4096, 0x9a));
}

TEST_P(CommandBufferCts, EventsOrderTwoGroups) {
  KILN_ASSERT_OK_AND_ASSIGN(auto a, deviceBuffer(256));
  KILN_ASSERT_OK_AND_ASSIGN(auto b, deviceBuffer(256));
  KILN_ASSERT_OK_AND_ASSIGN(auto event, device()->createEvent());
  KILN_ASSERT_OK_AND_ASSIGN(auto commands, beginCommands());
  KILN_ASSERT_OK(commands->fill(BufferRef::direct(a), 0x3c, 1));
  KILN_ASSERT_OK(commands->signalEvent(event));
  KILN_ASSERT_OK(commands->waitEvent(event));
  KILN_ASSERT_OK(commands->copy(BufferRef::direct(a), BufferRef::direct(b)));
  KILN_ASSERT_OK(commands->end());
  KILN_ASSERT_OK(submitAndWait(commands));
  KILN_ASSERT_OK_AND_ASSIGN(auto back, download(b));
  EXPECT_EQ(back, std::vector<uint8_t>(256, 0x3c));
}

TEST_P(CommandBufferCts, ReplayWithNewBindingTables) {
  // Recorded once over slots: out[0:64) = in[16:80); out[64:128) = 0x5a.
  KILN_ASSERT_OK_AND_ASSIGN(auto commands,
                            beginCommands(CommandBufferMode::Reusable, 2));
  KILN_ASSERT_OK(
      commands->copy(BufferRef::slot(0, 16, 64), BufferRef::slot(1, 0, 64)));
  KILN_ASSERT_OK(commands->fill(BufferRef::slot(1, 64, 64), 0x5a, 1));
  KILN_ASSERT_OK(commands->end());
  for (int call = 0; call < 4; ++call) {
    KILN_ASSERT_OK_AND_ASSIGN(auto in, deviceBuffer(80));
    KILN_ASSERT_OK_AND_ASSIGN(auto out,
                              deviceBuffer(128 + call)); // larger is fine
    std::vector<uint8_t> input = randomBytes(80);
    KILN_ASSERT_OK(upload(in, input));
    KILN_ASSERT_OK(upload(out, randomBytes(128 + call)));
    KILN_ASSERT_OK(submitAndWait(commands, {in, out}));
    KILN_ASSERT_OK_AND_ASSIGN(auto back, download(out));
    std::vector<uint8_t> expected(input.begin() + 16, input.end());
    expected.resize(128, 0x5a);
    back.resize(128);
    EXPECT_EQ(back, expected) << "call " << call;
  }
}

TEST_P(CommandBufferCts, ReplaySubmittedBackToBack) {
  // Several submissions queued before any is waited on, each with its own
  // table: the recording must not keep per-submission state.
  KILN_ASSERT_OK_AND_ASSIGN(auto commands,
                            beginCommands(CommandBufferMode::Reusable, 2));
  KILN_ASSERT_OK(
      commands->copy(BufferRef::slot(0, 0, 256), BufferRef::slot(1, 0, 256)));
  KILN_ASSERT_OK(commands->end());
  KILN_ASSERT_OK_AND_ASSIGN(auto timeline, device()->createSemaphore(0));
  std::vector<std::vector<uint8_t>> inputs;
  std::vector<std::shared_ptr<Buffer>> outputs;
  for (uint64_t i = 0; i < 6; ++i) {
    KILN_ASSERT_OK_AND_ASSIGN(auto in, deviceBuffer(256));
    KILN_ASSERT_OK_AND_ASSIGN(auto out, deviceBuffer(256));
    inputs.push_back(randomBytes(256));
    KILN_ASSERT_OK(upload(in, inputs.back()));
    outputs.push_back(out);
    SemaphoreValue signal{timeline, i + 1};
    std::vector<std::shared_ptr<Buffer>> table = {in, out};
    KILN_ASSERT_OK(device()->queueExecute({}, commands, table, {&signal, 1}));
  }
  KILN_ASSERT_OK(timeline->wait(6, kWaitTimeout));
  for (size_t i = 0; i < outputs.size(); ++i) {
    KILN_ASSERT_OK_AND_ASSIGN(auto back, download(outputs[i]));
    EXPECT_EQ(back, inputs[i]) << i;
  }
}

TEST_P(CommandBufferCts, OneShotSubmitsOnce) {
  KILN_ASSERT_OK_AND_ASSIGN(auto buffer, deviceBuffer(16));
  KILN_ASSERT_OK_AND_ASSIGN(auto commands, beginCommands());
  KILN_ASSERT_OK(commands->fill(BufferRef::direct(buffer), 1, 1));
  KILN_ASSERT_OK(commands->end());
  KILN_ASSERT_OK(submitAndWait(commands));
  EXPECT_EQ(device()->queueExecute({}, commands, {}, {}).code(),
            StatusCode::FailedPrecondition);
}

TEST_P(CommandBufferCts, OutOfRangeRefsAreRejected) {
  KILN_ASSERT_OK_AND_ASSIGN(auto buffer, deviceBuffer(100));
  KILN_ASSERT_OK_AND_ASSIGN(auto other, deviceBuffer(100));
  KILN_ASSERT_OK_AND_ASSIGN(auto commands,
                            beginCommands(CommandBufferMode::Reusable, 1));
  EXPECT_EQ(commands->fill(BufferRef::direct(buffer, 96, 8), 0, 4).code(),
            StatusCode::OutOfRange);
  EXPECT_EQ(commands->fill(BufferRef::direct(buffer, 101), 0, 1).code(),
            StatusCode::OutOfRange);
  EXPECT_EQ(commands
                ->copy(BufferRef::direct(buffer, 50, 51),
                       BufferRef::direct(other, 0, 51))
                .code(),
            StatusCode::OutOfRange);
  EXPECT_EQ(commands
                ->copy(BufferRef::direct(buffer, UINT64_MAX, 1),
                       BufferRef::direct(other, 0, 1))
                .code(),
            StatusCode::OutOfRange);
  EXPECT_EQ(commands->fill(BufferRef::slot(1, 0, 4), 0, 1).code(),
            StatusCode::OutOfRange);
  // An indirect ref is checked against the buffer bound at submission.
  KILN_ASSERT_OK(commands->fill(BufferRef::slot(0, 64, 64), 0xee, 1));
  KILN_ASSERT_OK(commands->end());
  std::vector<uint8_t> before = randomBytes(100);
  KILN_ASSERT_OK(upload(buffer, before));
  std::vector<std::shared_ptr<Buffer>> tooSmall = {buffer};
  EXPECT_EQ(device()->queueExecute({}, commands, tooSmall, {}).code(),
            StatusCode::OutOfRange);
  std::vector<std::shared_ptr<Buffer>> empty = {nullptr};
  EXPECT_EQ(device()->queueExecute({}, commands, empty, {}).code(),
            StatusCode::InvalidArgument);
  // Nothing ran: the small buffer is untouched.
  KILN_ASSERT_OK(device()->waitIdle(kWaitTimeout));
  KILN_ASSERT_OK_AND_ASSIGN(auto after, download(buffer));
  EXPECT_EQ(after, before);
  KILN_ASSERT_OK_AND_ASSIGN(auto large, deviceBuffer(128));
  KILN_ASSERT_OK(submitAndWait(commands, {large}));
  KILN_ASSERT_OK_AND_ASSIGN(auto filled, download(large));
  EXPECT_EQ(std::vector<uint8_t>(filled.begin() + 64, filled.end()),
            std::vector<uint8_t>(64, 0xee));
}

TEST_P(CommandBufferCts, RecordingErrors) {
  KILN_ASSERT_OK_AND_ASSIGN(auto buffer, deviceBuffer(64));
  KILN_ASSERT_OK_AND_ASSIGN(auto commands, device()->createCommandBuffer(
                                               CommandBufferMode::OneShot, 0));
  EXPECT_EQ(commands->fill(BufferRef::direct(buffer), 0, 1).code(),
            StatusCode::FailedPrecondition);
  KILN_ASSERT_OK(commands->begin());
  EXPECT_EQ(commands->fill(BufferRef::direct(buffer, 1, 4), 0, 4).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(commands->fill(BufferRef::direct(buffer), 0, 8).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(commands
                ->copy(BufferRef::direct(buffer, 0, 32),
                       BufferRef::direct(buffer, 16, 32))
                .code(),
            StatusCode::InvalidArgument);
  KILN_ASSERT_OK_AND_ASSIGN(auto event, device()->createEvent());
  EXPECT_EQ(commands->waitEvent(event).code(), StatusCode::FailedPrecondition);
  // Submitting before end() is refused.
  EXPECT_EQ(device()->queueExecute({}, commands, {}, {}).code(),
            StatusCode::FailedPrecondition);
  KILN_ASSERT_OK(commands->end());
  EXPECT_EQ(commands->executionBarrier().code(),
            StatusCode::FailedPrecondition);
}

TEST_P(CommandBufferCts, EmptyCommandBuffer) {
  KILN_ASSERT_OK_AND_ASSIGN(auto commands, beginCommands());
  KILN_ASSERT_OK(commands->end());
  KILN_ASSERT_OK(submitAndWait(commands));
}

} // namespace
} // namespace kiln::hal::cts
