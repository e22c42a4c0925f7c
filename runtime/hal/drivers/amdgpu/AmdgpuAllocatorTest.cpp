//===- AmdgpuAllocatorTest.cpp - Buffers from the device's HSA pools ------===//
//
// Through the HSA system of TestHsa.h, whose pool memory is heap memory:
// which pool each memory type comes from, which GPUs are given access, the
// statistics the HAL keeps, and refusals. Whether a second GPU can really
// reach the first one's memory (peer access) shows only on AMD hardware.
//
//===----------------------------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/AmdgpuAllocator.h"

#include "runtime/hal/drivers/amdgpu/TestHsa.h"

#include <gtest/gtest.h>

namespace kiln::hal::amdgpu {
namespace {

using namespace testing;

constexpr uint64_t kGpu0DevicePool = 2 * 16 + kDevicePool;
constexpr uint64_t kHostPoolHandle = kHostAgent * 16 + kHostPool;

class AmdgpuAllocatorTest : public ::testing::Test {
protected:
  std::unique_ptr<AmdgpuAllocator> make(std::vector<hsa_agent_t> gpus,
                                        TestHsaSystem system = {}) {
    Hsa = testHsa(std::move(system));
    return std::make_unique<AmdgpuAllocator>(
        Hsa, hsa_amd_memory_pool_t{kGpu0DevicePool}, 1 << 20,
        hsa_amd_memory_pool_t{kHostPoolHandle}, std::move(gpus));
  }
  const TestHsaSystem::Allocation &allocationOf(const Buffer &buffer) {
    auto address = dynamic_cast<const gpu::GpuBuffer &>(buffer).deviceAddress();
    return testSystem.Allocations.at(reinterpret_cast<void *>(address));
  }
  std::shared_ptr<HsaSymbols> Hsa;
};

TEST_F(AmdgpuAllocatorTest, DeviceLocalFromTheGpuPoolHostVisibleMappedForIt) {
  auto allocator = make({{2}});
  EXPECT_TRUE(allocator->supportsMemoryType(MemoryType::DeviceLocal));
  EXPECT_TRUE(allocator->supportsMemoryType(MemoryType::HostVisible));
  EXPECT_FALSE(allocator->supportsMemoryType(MemoryType::DeviceLocal |
                                             MemoryType::HostVisible));
  auto device =
      allocator->allocate(1000, MemoryType::DeviceLocal, BufferUsage::Transfer);
  ASSERT_TRUE(device.ok()) << device.status().toString();
  EXPECT_EQ(allocationOf(**device).Pool, kGpu0DevicePool);
  EXPECT_EQ(allocationOf(**device).Size, 1000u);
  // Its own pool: nothing to allow.
  EXPECT_TRUE(allocationOf(**device).Access.empty());
  EXPECT_FALSE((*device)->map().ok());

  auto host =
      allocator->allocate(64, MemoryType::HostVisible, BufferUsage::All);
  ASSERT_TRUE(host.ok()) << host.status().toString();
  EXPECT_EQ(allocationOf(**host).Pool, kHostPoolHandle);
  EXPECT_EQ(allocationOf(**host).Access, std::vector<uint64_t>{2});
  auto mapped = (*host)->map();
  ASSERT_TRUE(mapped.ok());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(mapped->data()),
            dynamic_cast<gpu::GpuBuffer &>(**host).deviceAddress());

  // A zero-byte buffer still has memory of its own.
  auto empty =
      allocator->allocate(0, MemoryType::DeviceLocal, BufferUsage::Transfer);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(allocationOf(**empty).Size, 1u);

  AllocatorStatistics counted = allocator->statistics();
  EXPECT_EQ(counted.DeviceLocal.LiveBuffers, 2u);
  EXPECT_EQ(counted.HostVisible.LiveBytes, 64u);
  device->reset();
  host->reset();
  empty->reset();
  EXPECT_TRUE(testSystem.Allocations.empty());
  EXPECT_EQ(allocator->statistics().DeviceLocal.Frees, 2u);
}

TEST_F(AmdgpuAllocatorTest, EveryGpuOfADeviceReachesItsMemory) {
  auto allocator = make({{2}, {3}, {4}});
  auto device =
      allocator->allocate(16, MemoryType::DeviceLocal, BufferUsage::Dispatch);
  ASSERT_TRUE(device.ok());
  EXPECT_EQ(allocationOf(**device).Access, (std::vector<uint64_t>{3, 4}));
  auto host =
      allocator->allocate(16, MemoryType::HostVisible, BufferUsage::Mapping);
  ASSERT_TRUE(host.ok());
  EXPECT_EQ(allocationOf(**host).Access, (std::vector<uint64_t>{2, 3, 4}));
}

TEST_F(AmdgpuAllocatorTest, RefusalsSayWhyAndLeakNothing) {
  auto allocator = make({{2}, {3}});
  auto large = allocator->allocate((1 << 20) + 1, MemoryType::DeviceLocal,
                                   BufferUsage::Transfer);
  EXPECT_EQ(large.status().code(), StatusCode::ResourceExhausted);
  EXPECT_NE(large.status().message().find("the GPU has 1048576 bytes"),
            std::string::npos)
      << large.status().toString();
  EXPECT_EQ(allocator->statistics().OutOfMemory, 1u);
  testSystem.Failing = "hsa_amd_memory_pool_allocate";
  auto failed =
      allocator->allocate(16, MemoryType::HostVisible, BufferUsage::All);
  EXPECT_EQ(failed.status().code(), StatusCode::ResourceExhausted);
  EXPECT_NE(failed.status().message().find("HostVisible"), std::string::npos);
  testSystem.Failing = "hsa_amd_agents_allow_access";
  auto denied =
      allocator->allocate(16, MemoryType::DeviceLocal, BufferUsage::All);
  EXPECT_FALSE(denied.ok());
  EXPECT_TRUE(testSystem.Allocations.empty());
}

TEST_F(AmdgpuAllocatorTest, ImportsAreCopies) {
  auto allocator = make({{2}});
  static void *copiedTo;
  static std::vector<uint8_t> copied;
  Hsa->hsa_memory_copy = [](void *target, const void *source, size_t size) {
    copiedTo = target;
    copied.assign(static_cast<const uint8_t *>(source),
                  static_cast<const uint8_t *>(source) + size);
    return HSA_STATUS_SUCCESS;
  };
  std::vector<uint8_t> data = {1, 2, 3, 4, 5};
  auto mapped = allocator->importHostMemory(data, BufferUsage::All, nullptr);
  ASSERT_TRUE(mapped.ok()) << mapped.status().toString();
  EXPECT_EQ((*mapped)->memoryType(), MemoryType::HostVisible);
  auto read = (*mapped)->mapRead();
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(std::vector<uint8_t>(read->begin(), read->end()), data);
  EXPECT_NE(read->data(), data.data());
  EXPECT_FALSE((*mapped)->map().ok()) << "imports are read-only";

  auto device =
      allocator->importHostMemory(data, BufferUsage::Dispatch, nullptr);
  ASSERT_TRUE(device.ok()) << device.status().toString();
  EXPECT_EQ((*device)->memoryType(), MemoryType::DeviceLocal);
  EXPECT_EQ(copiedTo,
            reinterpret_cast<void *>(
                dynamic_cast<gpu::GpuBuffer &>(**device).deviceAddress()));
  EXPECT_EQ(copied, data);
  // The staging copy is gone; the two buffers remain.
  EXPECT_EQ(testSystem.Allocations.size(), 2u);
}

} // namespace
} // namespace kiln::hal::amdgpu
