//===- TensorFormatTest.cpp -----------------------------------------------===//

#include "runtime/tooling/TensorFormat.h"

#include "runtime/tooling/HalfFloat.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>

namespace kiln::tooling {
namespace {

template <typename T>
HostTensor makeTensor(ElementType type, std::vector<int64_t> shape,
                      const std::vector<T> &values) {
  HostTensor tensor;
  tensor.Type = type;
  tensor.Shape = std::move(shape);
  tensor.Data.resize(values.size() * sizeof(T));
  if (!values.empty())
    std::memcpy(tensor.Data.data(), values.data(), tensor.Data.size());
  return tensor;
}

TEST(TensorFormatTest, Vector) {
  EXPECT_EQ(
      formatTensor(makeTensor<float>(ElementType::F32, {4}, {3, 4, 5, 6})),
      "4xf32=3 4 5 6");
}

TEST(TensorFormatTest, Matrix) {
  EXPECT_EQ(formatTensor(
                makeTensor<float>(ElementType::F32, {2, 2}, {1, 2, 3, 4.5f})),
            "2x2xf32=[1 2][3 4.5]");
  EXPECT_EQ(
      formatTensor(makeTensor<int32_t>(ElementType::I32, {3, 1}, {-1, 0, 7})),
      "3x1xi32=[-1][0][7]");
}

TEST(TensorFormatTest, Rank3) {
  EXPECT_EQ(formatTensor(makeTensor<int32_t>(ElementType::I32, {2, 2, 2},
                                             {1, 2, 3, 4, 5, 6, 7, 8})),
            "2x2x2xi32=[[1 2][3 4]][[5 6][7 8]]");
}

TEST(TensorFormatTest, Rank0) {
  EXPECT_EQ(formatTensor(makeTensor<float>(ElementType::F32, {}, {5})),
            "f32=5");
}

TEST(TensorFormatTest, Empty) {
  EXPECT_EQ(formatTensor(makeTensor<float>(ElementType::F32, {0}, {})),
            "0xf32=");
  EXPECT_EQ(formatTensor(makeTensor<float>(ElementType::F32, {2, 0}, {})),
            "2x0xf32=");
  EXPECT_EQ(formatTensor(makeTensor<float>(ElementType::F32, {0, 3}, {})),
            "0x3xf32=");
  // Not a bracket pair per empty row (found by fuzz_tensor_parser).
  EXPECT_EQ(formatTensor(
                makeTensor<int8_t>(ElementType::I8, {1 << 20, 1 << 20, 0}, {})),
            "1048576x1048576x0xi8=");
}

TEST(TensorFormatTest, FloatPrecision) {
  EXPECT_EQ(formatTensor(makeTensor<float>(ElementType::F32, {4},
                                           {1.0f / 3, 0.1f, 1e10f, -2.5e-7f})),
            "4xf32=0.3333333 0.1 1e+10 -2.5e-07");
  EXPECT_EQ(
      formatTensor(makeTensor<double>(ElementType::F64, {2}, {0.1, 1.0 / 3})),
      "2xf64=0.1 0.333333333333333");
  EXPECT_EQ(formatTensor(makeTensor<float>(
                ElementType::F32, {3},
                {std::numeric_limits<float>::infinity(),
                 -std::numeric_limits<float>::infinity(), 0.0f})),
            "3xf32=inf -inf 0");
}

TEST(TensorFormatTest, HalfFloats) {
  EXPECT_EQ(formatTensor(makeTensor<uint16_t>(ElementType::F16, {3},
                                              {0x3c00, 0x2e66, 0x7bff})),
            "3xf16=1 0.099976 65504");
  EXPECT_EQ(formatTensor(
                makeTensor<uint16_t>(ElementType::BF16, {2}, {0x3f80, 0xc040})),
            "2xbf16=1 -3");
}

TEST(TensorFormatTest, Integers) {
  EXPECT_EQ(formatTensor(makeTensor<int8_t>(ElementType::I8, {2}, {-128, 127})),
            "2xi8=-128 127");
  EXPECT_EQ(
      formatTensor(makeTensor<int64_t>(ElementType::I64, {1}, {INT64_MIN})),
      "1xi64=-9223372036854775808");
  EXPECT_EQ(
      formatTensor(makeTensor<uint64_t>(ElementType::U64, {1}, {UINT64_MAX})),
      "1xui64=18446744073709551615");
  EXPECT_EQ(formatTensor(makeTensor<uint8_t>(ElementType::U8, {2}, {0, 255})),
            "2xui8=0 255");
}

TEST(TensorFormatTest, BooleansAsZeroOrOne) {
  EXPECT_EQ(
      formatTensor(makeTensor<uint8_t>(ElementType::I1, {4}, {1, 0, 7, 0})),
      "4xi1=1 0 1 0");
}

TEST(TensorFormatTest, InconsistentTensor) {
  HostTensor tensor = makeTensor<float>(ElementType::F32, {4}, {1, 2});
  EXPECT_EQ(formatTensor(tensor),
            "4xf32=<8 bytes, which do not match the shape>");
}

} // namespace
} // namespace kiln::tooling
