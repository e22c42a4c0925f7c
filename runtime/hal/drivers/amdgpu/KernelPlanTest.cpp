//===- KernelPlanTest.cpp -------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/KernelPlan.h"

#include "runtime/hal/drivers/amd/AmdTestKernels.h"

#include <gtest/gtest.h>

namespace kiln::hal::amdgpu {
namespace {

class KernelPlanTest : public amd::TestKernelsTest {
protected:
  void SetUp() override {
    amd::TestKernelsTest::SetUp();
    if (IsSkipped() || HasFatalFailure())
      return;
    Spec.Name = "dispatches";
    Spec.Format = "amdgpu-hsaco";
    Spec.Target = "gfx942";
    Spec.Image = Image;
    Spec.EntryPoints = {entry("count_workgroups", 1, 0, 256),
                        entry("add_f32", 3, 2, 64)};
  }
  static EntryPointSpec entry(const char *name, uint32_t bindings,
                              uint32_t push, uint32_t threads) {
    EntryPointSpec spec;
    spec.Name = name;
    spec.BindingCount = bindings;
    spec.PushConstantCount = push;
    spec.WorkgroupSize = {threads, 1, 1};
    return spec;
  }
  ExecutableSpec Spec;
};

TEST_F(KernelPlanTest, EntryPointsInOrderWithTheirLdsAndKernargs) {
  Spec.EntryPoints[1].SharedMemoryBytes = 1024;
  auto plans = planKernels(Object, Spec, 65536);
  ASSERT_TRUE(plans.ok()) << plans.status().toString();
  ASSERT_EQ(plans->size(), 2u);
  EXPECT_EQ((*plans)[0].Symbol, "count_workgroups.kd");
  EXPECT_EQ((*plans)[0].GroupSegmentBytes, 0u);
  EXPECT_EQ((*plans)[1].Symbol, "add_f32.kd");
  // 256 bytes of static LDS and the entry point's 1 KiB.
  EXPECT_EQ((*plans)[1].GroupSegmentBytes, 1280u);
  EXPECT_EQ((*plans)[1].DynamicGroupSegmentBytes, 1024u);
  EXPECT_EQ((*plans)[1].WorkgroupSize, (std::array<uint32_t, 3>{64, 1, 1}));
  EXPECT_EQ((*plans)[1].PrivateSegmentBytes, 0u);
  EXPECT_GE((*plans)[1].Kernargs.size(), 32u);
}

TEST_F(KernelPlanTest, WhatDoesNotFitIsRefusedNamingTheEntryPoint) {
  auto expect = [&](const char *what) {
    auto plans = planKernels(Object, Spec, 65536);
    ASSERT_FALSE(plans.ok()) << what;
    EXPECT_NE(plans.status().message().find(what), std::string::npos)
        << plans.status().toString();
    EXPECT_EQ(plans.status().message().find('\n'), std::string::npos);
  };
  ExecutableSpec good = Spec;
  Spec.EntryPoints[1].WorkgroupSize = {128, 1, 1};
  expect("128 work-items, the kernel allows 64");
  Spec = good;
  Spec.EntryPoints[1].SharedMemoryBytes = 65536;
  expect("65792 bytes of LDS");
  Spec = good;
  Spec.EntryPoints[1].PushConstantCount = 1;
  expect("entry point 'add_f32'");
  Spec = good;
  Spec.EntryPoints.push_back(entry("main", 0, 0, 1));
  expect("no kernel 'main'");
}

} // namespace
} // namespace kiln::hal::amdgpu
