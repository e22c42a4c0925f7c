//===- CudaQueueTest.cpp - Queues and device semaphores on a real GPU -----===//
//
// The cases that need a GPU skip without one, saying why. Cross-driver
// cases pair the GPU with a local-task device: each side's queue waits for
// semaphores the other side signals, which only works through the
// driver-neutral wake-ups (Semaphore::addWaker) and, on the GPU, waits and
// writes of the semaphore word by the streams themselves.
//
//===----------------------------------------------------------------------===//

#include "runtime/hal/Feature.h"
#include "runtime/hal/drivers/cuda/CudaDeviceTest.h"
#include "runtime/hal/drivers/gpu/GpuSemaphore.h"
#include "runtime/hal/drivers/local/LocalDriver.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <thread>

namespace kiln::hal::cuda {
namespace {

using namespace std::chrono_literals;

class CudaQueueTest : public CudaDeviceTest {
protected:
  void SetUp() override {
    CudaDeviceTest::SetUp();
    if (setUpStopped())
      return;
    KILN_ASSERT_OK_AND_ASSIGN(DeviceUri localUri,
                              DeviceUri::parse("local-task://?workers=2"));
    KILN_ASSERT_OK_AND_ASSIGN(
        Local, local::createLocalTaskDriver()->createDevice(localUri));
  }

  void TearDown() override {
    CudaDeviceTest::TearDown();
    if (Local) {
      Status idle = Local->waitIdle(kWait);
      EXPECT_TRUE(idle.ok()) << idle.toString();
    }
  }

  // Pinned memory the host reads directly.
  StatusOr<std::shared_ptr<Buffer>> pinned(Device &device) {
    return device.allocator().allocate(64, MemoryType::HostVisible,
                                       BufferUsage::All);
  }

  // Fills `buffer` with `byte` on `device` once `waits` are reached, then
  // signals `signal`.
  static Status fillAfter(Device &device, const std::shared_ptr<Buffer> &buffer,
                          uint8_t byte, std::vector<SemaphoreValue> waits,
                          SemaphoreValue signal,
                          QueueAffinity affinity = kAnyQueue) {
    KILN_ASSIGN_OR_RETURN(
        std::shared_ptr<CommandBuffer> commands,
        device.createCommandBuffer(CommandBufferMode::OneShot, 0));
    KILN_RETURN_IF_ERROR(commands->begin());
    KILN_RETURN_IF_ERROR(commands->fill(BufferRef::direct(buffer), byte, 1));
    KILN_RETURN_IF_ERROR(commands->end());
    return device.queueExecute(waits, commands, {}, {&signal, 1}, nullptr,
                               affinity);
  }

  // A kernel whose one thread spins for its push constant's microseconds
  // (no bindings). PTX for sm_80, which every newer GPU JIT-compiles.
  StatusOr<std::shared_ptr<Executable>> spin() {
    static constexpr std::string_view kSpinPtx = R"(
.version 7.0
.target sm_80
.address_size 64

.visible .entry spin(.param .u32 microseconds)
{
  .reg .pred %p<2>;
  .reg .b32 %r<2>;
  .reg .b64 %rd<5>;
  ld.param.u32 %r1, [microseconds];
  mul.wide.u32 %rd1, %r1, 1000;
  mov.u64 %rd2, %globaltimer;
  add.s64 %rd3, %rd2, %rd1;
WAIT:
  mov.u64 %rd4, %globaltimer;
  setp.lt.u64 %p1, %rd4, %rd3;
  @%p1 bra WAIT;
  ret;
}
)";
    std::vector<uint8_t> image(kSpinPtx.begin(), kSpinPtx.end());
    image.push_back(0);
    ExecutableSpec spec;
    spec.Name = "spin";
    spec.Format = "cuda-ptx";
    spec.Target = "sm_80";
    spec.Image = image;
    EntryPointSpec entry;
    entry.Name = "spin";
    entry.PushConstantCount = 1;
    spec.EntryPoints = {entry};
    return Cuda->createExecutable(spec);
  }

  static StatusOr<uint8_t> lastByte(const std::shared_ptr<Buffer> &buffer) {
    KILN_ASSIGN_OR_RETURN(std::span<const uint8_t> bytes, buffer->mapRead());
    return bytes.back();
  }

  std::shared_ptr<Device> Local;
};

TEST_F(CudaQueueTest, SemaphoresAreTheGpusWhereItCan) {
  KILN_ASSERT_OK_AND_ASSIGN(auto semaphore, Cuda->createSemaphore(7));
  EXPECT_EQ(Cuda->deviceSemaphores(),
            dynamic_cast<gpu::GpuSemaphore *>(semaphore.get()) != nullptr);
  if (!Cuda->deviceSemaphores())
    GTEST_SKIP() << "this GPU cannot do 64-bit stream memory operations";
  KILN_ASSERT_OK_AND_ASSIGN(uint64_t value, semaphore->query());
  EXPECT_EQ(value, 7u);
  KILN_ASSERT_OK_AND_ASSIGN(auto hostOnly, open("cuda://?device_semaphores=0"));
  KILN_ASSERT_OK_AND_ASSIGN(auto host, hostOnly->createSemaphore(0));
  EXPECT_EQ(dynamic_cast<gpu::GpuSemaphore *>(host.get()), nullptr);
  // Such a device still orders work through them, from its threads.
  KILN_ASSERT_OK_AND_ASSIGN(auto buffer, pinned(*hostOnly));
  KILN_ASSERT_OK(fillAfter(*hostOnly, buffer, 0x21, {{host, 1}}, {host, 2}));
  EXPECT_EQ(host->wait(2, 20ms).code(), StatusCode::DeadlineExceeded);
  KILN_ASSERT_OK(host->signal(1));
  KILN_ASSERT_OK(host->wait(2, kWait));
  KILN_ASSERT_OK_AND_ASSIGN(uint8_t byte, lastByte(buffer));
  EXPECT_EQ(byte, 0x21);
  KILN_ASSERT_OK(hostOnly->waitIdle(kWait));
}

// CUDA does not promise that streams overlap (CudaDevice::features), so no
// cuda device claims it, whatever its queues and command buffers.
TEST_F(CudaQueueTest, QueuesAreNeverClaimedConcurrent) {
  KILN_ASSERT_OK_AND_ASSIGN(auto single, open("cuda://?queues=1"));
  EXPECT_EQ(single->queueCount(), 1u);
  EXPECT_TRUE(single->unsupportedReason(feature::kConcurrentQueues));
  EXPECT_EQ(Cuda->queueCount(), gpu::GpuDeviceOptions::kDefaultQueues);
  EXPECT_TRUE(Cuda->unsupportedReason(feature::kConcurrentQueues));
}

TEST_F(CudaQueueTest, LocalTaskWaitsForAValueTheGpuWrites) {
  KILN_ASSERT_OK_AND_ASSIGN(auto gate, Cuda->createSemaphore(0));
  KILN_ASSERT_OK_AND_ASSIGN(auto gpuDone, Cuda->createSemaphore(0));
  KILN_ASSERT_OK_AND_ASSIGN(auto localDone, Local->createSemaphore(0));
  KILN_ASSERT_OK_AND_ASSIGN(auto buffer, pinned(*Cuda));
  KILN_ASSERT_OK(fillAfter(*Cuda, buffer, 0x5a, {{gate, 1}}, {gpuDone, 1}));
  SemaphoreValue wait{gpuDone, 1}, signal{localDone, 1};
  KILN_ASSERT_OK(Local->queueExecute({&wait, 1}, nullptr, {}, {&signal, 1}));
  // The GPU waits for the gate, so neither side has run.
  EXPECT_EQ(localDone->wait(1, 30ms).code(), StatusCode::DeadlineExceeded);
  KILN_ASSERT_OK(gate->signal(1));
  // local-task's queue thread sleeps until the CUDA device reports the
  // value its stream wrote.
  KILN_ASSERT_OK(localDone->wait(1, kWait));
  KILN_ASSERT_OK_AND_ASSIGN(uint8_t byte, lastByte(buffer));
  EXPECT_EQ(byte, 0x5a);
}

TEST_F(CudaQueueTest, GpuWaitsForAValueLocalTaskSignals) {
  KILN_ASSERT_OK_AND_ASSIGN(auto hostGate, Local->createSemaphore(0));
  KILN_ASSERT_OK_AND_ASSIGN(auto localDone, Local->createSemaphore(0));
  KILN_ASSERT_OK_AND_ASSIGN(auto gpuDone, Cuda->createSemaphore(0));
  KILN_ASSERT_OK_AND_ASSIGN(auto buffer, pinned(*Cuda));
  KILN_ASSERT_OK(
      fillAfter(*Cuda, buffer, 0x33, {{localDone, 1}}, {gpuDone, 1}));
  SemaphoreValue wait{hostGate, 1}, signal{localDone, 1};
  KILN_ASSERT_OK(Local->queueExecute({&wait, 1}, nullptr, {}, {&signal, 1}));
  EXPECT_EQ(gpuDone->wait(1, 30ms).code(), StatusCode::DeadlineExceeded);
  KILN_ASSERT_OK(hostGate->signal(1));
  KILN_ASSERT_OK(gpuDone->wait(1, kWait));
  KILN_ASSERT_OK_AND_ASSIGN(uint8_t byte, lastByte(buffer));
  EXPECT_EQ(byte, 0x33);
}

TEST_F(CudaQueueTest, FailureCrossesDrivers) {
  KILN_ASSERT_OK_AND_ASSIGN(auto gate, Cuda->createSemaphore(0));
  KILN_ASSERT_OK_AND_ASSIGN(auto gpuDone, Cuda->createSemaphore(0));
  KILN_ASSERT_OK_AND_ASSIGN(auto localDone, Local->createSemaphore(0));
  KILN_ASSERT_OK_AND_ASSIGN(auto gpuAgain, Cuda->createSemaphore(0));
  KILN_ASSERT_OK_AND_ASSIGN(auto buffer, pinned(*Cuda));
  // gate -> GPU -> local-task -> GPU again, every link already queued.
  KILN_ASSERT_OK(fillAfter(*Cuda, buffer, 1, {{gate, 1}}, {gpuDone, 1}));
  SemaphoreValue wait{gpuDone, 1}, signal{localDone, 1};
  KILN_ASSERT_OK(Local->queueExecute({&wait, 1}, nullptr, {}, {&signal, 1}));
  KILN_ASSERT_OK(fillAfter(*Cuda, buffer, 2, {{localDone, 1}}, {gpuAgain, 1}));
  KILN_ASSERT_OK(gate->fail(KILN_ERROR(Aborted, "upstream broke")));
  for (const auto &semaphore : {gpuDone, localDone, gpuAgain}) {
    Status seen = semaphore->wait(1, kWait);
    EXPECT_EQ(seen.code(), StatusCode::Aborted) << seen.toString();
    EXPECT_EQ(seen.message(), "upstream broke");
  }
}

TEST_F(CudaQueueTest, FailingAValueTheGpuWaitsForFailsWhatFollows) {
  if (!Cuda->deviceSemaphores())
    GTEST_SKIP() << "this GPU cannot do 64-bit stream memory operations";
  if (!Cuda->supportsExecutable("cuda-ptx", "sm_80"))
    GTEST_SKIP() << "the spin kernel is sm_80 PTX";
  // Queue 0 spins 300 ms, then writes `gate`; queue 1 waits for it on the
  // GPU (its write is queued), then writes `after`. Failing the gate from
  // the host meanwhile releases queue 1's GPU wait, and `after` must report
  // the failure although the GPU writes its value later.
  KILN_ASSERT_OK_AND_ASSIGN(auto spinning, spin());
  KILN_ASSERT_OK_AND_ASSIGN(
      auto commands, Cuda->createCommandBuffer(CommandBufferMode::OneShot, 0));
  KILN_ASSERT_OK(commands->begin());
  uint32_t microseconds[] = {300000};
  KILN_ASSERT_OK(commands->dispatch(spinning, 0, {1, 1, 1}, {}, microseconds));
  KILN_ASSERT_OK(commands->end());
  KILN_ASSERT_OK_AND_ASSIGN(auto gate, Cuda->createSemaphore(0));
  KILN_ASSERT_OK_AND_ASSIGN(auto after, Cuda->createSemaphore(0));
  KILN_ASSERT_OK_AND_ASSIGN(auto buffer, pinned(*Cuda));
  // Run once first: a graph's first submission instantiates it, which may
  // wait for the spinning stream.
  KILN_ASSERT_OK_AND_ASSIGN(
      auto fill, Cuda->createCommandBuffer(CommandBufferMode::Reusable, 0,
                                           queueAffinity(1)));
  KILN_ASSERT_OK(fill->begin());
  KILN_ASSERT_OK(fill->fill(BufferRef::direct(buffer), 4, 1));
  KILN_ASSERT_OK(fill->end());
  SemaphoreValue warm{after, 1};
  KILN_ASSERT_OK(Cuda->queueExecute({}, fill, {}, {&warm, 1}));
  KILN_ASSERT_OK(after->wait(1, kWait));
  SemaphoreValue open{gate, 1}, filled{after, 2};
  KILN_ASSERT_OK(Cuda->queueExecute({}, commands, {}, {&open, 1}));
  KILN_ASSERT_OK(Cuda->queueExecute({&open, 1}, fill, {}, {&filled, 1}));
  EXPECT_EQ(after->wait(2, 20ms).code(), StatusCode::DeadlineExceeded);
  KILN_ASSERT_OK(gate->fail(KILN_ERROR(DataLoss, "gone")));
  Status seen = after->wait(2, 0ns);
  EXPECT_EQ(seen.code(), StatusCode::DataLoss) << seen.toString();
  KILN_ASSERT_OK(Cuda->waitIdle(kWait));
  EXPECT_EQ(after->query().status().code(), StatusCode::DataLoss);
  EXPECT_EQ(gate->query().status().code(), StatusCode::DataLoss);
}

TEST_F(CudaQueueTest, DestroyedDeviceCancelsSubmissionsStillWaiting) {
  KILN_ASSERT_OK_AND_ASSIGN(auto doomed, open("cuda"));
  KILN_ASSERT_OK_AND_ASSIGN(auto never, doomed->createSemaphore(0));
  KILN_ASSERT_OK_AND_ASSIGN(auto done, doomed->createSemaphore(0));
  KILN_ASSERT_OK_AND_ASSIGN(auto buffer, pinned(*doomed));
  KILN_ASSERT_OK(fillAfter(*doomed, buffer, 9, {{never, 1}}, {done, 1}));
  EXPECT_EQ(done->wait(1, 10ms).code(), StatusCode::DeadlineExceeded);
  doomed.reset();
  EXPECT_EQ(done->wait(1, 0ns).code(), StatusCode::Cancelled);
  // Nothing was queued on the GPU for it: the semaphore it waited for is
  // untouched.
  KILN_ASSERT_OK_AND_ASSIGN(uint64_t value, never->query());
  EXPECT_EQ(value, 0u);
}

TEST_F(CudaQueueTest, TimedSubmissionHasItsTimeOnceSignalled) {
  // The GPU writes the signal after the timer's end event, so a waiter that
  // sees it finds the time there, without the retire thread.
  KILN_ASSERT_OK_AND_ASSIGN(auto timer, Cuda->createSubmissionTimer());
  KILN_ASSERT_OK_AND_ASSIGN(auto done, Cuda->createSemaphore(0));
  KILN_ASSERT_OK_AND_ASSIGN(auto buffer, pinned(*Cuda));
  for (uint64_t call = 1; call <= 20; ++call) {
    KILN_ASSERT_OK_AND_ASSIGN(
        auto commands,
        Cuda->createCommandBuffer(CommandBufferMode::OneShot, 0));
    KILN_ASSERT_OK(commands->begin());
    KILN_ASSERT_OK(commands->fill(BufferRef::direct(buffer), 3, 1));
    KILN_ASSERT_OK(commands->end());
    SemaphoreValue signal{done, call};
    KILN_ASSERT_OK(Cuda->queueExecute({}, commands, {}, {&signal, 1}, timer));
    KILN_ASSERT_OK(done->wait(call, kWait));
    KILN_ASSERT_OK_AND_ASSIGN(double seconds, timer->elapsedSeconds());
    EXPECT_GE(seconds, 0.0);
  }
}

} // namespace
} // namespace kiln::hal::cuda
