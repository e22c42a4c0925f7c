//===- AmdgpuDeviceTest.cpp - The device over the test's HSA system -------===//
//
// The device is made over TestHsa.h's system: pools of heap memory, queues
// whose rings the test reads, code objects "loaded" by recording which
// symbols were looked up (the transfer kernels are the real embedded code
// objects, checked as they would be for HSA). What is tested is what the
// device asks HSA for and what it writes into its queues: the packets a
// fill, a copy and a dispatch become, on which GPU's queue, with which
// kernel object and kernel arguments. Nothing runs a packet: where a test
// lets a submission retire it plays the packet processor (decrements the
// completion signal), and never looks at memory a kernel would have
// written. That the kernels fill and copy, and that HSA accepts these
// packets, can only be seen on AMD hardware (the CTS over amdgpu, run by
// scripts/test-gpu.sh where there is one).
//
//===----------------------------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/AmdgpuDevice.h"

#include "runtime/hal/Feature.h"
#include "runtime/hal/TestFakes.h"
#include "runtime/hal/drivers/amdgpu/TestHsa.h"
#include "runtime/hal/drivers/gpu/GpuBuffer.h"

#include <gtest/gtest.h>

namespace kiln::hal::amdgpu {
namespace {

using namespace testing;
using namespace std::chrono_literals;

class AmdgpuDeviceTest : public ::testing::Test {
protected:
  void SetUp() override { KILN_SKIP_WITHOUT_TRANSFER_KERNELS(); }
  void TearDown() override {
    // Whatever a test published and left, retired as a packet processor
    // would, so the device's queues drain.
    for (const auto &queue : testSystem.Queues)
      for (uint64_t i = queue->Read; i < queue->Write; ++i)
        queue->complete(i);
    Device.reset();
  }

  StatusOr<std::shared_ptr<AmdgpuDevice>>
  create(uint32_t gpus = 1, uint32_t queues = 1, TestHsaSystem system = {}) {
    system.Gpus = gpus;
    Hsa = testHsa(std::move(system));
    std::vector<hsa_agent_t> agents;
    for (uint32_t i = 0; i < gpus; ++i)
      agents.push_back({2 + i});
    AmdgpuAgent::Options options;
    options.Queues = queues;
    options.Queue.KernargBytes = 4096;
    DeviceInfo info;
    info.Uri = "amdgpu://GPU-test";
    return AmdgpuDevice::create(Hsa, info, agents, {kHostAgent}, options);
  }
  void open(uint32_t gpus = 1, uint32_t queues = 1) {
    auto created = create(gpus, queues);
    ASSERT_TRUE(created.ok()) << created.status().toString();
    Device = std::move(created).value();
  }

  // Submits `commands` to `queue`, signalling a new semaphore to 1.
  std::shared_ptr<Semaphore>
  submit(const std::shared_ptr<CommandBuffer> &commands, uint32_t queue = 0) {
    auto done = Device->createSemaphore(0);
    EXPECT_TRUE(done.ok());
    SemaphoreValue signal{*done, 1};
    Status queued = Device->queueExecute({}, commands, {}, {&signal, 1},
                                         nullptr, queueAffinity(queue));
    EXPECT_TRUE(queued.ok()) << queued.toString();
    return *done;
  }
  std::shared_ptr<Buffer> deviceBuffer(uint64_t size) {
    auto buffer = Device->allocator().allocate(size, MemoryType::DeviceLocal,
                                               BufferUsage::Transfer |
                                                   BufferUsage::Dispatch);
    EXPECT_TRUE(buffer.ok());
    return *buffer;
  }
  static uint64_t addressOf(const std::shared_ptr<Buffer> &buffer) {
    return dynamic_cast<gpu::GpuBuffer &>(*buffer).deviceAddress();
  }
  // The dispatch packet at `index` of HSA queue `queue` and its kernargs.
  hsa_kernel_dispatch_packet_t packet(size_t queue, uint64_t index) {
    EXPECT_TRUE(testSystem.Queues[queue]->published(index));
    return testSystem.Queues[queue]->at<hsa_kernel_dispatch_packet_t>(index);
  }
  template <typename T>
  static T kernarg(const hsa_kernel_dispatch_packet_t &packet,
                   uint32_t offset) {
    T value;
    std::memcpy(&value, static_cast<uint8_t *>(packet.kernarg_address) + offset,
                sizeof(T));
    return value;
  }

  std::shared_ptr<HsaSymbols> Hsa;
  std::shared_ptr<AmdgpuDevice> Device;
};

TEST_F(AmdgpuDeviceTest, ADeviceOverTwoGpusHasEachOnesQueuesAndKernels) {
  open(2, 3);
  EXPECT_EQ(Device->queueCount(), 6u);
  EXPECT_EQ(testSystem.LiveQueues, 6);
  // Each GPU's transfer kernels, looked up for that GPU.
  for (uint64_t agent : {2, 3}) {
    int found = 0;
    for (const auto &symbol : testSystem.Symbols)
      if (symbol.Agent == agent && symbol.Name == "fill_x4.kd")
        ++found;
    EXPECT_EQ(found, 1) << "agent " << agent;
  }
  EXPECT_TRUE(Device->supportsExecutable("amdgpu-hsaco", "gfx942"));
  EXPECT_FALSE(Device->supportsExecutable("amdgpu-hsaco", "gfx1100"));
  EXPECT_FALSE(Device->supportsExecutable("cuda-ptx", "gfx942"));
  EXPECT_TRUE(Device->unsupportedReason(feature::kConcurrentCommands));
  EXPECT_TRUE(Device->unsupportedReason(feature::kHostVisibleDeviceLocal));
  EXPECT_TRUE(Device->failure().ok());
  // Memory from the first GPU, which the second may reach.
  auto buffer = deviceBuffer(64);
  const auto &allocation =
      testSystem.Allocations.at(reinterpret_cast<void *>(addressOf(buffer)));
  EXPECT_EQ(allocation.Pool, 2 * 16 + kDevicePool);
  EXPECT_EQ(allocation.Access, std::vector<uint64_t>{3});
  buffer.reset();
  Device.reset();
  EXPECT_EQ(testSystem.LiveQueues, 0);
  EXPECT_TRUE(testSystem.ExecutableAgents.empty());
  EXPECT_TRUE(testSystem.Allocations.empty());
  EXPECT_EQ(testSystem.LiveReaders, 0);
}

TEST_F(AmdgpuDeviceTest, AFillIsADispatchOfTheFillKernel) {
  open();
  auto target = deviceBuffer(4096);
  auto commands = Device->createCommandBuffer(CommandBufferMode::OneShot, 0);
  ASSERT_TRUE(commands.ok());
  ASSERT_TRUE((*commands)->begin().ok());
  ASSERT_TRUE(
      (*commands)->fill(BufferRef::direct(target, 256, 1024), 0x5a, 1).ok());
  ASSERT_TRUE((*commands)->end().ok());
  auto done = submit(*commands);
  hsa_kernel_dispatch_packet_t fill = packet(0, 0);
  // 16-byte elements: the offset and the length allow them.
  EXPECT_EQ(testSystem.symbolOf(fill.kernel_object).Name, "fill_x16.kd");
  EXPECT_EQ(testSystem.symbolOf(fill.kernel_object).Agent, 2u);
  EXPECT_EQ(fill.workgroup_size_x, 256u);
  EXPECT_EQ(fill.grid_size_x, 256u);
  EXPECT_EQ(kernarg<uint64_t>(fill, 0), addressOf(target) + 256);
  EXPECT_EQ(kernarg<uint32_t>(fill, 8), 64u);   // elements, low half
  EXPECT_EQ(kernarg<uint32_t>(fill, 12), 0u);   // high half
  EXPECT_EQ(kernarg<uint32_t>(fill, 16), 256u); // the grid's work-items
  EXPECT_EQ(kernarg<uint32_t>(fill, 20), 0x5a5a5a5au);
  EXPECT_NE(fill.completion_signal.handle, 0u);
  testSystem.Queues[0]->complete(0);
  EXPECT_TRUE(done->wait(1, 10s).ok());
}

TEST_F(AmdgpuDeviceTest, CommandsGoToTheQueueOfTheGpuTheAffinityNames) {
  open(2, 1);
  auto source = deviceBuffer(100);
  auto target = deviceBuffer(100);
  auto commands = Device->createCommandBuffer(CommandBufferMode::OneShot, 1);
  ASSERT_TRUE(commands.ok());
  ASSERT_TRUE((*commands)->begin().ok());
  // A copy of 99 bytes: byte by byte; then a copy into slot 0.
  ASSERT_TRUE((*commands)
                  ->copy(BufferRef::direct(source, 0, 99),
                         BufferRef::direct(target, 1, 99))
                  .ok());
  ASSERT_TRUE((*commands)->executionBarrier().ok());
  ASSERT_TRUE(
      (*commands)
          ->copy(BufferRef::direct(source, 0, 64), BufferRef::slot(0, 4, 64))
          .ok());
  ASSERT_TRUE((*commands)->end().ok());
  auto done = Device->createSemaphore(0);
  ASSERT_TRUE(done.ok());
  SemaphoreValue signal{*done, 1};
  std::vector<std::shared_ptr<Buffer>> table = {target};
  ASSERT_TRUE(Device
                  ->queueExecute({}, *commands, table, {&signal, 1}, nullptr,
                                 queueAffinity(1))
                  .ok());
  // Queue 1 is the second GPU's.
  hsa_kernel_dispatch_packet_t bytes = packet(1, 0);
  EXPECT_EQ(testSystem.symbolOf(bytes.kernel_object).Name, "copy_x1.kd");
  EXPECT_EQ(testSystem.symbolOf(bytes.kernel_object).Agent, 3u);
  EXPECT_EQ(kernarg<uint64_t>(bytes, 0), addressOf(source));
  EXPECT_EQ(kernarg<uint64_t>(bytes, 8), addressOf(target) + 1);
  EXPECT_EQ(kernarg<uint32_t>(bytes, 16), 99u);
  hsa_kernel_dispatch_packet_t words = packet(1, 1);
  EXPECT_EQ(testSystem.symbolOf(words.kernel_object).Name, "copy_x4.kd");
  EXPECT_EQ(kernarg<uint64_t>(words, 8), addressOf(target) + 4);
  EXPECT_EQ(kernarg<uint32_t>(words, 16), 16u);
  EXPECT_EQ(testSystem.Queues[0]->Write.load(), 0u);
  testSystem.Queues[1]->complete(0);
  testSystem.Queues[1]->complete(1);
  EXPECT_TRUE((*done)->wait(1, 10s).ok());
}

TEST_F(AmdgpuDeviceTest, ExecutablesAreLoadedOntoEveryGpuAndDispatchedThere) {
  open(2, 1);
  // The transfer kernels' own code object as an application's.
  auto image = transferKernelImage("gfx942");
  ASSERT_TRUE(image.ok());
  auto executable =
      Device->createExecutable(transferKernelSpec("gfx942", *image));
  ASSERT_TRUE(executable.ok()) << executable.status().toString();
  auto buffer = deviceBuffer(64);
  auto commands = Device->createCommandBuffer(CommandBufferMode::OneShot, 0);
  ASSERT_TRUE(commands.ok());
  ASSERT_TRUE((*commands)->begin().ok());
  BufferRef binding = BufferRef::direct(buffer, 8, 16);
  uint32_t push[] = {4, 0, 256, 7};
  ASSERT_TRUE((*commands)
                  ->dispatch(*executable, uint32_t(TransferKernel::FillX4),
                             {3, 1, 1}, {&binding, 1}, push)
                  .ok());
  ASSERT_TRUE((*commands)->end().ok());
  auto done = submit(*commands, 1);
  hsa_kernel_dispatch_packet_t dispatch = packet(1, 0);
  const auto &symbol = testSystem.symbolOf(dispatch.kernel_object);
  EXPECT_EQ(symbol.Name, "fill_x4.kd");
  EXPECT_EQ(symbol.Agent, 3u);
  // Not the device's own transfer kernels (looked up first, when the
  // device was made): the application's load.
  const auto &own = *std::find_if(
      testSystem.Symbols.begin(), testSystem.Symbols.end(), [](auto &found) {
        return found.Agent == 3 && found.Name == "fill_x4.kd";
      });
  EXPECT_NE(symbol.Executable, own.Executable);
  EXPECT_EQ(testSystem.ExecutableAgents.at(symbol.Executable), 3u);
  EXPECT_EQ(dispatch.grid_size_x, 3u * 256);
  EXPECT_EQ(kernarg<uint64_t>(dispatch, 0), addressOf(buffer) + 8);
  EXPECT_EQ(kernarg<uint32_t>(dispatch, 20), 7u);
  testSystem.Queues[1]->complete(0);
  EXPECT_TRUE(done->wait(1, 10s).ok());

  ExecutableSpec other = transferKernelSpec("gfx1100", *image);
  EXPECT_EQ(Device->createExecutable(other).status().code(),
            StatusCode::FailedPrecondition);
  // The GPUs are xnack-: code for xnack+ would be refused by HSA's loader.
  ExecutableSpec xnack = transferKernelSpec("gfx942:xnack+", *image);
  auto refused = Device->createExecutable(xnack);
  EXPECT_EQ(refused.status().code(), StatusCode::FailedPrecondition);
  EXPECT_NE(refused.status().message().find("gfx942:sramecc+:xnack-"),
            std::string::npos)
      << refused.status().toString();
}

TEST_F(AmdgpuDeviceTest, CommandsThatDoNothingWriteNoPacket) {
  open();
  auto image = transferKernelImage("gfx942");
  ASSERT_TRUE(image.ok());
  auto executable =
      Device->createExecutable(transferKernelSpec("gfx942", *image));
  ASSERT_TRUE(executable.ok()) << executable.status().toString();
  auto buffer = deviceBuffer(64);
  auto commands = Device->createCommandBuffer(CommandBufferMode::Reusable, 0);
  ASSERT_TRUE(commands.ok());
  ASSERT_TRUE((*commands)->begin().ok());
  BufferRef binding = BufferRef::direct(buffer);
  uint32_t push[] = {0, 0, 0, 0};
  ASSERT_TRUE((*commands)->fill(BufferRef::direct(buffer, 0, 0), 1, 1).ok());
  ASSERT_TRUE((*commands)
                  ->dispatch(*executable, 0, {4, 0, 1}, {&binding, 1}, push)
                  .ok());
  ASSERT_TRUE((*commands)
                  ->copy(BufferRef::direct(buffer, 0, 16),
                         BufferRef::direct(buffer, 32, 16))
                  .ok());
  ASSERT_TRUE((*commands)->end().ok());
  // Reusable: the same packet at each submission.
  for (uint64_t index : {0, 1}) {
    auto done = submit(*commands);
    hsa_kernel_dispatch_packet_t copy = packet(0, index);
    EXPECT_EQ(testSystem.symbolOf(copy.kernel_object).Name, "copy_x16.kd");
    EXPECT_EQ(kernarg<uint64_t>(copy, 8), addressOf(buffer) + 32);
    testSystem.Queues[0]->complete(index);
    EXPECT_TRUE(done->wait(1, 10s).ok());
  }
  EXPECT_EQ(testSystem.Queues[0]->Write.load(), 2u);
}

TEST_F(AmdgpuDeviceTest, OnlyItsOwnExecutablesAreDispatched) {
  open();
  ExecutableSpec spec;
  spec.Name = "elsewhere";
  EntryPointSpec entry;
  entry.Name = "main";
  spec.EntryPoints = {entry};
  auto foreign = std::make_shared<test::FakeExecutable>(spec);
  auto commands = Device->createCommandBuffer(CommandBufferMode::OneShot, 0);
  ASSERT_TRUE(commands.ok());
  ASSERT_TRUE((*commands)->begin().ok());
  Status recorded = (*commands)->dispatch(foreign, 0, {1, 1, 1}, {}, {});
  EXPECT_EQ(recorded.code(), StatusCode::InvalidArgument);
  EXPECT_NE(recorded.message().find("elsewhere"), std::string::npos)
      << recorded.toString();
}

TEST_F(AmdgpuDeviceTest, AQueueErrorFailsTheDevice) {
  open(1, 2);
  auto commands = Device->createCommandBuffer(CommandBufferMode::OneShot, 0);
  ASSERT_TRUE(commands.ok());
  ASSERT_TRUE((*commands)->begin().ok());
  ASSERT_TRUE((*commands)->end().ok());
  TestHsaSystem::Callback second = testSystem.Callbacks[1];
  second.Function(
      static_cast<hsa_status_t>(HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION),
      second.Queue, second.Data);
  Status failure = Device->failure();
  EXPECT_FALSE(failure.ok());
  // Every later submission, to any queue, and waitIdle say so.
  auto done = Device->createSemaphore(0);
  ASSERT_TRUE(done.ok());
  SemaphoreValue signal{*done, 1};
  Status queued = Device->queueExecute({}, *commands, {}, {&signal, 1});
  EXPECT_EQ(queued.code(), failure.code());
  EXPECT_NE(queued.message().find("AQL queue"), std::string::npos)
      << queued.toString();
  // Its signal fails with it, so a waiter that ignored the error goes on.
  EXPECT_EQ((*done)->wait(1, 10s).code(), failure.code());
  EXPECT_EQ(Device->waitIdle(10s).code(), failure.code());
}

TEST_F(AmdgpuDeviceTest, WhatAnotherDriverMadeIsRefused) {
  open();
  auto commands = Device->createCommandBuffer(CommandBufferMode::OneShot, 1);
  ASSERT_TRUE(commands.ok());
  ASSERT_TRUE((*commands)->begin().ok());
  class OtherBuffer final : public Buffer {
  public:
    OtherBuffer()
        : Buffer(64, MemoryType::DeviceLocal, BufferUsage::All, false) {}
    StatusOr<uint8_t *> mapImpl() override { return nullptr; }
  };
  auto other = std::make_shared<OtherBuffer>();
  EXPECT_EQ((*commands)->fill(BufferRef::direct(other), 0, 4).code(),
            StatusCode::InvalidArgument);
  ASSERT_TRUE((*commands)->fill(BufferRef::slot(0, 0, 64), 0, 4).ok());
  ASSERT_TRUE((*commands)->end().ok());
  std::vector<std::shared_ptr<Buffer>> table = {other};
  Status queued = Device->queueExecute({}, *commands, table, {});
  EXPECT_EQ(queued.code(), StatusCode::InvalidArgument);
  EXPECT_NE(queued.message().find("amdgpu"), std::string::npos);
}

TEST_F(AmdgpuDeviceTest, AGpuWithoutTransferKernelsIsRefusedCleanly) {
  TestHsaSystem system;
  system.Processor = "gfx000";
  auto device = create(1, 2, system);
  EXPECT_EQ(device.status().code(), StatusCode::NotFound);
  EXPECT_NE(device.status().message().find("gfx000"), std::string::npos);
  EXPECT_EQ(testSystem.LiveQueues, 0);
  EXPECT_TRUE(testSystem.Allocations.empty());
}

TEST(AmdgpuDeviceOptionsTest, QueuesPerGpuFromTheUri) {
  auto plain = AmdgpuDevice::optionsFromUri(*DeviceUri::parse("amdgpu"));
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->Queues, AmdgpuDevice::kDefaultQueuesPerGpu);
  auto four =
      AmdgpuDevice::optionsFromUri(*DeviceUri::parse("amdgpu://0,1?queues=4"));
  ASSERT_TRUE(four.ok()) << four.status().toString();
  EXPECT_EQ(four->Queues, 4u);
  for (const char *bad :
       {"amdgpu://?queues=0", "amdgpu://?queues=9", "amdgpu://?queues=x",
        "amdgpu://?command_buffers=graph"})
    EXPECT_EQ(
        AmdgpuDevice::optionsFromUri(*DeviceUri::parse(bad)).status().code(),
        StatusCode::InvalidArgument)
        << bad;
}

} // namespace
} // namespace kiln::hal::amdgpu
