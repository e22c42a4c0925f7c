//===- QueueAffinityTest.cpp - Which queue a submission goes to -----------===//

#include "runtime/hal/TestFakes.h"

#include <gtest/gtest.h>

namespace kiln::hal {
namespace {

// The fake device has 3 queues and records where each submission went.
StatusOr<std::shared_ptr<CommandBuffer>> endedCommands(test::FakeDevice &device,
                                                       QueueAffinity affinity) {
  KILN_ASSIGN_OR_RETURN(
      std::shared_ptr<CommandBuffer> commands,
      device.createCommandBuffer(CommandBufferMode::Reusable, 0, affinity));
  KILN_RETURN_IF_ERROR(commands->begin());
  KILN_RETURN_IF_ERROR(commands->end());
  return commands;
}

TEST(QueueAffinityTest, SubmissionsGoToTheLowestAllowedQueue) {
  test::FakeDevice device("fake://");
  ASSERT_EQ(device.queueCount(), 3u);
  auto any = endedCommands(device, kAnyQueue);
  ASSERT_TRUE(any.ok()) << any.status().toString();
  EXPECT_EQ((*any)->queueAffinity(), 0b111u); // only the device's queues
  EXPECT_TRUE(device.queueExecute({}, *any, {}, {}).ok());
  EXPECT_TRUE(
      device.queueExecute({}, *any, {}, {}, nullptr, queueAffinity(2)).ok());
  EXPECT_TRUE(device.queueExecute({}, *any, {}, {}, nullptr, 0b110).ok());
  // Bits past the device's queues are ignored when others remain.
  EXPECT_TRUE(device.queueExecute({}, nullptr, {}, {}, nullptr, 0b1100).ok());
  EXPECT_EQ(device.SubmissionQueues, (std::vector<uint32_t>{0, 2, 1, 2}));

  // A command buffer made for queue 1 goes there unless told otherwise.
  auto second = endedCommands(device, queueAffinity(1));
  ASSERT_TRUE(second.ok()) << second.status().toString();
  EXPECT_TRUE(device.queueExecute({}, *second, {}, {}).ok());
  EXPECT_TRUE(device.queueExecute({}, *second, {}, {}, nullptr, 0b011).ok());
  EXPECT_EQ(device.SubmissionQueues.back(), 1u);
  EXPECT_EQ(device.SubmissionQueues.size(), 6u);
}

TEST(QueueAffinityTest, AffinitiesNamingNoQueueAreRefused) {
  test::FakeDevice device("fake://");
  for (QueueAffinity none :
       {QueueAffinity(0), queueAffinity(3), queueAffinity(63)}) {
    auto commands =
        device.createCommandBuffer(CommandBufferMode::OneShot, 0, none);
    ASSERT_FALSE(commands.ok());
    EXPECT_EQ(commands.status().code(), StatusCode::InvalidArgument);
    EXPECT_NE(commands.status().message().find("names none of the 3 queue"),
              std::string_view::npos)
        << commands.status().toString();
    Status submitted = device.queueExecute({}, nullptr, {}, {}, nullptr, none);
    EXPECT_EQ(submitted.code(), StatusCode::InvalidArgument);
  }
  auto first = endedCommands(device, queueAffinity(0));
  ASSERT_TRUE(first.ok()) << first.status().toString();
  Status elsewhere =
      device.queueExecute({}, *first, {}, {}, nullptr, queueAffinity(2));
  EXPECT_EQ(elsewhere.code(), StatusCode::InvalidArgument);
  EXPECT_NE(elsewhere.message().find("shares no queue with the command "
                                     "buffer's 0x1"),
            std::string_view::npos)
      << elsewhere.toString();
  EXPECT_EQ(device.Submissions, 0);
}

TEST(QueueAffinityTest, SemaphoreValuesAreBounded) {
  test::FakeDevice device("fake://");
  EXPECT_EQ(device.createSemaphore(kMaxSemaphoreValue + 1).status().code(),
            StatusCode::InvalidArgument);
  auto semaphore = device.createSemaphore(kMaxSemaphoreValue - 1);
  ASSERT_TRUE(semaphore.ok()) << semaphore.status().toString();
  SemaphoreValue tooLarge{*semaphore, kMaxSemaphoreValue + 1};
  EXPECT_EQ(device.queueExecute({&tooLarge, 1}, nullptr, {}, {}).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(device.queueExecute({}, nullptr, {}, {&tooLarge, 1}).code(),
            StatusCode::InvalidArgument);
  SemaphoreValue largest{*semaphore, kMaxSemaphoreValue};
  EXPECT_TRUE(device.queueExecute({}, nullptr, {}, {&largest, 1}).ok());
  EXPECT_EQ(*(*semaphore)->query(), kMaxSemaphoreValue);
}

} // namespace
} // namespace kiln::hal
