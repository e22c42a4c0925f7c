//===- FileTest.cpp -------------------------------------------------------===//

#include "runtime/base/File.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <unistd.h>

namespace kiln {
namespace {

class FileTest : public ::testing::Test {
protected:
  void SetUp() override {
    Path =
        ::testing::TempDir() + "kiln_file_test_" + std::to_string(::getpid());
    std::ofstream(Path, std::ios::binary) << "0123456789";
  }
  void TearDown() override { std::remove(Path.c_str()); }

  std::string Path;
};

TEST_F(FileTest, ReadsPiecesAtOffsets) {
  auto file = InputFile::open(Path, "test");
  ASSERT_TRUE(file.ok()) << file.status().toString();
  EXPECT_EQ(file->size(), 10u);
  char piece[4] = {};
  ASSERT_TRUE(file->readAt(6, piece, 4).ok());
  EXPECT_EQ(std::string(piece, 4), "6789");
  ASSERT_TRUE(file->readAt(0, piece, 2).ok());
  EXPECT_EQ(std::string(piece, 2), "01");
  EXPECT_TRUE(file->readAt(10, piece, 0).ok());
}

TEST_F(FileTest, ReadPastTheEndIsDataLoss) {
  auto file = InputFile::open(Path, "test");
  ASSERT_TRUE(file.ok());
  char piece[8];
  Status status = file->readAt(6, piece, sizeof(piece));
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::DataLoss);
  EXPECT_NE(status.toString().find("test file '" + Path +
                                   "' ended at byte 10 while being read (it "
                                   "had 10 bytes when opened)"),
            std::string::npos)
      << status.toString();
}

TEST_F(FileTest, MissingFileIsNotFound) {
  auto file = InputFile::open(Path + ".missing", "npy");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), StatusCode::NotFound);
  EXPECT_NE(file.status().toString().find("npy file '" + Path +
                                          ".missing' not found"),
            std::string::npos)
      << file.status().toString();
}

TEST_F(FileTest, MapsTheWholeFile) {
  std::shared_ptr<const FileMapping> mapping;
  {
    auto file = InputFile::open(Path, "test");
    ASSERT_TRUE(file.ok());
    auto mapped = file->map();
    ASSERT_TRUE(mapped.ok()) << mapped.status().toString();
    mapping = *mapped;
  }
  // Still valid once the file is closed.
  ASSERT_EQ(mapping->size(), 10u);
  EXPECT_EQ(std::string(reinterpret_cast<const char *>(mapping->data()), 10),
            "0123456789");
  EXPECT_EQ(reinterpret_cast<uintptr_t>(mapping->data()) % 4096, 0u);
}

TEST_F(FileTest, EmptyFileIsNotMapped) {
  std::ofstream(Path, std::ios::binary | std::ios::trunc).flush();
  auto file = InputFile::open(Path, "test");
  ASSERT_TRUE(file.ok());
  auto mapped = file->map();
  ASSERT_FALSE(mapped.ok());
  EXPECT_NE(mapped.status().toString().find("cannot map test file '" + Path +
                                            "' of 0 bytes"),
            std::string::npos)
      << mapped.status().toString();
}

TEST_F(FileTest, OnlyRegularFilesAreOpened) {
  auto directory = InputFile::open(::testing::TempDir(), "module");
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(directory.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(
      directory.status().toString().find("is a directory, not a regular file"),
      std::string::npos);
  // A device would be read forever (/dev/zero) or look empty (/dev/null).
  auto device = InputFile::open("/dev/zero", "module");
  ASSERT_FALSE(device.ok());
  EXPECT_NE(device.status().toString().find(
                "module path '/dev/zero' is not a regular file"),
            std::string::npos);
}

TEST(FileErrorTest, CodesFollowErrno) {
  EXPECT_EQ(fileError(EACCES, "npy", "a.npy", "open").code(),
            StatusCode::PermissionDenied);
  Status missingDir = fileError(ENOENT, "npy", "/no/a.npy", "create");
  EXPECT_EQ(missingDir.code(), StatusCode::NotFound);
  EXPECT_NE(missingDir.toString().find("cannot create npy file '/no/a.npy'"),
            std::string::npos);
  EXPECT_EQ(fileError(EIO, "module", "m.kiln", "read").code(),
            StatusCode::Unavailable);
}

} // namespace
} // namespace kiln
