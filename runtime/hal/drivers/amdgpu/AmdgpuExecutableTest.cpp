//===- AmdgpuExecutableTest.cpp - Images are checked before HSA sees them -===//
//
// Without an AMD GPU nothing here calls HSA: every image below is refused
// before the loader would be reached, which is what is tested (the symbol
// table is empty, so a call would crash, not pass).
//
//===----------------------------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/AmdgpuExecutable.h"

#include "runtime/hal/drivers/amd/AmdTestKernels.h"

#include <gtest/gtest.h>

namespace kiln::hal::amdgpu {
namespace {

StatusOr<std::unique_ptr<AmdgpuExecutable>>
load(const std::vector<uint8_t> &image, const char *entry,
     uint32_t bindings = 3, uint32_t push = 2) {
  ExecutableSpec spec;
  spec.Name = "dispatches";
  spec.Format = "amdgpu-hsaco";
  spec.Target = "gfx942";
  spec.Image = image;
  EntryPointSpec point;
  point.Name = entry;
  point.BindingCount = bindings;
  point.PushConstantCount = push;
  spec.EntryPoints = {point};
  return AmdgpuExecutable::load(std::make_shared<HsaSymbols>(), {0},
                                "gfx942:sramecc+:xnack-", 65536, spec);
}

TEST(AmdgpuExecutableTest, HostileImagesNeverReachHsa) {
  auto garbage = load(std::vector<uint8_t>(4096, 0x7f), "add_f32");
  ASSERT_FALSE(garbage.ok());
  EXPECT_NE(garbage.status().message().find("dispatches"), std::string::npos);
  std::vector<uint8_t> other = amd::readTestKernels("gfx1100");
  std::vector<uint8_t> mine = amd::readTestKernels("gfx942");
  if (other.empty() || mine.empty())
    GTEST_SKIP() << "the build found no llc/ld.lld to make test kernels";
  EXPECT_EQ(load(other, "add_f32").status().code(),
            StatusCode::FailedPrecondition);
  EXPECT_EQ(load(mine, "no_such_kernel").status().code(),
            StatusCode::InvalidArgument);
  // Arguments the entry point does not declare.
  auto mismatched = load(mine, "add_f32", 1, 0);
  ASSERT_FALSE(mismatched.ok());
  EXPECT_NE(mismatched.status().message().find("add_f32"), std::string::npos);
}

} // namespace
} // namespace kiln::hal::amdgpu
