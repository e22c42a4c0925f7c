//===- NpyTest.cpp --------------------------------------------------------===//

#include "runtime/tooling/Npy.h"

#include "runtime/base/PeakMemory.h"
#include "runtime/tooling/TensorAllocation.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <unistd.h>

namespace kiln::tooling {
namespace {

const ElementType kNpyTypes[] = {
    ElementType::F32, ElementType::F16, ElementType::F64, ElementType::I1,
    ElementType::I8,  ElementType::I16, ElementType::I32, ElementType::I64,
    ElementType::U8,  ElementType::U16, ElementType::U32, ElementType::U64};

HostTensor randomTensor(ElementType type, std::vector<int64_t> shape,
                        std::mt19937 &rng) {
  auto tensor = allocateHostTensor(type, std::move(shape));
  EXPECT_TRUE(tensor.ok());
  for (uint8_t &b : tensor->Data)
    b = static_cast<uint8_t>(type == ElementType::I1 ? rng() % 2 : rng());
  return *tensor;
}

// Lays out a file the way numpy's format.write_array does: magic, version,
// header length, the dict padded with spaces to a 64-byte boundary and a
// newline, then the data.
std::vector<uint8_t> npyFile(int major, const std::string &dict,
                             const std::vector<uint8_t> &data) {
  size_t lengthBytes = major == 1 ? 2 : 4;
  std::string header = dict;
  size_t unpadded = 8 + lengthBytes + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::vector<uint8_t> bytes = {
      0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
  for (size_t i = 0; i < lengthBytes; ++i)
    bytes.push_back(static_cast<uint8_t>(header.size() >> (8 * i)));
  bytes.insert(bytes.end(), header.begin(), header.end());
  bytes.insert(bytes.end(), data.begin(), data.end());
  return bytes;
}

void expectDecodeError(const std::vector<uint8_t> &bytes,
                       const std::string &needle) {
  auto tensor = decodeNpy(bytes.data(), bytes.size());
  ASSERT_FALSE(tensor.ok()) << "decoded; expected: " << needle;
  EXPECT_NE(tensor.status().toString().find(needle), std::string::npos)
      << tensor.status().toString() << "\nexpected: " << needle;
}

std::vector<uint8_t> floatBytes(const std::vector<float> &values) {
  std::vector<uint8_t> bytes(values.size() * 4);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

TEST(NpyTest, RoundTripEveryDtype) {
  std::mt19937 rng(77);
  const std::vector<std::vector<int64_t>> shapes = {
      {}, {1}, {5}, {2, 3}, {3, 1, 4}, {0}, {2, 0, 3}, {1, 2, 1, 2, 1}};
  for (ElementType type : kNpyTypes) {
    for (const auto &shape : shapes) {
      HostTensor tensor = randomTensor(type, shape, rng);
      auto bytes = encodeNpy(tensor);
      ASSERT_TRUE(bytes.ok()) << bytes.status().toString();
      // Data starts 64-byte aligned, as numpy writes it.
      uint16_t headerLength =
          static_cast<uint16_t>((*bytes)[8] | ((*bytes)[9] << 8));
      EXPECT_EQ((10 + headerLength) % 64, 0);
      auto decoded = decodeNpy(bytes->data(), bytes->size());
      ASSERT_TRUE(decoded.ok()) << decoded.status().toString();
      EXPECT_EQ(decoded->Type, type);
      EXPECT_EQ(decoded->Shape, shape);
      EXPECT_EQ(decoded->Data, tensor.Data);
    }
  }
}

TEST(NpyTest, EncodedHeaderMatchesNumpy) {
  std::mt19937 rng(1);
  HostTensor tensor = randomTensor(ElementType::I32, {3}, rng);
  auto bytes = encodeNpy(tensor);
  ASSERT_TRUE(bytes.ok());
  std::string text(bytes->begin(), bytes->end());
  EXPECT_EQ(text.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_NE(text.find("{'descr': '<i4', 'fortran_order': False, 'shape': "
                      "(3,), }"),
            std::string::npos);
  HostTensor matrix = randomTensor(ElementType::U8, {2, 3}, rng);
  auto matrixBytes = encodeNpy(matrix);
  ASSERT_TRUE(matrixBytes.ok());
  std::string matrixText(matrixBytes->begin(), matrixBytes->end());
  EXPECT_NE(matrixText.find("'descr': '|u1'"), std::string::npos);
  EXPECT_NE(matrixText.find("'shape': (2, 3)"), std::string::npos);
  HostTensor scalar = randomTensor(ElementType::I1, {}, rng);
  auto scalarBytes = encodeNpy(scalar);
  ASSERT_TRUE(scalarBytes.ok());
  std::string scalarText(scalarBytes->begin(), scalarBytes->end());
  EXPECT_NE(scalarText.find("'descr': '|b1'"), std::string::npos);
  EXPECT_NE(scalarText.find("'shape': ()"), std::string::npos);
}

TEST(NpyTest, ReadsVersions1To3) {
  std::vector<float> values = {1.5f, -2, 3, 4, 5, 6.25f};
  for (int major : {1, 2, 3}) {
    auto bytes = npyFile(
        major, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
        floatBytes(values));
    auto tensor = decodeNpy(bytes.data(), bytes.size());
    ASSERT_TRUE(tensor.ok()) << major << ": " << tensor.status().toString();
    EXPECT_EQ(tensor->Shape, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(tensor->Data, floatBytes(values));
  }
}

TEST(NpyTest, AcceptsHeaderVariants) {
  // Other key order, double quotes, native byte order, Python 2 longs.
  auto bytes = npyFile(1,
                       "{\"shape\": (2L,), \"fortran_order\": False, "
                       "\"descr\": \"=f4\"}",
                       floatBytes({1, 2}));
  auto tensor = decodeNpy(bytes.data(), bytes.size());
  ASSERT_TRUE(tensor.ok()) << tensor.status().toString();
  EXPECT_EQ(tensor->Shape, (std::vector<int64_t>{2}));
}

TEST(NpyTest, BooleansAreNormalized) {
  auto bytes =
      npyFile(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
              {0, 1, 9});
  auto tensor = decodeNpy(bytes.data(), bytes.size());
  ASSERT_TRUE(tensor.ok());
  EXPECT_EQ(tensor->Data, (std::vector<uint8_t>{0, 1, 1}));
}

TEST(NpyTest, BFloat16CannotBeWritten) {
  std::mt19937 rng(2);
  auto bytes = encodeNpy(randomTensor(ElementType::BF16, {2}, rng));
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.status().toString().find("bf16 has no npy dtype"),
            std::string::npos);
}

TEST(NpyTest, RejectsUnsupportedLayouts) {
  const std::string tail = "'shape': (2,), }";
  expectDecodeError(npyFile(1,
                            "{'descr': '<f4', 'fortran_order': True, " + tail,
                            floatBytes({1, 2})),
                    "Fortran-order data is not supported");
  expectDecodeError(npyFile(1,
                            "{'descr': '>f4', 'fortran_order': False, " + tail,
                            floatBytes({1, 2})),
                    "big-endian");
  expectDecodeError(npyFile(1,
                            "{'descr': '<c8', 'fortran_order': False, " + tail,
                            floatBytes({1, 2, 3, 4})),
                    "unsupported npy dtype '<c8'");
  expectDecodeError(
      npyFile(1, "{'descr': [('a', '<f4')], 'fortran_order': False, " + tail,
              floatBytes({1, 2})),
      "structured dtypes are not supported");
  expectDecodeError(npyFile(1,
                            "{'descr': '|f4', 'fortran_order': False, " + tail,
                            floatBytes({1, 2})),
                    "unsupported npy dtype '|f4'");
}

TEST(NpyTest, RejectsLyingHeaders) {
  const std::string head = "{'descr': '<f4', 'fortran_order': False, ";
  expectDecodeError(npyFile(1, head + "'shape': (3,), }", floatBytes({1, 2})),
                    "npy header says 3xf32 (12 bytes) but the file holds 8 "
                    "bytes of data");
  expectDecodeError(npyFile(1, head + "'shape': (1,), }", floatBytes({1, 2})),
                    "but the file holds 8 bytes");
  expectDecodeError(npyFile(1,
                            head + "'shape': (1099511627776, 1099511627776), }",
                            floatBytes({1})),
                    "is too large");
  expectDecodeError(npyFile(1, head + "'shape': (-1,), }", floatBytes({1})),
                    "non-negative dimension");
  expectDecodeError(npyFile(1,
                            head + "'shape': (1, 1, 1, 1, 1, 1, 1, 1, 1, "
                                   "1, 1, 1, 1, 1, 1, 1, 1), }",
                            floatBytes({1})),
                    "rank exceeds the maximum of 16");
  expectDecodeError(npyFile(1, head + "}", floatBytes({1})),
                    "missing 'descr', 'fortran_order' or 'shape'");
  expectDecodeError(
      npyFile(1, head + "'shape': (1,), 'x': 1}", floatBytes({1})),
      "unexpected or repeated key 'x'");
  expectDecodeError(
      npyFile(1, head + "'shape': (1,), 'shape': (1,)}", floatBytes({1})),
      "unexpected or repeated key 'shape'");
  expectDecodeError(npyFile(1, "{'descr': '<f4", floatBytes({1})),
                    "unterminated string");
  expectDecodeError(npyFile(1, "garbage", floatBytes({1})), "expected '{'");
}

TEST(NpyTest, RejectsBadPreamble) {
  expectDecodeError({}, "not an npy file");
  expectDecodeError({'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0, 0}, "not an npy file");
  std::vector<uint8_t> bytes =
      npyFile(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
              floatBytes({1}));
  bytes[6] = 4;
  expectDecodeError(bytes, "unsupported npy format version 4.0");
  bytes[6] = 1;
  bytes[8] = 0xff;
  bytes[9] = 0xff;
  expectDecodeError(bytes, "inside its 65535-byte header");
  std::vector<uint8_t> v2 =
      npyFile(2, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
              floatBytes({1}));
  v2[11] = 0x7f;
  expectDecodeError(v2, "implausibly large");
}

// The caller's check sees the header's type before the data is looked at,
// and its error is returned as it is.
TEST(NpyTest, CheckSeesTheHeaderTypeFirst) {
  std::vector<uint8_t> lying =
      npyFile(1, "{'descr': '<i2', 'fortran_order': False, 'shape': (9, 7), }",
              floatBytes({1}));
  std::vector<ParsedTensorType> seen;
  auto refuse = [&](const ParsedTensorType &type) {
    seen.push_back(type);
    return KILN_ERROR(InvalidArgument, "not wanted");
  };
  auto refused = decodeNpy(lying.data(), lying.size(), refuse);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(), "not wanted");
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].Shape, (std::vector<int64_t>{9, 7}));
  EXPECT_EQ(seen[0].Type, ElementType::I16);
}

TEST(NpyTest, EveryTruncationIsAnError) {
  std::mt19937 rng(3);
  auto bytes = encodeNpy(randomTensor(ElementType::I16, {3, 5}, rng));
  ASSERT_TRUE(bytes.ok());
  for (size_t length = 0; length < bytes->size(); ++length) {
    // An exact-size heap copy so ASan sees any overread.
    std::vector<uint8_t> prefix(bytes->begin(), bytes->begin() + length);
    prefix.shrink_to_fit();
    EXPECT_FALSE(decodeNpy(prefix.data(), prefix.size()).ok()) << length;
  }
}

TEST(NpyTest, RandomCorruptionNeverCrashes) {
  std::mt19937 rng(4);
  auto bytes = encodeNpy(randomTensor(ElementType::F64, {2, 2}, rng));
  ASSERT_TRUE(bytes.ok());
  size_t rejected = 0;
  for (int i = 0; i < 5000; ++i) {
    std::vector<uint8_t> mutated = *bytes;
    // Corrupt the header region mostly; data corruption is always valid.
    size_t headerEnd = mutated.size() - 32;
    for (int e = 0; e < 1 + static_cast<int>(rng() % 3); ++e) {
      size_t pos = rng() % headerEnd;
      const char candidates[] = "0123456789(),:'{} TrueFals<>|fiub\n-L";
      mutated[pos] = rng() % 2
                         ? static_cast<uint8_t>(rng())
                         : static_cast<uint8_t>(
                               candidates[rng() % (sizeof(candidates) - 1)]);
    }
    auto tensor = decodeNpy(mutated.data(), mutated.size());
    if (!tensor.ok()) {
      ++rejected;
      continue;
    }
    // Accepted files are self-consistent.
    auto size = tensorByteSize(tensor->Shape, tensor->Type);
    ASSERT_TRUE(size.ok());
    EXPECT_EQ(*size, tensor->Data.size());
  }
  EXPECT_GT(rejected, 0u);
}

class NpyFileTest : public ::testing::Test {
protected:
  std::string path(const std::string &name) {
    std::string p = ::testing::TempDir() + "kiln_npy_test_" +
                    std::to_string(::getpid()) + "_" + name;
    Written.push_back(p);
    return p;
  }
  void TearDown() override {
    for (const std::string &p : Written)
      std::remove(p.c_str());
  }
  std::vector<std::string> Written;
};

TEST_F(NpyFileTest, WriteThenRead) {
  std::mt19937 rng(8);
  HostTensor tensor = randomTensor(ElementType::F32, {4, 2}, rng);
  std::string file = path("a.npy");
  Status written = writeNpy(file, tensor);
  ASSERT_TRUE(written.ok()) << written.toString();
  auto read = readNpy(file);
  ASSERT_TRUE(read.ok()) << read.status().toString();
  EXPECT_EQ(read->Data, tensor.Data);
  EXPECT_EQ(read->Shape, tensor.Shape);
}

TEST_F(NpyFileTest, MissingFile) {
  std::string file = path("missing.npy");
  auto read = readNpy(file);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), StatusCode::NotFound);
  EXPECT_NE(read.status().toString().find(file), std::string::npos);
}

TEST_F(NpyFileTest, CorruptFileNamesPath) {
  std::string file = path("corrupt.npy");
  FILE *f = std::fopen(file.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fputs("\x93NUMPY\x01\x00garbage", f);
  std::fclose(f);
  auto read = readNpy(file);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().toString().find("npy file '" + file + "'"),
            std::string::npos)
      << read.status().toString();
}

TEST_F(NpyFileTest, WriteToMissingDirectory) {
  std::mt19937 rng(9);
  Status status = writeNpy("/nonexistent/dir/out.npy",
                           randomTensor(ElementType::I8, {2}, rng));
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.toString().find("/nonexistent/dir/out.npy"),
            std::string::npos);
}

// Through a file, the check runs after only the header was read, and a
// header that claims more data than the file holds (1 GiB here) fails
// before anything is allocated.
TEST_F(NpyFileTest, CheckRunsBeforeTheDataIsRead) {
  std::string file = path("large.npy");
  std::vector<uint8_t> bytes = npyFile(
      1, "{'descr': '<f4', 'fortran_order': False, 'shape': (16384, 16384), }",
      floatBytes({1}));
  FILE *f = std::fopen(file.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  uint64_t before = peakResidentBytes();
  std::vector<ParsedTensorType> seen;
  auto refused = readNpy(file, [&](const ParsedTensorType &type) {
    seen.push_back(type);
    return KILN_ERROR(InvalidArgument, "not wanted");
  });
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(), "not wanted");
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].Shape, (std::vector<int64_t>{16384, 16384}));
  auto lying = readNpy(file, [](const ParsedTensorType &) { return Status(); });
  ASSERT_FALSE(lying.ok());
  EXPECT_NE(lying.status().toString().find(
                "npy file '" + file +
                "': npy header says 16384x16384xf32 (1073741824 bytes) but "
                "the file holds 4 bytes of data"),
            std::string::npos)
      << lying.status().toString();
  EXPECT_LT(peakResidentBytes() - before, uint64_t(64) << 20);
}

TEST_F(NpyFileTest, DirectoryIsNotAFile) {
  auto read = readNpy(::testing::TempDir());
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().toString().find("not a regular file"),
            std::string::npos);
}

} // namespace
} // namespace kiln::tooling
