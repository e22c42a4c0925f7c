//===- SubmissionPacketsTest.cpp - Submissions as packets in a host ring --===//
//
// Kernels are the test code objects' (planned as a device plans them, at
// made-up kernel object addresses); completion signals are heap words
// (TestSignals.h); the kernarg block is host memory given a made-up device
// address. The packets go through AqlQueue into a ring the test owns, and
// what is checked is what lands there and in the kernarg block. Nothing
// runs them.
//
//===----------------------------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/SubmissionPackets.h"

#include "runtime/hal/drivers/amd/AmdTestKernels.h"
#include "runtime/hal/drivers/amdgpu/TestSignals.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

namespace kiln::hal::amdgpu {
namespace {

using namespace testing;

// The queue the packets go into: its indices and doorbell.
std::atomic<uint64_t> queueRead;
std::atomic<uint64_t> queueWrite;
std::atomic<int64_t> queueDoorbell;

constexpr uint64_t kBlockAddress = 0x7f0000000000;

class SubmissionPacketsTest : public amd::TestKernelsTest {
protected:
  void SetUp() override {
    amd::TestKernelsTest::SetUp();
    if (IsSkipped() || HasFatalFailure())
      return;
    ExecutableSpec spec;
    spec.Name = "submission";
    spec.Format = "amdgpu-hsaco";
    spec.Target = "gfx942";
    spec.Image = Image;
    spec.EntryPoints.resize(2);
    spec.EntryPoints[0].Name = "add_f32";
    spec.EntryPoints[0].BindingCount = 3;
    spec.EntryPoints[0].PushConstantCount = 2;
    spec.EntryPoints[0].WorkgroupSize = {64, 1, 1};
    spec.EntryPoints[0].SharedMemoryBytes = 512;
    spec.EntryPoints[1].Name = "count_workgroups";
    spec.EntryPoints[1].BindingCount = 1;
    spec.EntryPoints[1].WorkgroupSize = {256, 1, 1};
    auto plans = planKernels(Object, spec, 65536);
    ASSERT_TRUE(plans.ok()) << plans.status().toString();
    Add = {0xa000, (*plans)[0]};
    Count = {0xb000, (*plans)[1]};

    queueRead = 0;
    queueWrite = 0;
    queueDoorbell = -1;
    Hsa->hsa_queue_load_read_index_scacquire = [](const hsa_queue_t *) {
      return queueRead.load();
    };
    Hsa->hsa_queue_add_write_index_scacq_screl = [](const hsa_queue_t *,
                                                    uint64_t count) {
      return queueWrite.fetch_add(count);
    };
    Hsa->hsa_signal_store_screlease = [](hsa_signal_t, hsa_signal_value_t v) {
      queueDoorbell = v;
    };
    Ring.resize(16);
    std::memset(Ring.data(), 0, Ring.size() * sizeof(AqlSlot));
    Queue.size = Ring.size();
    Queue.base_address = Ring.data();
  }

  // A block of `bytes` for a ring of as many.
  KernargBlock block(uint64_t bytes) {
    Storage.assign(bytes / 8, 0);
    return {{reinterpret_cast<uint8_t *>(Storage.data()), bytes},
            kBlockAddress};
  }
  // Submits `input` at the queue's write index; the packets' slots.
  StatusOr<std::vector<AqlSlot>> submit(SubmissionInput input,
                                        KernargRing &ring,
                                        const KernargBlock &kernargs) {
    input.FirstPacket = queueWrite.load();
    KILN_ASSIGN_OR_RETURN(std::vector<AqlSlot> packets,
                          buildSubmission(input, ring, kernargs,
                                          [] { return queueRead.load(); }));
    AqlQueue queue(*Hsa, &Queue);
    KILN_RETURN_IF_ERROR(queue.submit(packets).status());
    return packets;
  }
  template <typename Packet> Packet at(uint64_t index) const {
    Packet packet;
    std::memcpy(&packet, &Ring[index % Ring.size()], sizeof(packet));
    return packet;
  }
  template <typename T>
  T kernarg(const hsa_kernel_dispatch_packet_t &packet, uint64_t at) const {
    uint64_t offset =
        reinterpret_cast<uintptr_t>(packet.kernarg_address) - kBlockAddress;
    T value;
    std::memcpy(&value,
                reinterpret_cast<const uint8_t *>(Storage.data()) + offset + at,
                sizeof(T));
    return value;
  }

  std::shared_ptr<HsaSymbols> Hsa = hostSignalSymbols();
  AmdgpuKernel Add, Count;
  hsa_queue_t Queue = {};
  std::vector<AqlSlot> Ring;
  std::vector<uint64_t> Storage;
  uint64_t Bindings[3] = {0x1000, 0x2000, 0x3000};
  uint32_t Push[2] = {7, 9};
};

TEST_F(SubmissionPacketsTest, BarriersThenDispatchesThenTheCompletionSignal) {
  WaitPlan waits;
  for (int i = 0; i < 6; ++i)
    waits.Signals.push_back(*CompletionSignal::create(Hsa, 1));
  KernelDispatch dispatches[2];
  dispatches[0] = {&Add, {10, 1, 1}, Bindings, Push};
  dispatches[1] = {&Count, {3, 2, 1}, {Bindings, 1}, {}};
  KernargRing ring(4096);
  auto kernargs = block(4096);
  queueRead = queueWrite = 13; // the ring wraps in the middle
  auto packets = submit({&waits, dispatches, 0x5151, 0}, ring, kernargs);
  ASSERT_TRUE(packets.ok()) << packets.status().toString();
  ASSERT_EQ(packets->size(), 4u);
  EXPECT_EQ(queueDoorbell.load(), 16);

  // Both barriers, five signals and one, in wait-list order.
  auto first = at<hsa_barrier_and_packet_t>(13);
  auto second = at<hsa_barrier_and_packet_t>(14);
  EXPECT_EQ(first.header,
            aqlHeader(HSA_PACKET_TYPE_BARRIER_AND,
                      {true, FenceScope::System, FenceScope::Agent}));
  EXPECT_EQ(second.header,
            aqlHeader(HSA_PACKET_TYPE_BARRIER_AND,
                      {true, FenceScope::Agent, FenceScope::Agent}));
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(first.dep_signal[i].handle, waits.Signals[i]->handle());
  EXPECT_EQ(second.dep_signal[0].handle, waits.Signals[5]->handle());
  EXPECT_EQ(first.completion_signal.handle, 0u);
  EXPECT_EQ(second.completion_signal.handle, 0u);

  auto add = at<hsa_kernel_dispatch_packet_t>(15);
  EXPECT_EQ(add.header,
            aqlHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH,
                      {true, FenceScope::Agent, FenceScope::Agent}));
  EXPECT_EQ(add.kernel_object, 0xa000u);
  EXPECT_EQ(add.grid_size_x, 640u);
  EXPECT_EQ(add.workgroup_size_x, 64u);
  EXPECT_EQ(add.group_segment_size, Add.Plan.GroupSegmentBytes);
  EXPECT_EQ(add.completion_signal.handle, 0u);
  EXPECT_EQ(kernarg<uint64_t>(add, 0), 0x1000u);
  EXPECT_EQ(kernarg<uint64_t>(add, 16), 0x3000u);
  EXPECT_EQ(kernarg<uint32_t>(add, 24), 7u);
  EXPECT_EQ(kernarg<uint32_t>(add, 28), 9u);

  auto count = at<hsa_kernel_dispatch_packet_t>(16);
  EXPECT_EQ(count.header,
            aqlHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH,
                      {true, FenceScope::Agent, FenceScope::System}));
  EXPECT_EQ(count.kernel_object, 0xb000u);
  EXPECT_EQ(count.grid_size_x, 768u);
  EXPECT_EQ(count.grid_size_y, 2u);
  EXPECT_EQ(kernarg<uint64_t>(count, 0), 0x1000u);
  EXPECT_EQ(count.completion_signal.handle, 0x5151u);
  // Each dispatch's kernargs in a piece of its own, aligned for AQL.
  uint64_t addAt = reinterpret_cast<uintptr_t>(add.kernarg_address);
  uint64_t countAt = reinterpret_cast<uintptr_t>(count.kernarg_address);
  EXPECT_EQ(addAt, kBlockAddress);
  EXPECT_GE(countAt, addAt + Add.Plan.Kernargs.size());
  EXPECT_EQ(countAt % 16, 0u);
}

TEST_F(SubmissionPacketsTest, NothingToDoIsOneBarrierCountingDown) {
  KernargRing ring(1024);
  auto kernargs = block(1024);
  auto packets = submit({nullptr, {}, 0x77, 0}, ring, kernargs);
  ASSERT_TRUE(packets.ok());
  ASSERT_EQ(packets->size(), 1u);
  auto only = at<hsa_barrier_and_packet_t>(0);
  EXPECT_EQ(only.header,
            aqlHeader(HSA_PACKET_TYPE_BARRIER_AND,
                      {true, FenceScope::System, FenceScope::System}));
  for (const hsa_signal_t &signal : only.dep_signal)
    EXPECT_EQ(signal.handle, 0u);
  EXPECT_EQ(only.completion_signal.handle, 0x77u);
  EXPECT_EQ(ring.bytesInUse(), 0u);
}

TEST_F(SubmissionPacketsTest, AFullKernargRingWaitsForTheGpu) {
  uint64_t bytes = (Add.Plan.Kernargs.size() + 15) / 16 * 16;
  KernargRing ring(2 * bytes);
  auto kernargs = block(2 * bytes);
  KernelDispatch two[] = {{&Add, {1, 1, 1}, Bindings, Push},
                          {&Add, {2, 1, 1}, Bindings, Push}};
  ASSERT_TRUE(submit({nullptr, two, 1, 0}, ring, kernargs).ok());
  // Both pieces are in use until the GPU is past packet 0.
  std::thread gpu([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    queueRead = 1;
  });
  KernelDispatch one[] = {{&Add, {3, 1, 1}, Bindings, Push}};
  auto start = std::chrono::steady_clock::now();
  auto packets = submit({nullptr, one, 2, 0}, ring, kernargs);
  auto waited = std::chrono::steady_clock::now() - start;
  gpu.join();
  ASSERT_TRUE(packets.ok()) << packets.status().toString();
  EXPECT_GE(waited, std::chrono::milliseconds(15));
  // Packet 0's piece, now free again.
  auto third = at<hsa_kernel_dispatch_packet_t>(2);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(third.kernarg_address), kBlockAddress);
  EXPECT_EQ(third.grid_size_x, 192u);
}

TEST_F(SubmissionPacketsTest, ASubmissionLargerThanTheKernargBlockIsRefused) {
  uint64_t bytes = (Add.Plan.Kernargs.size() + 15) / 16 * 16;
  KernargRing ring(bytes);
  auto kernargs = block(bytes);
  KernelDispatch two[] = {{&Add, {1, 1, 1}, Bindings, Push},
                          {&Add, {1, 1, 1}, Bindings, Push}};
  auto packets = submit({nullptr, two, 1, 0}, ring, kernargs);
  EXPECT_EQ(packets.status().code(), StatusCode::ResourceExhausted);
  EXPECT_EQ(packets.status().message().find('\n'), std::string::npos);
  EXPECT_EQ(queueWrite.load(), 0u);
}

TEST_F(SubmissionPacketsTest, BadDispatchesAreRefused) {
  KernargRing ring(4096);
  auto kernargs = block(4096);
  KernelDispatch noKernel[] = {{nullptr, {1, 1, 1}, {}, {}}};
  KernelDispatch noGrid[] = {{&Add, {0, 1, 1}, Bindings, Push}};
  KernelDispatch tooFewBindings[] = {{&Add, {1, 1, 1}, {Bindings, 2}, Push}};
  for (auto dispatches : {std::span<const KernelDispatch>(noKernel),
                          std::span<const KernelDispatch>(noGrid),
                          std::span<const KernelDispatch>(tooFewBindings)}) {
    auto packets = submit({nullptr, dispatches, 1, 0}, ring, kernargs);
    EXPECT_EQ(packets.status().code(), StatusCode::InvalidArgument)
        << packets.status().toString();
  }
  // A grid out of range takes no kernarg memory.
  KernargRing fresh(4096);
  EXPECT_FALSE(submit({nullptr, noGrid, 1, 0}, fresh, kernargs).ok());
  EXPECT_EQ(fresh.bytesInUse(), 0u);
  KernargBlock misaligned = kernargs;
  misaligned.DeviceAddress += 8;
  KernelDispatch good[] = {{&Add, {1, 1, 1}, Bindings, Push}};
  EXPECT_EQ(submit({nullptr, good, 1, 0}, fresh, misaligned).status().code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(queueWrite.load(), 0u);
}

} // namespace
} // namespace kiln::hal::amdgpu
