//===- HipApiTest.cpp - Code objects are checked before HIP sees them -----===//
//
// Without an AMD GPU nothing here calls HIP: every image below is refused
// before hipModuleLoadData would be reached, which is what is tested (the
// symbol table is empty, so a call would crash, not pass).
//
//===----------------------------------------------------------------------===//

#include "runtime/hal/drivers/hip/HipApi.h"

#include "runtime/hal/drivers/amd/AmdTestKernels.h"

#include <gtest/gtest.h>

namespace kiln::hal::hip {
namespace {

class HipApiTest : public ::testing::Test {
protected:
  HipApiTest()
      : Api(std::make_shared<HipContext>(std::make_shared<HipSymbols>(), 0),
            "gfx942:sramecc+:xnack-") {}

  StatusOr<gpu::GpuModuleHandle> load(std::vector<uint8_t> image,
                                      const char *entry) {
    Image = std::move(image);
    ExecutableSpec spec;
    spec.Name = "dispatches";
    spec.Format = "amdgpu-hsaco";
    spec.Target = "gfx942";
    spec.Image = Image;
    EntryPointSpec point;
    point.Name = entry;
    spec.EntryPoints = {point};
    return Api.loadModule(spec);
  }

  HipApi Api;
  std::vector<uint8_t> Image;
};

TEST_F(HipApiTest, GarbageIsRefusedNamingTheExecutable) {
  auto loaded = load(std::vector<uint8_t>(4096, 0x7f), "add_f32");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(loaded.status().message().find("dispatches"), std::string::npos)
      << loaded.status().toString();
}

TEST_F(HipApiTest, AnotherChipsCodeObjectIsRefused) {
  std::vector<uint8_t> image = amd::readTestKernels("gfx1100");
  if (image.empty())
    GTEST_SKIP() << "the build found no llc/ld.lld to make test kernels";
  auto loaded = load(std::move(image), "add_f32");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::FailedPrecondition);
}

TEST_F(HipApiTest, MissingEntryPointIsRefused) {
  std::vector<uint8_t> image = amd::readTestKernels("gfx942");
  if (image.empty())
    GTEST_SKIP() << "the build found no llc/ld.lld to make test kernels";
  auto loaded = load(std::move(image), "no_such_kernel");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::NotFound);
  EXPECT_NE(loaded.status().message().find("no_such_kernel"),
            std::string::npos);
}

} // namespace
} // namespace kiln::hal::hip
