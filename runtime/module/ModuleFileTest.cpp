//===- ModuleFileTest.cpp -------------------------------------------------===//

#include "runtime/module/ModuleFile.h"

#include "runtime/base/PeakMemory.h"
#include "runtime/module/TestModule.h"
#include "runtime/module/Verifier.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln::module {
namespace {

using test::buildModule;
using test::validModuleSpec;

// Anonymous memory (heap, stacks) resident in this process now: what a copy
// of a file adds, and a mapping of it does not.
uint64_t anonymousResidentBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("RssAnon:", 0) == 0)
      return std::stoull(line.substr(8)) * 1024;
  ADD_FAILURE() << "no RssAnon in /proc/self/status";
  return 0;
}

class ModuleFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    Dir = ::testing::TempDir() + "kiln_module_file_test_" +
          std::to_string(::getpid());
    ::mkdir(Dir.c_str(), 0700);
  }
  void TearDown() override {
    for (const std::string &path : Written)
      std::remove(path.c_str());
    ::rmdir(Dir.c_str());
  }

  std::string writeFile(const std::string &name,
                        const std::vector<uint8_t> &bytes) {
    std::string path = Dir + "/" + name;
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char *>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    Written.push_back(path);
    return path;
  }

  // A sparse file of `size` bytes starting with `head` and ending with
  // `tail`: large on disk to a reader, costing nothing to make.
  std::string writeSparseFile(const std::string &name,
                              const std::vector<uint8_t> &head, uint64_t size,
                              const std::vector<uint8_t> &tail) {
    std::string path = writeFile(name, head);
    int fd = ::open(path.c_str(), O_WRONLY);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(::ftruncate(fd, static_cast<off_t>(size)), 0);
    EXPECT_EQ(::pwrite(fd, tail.data(), tail.size(),
                       static_cast<off_t>(size - tail.size())),
              static_cast<ssize_t>(tail.size()));
    ::close(fd);
    return path;
  }

  // Opens `path`, which must be refused with `message` without the file
  // being read into memory.
  void expectRefusedWithoutReading(const std::string &path,
                                   const std::string &message) {
    uint64_t before = peakResidentBytes();
    auto file = ModuleFile::open(path);
    ASSERT_FALSE(file.ok());
    EXPECT_NE(file.status().toString().find(message), std::string::npos)
        << file.status().toString();
    EXPECT_NE(file.status().toString().find("module file '" + path + "'"),
              std::string::npos)
        << file.status().toString();
    EXPECT_LT(peakResidentBytes() - before, uint64_t(64) << 20);
  }

  std::string Dir;
  std::vector<std::string> Written;
};

TEST_F(ModuleFileTest, OpensValidModule) {
  test::ModuleSpec spec = validModuleSpec();
  std::string path = writeFile("valid.kiln", buildModule(spec));
  auto file = ModuleFile::open(path);
  ASSERT_TRUE(file.ok()) << file.status().toString();
  const kiln::schema::Module &root = (*file)->root();
  ASSERT_EQ(root.functions()->size(), 2u);
  EXPECT_EQ(root.functions()->Get(0)->name()->str(), "main");
  EXPECT_EQ(root.functions()->Get(0)->steps()->size(), 4u);
  EXPECT_EQ(root.executables()->Get(0)->variants()->size(), 2u);
  ASSERT_EQ((*file)->constantsSize(), spec.Constants.size());
  EXPECT_EQ(
      std::vector<uint8_t>((*file)->constantsData(),
                           (*file)->constantsData() + (*file)->constantsSize()),
      spec.Constants);
}

TEST_F(ModuleFileTest, ConstantsAndImagesAreAlignedInMemory) {
  std::vector<uint8_t> bytes = buildModule(validModuleSpec());
  auto copied = ModuleFile::fromBytes(bytes.data(), bytes.size());
  ASSERT_TRUE(copied.ok()) << copied.status().toString();
  auto mapped = ModuleFile::open(writeFile("aligned.kiln", bytes));
  ASSERT_TRUE(mapped.ok()) << mapped.status().toString();
  for (const auto &file : {*copied, *mapped}) {
    // The segment is page-aligned in the file, and so in memory.
    EXPECT_EQ(reinterpret_cast<uintptr_t>(file->constantsData()) % 4096, 0u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(file->data()) % 4096, 0u);
    for (const auto *variant : *file->root().executables()->Get(0)->variants())
      EXPECT_EQ(reinterpret_cast<uintptr_t>(variant->image()->data()) % 16, 0u);
  }
}

// Version 1.0 and 1.1 modules keep their constants in a vector inside the
// flatbuffer.
TEST_F(ModuleFileTest, ConstantsVectorOfOlderModules) {
  test::ModuleSpec spec = validModuleSpec();
  spec.VersionMinor = 1;
  spec.Layout = test::ConstantsLayout::Vector;
  auto file = ModuleFile::open(writeFile("v1_1.kiln", buildModule(spec)));
  ASSERT_TRUE(file.ok()) << file.status().toString();
  EXPECT_EQ((*file)->root().constants_segment(), nullptr);
  ASSERT_EQ((*file)->constantsSize(), spec.Constants.size());
  EXPECT_EQ(
      std::vector<uint8_t>((*file)->constantsData(),
                           (*file)->constantsData() + (*file)->constantsSize()),
      spec.Constants);
  EXPECT_EQ(reinterpret_cast<uintptr_t>((*file)->constantsData()) % 64, 0u);
}

// The current layout: the constants follow the flatbuffer, page-aligned.
TEST_F(ModuleFileTest, ConstantsSegmentFollowsTheFlatbuffer) {
  test::ModuleSpec spec = validModuleSpec();
  std::vector<uint8_t> bytes = buildModule(spec);
  auto file = ModuleFile::fromBytes(bytes.data(), bytes.size());
  ASSERT_TRUE(file.ok()) << file.status().toString();
  const schema::ConstantsSegment *segment = (*file)->root().constants_segment();
  ASSERT_NE(segment, nullptr);
  EXPECT_EQ(segment->alignment(), 4096u);
  EXPECT_EQ(segment->offset(), 4096u);
  EXPECT_EQ(segment->size(), spec.Constants.size());
  EXPECT_EQ(bytes.size(), 4096 + spec.Constants.size() + 16);
  EXPECT_EQ((*file)->constantsData(), (*file)->data() + 4096);
  EXPECT_EQ(std::vector<uint8_t>(bytes.begin() + 4096,
                                 bytes.begin() + 4096 + spec.Constants.size()),
            spec.Constants);
}

// open() maps the file: the module's bytes stay in the page cache instead
// of being copied onto the heap, so a large model is not held twice.
TEST_F(ModuleFileTest, OpenMapsTheFile) {
  test::ModuleSpec spec = validModuleSpec();
  spec.Constants = test::randomBytes(size_t(32) << 20, 21);
  std::string path = writeFile("large.kiln", buildModule(spec));
  spec.Constants.clear();
  spec.Constants.shrink_to_fit();
  uint64_t before = anonymousResidentBytes();
  auto file = ModuleFile::open(path);
  ASSERT_TRUE(file.ok()) << file.status().toString();
  EXPECT_EQ((*file)->constantsSize(), uint64_t(32) << 20);
  // Verification read every byte (the checksum); none of them is on the heap.
  EXPECT_LT(anonymousResidentBytes() - before, uint64_t(8) << 20);
  std::vector<uint8_t> constants = test::randomBytes(size_t(32) << 20, 21);
  EXPECT_EQ(
      std::memcmp((*file)->constantsData(), constants.data(), constants.size()),
      0);
}

TEST_F(ModuleFileTest, FromBytesCopies) {
  std::vector<uint8_t> bytes = buildModule(validModuleSpec());
  auto file = ModuleFile::fromBytes(bytes.data(), bytes.size());
  ASSERT_TRUE(file.ok()) << file.status().toString();
  std::fill(bytes.begin(), bytes.end(), 0xAB);
  EXPECT_EQ((*file)->root().functions()->Get(1)->name()->str(), "second");
  EXPECT_EQ((*file)->size(), bytes.size());
}

TEST_F(ModuleFileTest, NoConstants) {
  test::ModuleSpec spec;
  spec.Layout = test::ConstantsLayout::None;
  std::vector<uint8_t> bytes = buildModule(spec);
  auto file = ModuleFile::fromBytes(bytes.data(), bytes.size());
  ASSERT_TRUE(file.ok()) << file.status().toString();
  EXPECT_EQ((*file)->constantsData(), nullptr);
  EXPECT_EQ((*file)->constantsSize(), 0u);
}

TEST_F(ModuleFileTest, MissingFile) {
  std::string path = Dir + "/does_not_exist.kiln";
  auto file = ModuleFile::open(path);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), StatusCode::NotFound);
  EXPECT_NE(file.status().toString().find(path), std::string::npos);
}

TEST_F(ModuleFileTest, MissingDirectory) {
  auto file = ModuleFile::open(Dir + "/no/such/dir/m.kiln");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), StatusCode::NotFound);
}

TEST_F(ModuleFileTest, Directory) {
  auto file = ModuleFile::open(Dir);
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.status().toString().find("is a directory"), std::string::npos);
}

TEST_F(ModuleFileTest, EmptyFile) {
  std::string path = writeFile("empty.kiln", {});
  auto file = ModuleFile::open(path);
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.status().toString().find("empty"), std::string::npos);
  EXPECT_NE(file.status().toString().find(path), std::string::npos);
  EXPECT_FALSE(ModuleFile::fromBytes(nullptr, 0).ok());
}

TEST_F(ModuleFileTest, WrongIdentifier) {
  std::vector<uint8_t> bytes = buildModule(validModuleSpec());
  bytes[4] = 'X';
  std::string path = writeFile("wrong_id.kiln", bytes);
  auto file = ModuleFile::open(path);
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.status().toString().find("file identifier is 'XILN'"),
            std::string::npos)
      << file.status().toString();
}

TEST_F(ModuleFileTest, TruncatedFileNamesPath) {
  std::vector<uint8_t> bytes = buildModule(validModuleSpec());
  bytes.resize(bytes.size() / 2);
  std::string path = writeFile("truncated.kiln", bytes);
  auto file = ModuleFile::open(path);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(file.status().toString().find("module file '" + path + "'"),
            std::string::npos)
      << file.status().toString();
}

TEST_F(ModuleFileTest, GarbageFile) {
  std::string path = writeFile("garbage.kiln", test::randomBytes(4096, 3));
  auto file = ModuleFile::open(path);
  ASSERT_FALSE(file.ok());
}

TEST_F(ModuleFileTest, CorruptImageByteIsCaughtByChecksum) {
  test::ModuleSpec spec = validModuleSpec();
  std::vector<uint8_t> bytes = buildModule(spec);
  auto valid = ModuleFile::fromBytes(bytes.data(), bytes.size());
  ASSERT_TRUE(valid.ok()) << valid.status().toString();
  // Find the cpu variant's image in the file and damage one byte of it.
  const auto *image =
      (*valid)->root().executables()->Get(0)->variants()->Get(0)->image();
  size_t offset = static_cast<size_t>(image->data() - (*valid)->data()) + 50;
  bytes[offset] ^= 0x04;
  std::string path = writeFile("corrupt_image.kiln", bytes);
  auto file = ModuleFile::open(path);
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.status().toString().find("checksum does not match"),
            std::string::npos)
      << file.status().toString();
}

TEST_F(ModuleFileTest, SemanticErrorThroughOpen) {
  test::ModuleSpec spec = validModuleSpec();
  spec.VersionMajor = 3;
  std::string path = writeFile("v3.kiln", buildModule(spec));
  auto file = ModuleFile::open(path);
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.status().toString().find("module version 3.0 is not "
                                          "supported by this runtime (1.x)"),
            std::string::npos);
}

// A file that is not a module is refused from its first and last bytes,
// never read whole: a 1 GiB file costs no memory.
TEST_F(ModuleFileTest, LargeNonModuleIsRefusedFromItsFirstBytes) {
  std::vector<uint8_t> zip = {'P', 'K', 3, 4, 20, 0, 0, 0};
  expectRefusedWithoutReading(
      writeSparseFile("large.zip", zip, uint64_t(1) << 30, {0}),
      "not a Kiln module: file identifier is '\\x14\\x00\\x00\\x00'");
}

TEST_F(ModuleFileTest, LargeFileWithoutFooterIsRefusedFromItsLastBytes) {
  std::vector<uint8_t> bytes = buildModule(validModuleSpec());
  std::vector<uint8_t> head(bytes.begin(), bytes.begin() + kModuleHeadSize);
  expectRefusedWithoutReading(
      writeSparseFile("no_footer.kiln", head, uint64_t(1) << 30, {0}),
      "module is truncated or has no checksum footer (1073741824 bytes)");
}

// fromBytes must be as safe as verifyModule on arbitrary bytes: every
// truncation and a sample of flips, through the public entry point.
TEST_F(ModuleFileTest, HostileBytesThroughFromBytes) {
  std::vector<uint8_t> bytes = buildModule(validModuleSpec());
  for (size_t length = 0; length < bytes.size(); ++length)
    EXPECT_FALSE(ModuleFile::fromBytes(bytes.data(), length).ok());
  test::ModuleSpec spec = validModuleSpec();
  spec.AppendChecksum = false;
  std::vector<uint8_t> unchecked = buildModule(spec);
  std::mt19937 rng(4);
  for (int i = 0; i < 2000; ++i) {
    // Mutated, then given a matching checksum as a hostile writer would.
    std::vector<uint8_t> mutated = unchecked;
    mutated[rng() % mutated.size()] ^= static_cast<uint8_t>(1 + rng() % 255);
    schema::appendModuleChecksum(mutated);
    auto file = ModuleFile::fromBytes(mutated.data(), mutated.size());
    if (file.ok()) {
      EXPECT_EQ(test::checkVerifiedModule((*file)->data(), (*file)->size()),
                "");
    }
  }
}

} // namespace
} // namespace kiln::module
