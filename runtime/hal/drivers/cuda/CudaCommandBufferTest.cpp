//===- CudaCommandBufferTest.cpp - Choosing graph or stream mode ----------===//

#include "runtime/hal/drivers/cuda/CudaCommandBuffer.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace kiln::hal::cuda {
namespace {

// Sets KILN_CUDA_COMMAND_BUFFERS for one test and restores it after.
class ScopedKindVariable {
public:
  explicit ScopedKindVariable(const char *value) {
    if (const char *old = std::getenv(kCudaCommandBuffersEnv))
      Saved = old;
    if (value)
      setenv(kCudaCommandBuffersEnv, value, 1);
    else
      unsetenv(kCudaCommandBuffersEnv);
  }
  ~ScopedKindVariable() {
    if (Saved)
      setenv(kCudaCommandBuffersEnv, Saved->c_str(), 1);
    else
      unsetenv(kCudaCommandBuffersEnv);
  }

private:
  std::optional<std::string> Saved;
};

TEST(CudaCommandBufferKindTest, ParsesTheTwoKinds) {
  auto graph = parseCudaCommandBufferKind("graph", "test");
  ASSERT_TRUE(graph.ok()) << graph.status().toString();
  EXPECT_EQ(*graph, CudaCommandBufferKind::Graph);
  auto stream = parseCudaCommandBufferKind("stream", "test");
  ASSERT_TRUE(stream.ok()) << stream.status().toString();
  EXPECT_EQ(*stream, CudaCommandBufferKind::Stream);
  EXPECT_EQ(cudaCommandBufferKindName(CudaCommandBufferKind::Graph), "graph");
  EXPECT_EQ(cudaCommandBufferKindName(CudaCommandBufferKind::Stream), "stream");
}

TEST(CudaCommandBufferKindTest, AnythingElseNamesTheValidValues) {
  for (const char *bad : {"Graph", "streams", "graph ", "1", "true"}) {
    auto kind = parseCudaCommandBufferKind(bad, kCudaCommandBuffersEnv);
    ASSERT_FALSE(kind.ok()) << bad;
    EXPECT_EQ(kind.status().code(), StatusCode::InvalidArgument);
    std::string message(kind.status().message());
    EXPECT_NE(message.find(kCudaCommandBuffersEnv), std::string::npos)
        << message;
    EXPECT_NE(message.find(std::string("'") + bad + "'"), std::string::npos)
        << message;
    EXPECT_NE(message.find("graph"), std::string::npos) << message;
    EXPECT_NE(message.find("stream"), std::string::npos) << message;
  }
}

TEST(CudaCommandBufferKindTest, EnvironmentDefaultsToGraph) {
  {
    ScopedKindVariable unset(nullptr);
    auto kind = cudaCommandBufferKindFromEnvironment();
    ASSERT_TRUE(kind.ok()) << kind.status().toString();
    EXPECT_EQ(*kind, CudaCommandBufferKind::Graph);
  }
  {
    ScopedKindVariable empty("");
    auto kind = cudaCommandBufferKindFromEnvironment();
    ASSERT_TRUE(kind.ok()) << kind.status().toString();
    EXPECT_EQ(*kind, CudaCommandBufferKind::Graph);
  }
  {
    ScopedKindVariable stream("stream");
    auto kind = cudaCommandBufferKindFromEnvironment();
    ASSERT_TRUE(kind.ok()) << kind.status().toString();
    EXPECT_EQ(*kind, CudaCommandBufferKind::Stream);
  }
  {
    ScopedKindVariable bad("graphs");
    auto kind = cudaCommandBufferKindFromEnvironment();
    EXPECT_EQ(kind.status().code(), StatusCode::InvalidArgument);
  }
}

} // namespace
} // namespace kiln::hal::cuda
