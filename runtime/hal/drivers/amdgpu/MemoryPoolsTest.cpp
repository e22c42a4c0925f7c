//===- MemoryPoolsTest.cpp ------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/MemoryPools.h"

#include "runtime/hal/drivers/amdgpu/TestHsa.h"

#include <hsa/hsa_ext_amd.h>

#include <gtest/gtest.h>

#include <iterator>

namespace kiln::hal::amdgpu {
namespace {

constexpr uint32_t kKernarg = HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT;
constexpr uint32_t kFine = HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED;
constexpr uint32_t kCoarse = HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED;

PoolFacts global(uint32_t flags, uint64_t size, bool allowed = true) {
  return {HSA_AMD_SEGMENT_GLOBAL, flags, allowed, size};
}

TEST(MemoryPoolsTest, ATypicalDiscreteGpu) {
  // As an MI-series GPU lists them: a group (LDS) pool, coarse and fine
  // device memory; the host: kernarg (fine-grained too), fine, coarse.
  PoolFacts gpu[] = {{HSA_AMD_SEGMENT_GROUP, 0, false, 65536},
                     global(kFine, 64ull << 30),
                     global(kCoarse, 192ull << 30)};
  PoolFacts host[] = {global(kFine | kKernarg, 512ull << 30),
                      global(kFine, 512ull << 30),
                      global(kCoarse, 512ull << 30)};
  auto chosen = choosePools(gpu, host);
  ASSERT_TRUE(chosen.ok()) << chosen.status().toString();
  EXPECT_EQ(chosen->Device, 2u);
  EXPECT_EQ(chosen->Kernarg, 0u);
  EXPECT_EQ(chosen->Host, 0u); // the first of two equal fine pools
}

TEST(MemoryPoolsTest, PoolsTheRuntimeCannotAllocateFromAreSkipped) {
  PoolFacts gpu[] = {global(kCoarse, 1ull << 40, false),
                     global(kCoarse, 1ull << 30)};
  PoolFacts host[] = {global(kFine | kKernarg, 1ull << 30)};
  auto chosen = choosePools(gpu, host);
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(chosen->Device, 1u);
  EXPECT_EQ(chosen->Host, 0u);
}

TEST(MemoryPoolsTest, WhatIsMissingIsNamed) {
  PoolFacts host[] = {global(kFine | kKernarg, 1ull << 30)};
  PoolFacts fineOnly[] = {global(kFine, 1ull << 30)};
  PoolFacts gpu[] = {global(kCoarse, 1ull << 30)};
  EXPECT_NE(
      choosePools(fineOnly, host).status().message().find("coarse-grained"),
      std::string::npos);
  EXPECT_NE(choosePools(gpu, fineOnly).status().message().find("kernarg"),
            std::string::npos);
  EXPECT_EQ(choosePools(gpu, {}).status().code(), StatusCode::NotFound);
}

// The pools two agents list through the test's HSA functions: agent 1 the
// GPU, agent 2 the host; a pool's handle is its index in kListed plus one.
struct ListedPool {
  uint64_t Agent;
  PoolFacts Facts;
};
const ListedPool kListed[] = {
    {1, {HSA_AMD_SEGMENT_GROUP, 0, false, 65536}},
    {1, global(kFine, 64ull << 30)},
    {1, global(kCoarse, 192ull << 30)},
    {2, global(kFine | kKernarg, 512ull << 30)},
    {2, global(kFine, 256ull << 30)},
};
// An attribute the test's get_info refuses, or -1 for none.
int refusedAttribute = -1;

hsa_status_t iteratePools(hsa_agent_t agent,
                          hsa_status_t (*callback)(hsa_amd_memory_pool_t,
                                                   void *),
                          void *data) {
  for (size_t i = 0; i < std::size(kListed); ++i)
    if (kListed[i].Agent == agent.handle)
      if (hsa_status_t status = callback({i + 1}, data);
          status != HSA_STATUS_SUCCESS)
        return status;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t listedPoolInfo(hsa_amd_memory_pool_t pool,
                            hsa_amd_memory_pool_info_t attribute, void *value) {
  if (int(attribute) == refusedAttribute)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return testing::poolInfo(kListed[pool.handle - 1].Facts, attribute, value);
}

class ListedPoolsTest : public ::testing::Test {
protected:
  void SetUp() override {
    refusedAttribute = -1;
    Hsa.hsa_amd_agent_iterate_memory_pools = iteratePools;
    Hsa.hsa_amd_memory_pool_get_info = listedPoolInfo;
    Hsa.hsa_status_string = [](hsa_status_t, const char **text) {
      *text = "invalid argument";
      return HSA_STATUS_SUCCESS;
    };
  }
  HsaSymbols Hsa;
};

TEST_F(ListedPoolsTest, AnAgentsPoolsWithTheirFacts) {
  auto gpu = listPools(Hsa, {1});
  ASSERT_TRUE(gpu.ok()) << gpu.status().toString();
  ASSERT_EQ(gpu->Pools.size(), 3u);
  ASSERT_EQ(gpu->Facts.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(gpu->Pools[i].handle, i + 1);
    EXPECT_EQ(gpu->Facts[i].Segment, kListed[i].Facts.Segment);
    EXPECT_EQ(gpu->Facts[i].GlobalFlags, kListed[i].Facts.GlobalFlags);
    EXPECT_EQ(gpu->Facts[i].Size, kListed[i].Facts.Size);
    EXPECT_EQ(gpu->Facts[i].AllocationAllowed,
              kListed[i].Facts.AllocationAllowed);
  }
  EXPECT_TRUE(listPools(Hsa, {3})->Pools.empty());
}

TEST_F(ListedPoolsTest, TheDevicesPoolsFromBothAgents) {
  auto pools = findPools(Hsa, {1}, {2});
  ASSERT_TRUE(pools.ok()) << pools.status().toString();
  EXPECT_EQ(pools->Device.handle, 3u);
  EXPECT_EQ(pools->Kernarg.handle, 4u);
  // The largest fine-grained host pool, which here is the kernarg one.
  EXPECT_EQ(pools->Host.handle, 4u);
  // The device pool's size and the LDS a workgroup may use, for the
  // device's limits.
  EXPECT_EQ(pools->DeviceBytes, 192ull << 30);
  EXPECT_EQ(pools->GroupSegmentBytes, 65536u);
  // A host agent without pools: one line naming what is missing.
  auto none = findPools(Hsa, {1}, {3});
  EXPECT_EQ(none.status().code(), StatusCode::NotFound);
  EXPECT_NE(none.status().message().find("kernarg"), std::string::npos);
}

TEST_F(ListedPoolsTest, HsaErrorsNameTheCall) {
  refusedAttribute = HSA_AMD_MEMORY_POOL_INFO_SIZE;
  auto pools = listPools(Hsa, {1});
  EXPECT_EQ(pools.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(pools.status().message().find("hsa_amd_memory_pool_get_info"),
            std::string::npos)
      << pools.status().toString();
}

} // namespace
} // namespace kiln::hal::amdgpu
