//===- AmdTargetTest.cpp --------------------------------------------------===//

#include "runtime/hal/drivers/amd/AmdTarget.h"

#include <gtest/gtest.h>

namespace kiln::hal::amd {
namespace {

TEST(AmdTargetTest, ProcessorNameDropsFeatures) {
  EXPECT_EQ(amdProcessorName("gfx90a:sramecc+:xnack-"), "gfx90a");
  EXPECT_EQ(amdProcessorName("gfx942"), "gfx942");
  EXPECT_EQ(amdProcessorName(""), "");
}

TEST(AmdTargetTest, HsacoRunsOnItsProcessorOnly) {
  EXPECT_TRUE(amdSupportsExecutable("amdgpu-hsaco", "gfx942",
                                    "gfx942:sramecc+:xnack-"));
  EXPECT_TRUE(amdSupportsExecutable("amdgpu-hsaco", "gfx1100", "gfx1100"));
  EXPECT_FALSE(amdSupportsExecutable("amdgpu-hsaco", "gfx940", "gfx942"));
  EXPECT_FALSE(amdSupportsExecutable("amdgpu-hsaco", "gfx94", "gfx942"));
  EXPECT_FALSE(amdSupportsExecutable("cuda-ptx", "gfx942", "gfx942"));
  EXPECT_FALSE(amdSupportsExecutable("amdgpu-hsaco", "sm_90", "sm_90"));
}

TEST(AmdTargetTest, FeaturesMustNotContradictTheDevice) {
  EXPECT_TRUE(amdSupportsExecutable("amdgpu-hsaco", "gfx90a:xnack-",
                                    "gfx90a:sramecc+:xnack-"));
  EXPECT_FALSE(amdSupportsExecutable("amdgpu-hsaco", "gfx90a:xnack+",
                                     "gfx90a:sramecc+:xnack-"));
  EXPECT_FALSE(amdSupportsExecutable("amdgpu-hsaco", "gfx90a:sramecc-",
                                     "gfx90a:sramecc+:xnack-"));
  // A device that does not say leaves the loader to decide.
  EXPECT_TRUE(amdSupportsExecutable("amdgpu-hsaco", "gfx90a:xnack+", "gfx90a"));
}

} // namespace
} // namespace kiln::hal::amd
