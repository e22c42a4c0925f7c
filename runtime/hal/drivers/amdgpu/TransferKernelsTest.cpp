//===- TransferKernelsTest.cpp - The embedded fill and copy kernels -------===//
//
// The code objects are read as HSA's loader would be given them: each
// embedded one is for its processor and has the entry points the driver
// dispatches, with the kernel arguments it packs. Whether the kernels fill
// and copy correctly can only be run on an AMD GPU (the CTS's fill and
// copy cases over amdgpu, scripts/test-gpu.sh).
//
//===----------------------------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/TransferKernels.h"

#include "runtime/hal/drivers/amdgpu/KernelPlan.h"

#include <gtest/gtest.h>

namespace kiln::hal::amdgpu {
namespace {

TEST(TransferKernelsTest, EveryArchitectureHasCodeObjectsTheDriverCanPlan) {
  std::vector<std::string> processors = transferKernelProcessors();
#ifdef KILN_AMDGPU_TRANSFER_KERNELS_EXPECTED
  ASSERT_FALSE(processors.empty());
#ifdef KILN_CTS_HSACO_CHIPS
  // The same architectures the suite's kernels are built for.
  std::string joined;
  for (const std::string &processor : processors)
    joined += (joined.empty() ? "" : ",") + processor;
  EXPECT_EQ(joined, KILN_CTS_HSACO_CHIPS);
#endif
#else
  if (processors.empty())
    GTEST_SKIP() << "built without the compiler: no transfer kernels";
#endif
  for (const std::string &processor : processors) {
    auto image = transferKernelImage(processor);
    ASSERT_TRUE(image.ok()) << image.status().toString();
    ExecutableSpec spec = transferKernelSpec(processor, *image);
    auto object = amd::readCodeObject(*image, processor);
    ASSERT_TRUE(object.ok()) << processor << ": " << object.status().toString();
    auto plans = planKernels(*object, spec, 65536);
    ASSERT_TRUE(plans.ok()) << processor << ": " << plans.status().toString();
    ASSERT_EQ(plans->size(), 6u);
    EXPECT_EQ((*plans)[uint32_t(TransferKernel::FillX16)].Symbol,
              "fill_x16.kd");
    EXPECT_EQ((*plans)[uint32_t(TransferKernel::CopyX16)].Symbol,
              "copy_x16.kd");
    EXPECT_EQ((*plans)[uint32_t(TransferKernel::FillX4)].Symbol, "fill_x4.kd");
    EXPECT_EQ((*plans)[uint32_t(TransferKernel::CopyX1)].Symbol, "copy_x1.kd");
    for (const KernelPlan &plan : *plans) {
      EXPECT_EQ(plan.WorkgroupSize[0], kTransferWorkgroupSize);
      EXPECT_EQ(plan.GroupSegmentBytes, 0u) << processor;
    }
  }
}

TEST(TransferKernelsTest, AnUnknownProcessorNamesTheKnownOnes) {
  auto image = transferKernelImage("gfx000");
  EXPECT_EQ(image.status().code(), StatusCode::NotFound);
  EXPECT_NE(image.status().message().find("gfx000"), std::string::npos)
      << image.status().toString();
}

TEST(TransferKernelsTest, FillsWriteTheWidestElementsAlignmentAllows) {
  struct Case {
    uint64_t Target, Length;
    uint32_t Pattern;
    uint8_t PatternLength;
    TransferKernel Kernel;
    uint32_t Workgroups;
    std::vector<uint32_t> PushConstants;
  };
  for (const Case &fill : std::vector<Case>{{0x1000,
                                             4096,
                                             0xab,
                                             1,
                                             TransferKernel::FillX16,
                                             1,
                                             {256, 0, 256, 0xababababu}},
                                            {0x1004,
                                             4096,
                                             0xab,
                                             1,
                                             TransferKernel::FillX4,
                                             4,
                                             {1024, 0, 1024, 0xababababu}},
                                            {0x1002,
                                             6,
                                             0x1234,
                                             2,
                                             TransferKernel::FillX1,
                                             1,
                                             {6, 0, 256, 0x12341234u}}}) {
    TransferDispatch planned =
        planFill(fill.Target, fill.Length, fill.Pattern, fill.PatternLength);
    EXPECT_EQ(planned.Kernel, fill.Kernel) << fill.Target;
    EXPECT_EQ(planned.Bindings, std::vector<uint64_t>{fill.Target});
    EXPECT_EQ(planned.Workgroups, fill.Workgroups) << fill.Target;
    EXPECT_EQ(planned.PushConstants, fill.PushConstants) << fill.Target;
  }

  TransferDispatch odd = planFill(0x1000, 5, 0x7f, 1);
  EXPECT_EQ(odd.Kernel, TransferKernel::FillX1);
  EXPECT_EQ(odd.PushConstants[3], 0x7f7f7f7fu);

  // Beyond 2^32 elements: both halves of the count, the grid capped.
  uint64_t huge = (uint64_t(5) << 32) + 8;
  TransferDispatch large = planFill(0, huge, 0xdeadbeef, 4);
  EXPECT_EQ(large.Kernel, TransferKernel::FillX4);
  EXPECT_EQ(large.Workgroups, kMaxTransferWorkgroups);
  EXPECT_EQ(
      large.PushConstants,
      (std::vector<uint32_t>{uint32_t(huge / 4), uint32_t((huge / 4) >> 32),
                             kMaxTransferWorkgroups * 256, 0xdeadbeefu}));
}

TEST(TransferKernelsTest, CopiesAreAsWideAsAllThreeValuesAllow) {
  TransferDispatch wide = planCopy(0x2000, 0x3000, 1024);
  EXPECT_EQ(wide.Kernel, TransferKernel::CopyX16);
  EXPECT_EQ(wide.Bindings, (std::vector<uint64_t>{0x2000, 0x3000}));
  EXPECT_EQ(wide.PushConstants, (std::vector<uint32_t>{64, 0, 256}));
  EXPECT_EQ(planCopy(0x2000, 0x3000, 1028).Kernel, TransferKernel::CopyX4);
  EXPECT_EQ(planCopy(0x2008, 0x3000, 1024).Kernel, TransferKernel::CopyX4);
  TransferDispatch words = planCopy(0x2000, 0x3004, 1024);
  EXPECT_EQ(words.Kernel, TransferKernel::CopyX4);
  EXPECT_EQ(words.PushConstants, (std::vector<uint32_t>{256, 0, 256}));
  EXPECT_EQ(planCopy(0x2001, 0x3000, 1024).Kernel, TransferKernel::CopyX1);
  EXPECT_EQ(planCopy(0x2000, 0x3002, 1024).Kernel, TransferKernel::CopyX1);
  TransferDispatch bytes = planCopy(0x2000, 0x3000, 1023);
  EXPECT_EQ(bytes.Kernel, TransferKernel::CopyX1);
  EXPECT_EQ(bytes.Workgroups, 4u);
  EXPECT_EQ(bytes.PushConstants, (std::vector<uint32_t>{1023, 0, 1024}));
}

} // namespace
} // namespace kiln::hal::amdgpu
