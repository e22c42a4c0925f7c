//===- CommandBufferTest.cpp - Recording checks every driver inherits -----===//

#include "runtime/hal/CommandBuffer.h"

#include "runtime/hal/TestFakes.h"

#include <gtest/gtest.h>

namespace kiln::hal {
namespace {

using test::FakeBuffer;
using test::FakeCommandBuffer;

class CommandBufferTest : public ::testing::Test {
protected:
  void SetUp() override {
    Commands =
        std::make_shared<FakeCommandBuffer>(CommandBufferMode::Reusable, 4);
    ASSERT_TRUE(Commands->begin().ok());
    ExecutableSpec spec;
    spec.Name = "exe";
    spec.Format = "fake";
    spec.Target = "any";
    static const uint8_t kImage[] = {1, 2, 3};
    spec.Image = kImage;
    EntryPointSpec entry;
    entry.Name = "two_bindings_one_push";
    entry.BindingCount = 2;
    entry.PushConstantCount = 1;
    spec.EntryPoints = {entry};
    Exe = std::make_shared<test::FakeExecutable>(spec);
  }

  std::shared_ptr<FakeCommandBuffer> Commands;
  std::shared_ptr<Executable> Exe;
};

TEST_F(CommandBufferTest, StateMachine) {
  auto fresh =
      std::make_shared<FakeCommandBuffer>(CommandBufferMode::OneShot, 0);
  EXPECT_EQ(fresh->state(), CommandBuffer::State::Initial);
  auto buffer = std::make_shared<FakeBuffer>(16);
  EXPECT_EQ(fresh->fill(BufferRef::direct(buffer), 1, 1).code(),
            StatusCode::FailedPrecondition);
  EXPECT_EQ(fresh->markSubmitted().code(), StatusCode::FailedPrecondition);
  ASSERT_TRUE(fresh->begin().ok());
  EXPECT_EQ(fresh->begin().code(), StatusCode::FailedPrecondition);
  ASSERT_TRUE(fresh->fill(BufferRef::direct(buffer), 1, 1).ok());
  ASSERT_TRUE(fresh->end().ok());
  EXPECT_EQ(fresh->state(), CommandBuffer::State::Executable);
  EXPECT_EQ(fresh->fill(BufferRef::direct(buffer), 1, 1).code(),
            StatusCode::FailedPrecondition);
  EXPECT_EQ(fresh->end().code(), StatusCode::FailedPrecondition);
  EXPECT_TRUE(fresh->markSubmitted().ok());
  EXPECT_EQ(fresh->markSubmitted().code(), StatusCode::FailedPrecondition);
  EXPECT_EQ(fresh->Log.size(), 1u);
}

TEST_F(CommandBufferTest, ReusableSubmitsRepeatedly) {
  ASSERT_TRUE(Commands->end().ok());
  for (int i = 0; i < 3; ++i)
    EXPECT_TRUE(Commands->markSubmitted().ok());
}

TEST_F(CommandBufferTest, FillChecks) {
  auto buffer = std::make_shared<FakeBuffer>(64);
  EXPECT_TRUE(Commands->fill(BufferRef::direct(buffer, 8, 8), 0xabcd, 2).ok());
  EXPECT_TRUE(Commands->fill(BufferRef::direct(buffer, 4), 0xffffffff, 4).ok());
  EXPECT_EQ(Commands->Log.back(), "fill direct+4:60 4294967295/4");
  EXPECT_EQ(Commands->fill(BufferRef::direct(buffer), 1, 3).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(Commands->fill(BufferRef::direct(buffer, 2, 8), 1, 4).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(Commands->fill(BufferRef::direct(buffer, 0, 6), 1, 4).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(Commands->fill(BufferRef::direct(buffer), 0x100, 1).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(Commands->fill(BufferRef::direct(buffer, 60, 8), 1, 4).code(),
            StatusCode::OutOfRange);
  EXPECT_EQ(Commands->fill(BufferRef::direct(buffer, 68), 1, 1).code(),
            StatusCode::OutOfRange);
  // Offsets and lengths near 2^64 must not wrap into range.
  EXPECT_EQ(
      Commands->fill(BufferRef::direct(buffer, 8, UINT64_MAX - 7), 1, 1).code(),
      StatusCode::OutOfRange);
  EXPECT_EQ(Commands->Log.size(), 2u);
}

TEST_F(CommandBufferTest, WritesToReadOnlyOrWrongUsageRejected) {
  auto readOnly = std::make_shared<FakeBuffer>(16, MemoryType::HostVisible,
                                               BufferUsage::All, true);
  EXPECT_EQ(Commands->fill(BufferRef::direct(readOnly), 0, 1).code(),
            StatusCode::PermissionDenied);
  auto writable = std::make_shared<FakeBuffer>(16);
  EXPECT_EQ(
      Commands->copy(BufferRef::direct(writable), BufferRef::direct(readOnly))
          .code(),
      StatusCode::PermissionDenied);
  EXPECT_TRUE(
      Commands->copy(BufferRef::direct(readOnly), BufferRef::direct(writable))
          .ok());
  auto dispatchOnly = std::make_shared<FakeBuffer>(16, MemoryType::DeviceLocal,
                                                   BufferUsage::Dispatch);
  EXPECT_EQ(Commands->fill(BufferRef::direct(dispatchOnly), 0, 1).code(),
            StatusCode::InvalidArgument);
}

TEST_F(CommandBufferTest, CopyChecks) {
  auto a = std::make_shared<FakeBuffer>(64);
  auto b = std::make_shared<FakeBuffer>(32);
  EXPECT_TRUE(
      Commands->copy(BufferRef::direct(a, 0, 32), BufferRef::direct(b)).ok());
  EXPECT_EQ(Commands->Log.back(), "copy direct+0:32 direct+0:32");
  EXPECT_EQ(Commands->copy(BufferRef::direct(a), BufferRef::direct(b)).code(),
            StatusCode::InvalidArgument); // 64 vs 32 bytes
  EXPECT_EQ(
      Commands->copy(BufferRef::direct(a, 40, 32), BufferRef::direct(b)).code(),
      StatusCode::OutOfRange);
  // Overlap inside one buffer, direct and through one slot.
  EXPECT_EQ(
      Commands->copy(BufferRef::direct(a, 0, 16), BufferRef::direct(a, 8, 16))
          .code(),
      StatusCode::InvalidArgument);
  EXPECT_TRUE(
      Commands->copy(BufferRef::direct(a, 0, 16), BufferRef::direct(a, 16, 16))
          .ok());
  EXPECT_EQ(
      Commands->copy(BufferRef::slot(1, 0, 16), BufferRef::slot(1, 15, 16))
          .code(),
      StatusCode::InvalidArgument);
  EXPECT_TRUE(
      Commands->copy(BufferRef::slot(1, 0, 16), BufferRef::slot(2, 0, 16))
          .ok());
}

TEST_F(CommandBufferTest, IndirectRefsAndRequirements) {
  EXPECT_EQ(Commands->fill(BufferRef::slot(4, 0, 4), 0, 1).code(),
            StatusCode::OutOfRange); // capacity is 4
  EXPECT_EQ(Commands->fill(BufferRef::slot(0, 0, kWholeBuffer), 0, 1).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(Commands->fill(BufferRef::slot(0, UINT64_MAX - 3, 4), 0, 1).code(),
            StatusCode::OutOfRange);
  ASSERT_TRUE(Commands->fill(BufferRef::slot(0, 8, 8), 0, 4).ok());
  ASSERT_TRUE(
      Commands->copy(BufferRef::slot(2, 0, 100), BufferRef::slot(0, 16, 100))
          .ok());
  const auto &requirements = Commands->bindingRequirements();
  ASSERT_EQ(requirements.size(), 3u);
  EXPECT_TRUE(requirements[0].Used);
  EXPECT_EQ(requirements[0].MinimumSize, 116u);
  EXPECT_TRUE(requirements[0].Written);
  EXPECT_FALSE(requirements[1].Used);
  EXPECT_EQ(requirements[2].MinimumSize, 100u);
  EXPECT_FALSE(requirements[2].Written);
  EXPECT_TRUE(hasAll(requirements[2].Usage, BufferUsage::Transfer));
  ASSERT_TRUE(Commands->end().ok());

  auto big = std::make_shared<FakeBuffer>(116);
  auto source = std::make_shared<FakeBuffer>(100);
  std::vector<std::shared_ptr<Buffer>> table = {big, nullptr, source};
  EXPECT_TRUE(Commands->validateBindingTable(table).ok());
  table.push_back(nullptr); // unused trailing slots are fine
  EXPECT_TRUE(Commands->validateBindingTable(table).ok());
  table.push_back(nullptr); // but not beyond the capacity
  EXPECT_EQ(Commands->validateBindingTable(table).code(),
            StatusCode::InvalidArgument);

  std::vector<std::shared_ptr<Buffer>> small = {
      std::make_shared<FakeBuffer>(115), nullptr, source};
  Status tooSmall = Commands->validateBindingTable(small);
  EXPECT_EQ(tooSmall.code(), StatusCode::OutOfRange);
  EXPECT_NE(tooSmall.message().find("slot 0"), std::string_view::npos);
  std::vector<std::shared_ptr<Buffer>> missing = {big};
  EXPECT_EQ(Commands->validateBindingTable(missing).code(),
            StatusCode::InvalidArgument);
  std::vector<std::shared_ptr<Buffer>> readOnly = {
      std::make_shared<FakeBuffer>(200, MemoryType::HostVisible,
                                   BufferUsage::All, true),
      nullptr, source};
  EXPECT_EQ(Commands->validateBindingTable(readOnly).code(),
            StatusCode::PermissionDenied);
  std::vector<std::shared_ptr<Buffer>> wrongUsage = {
      std::make_shared<FakeBuffer>(200, MemoryType::DeviceLocal,
                                   BufferUsage::Dispatch),
      nullptr, source};
  EXPECT_EQ(Commands->validateBindingTable(wrongUsage).code(),
            StatusCode::InvalidArgument);
}

TEST_F(CommandBufferTest, DispatchChecks) {
  auto a = std::make_shared<FakeBuffer>(64);
  BufferRef two[] = {BufferRef::direct(a), BufferRef::slot(3, 4, 8)};
  uint32_t push[] = {7};
  ASSERT_TRUE(Commands->dispatch(Exe, 0, {4, 2, 1}, two, push).ok());
  EXPECT_EQ(Commands->Log.back(),
            "dispatch 0 4x2x1 direct+0:64 slot3+4:8 push1");
  EXPECT_EQ(Commands->bindingRequirements()[3].MinimumSize, 12u);
  EXPECT_TRUE(
      hasAll(Commands->bindingRequirements()[3].Usage, BufferUsage::Dispatch));

  EXPECT_EQ(Commands->dispatch(nullptr, 0, {1, 1, 1}, two, push).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(Commands->dispatch(Exe, 1, {1, 1, 1}, two, push).code(),
            StatusCode::OutOfRange);
  EXPECT_EQ(Commands->dispatch(Exe, 0, {1, 1, 1}, {two, 1}, push).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(Commands->dispatch(Exe, 0, {1, 1, 1}, two, {}).code(),
            StatusCode::InvalidArgument);
  // 2^32-1 cubed does not fit in 64 bits.
  EXPECT_EQ(
      Commands
          ->dispatch(Exe, 0, {UINT32_MAX, UINT32_MAX, UINT32_MAX}, two, push)
          .code(),
      StatusCode::InvalidArgument);
  BufferRef outOfRange[] = {BufferRef::direct(a, 60, 8),
                            BufferRef::slot(0, 0, 4)};
  Status status = Commands->dispatch(Exe, 0, {1, 1, 1}, outOfRange, push);
  EXPECT_EQ(status.code(), StatusCode::OutOfRange);
  EXPECT_NE(status.message().find("binding 0"), std::string_view::npos);
  // A failed dispatch leaves no requirement behind.
  EXPECT_EQ(Commands->bindingRequirements().size(), 4u);
  EXPECT_FALSE(Commands->bindingRequirements()[0].Used);
  auto noDispatch = std::make_shared<FakeBuffer>(64, MemoryType::HostVisible,
                                                 BufferUsage::Transfer);
  BufferRef wrongUsage[] = {BufferRef::direct(noDispatch),
                            BufferRef::slot(0, 0, 4)};
  EXPECT_EQ(Commands->dispatch(Exe, 0, {1, 1, 1}, wrongUsage, push).code(),
            StatusCode::InvalidArgument);
  EXPECT_TRUE(Commands->dispatch(Exe, 0, {0, 1, 1}, two, push).ok());
}

TEST_F(CommandBufferTest, Events) {
  auto event = std::make_shared<test::FakeEvent>();
  auto other = std::make_shared<test::FakeEvent>();
  EXPECT_EQ(Commands->waitEvent(event).code(), StatusCode::FailedPrecondition);
  EXPECT_EQ(Commands->signalEvent(nullptr).code(), StatusCode::InvalidArgument);
  ASSERT_TRUE(Commands->signalEvent(event).ok());
  EXPECT_EQ(Commands->signalEvent(event).code(),
            StatusCode::FailedPrecondition);
  EXPECT_TRUE(Commands->waitEvent(event).ok());
  EXPECT_TRUE(Commands->waitEvent(event).ok());
  EXPECT_EQ(Commands->waitEvent(other).code(), StatusCode::FailedPrecondition);
  EXPECT_TRUE(Commands->executionBarrier().ok());
  EXPECT_EQ(Commands->Log,
            (std::vector<std::string>{"signal", "wait", "wait", "barrier"}));
}

TEST_F(CommandBufferTest, DependenciesNameEarlierCommands) {
  auto buffer = std::make_shared<FakeBuffer>(16);
  BufferRef whole = BufferRef::direct(buffer);
  EXPECT_EQ(Commands->commandCount(), 0u);
  uint32_t none[] = {0};
  // Only commands already recorded can be waited for.
  EXPECT_EQ(Commands->dependOn(none).code(), StatusCode::OutOfRange);
  ASSERT_TRUE(Commands->fill(whole, 0, 4).ok());
  ASSERT_TRUE(Commands->fill(whole, 1, 4).ok());
  // A command that fails validation gets no number.
  EXPECT_FALSE(Commands->fill(whole, 1, 3).ok());
  EXPECT_EQ(Commands->commandCount(), 2u);
  uint32_t both[] = {1, 0, 1};
  ASSERT_TRUE(Commands->dependOn(both).ok());
  // A barrier between the list and its command leaves the list in place.
  ASSERT_TRUE(Commands->executionBarrier().ok());
  ASSERT_TRUE(Commands->fill(whole, 2, 4).ok());
  // Dependencies belong to one command only.
  ASSERT_TRUE(Commands->fill(whole, 3, 4).ok());
  uint32_t first[] = {0};
  ASSERT_TRUE(Commands->dependOn(first).ok());
  EXPECT_EQ(Commands->commandCount(), 4u);
  // A list with no command after it is a recording bug.
  EXPECT_EQ(Commands->end().code(), StatusCode::FailedPrecondition);
  ASSERT_TRUE(Commands->dependOn({}).ok());
  EXPECT_TRUE(Commands->end().ok());
  EXPECT_EQ(Commands->Log,
            (std::vector<std::string>{
                "fill direct+0:16 0/4", "fill direct+0:16 1/4", "barrier",
                "fill direct+0:16 2/4 after 0,1", "fill direct+0:16 3/4"}));
}

TEST(BufferRefTest, CheckRange) {
  EXPECT_EQ(*checkRange(16, 0, kWholeBuffer, "x"), 16u);
  EXPECT_EQ(*checkRange(16, 16, kWholeBuffer, "x"), 0u);
  EXPECT_EQ(*checkRange(16, 4, 12, "x"), 12u);
  EXPECT_EQ(checkRange(16, 17, kWholeBuffer, "x").status().code(),
            StatusCode::OutOfRange);
  EXPECT_EQ(checkRange(16, 4, 13, "x").status().code(), StatusCode::OutOfRange);
  EXPECT_EQ(checkRange(16, 1, UINT64_MAX - 1, "x").status().code(),
            StatusCode::OutOfRange);
  EXPECT_NE(
      checkRange(16, 4, 13, "the thing").status().message().find("the thing"),
      std::string_view::npos);
}

} // namespace
} // namespace kiln::hal
