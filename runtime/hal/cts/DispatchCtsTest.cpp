//===- DispatchCtsTest.cpp - Running real executables ---------------------===//

#include "runtime/hal/cts/CtsFixture.h"

#include <bit>
#include <cstring>

namespace kiln::hal::cts {
namespace {

class DispatchCts : public KernelCtsTest {};
KILN_CTS_INSTANTIATE(DispatchCts);

TEST_P(DispatchCts, EntryPointsAreDescribed) {
  ASSERT_EQ(Kernels->entryPoints().size(), 4u);
  EXPECT_EQ(Kernels->entryPoints()[kAddF32].Name, "add_f32");
  EXPECT_EQ(Kernels->entryPoints()[kAddF32].BindingCount, 3u);
  EXPECT_TRUE(Kernels->format() == "cpu-elf-x86_64" ||
              Kernels->format() == "cuda-ptx")
      << Kernels->format();
}

TEST_P(DispatchCts, ElementwiseAddOverFourWorkgroups) {
  constexpr uint32_t kCount = 30, kPerGroup = 8; // 4 groups, last partial
  std::vector<float> a = randomFloats(kCount), b = randomFloats(kCount);
  KILN_ASSERT_OK_AND_ASSIGN(auto bufferA, deviceBuffer(kCount * 4));
  KILN_ASSERT_OK_AND_ASSIGN(auto bufferB, deviceBuffer(kCount * 4));
  KILN_ASSERT_OK_AND_ASSIGN(auto out, deviceBuffer(kCount * 4 + 8));
  KILN_ASSERT_OK(upload(bufferA, toBytes(a)));
  KILN_ASSERT_OK(upload(bufferB, toBytes(b)));
  std::vector<uint8_t> sentinel = randomBytes(kCount * 4 + 8);
  KILN_ASSERT_OK(upload(out, sentinel));
  KILN_ASSERT_OK_AND_ASSIGN(auto commands, beginCommands());
  BufferRef bindings[] = {BufferRef::direct(bufferA),
                          BufferRef::direct(bufferB),
                          BufferRef::direct(out, 0, kCount * 4)};
  uint32_t push[] = {kCount, kPerGroup};
  KILN_ASSERT_OK(
      commands->dispatch(Kernels, kAddF32, {4, 1, 1}, bindings, push));
  KILN_ASSERT_OK(commands->end());
  KILN_ASSERT_OK(submitAndWait(commands));
  KILN_ASSERT_OK_AND_ASSIGN(auto back, download(out));
  std::vector<float> result = toFloats(back);
  for (uint32_t i = 0; i < kCount; ++i)
    EXPECT_EQ(result[i], a[i] + b[i]) << i;
  // The 8 bytes after the bound range are untouched.
  EXPECT_TRUE(std::equal(back.end() - 8, back.end(), sentinel.end() - 8));
}

TEST_P(DispatchCts, BindingOffsetsAreApplied) {
  // Bindings start 16 bytes into their buffers; the kernel sees the offset
  // pointers as element 0.
  constexpr uint32_t kCount = 12;
  std::vector<float> a = randomFloats(kCount + 4), b = randomFloats(kCount + 4);
  KILN_ASSERT_OK_AND_ASSIGN(auto bufferA, deviceBuffer((kCount + 4) * 4));
  KILN_ASSERT_OK_AND_ASSIGN(auto bufferB, deviceBuffer((kCount + 4) * 4));
  KILN_ASSERT_OK_AND_ASSIGN(auto out, deviceBuffer((kCount + 4) * 4));
  KILN_ASSERT_OK(upload(bufferA, toBytes(a)));
  KILN_ASSERT_OK(upload(bufferB, toBytes(b)));
  KILN_ASSERT_OK(upload(out, toBytes(randomFloats(kCount + 4))));
  KILN_ASSERT_OK_AND_ASSIGN(auto commands, beginCommands());
  BufferRef bindings[] = {BufferRef::direct(bufferA, 16, kCount * 4),
                          BufferRef::direct(bufferB, 16, kCount * 4),
                          BufferRef::direct(out, 16, kCount * 4)};
  uint32_t push[] = {kCount, kCount};
  KILN_ASSERT_OK(
      commands->dispatch(Kernels, kAddF32, {1, 1, 1}, bindings, push));
  KILN_ASSERT_OK(commands->end());
  KILN_ASSERT_OK(submitAndWait(commands));
  KILN_ASSERT_OK_AND_ASSIGN(auto back, download(out));
  std::vector<float> result = toFloats(back);
  for (uint32_t i = 0; i < kCount; ++i)
    EXPECT_EQ(result[i + 4], a[i + 4] + b[i + 4]) << i;
}

TEST_P(DispatchCts, EveryWorkgroupRunsExactlyOnce) {
  const std::array<uint32_t, 3> grids[] = {
      {5, 3, 2}, {1, 1, 1}, {64, 1, 1}, {1, 17, 3}, {7, 7, 7}};
  for (const auto &grid : grids) {
    uint32_t total = grid[0] * grid[1] * grid[2];
    KILN_ASSERT_OK_AND_ASSIGN(auto counters, deviceBuffer(total * 4));
    KILN_ASSERT_OK_AND_ASSIGN(auto commands, beginCommands());
    KILN_ASSERT_OK(commands->fill(BufferRef::direct(counters), 0, 4));
    KILN_ASSERT_OK(commands->executionBarrier());
    BufferRef bindings[] = {BufferRef::direct(counters)};
    uint32_t push[] = {grid[0], grid[1]};
    KILN_ASSERT_OK(
        commands->dispatch(Kernels, kCountWorkgroups, grid, bindings, push));
    KILN_ASSERT_OK(commands->end());
    KILN_ASSERT_OK(submitAndWait(commands));
    KILN_ASSERT_OK_AND_ASSIGN(auto back, download(counters));
    std::vector<uint32_t> counts(total);
    std::memcpy(counts.data(), back.data(), back.size());
    EXPECT_EQ(counts, std::vector<uint32_t>(total, 1))
        << grid[0] << "x" << grid[1] << "x" << grid[2];
  }
}

TEST_P(DispatchCts, EmptyGridRunsNothing) {
  KILN_ASSERT_OK_AND_ASSIGN(auto counters, deviceBuffer(16));
  std::vector<uint8_t> before = randomBytes(16);
  KILN_ASSERT_OK(upload(counters, before));
  KILN_ASSERT_OK_AND_ASSIGN(auto commands, beginCommands());
  BufferRef bindings[] = {BufferRef::direct(counters)};
  uint32_t push[] = {4, 1};
  KILN_ASSERT_OK(
      commands->dispatch(Kernels, kCountWorkgroups, {4, 0, 1}, bindings, push));
  KILN_ASSERT_OK(commands->end());
  KILN_ASSERT_OK(submitAndWait(commands));
  KILN_ASSERT_OK_AND_ASSIGN(auto back, download(counters));
  EXPECT_EQ(back, before);
}

TEST_P(DispatchCts, BarriersSeparateDependentDispatches) {
  // tmp = a + b; barrier; out = tmp + b, over many workgroups so a missing
  // barrier on a parallel device shows up as wrong sums.
  constexpr uint32_t kCount = 4096, kPerGroup = 16;
  std::vector<float> a = randomFloats(kCount), b = randomFloats(kCount);
  KILN_ASSERT_OK_AND_ASSIGN(auto bufferA, deviceBuffer(kCount * 4));
  KILN_ASSERT_OK_AND_ASSIGN(auto bufferB, deviceBuffer(kCount * 4));
  KILN_ASSERT_OK_AND_ASSIGN(auto tmp, deviceBuffer(kCount * 4));
  KILN_ASSERT_OK_AND_ASSIGN(auto out, deviceBuffer(kCount * 4));
  KILN_ASSERT_OK(upload(bufferA, toBytes(a)));
  KILN_ASSERT_OK(upload(bufferB, toBytes(b)));
  KILN_ASSERT_OK_AND_ASSIGN(auto commands, beginCommands());
  uint32_t push[] = {kCount, kPerGroup};
  BufferRef first[] = {BufferRef::direct(bufferA), BufferRef::direct(bufferB),
                       BufferRef::direct(tmp)};
  BufferRef second[] = {BufferRef::direct(tmp), BufferRef::direct(bufferB),
                        BufferRef::direct(out)};
  KILN_ASSERT_OK(commands->fill(BufferRef::direct(tmp), 0, 4));
  KILN_ASSERT_OK(commands->executionBarrier());
  KILN_ASSERT_OK(commands->dispatch(Kernels, kAddF32,
                                    {kCount / kPerGroup, 1, 1}, first, push));
  KILN_ASSERT_OK(commands->executionBarrier());
  KILN_ASSERT_OK(commands->dispatch(Kernels, kAddF32,
                                    {kCount / kPerGroup, 1, 1}, second, push));
  KILN_ASSERT_OK(commands->end());
  KILN_ASSERT_OK(submitAndWait(commands));
  KILN_ASSERT_OK_AND_ASSIGN(auto back, download(out));
  std::vector<float> result = toFloats(back);
  for (uint32_t i = 0; i < kCount; ++i)
    ASSERT_EQ(result[i], (a[i] + b[i]) + b[i]) << i;
}

TEST_P(DispatchCts, ReplayWithIndirectBindingsAndPushConstants) {
  // Recorded once: out = in * 2.5 + 1 over slots 0 (in) and 1 (out), then
  // replayed over new buffers.
  constexpr uint32_t kCount = 9;
  KILN_ASSERT_OK_AND_ASSIGN(auto commands,
                            beginCommands(CommandBufferMode::Reusable, 2));
  BufferRef bindings[] = {BufferRef::slot(0, 0, kCount * 4),
                          BufferRef::slot(1, 0, kCount * 4)};
  uint32_t push[] = {kCount, std::bit_cast<uint32_t>(2.5f),
                     std::bit_cast<uint32_t>(1.0f)};
  KILN_ASSERT_OK(commands->dispatch(Kernels, kScaleBiasF32, {kCount, 1, 1},
                                    bindings, push));
  KILN_ASSERT_OK(commands->end());
  for (int call = 0; call < 3; ++call) {
    std::vector<float> input = randomFloats(kCount);
    KILN_ASSERT_OK_AND_ASSIGN(auto in, deviceBuffer(kCount * 4));
    KILN_ASSERT_OK_AND_ASSIGN(auto out, deviceBuffer(kCount * 4));
    KILN_ASSERT_OK(upload(in, toBytes(input)));
    KILN_ASSERT_OK(submitAndWait(commands, {in, out}));
    KILN_ASSERT_OK_AND_ASSIGN(auto back, download(out));
    std::vector<float> result = toFloats(back);
    for (uint32_t i = 0; i < kCount; ++i)
      EXPECT_EQ(result[i], input[i] * 2.5f + 1.0f) << "call " << call;
  }
}

TEST_P(DispatchCts, WorkgroupsRunConcurrently) {
  KILN_CTS_REQUIRE(feature::kConcurrentWorkgroups);
  // Two workgroups that each wait for the other: only a device that runs
  // them at the same time gets both through.
  KILN_ASSERT_OK_AND_ASSIGN(auto state, deviceBuffer(8));
  KILN_ASSERT_OK_AND_ASSIGN(auto commands, beginCommands());
  KILN_ASSERT_OK(commands->fill(BufferRef::direct(state), 0, 4));
  KILN_ASSERT_OK(commands->executionBarrier());
  BufferRef bindings[] = {BufferRef::direct(state)};
  uint32_t push[] = {2, kMeetMs};
  KILN_ASSERT_OK(
      commands->dispatch(Kernels, kRendezvous, {2, 1, 1}, bindings, push));
  KILN_ASSERT_OK(commands->end());
  KILN_ASSERT_OK(submitAndWait(commands));
  KILN_ASSERT_OK_AND_ASSIGN(auto back, download(state));
  uint32_t arrived, met;
  std::memcpy(&arrived, back.data(), 4);
  std::memcpy(&met, back.data() + 4, 4);
  EXPECT_EQ(arrived, 2u);
  EXPECT_EQ(met, 2u);
}

// The ordering cases below use two one-workgroup rendezvous dispatches, A
// then B, on one state: when they may run at once (on a device that runs
// unordered commands concurrently) both meet (kBothMet); when B is ordered
// after A, A waits in vain until it times out and only B sees both
// arrivals (kOnlySecondMet).

TEST_P(DispatchCts, UnorderedDispatchesRunConcurrently) {
  KILN_CTS_REQUIRE(feature::kConcurrentCommands);
  // Without this the cases that expect an ordering would pass on a device
  // that merely runs everything in order.
  KILN_ASSERT_OK_AND_ASSIGN(auto state, meetingState());
  KILN_ASSERT_OK_AND_ASSIGN(auto commands, beginCommands());
  KILN_ASSERT_OK(meet(*commands, state, kMeetMs));
  KILN_ASSERT_OK(meet(*commands, state, kMeetMs));
  KILN_ASSERT_OK_AND_ASSIGN(auto meeting, runMeeting(commands, state));
  EXPECT_EQ(meeting, kBothMet);
}

TEST_P(DispatchCts, BarrierOrdersConcurrentDispatches) {
  KILN_CTS_REQUIRE(feature::kConcurrentCommands);
  KILN_ASSERT_OK_AND_ASSIGN(auto state, meetingState());
  KILN_ASSERT_OK_AND_ASSIGN(auto commands, beginCommands());
  KILN_ASSERT_OK(meet(*commands, state, kOrderedMs));
  KILN_ASSERT_OK(commands->executionBarrier());
  KILN_ASSERT_OK(meet(*commands, state, kMeetMs));
  KILN_ASSERT_OK_AND_ASSIGN(auto meeting, runMeeting(commands, state));
  EXPECT_EQ(meeting, kOnlySecondMet);
}

TEST_P(DispatchCts, EventOrdersConcurrentDispatches) {
  KILN_CTS_REQUIRE(feature::kConcurrentCommands);
  KILN_ASSERT_OK_AND_ASSIGN(auto state, meetingState());
  KILN_ASSERT_OK_AND_ASSIGN(auto other, deviceBuffer(64));
  KILN_ASSERT_OK_AND_ASSIGN(auto event, device()->createEvent());
  KILN_ASSERT_OK_AND_ASSIGN(auto commands, beginCommands());
  KILN_ASSERT_OK(meet(*commands, state, kOrderedMs));
  KILN_ASSERT_OK(commands->signalEvent(event));
  // Between signal and wait, so B's wait is for the event's commands, not
  // for whatever came last.
  KILN_ASSERT_OK(commands->fill(BufferRef::direct(other), 0, 4));
  KILN_ASSERT_OK(commands->waitEvent(event));
  KILN_ASSERT_OK(meet(*commands, state, kMeetMs));
  KILN_ASSERT_OK_AND_ASSIGN(auto meeting, runMeeting(commands, state));
  EXPECT_EQ(meeting, kOnlySecondMet);
}

TEST_P(DispatchCts, DependOnOrdersConcurrentDispatches) {
  KILN_CTS_REQUIRE(feature::kConcurrentCommands);
  KILN_ASSERT_OK_AND_ASSIGN(auto state, meetingState());
  KILN_ASSERT_OK_AND_ASSIGN(auto other, deviceBuffer(64));
  KILN_ASSERT_OK_AND_ASSIGN(auto commands, beginCommands());
  uint32_t first = commands->commandCount();
  KILN_ASSERT_OK(meet(*commands, state, kOrderedMs));
  // Recorded between them, so following the latest command is not enough.
  KILN_ASSERT_OK(commands->fill(BufferRef::direct(other), 0, 4));
  KILN_ASSERT_OK(commands->dependOn({&first, 1}));
  KILN_ASSERT_OK(meet(*commands, state, kMeetMs));
  KILN_ASSERT_OK_AND_ASSIGN(auto meeting, runMeeting(commands, state));
  EXPECT_EQ(meeting, kOnlySecondMet);
}

TEST_P(DispatchCts, DependOnPassesThroughCommandsThatDoNoWork) {
  KILN_CTS_REQUIRE(feature::kConcurrentCommands);
  // A; an empty fill after A; an empty dispatch after that; B after that:
  // B follows A although every link between them does nothing.
  KILN_ASSERT_OK_AND_ASSIGN(auto state, meetingState());
  KILN_ASSERT_OK_AND_ASSIGN(auto counters, deviceBuffer(16));
  KILN_ASSERT_OK_AND_ASSIGN(auto commands, beginCommands());
  uint32_t previous = commands->commandCount();
  KILN_ASSERT_OK(meet(*commands, state, kOrderedMs));
  KILN_ASSERT_OK(commands->dependOn({&previous, 1}));
  previous = commands->commandCount();
  KILN_ASSERT_OK(commands->fill(BufferRef::direct(counters, 0, 0), 0, 4));
  KILN_ASSERT_OK(commands->dependOn({&previous, 1}));
  previous = commands->commandCount();
  BufferRef bindings[] = {BufferRef::direct(counters)};
  uint32_t push[] = {4, 1};
  KILN_ASSERT_OK(
      commands->dispatch(Kernels, kCountWorkgroups, {4, 0, 1}, bindings, push));
  KILN_ASSERT_OK(commands->dependOn({&previous, 1}));
  KILN_ASSERT_OK(meet(*commands, state, kMeetMs));
  KILN_ASSERT_OK_AND_ASSIGN(auto meeting, runMeeting(commands, state));
  EXPECT_EQ(meeting, kOnlySecondMet);
}

TEST_P(DispatchCts, DependOnOrdersOnlyWhatItNames) {
  KILN_CTS_REQUIRE(feature::kConcurrentCommands);
  // A and B both follow the same fill and nothing else, so nothing orders
  // them against each other and they meet: dependOn is not a barrier.
  // (Whether a command may overlap one it does not name although another
  // command it names comes later is a driver's choice: local-task runs
  // commands in levels, so it never does. This case holds on every device.)
  KILN_ASSERT_OK_AND_ASSIGN(auto state, meetingState());
  KILN_ASSERT_OK_AND_ASSIGN(auto other, deviceBuffer(64));
  KILN_ASSERT_OK_AND_ASSIGN(auto commands, beginCommands());
  uint32_t fill = commands->commandCount();
  KILN_ASSERT_OK(commands->fill(BufferRef::direct(other), 0, 4));
  KILN_ASSERT_OK(commands->dependOn({&fill, 1}));
  KILN_ASSERT_OK(meet(*commands, state, kMeetMs));
  KILN_ASSERT_OK(commands->dependOn({&fill, 1}));
  KILN_ASSERT_OK(meet(*commands, state, kMeetMs));
  KILN_ASSERT_OK_AND_ASSIGN(auto meeting, runMeeting(commands, state));
  EXPECT_EQ(meeting, kBothMet);
}

TEST_P(DispatchCts, DependOnChainsComputeExactly) {
  // Two chains ordered only by dependOn, interleaved and replayed with new
  // inputs: tmp = NaN; tmp = a + b; out = tmp + b; result = out, and beside
  // them scaled = a * 0.5 + 1 (exact with or without a fused multiply-add,
  // which GPU compilers contract to). Many workgroups per dispatch, so a
  // missing edge on a parallel device reads a half-written tmp or out; a copy
  // that ran early leaves result's old bytes.
  constexpr uint32_t kCount = 4096, kPerGroup = 16, kBytes = kCount * 4;
  KILN_ASSERT_OK_AND_ASSIGN(auto tmp, deviceBuffer(kBytes));
  KILN_ASSERT_OK_AND_ASSIGN(auto out, deviceBuffer(kBytes));
  KILN_ASSERT_OK_AND_ASSIGN(auto scaled, deviceBuffer(kBytes));
  KILN_ASSERT_OK(upload(out, randomBytes(kBytes)));
  // Slots: 0 a, 1 b, 2 result.
  KILN_ASSERT_OK_AND_ASSIGN(auto commands,
                            beginCommands(CommandBufferMode::Reusable, 3));
  uint32_t addPush[] = {kCount, kPerGroup};
  uint32_t scalePush[] = {kCount, std::bit_cast<uint32_t>(0.5f),
                          std::bit_cast<uint32_t>(1.0f)};
  BufferRef first[] = {BufferRef::slot(0, 0, kBytes),
                       BufferRef::slot(1, 0, kBytes), BufferRef::direct(tmp)};
  BufferRef second[] = {BufferRef::direct(tmp), BufferRef::slot(1, 0, kBytes),
                        BufferRef::direct(out)};
  BufferRef scale[] = {BufferRef::slot(0, 0, kBytes),
                       BufferRef::direct(scaled)};
  uint32_t fillTmp = commands->commandCount();
  KILN_ASSERT_OK(commands->fill(BufferRef::direct(tmp), 0xffffffff, 4));
  KILN_ASSERT_OK(commands->dependOn({&fillTmp, 1}));
  uint32_t addFirst = commands->commandCount();
  KILN_ASSERT_OK(commands->dispatch(
      Kernels, kAddF32, {kCount / kPerGroup, 1, 1}, first, addPush));
  KILN_ASSERT_OK(commands->dispatch(Kernels, kScaleBiasF32, {kCount, 1, 1},
                                    scale, scalePush));
  // Also names the fill, which addFirst already follows: harmless.
  uint32_t secondDeps[] = {addFirst, fillTmp};
  KILN_ASSERT_OK(commands->dependOn(secondDeps));
  uint32_t addSecond = commands->commandCount();
  KILN_ASSERT_OK(commands->dispatch(
      Kernels, kAddF32, {kCount / kPerGroup, 1, 1}, second, addPush));
  KILN_ASSERT_OK(commands->dependOn({&addSecond, 1}));
  KILN_ASSERT_OK(
      commands->copy(BufferRef::direct(out), BufferRef::slot(2, 0, kBytes)));
  KILN_ASSERT_OK(commands->end());
  for (int call = 0; call < 2; ++call) {
    std::vector<float> a = randomFloats(kCount), b = randomFloats(kCount);
    KILN_ASSERT_OK_AND_ASSIGN(auto bufferA, deviceBuffer(kBytes));
    KILN_ASSERT_OK_AND_ASSIGN(auto bufferB, deviceBuffer(kBytes));
    KILN_ASSERT_OK_AND_ASSIGN(auto result, deviceBuffer(kBytes));
    KILN_ASSERT_OK(upload(bufferA, toBytes(a)));
    KILN_ASSERT_OK(upload(bufferB, toBytes(b)));
    KILN_ASSERT_OK(upload(result, randomBytes(kBytes)));
    KILN_ASSERT_OK(submitAndWait(commands, {bufferA, bufferB, result}));
    KILN_ASSERT_OK_AND_ASSIGN(auto back, download(result));
    std::vector<float> sums = toFloats(back);
    for (uint32_t i = 0; i < kCount; ++i)
      ASSERT_EQ(sums[i], (a[i] + b[i]) + b[i]) << "call " << call << " " << i;
    KILN_ASSERT_OK_AND_ASSIGN(auto scaledBack, download(scaled));
    std::vector<float> scaledValues = toFloats(scaledBack);
    for (uint32_t i = 0; i < kCount; ++i)
      ASSERT_EQ(scaledValues[i], a[i] * 0.5f + 1.0f)
          << "call " << call << " " << i;
  }
}

TEST_P(DispatchCts, DispatchArgumentErrors) {
  KILN_ASSERT_OK_AND_ASSIGN(auto buffer, deviceBuffer(64));
  KILN_ASSERT_OK_AND_ASSIGN(auto commands,
                            beginCommands(CommandBufferMode::OneShot, 1));
  BufferRef three[] = {BufferRef::direct(buffer), BufferRef::direct(buffer),
                       BufferRef::direct(buffer)};
  uint32_t push[] = {16, 16};
  EXPECT_EQ(commands->dispatch(Kernels, 9, {1, 1, 1}, three, push).code(),
            StatusCode::OutOfRange);
  EXPECT_EQ(
      commands->dispatch(Kernels, kAddF32, {1, 1, 1}, {three, 2}, push).code(),
      StatusCode::InvalidArgument);
  EXPECT_EQ(
      commands->dispatch(Kernels, kAddF32, {1, 1, 1}, three, {push, 1}).code(),
      StatusCode::InvalidArgument);
  BufferRef outOfRange[] = {BufferRef::direct(buffer),
                            BufferRef::direct(buffer, 32, 64),
                            BufferRef::direct(buffer)};
  EXPECT_EQ(
      commands->dispatch(Kernels, kAddF32, {1, 1, 1}, outOfRange, push).code(),
      StatusCode::OutOfRange);
  BufferRef badSlot[] = {BufferRef::direct(buffer), BufferRef::slot(1, 0, 4),
                         BufferRef::direct(buffer)};
  EXPECT_EQ(
      commands->dispatch(Kernels, kAddF32, {1, 1, 1}, badSlot, push).code(),
      StatusCode::OutOfRange);
}

TEST_P(DispatchCts, ExecutableLoadingErrors) {
  StatusOr<std::vector<uint8_t>> image =
      readCtsKernelImage(Kernels->format(), Kernels->target());
  ASSERT_TRUE(image.ok());
  ExecutableSpec spec;
  spec.Name = "broken";
  spec.Format = Kernels->format();
  spec.Target = Kernels->target();
  spec.Image = *image;
  EntryPointSpec entry;
  entry.Name = "no_such_entry_point";
  spec.EntryPoints = {entry};
  auto missing = device()->createExecutable(spec);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::NotFound);
  EXPECT_NE(missing.status().message().find("no_such_entry_point"),
            std::string_view::npos)
      << missing.status().toString();

  std::vector<uint8_t> garbage = randomBytes(4096);
  spec.Image = garbage;
  spec.EntryPoints[0].Name = "add_f32";
  auto corrupt = device()->createExecutable(spec);
  ASSERT_FALSE(corrupt.ok());
  EXPECT_NE(corrupt.status().message().find("broken"), std::string_view::npos)
      << corrupt.status().toString();

  // A format or target the device does not run is reported, not loaded.
  spec.Image = *image;
  spec.Target = "x86-64-v9";
  EXPECT_FALSE(device()->supportsExecutable(spec.Format, spec.Target));
  EXPECT_FALSE(device()->createExecutable(spec).ok());
  EXPECT_FALSE(device()->supportsExecutable("no-such-format", "x"));
}

} // namespace
} // namespace kiln::hal::cts
