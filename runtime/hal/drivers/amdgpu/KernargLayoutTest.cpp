//===- KernargLayoutTest.cpp - Kernargs laid out from real metadata -------===//

#include "runtime/hal/drivers/amdgpu/KernargLayout.h"

#include "runtime/hal/drivers/amd/AmdTestKernels.h"
#include "runtime/hal/drivers/amd/CodeObject.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <tuple>

namespace kiln::hal::amdgpu {
namespace {

template <typename T> T readAt(const std::vector<uint8_t> &bytes, size_t at) {
  T value;
  std::memcpy(&value, bytes.data() + at, sizeof(T));
  return value;
}

class KernargLayoutTest : public amd::TestKernelsTest {
protected:
  const amd::KernelMetadata &kernel(const char *name) {
    return **amd::findKernel(Object, name);
  }
};

TEST_F(KernargLayoutTest, ExplicitAndHiddenArgumentsLandWhereMetadataSays) {
  const amd::KernelMetadata &add = kernel("add_f32");
  auto layout = KernargLayout::create(add, 3, 2);
  ASSERT_TRUE(layout.ok()) << layout.status().toString();
  EXPECT_EQ(layout->size(), add.KernargSegmentSize);
  EXPECT_EQ(layout->alignment(), 8u);

  uint64_t bindings[] = {0x1000, 0x2000, 0x3000};
  uint32_t push[] = {77, 0x3f800000};
  KernargValues values;
  values.Bindings = bindings;
  values.PushConstants = push;
  values.Workgroups = {10, 2, 1};
  values.WorkgroupSize = {64, 1, 1};
  values.DynamicLdsBytes = 512;
  std::vector<uint8_t> segment(layout->size(), 0xee);
  ASSERT_TRUE(layout->pack(values, segment).ok());
  EXPECT_EQ(readAt<uint64_t>(segment, 0), 0x1000u);
  EXPECT_EQ(readAt<uint64_t>(segment, 8), 0x2000u);
  EXPECT_EQ(readAt<uint64_t>(segment, 16), 0x3000u);
  EXPECT_EQ(readAt<uint32_t>(segment, 24), 77u);
  EXPECT_EQ(readAt<uint32_t>(segment, 28), 0x3f800000u);
  // Every hidden argument the metadata lists, by its offset; the rest
  // (remainders, offsets, what Kiln does not provide) are zero.
  const std::map<std::string, uint64_t> expected = {
      {"hidden_block_count_x", 10}, {"hidden_block_count_y", 2},
      {"hidden_block_count_z", 1},  {"hidden_group_size_x", 64},
      {"hidden_group_size_y", 1},   {"hidden_group_size_z", 1},
      {"hidden_grid_dims", 2},      {"hidden_dynamic_lds_size", 512}};
  for (const amd::KernelArgument &argument : add.Arguments) {
    if (!argument.ValueKind.starts_with("hidden_"))
      continue;
    uint64_t value = 0;
    std::memcpy(&value, segment.data() + argument.Offset, argument.Size);
    auto found = expected.find(argument.ValueKind);
    EXPECT_EQ(value, found == expected.end() ? 0 : found->second)
        << argument.ValueKind;
  }
  // Bytes no argument covers are zero, not what the buffer held.
  EXPECT_EQ(segment[segment.size() - 1], 0);
}

TEST_F(KernargLayoutTest, EntryPointMustMatchTheExplicitArguments) {
  const amd::KernelMetadata &add = kernel("add_f32");
  auto fewer = KernargLayout::create(add, 3, 1);
  ASSERT_FALSE(fewer.ok());
  EXPECT_NE(fewer.status().message().find("add_f32"), std::string::npos);
  // A push constant where a pointer is.
  auto swapped = KernargLayout::create(add, 2, 3);
  ASSERT_FALSE(swapped.ok());
  EXPECT_NE(swapped.status().message().find("4-byte push constant"),
            std::string::npos)
      << swapped.status().toString();
  auto count = KernargLayout::create(kernel("count_workgroups"), 1, 0);
  EXPECT_TRUE(count.ok()) << count.status().toString();
}

TEST_F(KernargLayoutTest, PackChecksItsInputs) {
  auto layout = KernargLayout::create(kernel("count_workgroups"), 1, 0);
  ASSERT_TRUE(layout.ok());
  uint64_t binding = 0x1000;
  KernargValues values;
  values.Bindings = std::span(&binding, 1);
  std::vector<uint8_t> small(layout->size() - 1);
  EXPECT_EQ(layout->pack(values, small).code(), StatusCode::InvalidArgument);
  std::vector<uint8_t> segment(layout->size());
  values.Bindings = {};
  EXPECT_EQ(layout->pack(values, segment).code(), StatusCode::InvalidArgument);
}

TEST(KernargLayoutKindsTest, UnsupportedKindsAndSizesAreRefused) {
  amd::KernelMetadata kernel;
  kernel.Name = "k";
  kernel.KernargSegmentSize = 64;
  kernel.KernargSegmentAlign = 8;
  kernel.Arguments = {{"image", 0, 8}};
  auto image = KernargLayout::create(kernel, 1, 0);
  ASSERT_FALSE(image.ok());
  EXPECT_NE(image.status().message().find("'image' is not supported"),
            std::string::npos);
  kernel.Arguments = {{"hidden_block_count_x", 0, 8}};
  EXPECT_FALSE(KernargLayout::create(kernel, 0, 0).ok());
  // Hidden arguments Kiln does not fill are accepted and left zero.
  kernel.Arguments = {{"hidden_hostcall_buffer", 0, 8}};
  EXPECT_TRUE(KernargLayout::create(kernel, 0, 0).ok());
}

} // namespace
} // namespace kiln::hal::amdgpu

namespace kiln::hal::amdgpu {
namespace {

// The conformance suite's AMD kernels (runtime/hal/cts/kernels/CtsKernels.ll)
// take the bindings and push constants the suite's entry points declare, on
// every processor they are built for: what the suite will dispatch on the
// first AMD GPU is laid out here first.
TEST(CtsKernelsAbiTest, EveryChipsKernelsMatchTheSuitesEntryPoints) {
#ifndef KILN_CTS_HSACO_DIR
  GTEST_SKIP() << "the build found no llc/ld.lld to make the CTS kernels";
#else
  std::string_view chips = KILN_CTS_HSACO_CHIPS;
  const std::tuple<const char *, uint32_t, uint32_t> entries[] = {
      {"add_f32", 3, 2},
      {"count_workgroups", 1, 2},
      {"rendezvous", 1, 2},
      {"scale_bias_f32", 2, 3}};
  for (size_t begin = 0; begin <= chips.size();) {
    size_t end = std::min(chips.find(',', begin), chips.size());
    std::string chip(chips.substr(begin, end - begin));
    begin = end + 1;
    std::ifstream file(
        strCat(KILN_CTS_HSACO_DIR, "/CtsKernels-", chip, ".hsaco"),
        std::ios::binary);
    std::vector<uint8_t> image(std::istreambuf_iterator<char>(file), {});
    auto object = amd::readCodeObject(image, chip);
    ASSERT_TRUE(object.ok()) << chip << ": " << object.status().toString();
    for (auto [name, bindings, push] : entries) {
      auto kernel = amd::findKernel(*object, name);
      ASSERT_TRUE(kernel.ok()) << chip << ": " << kernel.status().toString();
      auto layout = KernargLayout::create(**kernel, bindings, push);
      EXPECT_TRUE(layout.ok()) << chip << ": " << layout.status().toString();
    }
  }
#endif
}

} // namespace
} // namespace kiln::hal::amdgpu
