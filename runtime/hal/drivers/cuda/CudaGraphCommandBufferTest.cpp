//===- CudaGraphCommandBufferTest.cpp - Graph mode on a real GPU ----------===//
//
// Needs a CUDA device; without one every case skips, saying why. The graph
// is read back from CUDA (cuGraphGetNodes / cuGraphGetEdges) through
// GpuGraphCommandBuffer::graphShape, so these check what CUDA will run,
// not the driver's own bookkeeping.
//
//===----------------------------------------------------------------------===//

#include "runtime/hal/drivers/cuda/CudaDeviceTest.h"
#include "runtime/hal/drivers/gpu/GpuGraphCommandBuffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

namespace kiln::hal::cuda {
namespace {

using Edges = std::vector<std::pair<uint32_t, uint32_t>>;

// out[i] = in[i] + 1 for i < n; bindings in, out; push constant n. PTX for
// sm_80, which every newer GPU JIT-compiles.
constexpr std::string_view kAddOnePtx = R"(
.version 7.0
.target sm_80
.address_size 64

.visible .entry add_one(.param .u64 in, .param .u64 out, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r2, [n];
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %tid.x;
  mad.lo.s32 %r1, %r3, %r4, %r5;
  setp.ge.u32 %p1, %r1, %r2;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd3, %rd5;
  ld.global.u32 %r6, [%rd6];
  add.s32 %r7, %r6, 1;
  add.s64 %rd7, %rd4, %rd5;
  st.global.u32 [%rd7], %r7;
DONE:
  ret;
}
)";

// kAddOnePtx's kernel that first waits for the kernels it depends on
// (griddepcontrol.wait, as every kernel the compiler writes for sm_90
// does), so a graph may launch it early; PTX 7.8 for sm_90.
std::string addOneWaitingPtx() {
  std::string ptx(kAddOnePtx);
  auto replace = [&](std::string_view from, std::string_view to) {
    ptx.replace(ptx.find(from), from.size(), to);
  };
  replace(".version 7.0", ".version 7.8");
  replace(".target sm_80", ".target sm_90");
  replace("  ld.param.u64 %rd1, [in];",
          "  griddepcontrol.wait;\n  ld.param.u64 %rd1, [in];");
  return ptx;
}

class CudaGraphCommandBufferTest : public CudaDeviceTest {
protected:
  StatusOr<std::shared_ptr<Buffer>> deviceBuffer(uint64_t size) {
    return Cuda->allocator().allocate(size, MemoryType::DeviceLocal,
                                      BufferUsage::Transfer |
                                          BufferUsage::Dispatch);
  }

  StatusOr<std::shared_ptr<gpu::GpuGraphCommandBuffer>>
  beginGraph(CommandBufferMode mode = CommandBufferMode::OneShot,
             uint32_t capacity = 0) {
    KILN_ASSIGN_OR_RETURN(
        std::shared_ptr<gpu::GpuCommandBuffer> commands,
        Cuda->createGpuCommandBuffer(mode, capacity,
                                     gpu::GpuCommandBufferKind::Graph));
    auto graph =
        std::dynamic_pointer_cast<gpu::GpuGraphCommandBuffer>(commands);
    if (!graph)
      return KILN_ERROR(Internal, "not a graph command buffer");
    KILN_RETURN_IF_ERROR(graph->begin());
    return graph;
  }

  Status submitAndWait(const std::shared_ptr<CommandBuffer> &commands,
                       std::vector<std::shared_ptr<Buffer>> table = {}) {
    KILN_ASSIGN_OR_RETURN(std::shared_ptr<Semaphore> done,
                          Cuda->createSemaphore(0));
    SemaphoreValue signal{done, 1};
    KILN_RETURN_IF_ERROR(Cuda->queueExecute({}, commands, table, {&signal, 1}));
    return done->wait(1, kWait);
  }

  // Writes `bytes` at the start of a device buffer through pinned memory.
  Status upload(const std::shared_ptr<Buffer> &buffer,
                const std::vector<uint8_t> &bytes) {
    KILN_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> staging,
                          Cuda->allocator().allocate(bytes.size(),
                                                     MemoryType::HostVisible,
                                                     BufferUsage::All));
    KILN_ASSIGN_OR_RETURN(std::span<uint8_t> mapped, staging->map());
    std::memcpy(mapped.data(), bytes.data(), bytes.size());
    KILN_ASSIGN_OR_RETURN(
        std::shared_ptr<CommandBuffer> commands,
        Cuda->createCommandBuffer(CommandBufferMode::OneShot, 0));
    KILN_RETURN_IF_ERROR(commands->begin());
    KILN_RETURN_IF_ERROR(
        commands->copy(BufferRef::direct(staging),
                       BufferRef::direct(buffer, 0, bytes.size())));
    KILN_RETURN_IF_ERROR(commands->end());
    return submitAndWait(commands);
  }

  StatusOr<std::vector<uint8_t>>
  download(const std::shared_ptr<Buffer> &buffer) {
    KILN_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> staging,
                          Cuda->allocator().allocate(buffer->size(),
                                                     MemoryType::HostVisible,
                                                     BufferUsage::All));
    KILN_ASSIGN_OR_RETURN(
        std::shared_ptr<CommandBuffer> commands,
        Cuda->createCommandBuffer(CommandBufferMode::OneShot, 0));
    KILN_RETURN_IF_ERROR(commands->begin());
    KILN_RETURN_IF_ERROR(
        commands->copy(BufferRef::direct(buffer), BufferRef::direct(staging)));
    KILN_RETURN_IF_ERROR(commands->end());
    KILN_RETURN_IF_ERROR(submitAndWait(commands));
    KILN_ASSIGN_OR_RETURN(std::span<const uint8_t> mapped, staging->mapRead());
    return std::vector<uint8_t>(mapped.begin(), mapped.end());
  }

  // kAddOnePtx with 128-thread workgroups; callers skip first unless
  // Cuda->supportsExecutable("cuda-ptx", "sm_80").
  // With `waits`, addOneWaitingPtx's kernel, declared as waiting for its
  // prerequisites (callers skip unless the GPU runs sm_90 PTX).
  StatusOr<std::shared_ptr<Executable>> addOne(bool waits = false) {
    std::string ptx = waits ? addOneWaitingPtx() : std::string(kAddOnePtx);
    std::vector<uint8_t> image(ptx.begin(), ptx.end());
    image.push_back(0);
    ExecutableSpec spec;
    spec.Name = "add_one";
    spec.Format = "cuda-ptx";
    spec.Target = waits ? "sm_90" : "sm_80";
    spec.Image = image;
    EntryPointSpec entry;
    entry.Name = "add_one";
    entry.WorkgroupSize = {128, 1, 1};
    entry.BindingCount = 2;
    entry.PushConstantCount = 1;
    entry.WaitsForPrerequisites = waits;
    spec.EntryPoints = {entry};
    return Cuda->createExecutable(spec);
  }
};

std::vector<uint8_t> repeated(uint32_t word, size_t bytes) {
  std::vector<uint8_t> out(bytes);
  for (size_t i = 0; i < bytes; ++i)
    out[i] = static_cast<uint8_t>(word >> (8 * (i % 4)));
  return out;
}

TEST_F(CudaGraphCommandBufferTest, TwoChainsGetOnlyTheEdgesTheyRecord) {
  // Chain A: fill a1, then copy a1 -> a2; chain B likewise on b1, b2; each
  // ordered by its own event. A HAL event orders everything recorded
  // before its signal, so B's copy must also follow A's fill (recorded
  // before B's signal); that is the one edge between the chains. A's copy
  // must not wait for B's fill, the fills not for each other, the copies
  // not for each other.
  constexpr uint64_t kSize = 1 << 20;
  KILN_ASSERT_OK_AND_ASSIGN(auto a1, deviceBuffer(kSize));
  KILN_ASSERT_OK_AND_ASSIGN(auto a2, deviceBuffer(kSize));
  KILN_ASSERT_OK_AND_ASSIGN(auto b1, deviceBuffer(kSize));
  KILN_ASSERT_OK_AND_ASSIGN(auto b2, deviceBuffer(kSize));
  KILN_ASSERT_OK_AND_ASSIGN(auto eventA, Cuda->createEvent());
  KILN_ASSERT_OK_AND_ASSIGN(auto eventB, Cuda->createEvent());
  KILN_ASSERT_OK_AND_ASSIGN(auto commands, beginGraph());
  KILN_ASSERT_OK(commands->fill(BufferRef::direct(a1), 0xa1a1a1a1, 4)); // 0
  KILN_ASSERT_OK(commands->signalEvent(eventA));
  KILN_ASSERT_OK(commands->fill(BufferRef::direct(b1), 0xb1b2, 2)); // 1
  KILN_ASSERT_OK(commands->signalEvent(eventB));
  KILN_ASSERT_OK(commands->waitEvent(eventA));
  KILN_ASSERT_OK(
      commands->copy(BufferRef::direct(a1), BufferRef::direct(a2))); // 2
  KILN_ASSERT_OK(commands->waitEvent(eventB));
  KILN_ASSERT_OK(
      commands->copy(BufferRef::direct(b1), BufferRef::direct(b2))); // 3
  KILN_ASSERT_OK(commands->end());

  EXPECT_EQ(commands->graphShape().status().code(),
            StatusCode::FailedPrecondition);
  KILN_ASSERT_OK(submitAndWait(commands));

  KILN_ASSERT_OK_AND_ASSIGN(auto shape, commands->graphShape());
  EXPECT_EQ(shape.NodeCount, 4u);
  EXPECT_EQ(shape.Edges, (Edges{{0, 2}, {0, 3}, {1, 3}}));
  KILN_ASSERT_OK_AND_ASSIGN(auto a2Bytes, download(a2));
  KILN_ASSERT_OK_AND_ASSIGN(auto b2Bytes, download(b2));
  EXPECT_EQ(a2Bytes, repeated(0xa1a1a1a1, kSize));
  EXPECT_EQ(b2Bytes, repeated(0xb1b2b1b2, kSize));
}

TEST_F(CudaGraphCommandBufferTest, CommandsBetweenBarriersHaveNoEdges) {
  // Two fills, a barrier, two copies, a barrier, one copy that joins both.
  constexpr uint64_t kSize = 4096;
  KILN_ASSERT_OK_AND_ASSIGN(auto a1, deviceBuffer(kSize));
  KILN_ASSERT_OK_AND_ASSIGN(auto a2, deviceBuffer(kSize));
  KILN_ASSERT_OK_AND_ASSIGN(auto b1, deviceBuffer(kSize));
  KILN_ASSERT_OK_AND_ASSIGN(auto b2, deviceBuffer(kSize));
  KILN_ASSERT_OK_AND_ASSIGN(auto joined, deviceBuffer(2 * kSize));
  KILN_ASSERT_OK_AND_ASSIGN(auto commands, beginGraph());
  KILN_ASSERT_OK(commands->fill(BufferRef::direct(a1), 0x5a, 1)); // 0
  KILN_ASSERT_OK(commands->fill(BufferRef::direct(b1), 0xa5, 1)); // 1
  KILN_ASSERT_OK(commands->executionBarrier());
  KILN_ASSERT_OK(
      commands->copy(BufferRef::direct(a1), BufferRef::direct(a2))); // 2
  KILN_ASSERT_OK(
      commands->copy(BufferRef::direct(b1), BufferRef::direct(b2))); // 3
  KILN_ASSERT_OK(commands->executionBarrier());
  // An empty command is no node.
  KILN_ASSERT_OK(commands->fill(BufferRef::direct(a1, 0, 0), 0, 1)); // 4
  KILN_ASSERT_OK(commands->copy(BufferRef::direct(a2),
                                BufferRef::direct(joined, 0, kSize))); // 5
  KILN_ASSERT_OK(commands->copy(BufferRef::direct(b2),
                                BufferRef::direct(joined, kSize, kSize))); // 6
  KILN_ASSERT_OK(commands->end());
  KILN_ASSERT_OK(submitAndWait(commands));

  KILN_ASSERT_OK_AND_ASSIGN(auto shape, commands->graphShape());
  EXPECT_EQ(shape.NodeCount, 6u);
  EXPECT_EQ(
      shape.Edges,
      (Edges{{0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 5}, {2, 6}, {3, 5}, {3, 6}}));
  KILN_ASSERT_OK_AND_ASSIGN(auto bytes, download(joined));
  std::vector<uint8_t> expected(2 * kSize, 0xa5);
  std::fill(expected.begin(), expected.begin() + kSize, 0x5a);
  EXPECT_EQ(bytes, expected);
}

TEST_F(CudaGraphCommandBufferTest, DependOnChainsGetOnlyTheirOwnEdges) {
  // Two branches of add_one dispatches recorded interleaved, each link
  // naming the one before it with dependOn and nothing else ordering them,
  // as a module with two independent matmul branches records them. Chain
  // A also holds an empty dispatch (no node) that the next link names: it
  // must pass A's edge through. The graph must hold the within-chain edges
  // and none between the chains.
  if (!Cuda->supportsExecutable("cuda-ptx", "sm_80"))
    GTEST_SKIP() << "the test kernel is sm_80 PTX; this GPU is older";
  KILN_ASSERT_OK_AND_ASSIGN(auto executable, addOne());
  constexpr uint32_t kCount = 1000;
  constexpr uint64_t kBytes = kCount * 4;
  constexpr uint32_t kLinks = 3;
  std::vector<std::shared_ptr<Buffer>> a, b; // a[0]: input, a[i]: link i
  for (uint32_t i = 0; i <= kLinks; ++i) {
    KILN_ASSERT_OK_AND_ASSIGN(auto aBuffer, deviceBuffer(kBytes));
    KILN_ASSERT_OK_AND_ASSIGN(auto bBuffer, deviceBuffer(kBytes));
    a.push_back(aBuffer);
    b.push_back(bBuffer);
  }
  KILN_ASSERT_OK_AND_ASSIGN(auto commands, beginGraph());
  uint32_t push[] = {kCount};
  const std::array<uint32_t, 3> grid = {(kCount + 127) / 128, 1, 1};
  auto link = [&](const std::vector<std::shared_ptr<Buffer>> &chain, uint32_t i,
                  uint32_t previous,
                  const std::array<uint32_t, 3> &count) -> Status {
    uint32_t after[] = {previous};
    KILN_RETURN_IF_ERROR(commands->dependOn(after));
    BufferRef bindings[] = {BufferRef::direct(chain[i - 1]),
                            BufferRef::direct(chain[i])};
    return commands->dispatch(executable, 0, count, bindings, push);
  };
  KILN_ASSERT_OK(commands->fill(BufferRef::direct(a[0]), 10, 4));   // 0
  KILN_ASSERT_OK(commands->fill(BufferRef::direct(b[0]), 1000, 4)); // 1
  KILN_ASSERT_OK(link(a, 1, 0, grid));                              // 2
  KILN_ASSERT_OK(link(b, 1, 1, grid));                              // 3
  KILN_ASSERT_OK(link(a, 2, 2, grid));                              // 4
  KILN_ASSERT_OK(link(b, 2, 3, grid));                              // 5
  KILN_ASSERT_OK(link(a, 3, 4, {0, 1, 1})); // 6: no work, no node
  KILN_ASSERT_OK(link(a, 3, 6, grid));      // 7: after 4, through 6
  KILN_ASSERT_OK(link(b, 3, 5, grid));      // 8
  ASSERT_EQ(commands->commandCount(), 9u);
  KILN_ASSERT_OK(commands->end());
  KILN_ASSERT_OK(submitAndWait(commands));

  KILN_ASSERT_OK_AND_ASSIGN(auto shape, commands->graphShape());
  EXPECT_EQ(shape.NodeCount, 8u);
  EXPECT_EQ(shape.Edges,
            (Edges{{0, 2}, {1, 3}, {2, 4}, {3, 5}, {4, 7}, {5, 8}}));
  // Each chain adds one per link past its fill, the empty one excepted.
  auto expectAll = [&](const std::shared_ptr<Buffer> &buffer, uint32_t value,
                       const char *name) {
    auto bytes = download(buffer);
    ASSERT_TRUE(bytes.ok()) << bytes.status().toString();
    for (uint32_t i = 0; i < kCount; ++i) {
      uint32_t got;
      std::memcpy(&got, bytes->data() + 4 * i, 4);
      ASSERT_EQ(got, value) << name << ", element " << i;
    }
  };
  expectAll(a[kLinks], 10 + 3, "chain A");
  expectAll(b[kLinks], 1000 + 3, "chain B");
}

TEST_F(CudaGraphCommandBufferTest, KernelsThatWaitFollowKernelsEarly) {
  // A chain of add_one dispatches and a copy, each after a barrier: a
  // kernel that waits for its prerequisites follows the kernel before it
  // along a programmatic (early) edge; it follows a copy the usual way, and
  // a kernel that does not wait follows a waiting one the usual way. The
  // early edge must still order the kernels: the chain runs 20 times over
  // 4M elements and every element must have been incremented in turn.
  if (!Cuda->supportsExecutable("cuda-ptx", "sm_90"))
    GTEST_SKIP() << "early launches need sm_90; this GPU is older";
  KILN_ASSERT_OK_AND_ASSIGN(auto waiting, addOne(/*waits=*/true));
  KILN_ASSERT_OK_AND_ASSIGN(auto plain, addOne());
  constexpr uint32_t kCount = 1 << 22;
  constexpr uint64_t kBytes = uint64_t{kCount} * 4;
  std::vector<std::shared_ptr<Buffer>> buffers;
  for (int i = 0; i < 6; ++i) {
    KILN_ASSERT_OK_AND_ASSIGN(auto buffer, deviceBuffer(kBytes));
    buffers.push_back(buffer);
  }
  KILN_ASSERT_OK_AND_ASSIGN(auto commands,
                            beginGraph(CommandBufferMode::Reusable));
  uint32_t push[] = {kCount};
  const std::array<uint32_t, 3> grid = {kCount / 128, 1, 1};
  auto addOneFrom = [&](const std::shared_ptr<Executable> &kernel, int from) {
    BufferRef bindings[] = {BufferRef::direct(buffers[from]),
                            BufferRef::direct(buffers[from + 1])};
    return commands->dispatch(kernel, 0, grid, bindings, push);
  };
  KILN_ASSERT_OK(commands->fill(BufferRef::direct(buffers[0]), 7, 4)); // 0
  KILN_ASSERT_OK(commands->executionBarrier());
  KILN_ASSERT_OK(addOneFrom(waiting, 0)); // 1: after a fill
  KILN_ASSERT_OK(commands->executionBarrier());
  KILN_ASSERT_OK(addOneFrom(waiting, 1)); // 2: early after 1
  KILN_ASSERT_OK(commands->executionBarrier());
  KILN_ASSERT_OK(commands->copy(BufferRef::direct(buffers[2]),
                                BufferRef::direct(buffers[3]))); // 3
  KILN_ASSERT_OK(commands->executionBarrier());
  KILN_ASSERT_OK(addOneFrom(waiting, 3)); // 4: after a copy
  KILN_ASSERT_OK(commands->executionBarrier());
  KILN_ASSERT_OK(addOneFrom(plain, 4)); // 5: does not wait
  KILN_ASSERT_OK(commands->end());
  for (int run = 0; run < 20; ++run)
    KILN_ASSERT_OK(submitAndWait(commands));

  KILN_ASSERT_OK_AND_ASSIGN(auto shape, commands->graphShape());
  EXPECT_EQ(shape.NodeCount, 6u);
  EXPECT_EQ(shape.Edges, (Edges{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}}));
  EXPECT_EQ(shape.EarlyEdges, (Edges{{1, 2}}));
  KILN_ASSERT_OK_AND_ASSIGN(auto bytes, download(buffers[5]));
  for (uint32_t i = 0; i < kCount; ++i) {
    uint32_t got;
    std::memcpy(&got, bytes.data() + 4 * i, 4);
    ASSERT_EQ(got, 7u + 4u) << "element " << i;
  }
}

TEST_F(CudaGraphCommandBufferTest,
       NewBindingTablesArePatchedNotReinstantiated) {
  if (!Cuda->supportsExecutable("cuda-ptx", "sm_80"))
    GTEST_SKIP() << "the test kernel is sm_80 PTX; this GPU is older";
  KILN_ASSERT_OK_AND_ASSIGN(auto executable, addOne());

  // slot 0: input, slot 1: output (kernel result, then a filled tail),
  // slot 2: a copy of the input's first bytes. One kernel, one memset and
  // one memcpy node, each reading its addresses from the table.
  constexpr uint32_t kCount = 1000;
  constexpr uint64_t kBytes = kCount * 4;
  constexpr uint64_t kTail = 64;
  KILN_ASSERT_OK_AND_ASSIGN(auto commands,
                            beginGraph(CommandBufferMode::Reusable, 3));
  BufferRef bindings[] = {BufferRef::slot(0, 0, kBytes),
                          BufferRef::slot(1, 0, kBytes)};
  uint32_t push[] = {kCount};
  KILN_ASSERT_OK(commands->dispatch(executable, 0, {(kCount + 127) / 128, 1, 1},
                                    bindings, push));
  KILN_ASSERT_OK(
      commands->fill(BufferRef::slot(1, kBytes, kTail), 0xcdcdcdcd, 4));
  KILN_ASSERT_OK(commands->copy(BufferRef::slot(0, 0, kTail),
                                BufferRef::slot(2, 0, kTail)));
  KILN_ASSERT_OK(commands->end());

  struct Table {
    std::shared_ptr<Buffer> In, Out, Copy;
    std::vector<uint32_t> Values;
  };
  auto makeTable = [&](uint32_t base, Table &table) -> Status {
    KILN_ASSIGN_OR_RETURN(table.In, deviceBuffer(kBytes));
    KILN_ASSIGN_OR_RETURN(table.Out, deviceBuffer(kBytes + kTail));
    KILN_ASSIGN_OR_RETURN(table.Copy, deviceBuffer(kTail));
    table.Values.resize(kCount);
    for (uint32_t i = 0; i < kCount; ++i)
      table.Values[i] = base + 3 * i;
    std::vector<uint8_t> bytes(kBytes);
    std::memcpy(bytes.data(), table.Values.data(), kBytes);
    return upload(table.In, bytes);
  };
  auto check = [&](const Table &table, const std::string &when) {
    auto out = download(table.Out);
    ASSERT_TRUE(out.ok()) << out.status().toString();
    for (uint32_t i = 0; i < kCount; ++i) {
      uint32_t got;
      std::memcpy(&got, out->data() + 4 * i, 4);
      ASSERT_EQ(got, table.Values[i] + 1) << when << ", element " << i;
    }
    std::vector<uint8_t> tail(out->begin() + kBytes, out->end());
    EXPECT_EQ(tail, repeated(0xcdcdcdcd, kTail)) << when;
    auto copied = download(table.Copy);
    ASSERT_TRUE(copied.ok()) << copied.status().toString();
    std::vector<uint8_t> head(kTail);
    std::memcpy(head.data(), table.Values.data(), kTail);
    EXPECT_EQ(*copied, head) << when;
  };

  Table first, second;
  KILN_ASSERT_OK(makeTable(100, first));
  KILN_ASSERT_OK(makeTable(7000, second));
  KILN_ASSERT_OK(submitAndWait(commands, {first.In, first.Out, first.Copy}));
  check(first, "first table");
  EXPECT_EQ(commands->statistics().Instantiations, 1u);
  EXPECT_EQ(commands->statistics().PatchedNodes, 0u);

  // Every slot changes: all three nodes are patched.
  KILN_ASSERT_OK(submitAndWait(commands, {second.In, second.Out, second.Copy}));
  check(second, "second table");
  EXPECT_EQ(commands->statistics().Instantiations, 1u);
  EXPECT_EQ(commands->statistics().PatchedNodes, 3u);

  // The same table again: nothing to patch.
  KILN_ASSERT_OK(submitAndWait(commands, {second.In, second.Out, second.Copy}));
  EXPECT_EQ(commands->statistics().PatchedNodes, 3u);

  // Only slot 2 changes: only the memcpy node is patched.
  KILN_ASSERT_OK_AND_ASSIGN(auto otherCopy, deviceBuffer(kTail));
  KILN_ASSERT_OK(submitAndWait(commands, {second.In, second.Out, otherCopy}));
  second.Copy = otherCopy;
  check(second, "new copy target");
  EXPECT_EQ(commands->statistics().Instantiations, 1u);
  EXPECT_EQ(commands->statistics().PatchedNodes, 4u);
  EXPECT_EQ(commands->statistics().Launches, 4u);

  // Three independent commands: no edges.
  KILN_ASSERT_OK_AND_ASSIGN(auto shape, commands->graphShape());
  EXPECT_EQ(shape.NodeCount, 3u);
  EXPECT_EQ(shape.Edges, Edges{});
}

TEST_F(CudaGraphCommandBufferTest, SlotMovedToHostMemoryStillRuns) {
  // CUDA may refuse to patch a copy whose operand moved from device to
  // pinned host memory; the command buffer then rebuilds its graph.
  constexpr uint64_t kSize = 256;
  KILN_ASSERT_OK_AND_ASSIGN(auto commands,
                            beginGraph(CommandBufferMode::Reusable, 2));
  KILN_ASSERT_OK(commands->copy(BufferRef::slot(0, 0, kSize),
                                BufferRef::slot(1, 0, kSize)));
  KILN_ASSERT_OK(commands->end());
  KILN_ASSERT_OK_AND_ASSIGN(auto in, deviceBuffer(kSize));
  KILN_ASSERT_OK_AND_ASSIGN(auto out, deviceBuffer(kSize));
  std::vector<uint8_t> input = repeated(0x01020304, kSize);
  KILN_ASSERT_OK(upload(in, input));
  KILN_ASSERT_OK(submitAndWait(commands, {in, out}));
  KILN_ASSERT_OK_AND_ASSIGN(auto back, download(out));
  EXPECT_EQ(back, input);

  KILN_ASSERT_OK_AND_ASSIGN(
      auto hostOut, Cuda->allocator().allocate(kSize, MemoryType::HostVisible,
                                               BufferUsage::All));
  KILN_ASSERT_OK(submitAndWait(commands, {in, hostOut}));
  KILN_ASSERT_OK_AND_ASSIGN(auto mapped, hostOut->mapRead());
  EXPECT_EQ(std::vector<uint8_t>(mapped.begin(), mapped.end()), input);
  std::printf(
      "[ info ] after moving a slot to host memory: %llu "
      "instantiation(s), %llu patched node(s)\n",
      static_cast<unsigned long long>(commands->statistics().Instantiations),
      static_cast<unsigned long long>(commands->statistics().PatchedNodes));
}

TEST_F(CudaGraphCommandBufferTest, EmptyCommandBufferLaunchesNothing) {
  KILN_ASSERT_OK_AND_ASSIGN(auto commands, beginGraph());
  KILN_ASSERT_OK(commands->executionBarrier());
  KILN_ASSERT_OK(commands->end());
  KILN_ASSERT_OK(submitAndWait(commands));
  KILN_ASSERT_OK_AND_ASSIGN(auto shape, commands->graphShape());
  EXPECT_EQ(shape.NodeCount, 0u);
  EXPECT_EQ(commands->statistics().Launches, 0u);
}

TEST_F(CudaGraphCommandBufferTest, DeviceDefaultFollowsTheUri) {
  // Graph unless the URI says command_buffers=stream; the device must make
  // what it says.
  EXPECT_EQ(Cuda->commandBufferKind(), gpu::GpuCommandBufferKind::Graph);
  KILN_ASSERT_OK_AND_ASSIGN(auto streams,
                            open("cuda://?command_buffers=stream"));
  EXPECT_EQ(streams->commandBufferKind(), gpu::GpuCommandBufferKind::Stream);
  for (const auto &device : {Cuda, streams}) {
    KILN_ASSERT_OK_AND_ASSIGN(
        auto commands,
        device->createCommandBuffer(CommandBufferMode::OneShot, 0));
    auto *gpu = dynamic_cast<gpu::GpuCommandBuffer *>(commands.get());
    ASSERT_TRUE(gpu);
    EXPECT_EQ(gpu->kind(), device->commandBufferKind());
  }
}

} // namespace
} // namespace kiln::hal::cuda
