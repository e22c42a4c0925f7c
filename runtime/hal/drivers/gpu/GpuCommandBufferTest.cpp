//===- GpuCommandBufferTest.cpp - Choosing graph or stream mode -----------===//

#include "runtime/hal/drivers/gpu/GpuDevice.h"

#include <gtest/gtest.h>

#include <string>

namespace kiln::hal::gpu {
namespace {

StatusOr<DeviceUri> uri(std::string_view text) {
  return DeviceUri::parse(text);
}

TEST(GpuCommandBufferKindTest, ParsesTheTwoKinds) {
  auto graph = parseGpuCommandBufferKind("graph", "test");
  ASSERT_TRUE(graph.ok()) << graph.status().toString();
  EXPECT_EQ(*graph, GpuCommandBufferKind::Graph);
  auto stream = parseGpuCommandBufferKind("stream", "test");
  ASSERT_TRUE(stream.ok()) << stream.status().toString();
  EXPECT_EQ(*stream, GpuCommandBufferKind::Stream);
  EXPECT_EQ(gpuCommandBufferKindName(GpuCommandBufferKind::Graph), "graph");
  EXPECT_EQ(gpuCommandBufferKindName(GpuCommandBufferKind::Stream), "stream");
}

TEST(GpuCommandBufferKindTest, AnythingElseNamesTheValidValues) {
  for (const char *bad : {"Graph", "streams", "graph ", "1", "true"}) {
    auto kind = parseGpuCommandBufferKind(bad, "command_buffers");
    ASSERT_FALSE(kind.ok()) << bad;
    EXPECT_EQ(kind.status().code(), StatusCode::InvalidArgument);
    std::string message(kind.status().message());
    EXPECT_NE(message.find("command_buffers"), std::string::npos) << message;
    EXPECT_NE(message.find(std::string("'") + bad + "'"), std::string::npos)
        << message;
    EXPECT_NE(message.find("graph"), std::string::npos) << message;
    EXPECT_NE(message.find("stream"), std::string::npos) << message;
  }
}

TEST(GpuDeviceOptionsTest, OptionsComeFromTheUri) {
  auto plain = GpuDeviceOptions::fromUri(*uri("cuda"));
  ASSERT_TRUE(plain.ok()) << plain.status().toString();
  EXPECT_EQ(plain->Queues, GpuDeviceOptions::kDefaultQueues);
  EXPECT_FALSE(plain->DeviceSemaphores);
  EXPECT_EQ(plain->CommandBuffers, GpuCommandBufferKind::Graph);
  auto chosen = GpuDeviceOptions::fromUri(
      *uri("cuda://?queues=4&device_semaphores=0&command_buffers=stream"));
  ASSERT_TRUE(chosen.ok()) << chosen.status().toString();
  EXPECT_EQ(chosen->Queues, 4u);
  EXPECT_EQ(chosen->DeviceSemaphores, false);
  EXPECT_EQ(chosen->CommandBuffers, GpuCommandBufferKind::Stream);
  auto graph = GpuDeviceOptions::fromUri(*uri("cuda:0?command_buffers=graph"));
  ASSERT_TRUE(graph.ok()) << graph.status().toString();
  EXPECT_EQ(graph->CommandBuffers, GpuCommandBufferKind::Graph);
  for (const char *bad :
       {"cuda://?queues=0", "cuda://?queues=9",
        "cuda://?device_semaphores=maybe", "cuda://?streams=2",
        "cuda://?command_buffers=graphs", "cuda://?command_buffers="}) {
    auto options = GpuDeviceOptions::fromUri(*uri(bad));
    EXPECT_EQ(options.status().code(), StatusCode::InvalidArgument) << bad;
  }
}

} // namespace
} // namespace kiln::hal::gpu
