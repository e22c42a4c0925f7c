//===- ModuleFileTest.cpp -------------------------------------------------===//

#include "runtime/module/ModuleFile.h"

#include "runtime/base/PeakMemory.h"
#include "runtime/module/TestModule.h"
#include "runtime/module/Verifier.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln::module {
namespace {

using test::buildModule;
using test::validModuleSpec;

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
  auto file = ModuleFile::fromBytes(buildModule(validModuleSpec()).data(),
                                    buildModule(validModuleSpec()).size());
  ASSERT_TRUE(file.ok()) << file.status().toString();
  EXPECT_EQ(reinterpret_cast<uintptr_t>((*file)->constantsData()) % 64, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>((*file)->data()) % 64, 0u);
  for (const auto *variant : *(*file)->root().executables()->Get(0)->variants())
    EXPECT_EQ(reinterpret_cast<uintptr_t>(variant->image()->data()) % 16, 0u);
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
  spec.HasConstants = false;
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

TEST_F(ModuleFileTest, FileOverTwoGiBIsRefusedBeforeAllocating) {
  std::vector<uint8_t> bytes = buildModule(validModuleSpec());
  std::vector<uint8_t> head(bytes.begin(), bytes.begin() + kModuleHeadSize);
  std::vector<uint8_t> footer(bytes.end() - schema::kChecksumFooterSize,
                              bytes.end());
  expectRefusedWithoutReading(
      writeSparseFile("huge.kiln", head, uint64_t(3) << 30, footer),
      "module is too large (3221225472 bytes); the maximum is 2 GiB");
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
      EXPECT_EQ(test::checkVerifiedModule((*file)->data()), "");
    }
  }
}

} // namespace
} // namespace kiln::module
