//===- MemoryPoolsTest.cpp ------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/MemoryPools.h"

#include <hsa/hsa_ext_amd.h>

#include <gtest/gtest.h>

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

} // namespace
} // namespace kiln::hal::amdgpu
