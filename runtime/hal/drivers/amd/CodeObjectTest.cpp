//===- CodeObjectTest.cpp - Real hsaco files, and broken ones -------------===//

#include "runtime/hal/drivers/amd/CodeObject.h"

#include "runtime/hal/drivers/amd/AmdTestKernels.h"

#include <gtest/gtest.h>

#include <cstring>
#include <elf.h>

namespace kiln::hal::amd {
namespace {

class CodeObjectTest : public ::testing::TestWithParam<const char *> {
protected:
  void SetUp() override {
    Image = readTestKernels(GetParam());
    if (Image.empty())
      GTEST_SKIP() << "the build found no llc/ld.lld to make test kernels";
  }
  std::vector<uint8_t> Image;
};

INSTANTIATE_TEST_SUITE_P(Chips, CodeObjectTest,
                         ::testing::Values("gfx942", "gfx1100"));

TEST_P(CodeObjectTest, ReadsTargetKernelsAndLimits) {
  std::string chip = GetParam();
  auto object = readCodeObject(Image, chip);
  ASSERT_TRUE(object.ok()) << object.status().toString();
  EXPECT_EQ(object->Elf.AbiVersion, kCodeObjectV5);
  EXPECT_EQ(object->Metadata.VersionMajor, 1u);
  EXPECT_EQ(object->Metadata.VersionMinor, 2u);
  EXPECT_EQ(object->Metadata.Target, "amdgcn-amd-amdhsa--" + chip);
  EXPECT_EQ(object->Metadata.targetId(), chip);
  ASSERT_EQ(object->Metadata.Kernels.size(), 2u);

  auto add = findKernel(*object, "add_f32");
  ASSERT_TRUE(add.ok()) << add.status().toString();
  const KernelMetadata &kernel = **add;
  EXPECT_EQ(kernel.Symbol, "add_f32.kd");
  // Wave64 on CDNA, wave32 on RDNA.
  EXPECT_EQ(kernel.WavefrontSize, chip == "gfx942" ? 64u : 32u);
  // 64 floats of LDS.
  EXPECT_EQ(kernel.GroupSegmentFixedSize, 256u);
  EXPECT_EQ(kernel.PrivateSegmentFixedSize, 0u);
  EXPECT_EQ(kernel.MaxFlatWorkgroupSize, 64u);
  EXPECT_EQ(kernel.KernargSegmentAlign, 8u);
  EXPECT_GT(kernel.SgprCount, 0u);
  EXPECT_GT(kernel.VgprCount, 0u);
  // Three pointers and two words, then v5's hidden arguments.
  ASSERT_GE(kernel.Arguments.size(), 5u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(kernel.Arguments[i].ValueKind, "global_buffer");
    EXPECT_EQ(kernel.Arguments[i].Offset, 8u * i);
    EXPECT_EQ(kernel.Arguments[i].Size, 8u);
  }
  EXPECT_EQ(kernel.Arguments[3].ValueKind, "by_value");
  EXPECT_EQ(kernel.Arguments[3].Offset, 24u);
  EXPECT_EQ(kernel.Arguments[4].Offset, 28u);
  EXPECT_EQ(kernel.Arguments[5].ValueKind, "hidden_block_count_x");
  EXPECT_EQ(kernel.Arguments[5].Offset, 32u);
  EXPECT_GE(kernel.KernargSegmentSize, 256u);

  auto count = findKernel(*object, "count_workgroups");
  ASSERT_TRUE(count.ok());
  EXPECT_EQ((*count)->GroupSegmentFixedSize, 0u);
  EXPECT_EQ((*count)->MaxFlatWorkgroupSize, 256u);

  auto absent = findKernel(*object, "main");
  ASSERT_FALSE(absent.ok());
  EXPECT_EQ(absent.status().code(), StatusCode::NotFound);
  EXPECT_NE(absent.status().message().find("add_f32, count_workgroups"),
            std::string::npos);
}

TEST_P(CodeObjectTest, AnotherProcessorIsRefused) {
  auto object = readCodeObject(Image, "gfx90a:sramecc+:xnack-");
  ASSERT_FALSE(object.ok());
  EXPECT_EQ(object.status().code(), StatusCode::FailedPrecondition);
  EXPECT_NE(object.status().message().find(GetParam()), std::string::npos);
}

TEST_P(CodeObjectTest, EveryTruncationIsAOneLineError) {
  // A prefix of a code object is never one: the section headers are last.
  for (size_t size = 0; size < Image.size(); size += 97) {
    auto object = readCodeObject(std::span(Image).first(size), GetParam());
    ASSERT_FALSE(object.ok()) << size;
    EXPECT_EQ(object.status().message().find('\n'), std::string::npos);
  }
}

TEST_P(CodeObjectTest, FlippedBytesNeverCrash) {
  // Every byte of the headers, the notes and the symbols, flipped one at a
  // time: each read either still checks out or is an error (ASan watches).
  for (size_t at = 0; at < Image.size(); at += 3) {
    std::vector<uint8_t> broken = Image;
    broken[at] ^= 0xa5;
    auto object = readCodeObject(broken, GetParam());
    if (!object.ok()) {
      EXPECT_EQ(object.status().message().find('\n'), std::string::npos);
    }
  }
}

TEST_P(CodeObjectTest, WrongAbiVersionIsNamed) {
  Image[EI_ABIVERSION] = 2; // code object v4
  auto object = readCodeObject(Image, GetParam());
  ASSERT_FALSE(object.ok());
  EXPECT_NE(object.status().message().find("ABI version 2"), std::string::npos)
      << object.status().toString();
}

TEST(CodeObjectBytesTest, NonElfAndForeignElfAreRefused) {
  std::vector<uint8_t> text(200, 'x');
  EXPECT_EQ(readAmdElf(text).status().code(), StatusCode::InvalidArgument);
  EXPECT_FALSE(readAmdElf({}).ok());
  // This test binary's own ELF: x86-64, not AMDGPU.
  Elf64_Ehdr header = {};
  std::memcpy(header.e_ident, ELFMAG, SELFMAG);
  header.e_ident[EI_CLASS] = ELFCLASS64;
  header.e_ident[EI_DATA] = ELFDATA2LSB;
  header.e_machine = EM_X86_64;
  std::vector<uint8_t> bytes(sizeof(header));
  std::memcpy(bytes.data(), &header, sizeof(header));
  auto elf = readAmdElf(bytes);
  ASSERT_FALSE(elf.ok());
  EXPECT_NE(elf.status().message().find("EM_AMDGPU"), std::string::npos);
}

} // namespace
} // namespace kiln::hal::amd
