//===- TensorParserTest.cpp -----------------------------------------------===//

#include "runtime/tooling/TensorParser.h"

#include "runtime/base/PeakMemory.h"
#include "runtime/tooling/TensorFormat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

namespace kiln::tooling {
namespace {

template <typename T> std::vector<T> values(const HostTensor &tensor) {
  std::vector<T> out(tensor.Data.size() / sizeof(T));
  if (!out.empty())
    std::memcpy(out.data(), tensor.Data.data(), tensor.Data.size());
  return out;
}

HostTensor parseOk(std::string_view text) {
  auto tensor = parseTensor(text);
  EXPECT_TRUE(tensor.ok()) << text << ": " << tensor.status().toString();
  return tensor.ok() ? *tensor : HostTensor{};
}

// Expects an InvalidArgument error that quotes the input and contains
// `needle`.
void expectError(std::string_view text, const std::string &needle) {
  auto tensor = parseTensor(text);
  ASSERT_FALSE(tensor.ok()) << "parsed: " << text;
  std::string message = tensor.status().toString();
  EXPECT_EQ(tensor.status().code(), StatusCode::InvalidArgument) << message;
  EXPECT_NE(message.find(needle), std::string::npos)
      << "message: " << message << "\nexpected: " << needle;
  if (text.size() < 90) {
    EXPECT_NE(message.find(strCat("'", text, "'")), std::string::npos)
        << "message does not quote the input: " << message;
  }
}

TEST(TensorParserTest, Vector) {
  HostTensor t = parseOk("4xf32=[1 2 3.5 -4e2]");
  EXPECT_EQ(t.Type, ElementType::F32);
  EXPECT_EQ(t.Shape, (std::vector<int64_t>{4}));
  EXPECT_EQ(values<float>(t), (std::vector<float>{1, 2, 3.5f, -400}));
}

TEST(TensorParserTest, NestedForms) {
  std::vector<int32_t> expected = {1, -2, 3, 4};
  for (const char *text :
       {"2x2xi32=[[1 -2][3 4]]", "2x2xi32=[1 -2][3 4]", "2x2xi32=1 -2 3 4",
        "2x2xi32=1,-2,3,4", "2x2xi32=[[1, -2], [3, 4]]",
        "  2x2xi32 = [ [1\t-2]\n[3 4] ] "}) {
    HostTensor t = parseOk(text);
    EXPECT_EQ(t.Shape, (std::vector<int64_t>{2, 2})) << text;
    EXPECT_EQ(values<int32_t>(t), expected) << text;
  }
}

TEST(TensorParserTest, LeadingUnitDimension) {
  for (const char *text :
       {"1x4xi16=[1 2 3 4]", "1x4xi16=[[1 2 3 4]]", "1x4xi16=1 2 3 4"}) {
    HostTensor t = parseOk(text);
    EXPECT_EQ(values<int16_t>(t), (std::vector<int16_t>{1, 2, 3, 4})) << text;
  }
}

TEST(TensorParserTest, Rank3) {
  HostTensor t = parseOk("2x3x2xi64=[[1 2][3 4][5 6]][[7 8][9 10][11 12]]");
  std::vector<int64_t> expected(12);
  for (int i = 0; i < 12; ++i)
    expected[i] = i + 1;
  EXPECT_EQ(values<int64_t>(t), expected);
  EXPECT_EQ(values<int64_t>(
                parseOk("2x3x2xi64=[[[1 2][3 4][5 6]][[7 8][9 10][11 12]]]")),
            expected);
}

TEST(TensorParserTest, Splat) {
  HostTensor t = parseOk("1x224x224x3xf32=2.5");
  ASSERT_EQ(t.elementCount(), 224 * 224 * 3);
  std::vector<float> data = values<float>(t);
  EXPECT_TRUE(
      std::all_of(data.begin(), data.end(), [](float v) { return v == 2.5f; }));
  EXPECT_EQ(values<int8_t>(parseOk("3xi8=-7")),
            (std::vector<int8_t>{-7, -7, -7}));
}

TEST(TensorParserTest, Rank0) {
  HostTensor t = parseOk("f32=5");
  EXPECT_TRUE(t.Shape.empty());
  EXPECT_EQ(values<float>(t), std::vector<float>{5});
  expectError("f32=[5]", "a rank-0 tensor (f32) takes one value without "
                         "brackets");
  expectError("f32=1 2", "expected 1 values for f32, got 2");
}

TEST(TensorParserTest, Booleans) {
  EXPECT_EQ(values<uint8_t>(parseOk("4xi1=[true false 1 0]")),
            (std::vector<uint8_t>{1, 0, 1, 0}));
  EXPECT_EQ(values<uint8_t>(parseOk("2xi1=True FALSE")),
            (std::vector<uint8_t>{1, 0}));
  expectError("2xi1=[1 2]", "value '2' is not a boolean");
}

TEST(TensorParserTest, ZeroFilledWithoutValues) {
  HostTensor t = parseOk("3x2xui16");
  EXPECT_EQ(t.Type, ElementType::U16);
  EXPECT_EQ(values<uint16_t>(t), std::vector<uint16_t>(6, 0));
}

TEST(TensorParserTest, EmptyTensors) {
  EXPECT_EQ(parseOk("0xf32=[]").Data.size(), 0u);
  EXPECT_EQ(parseOk("0xf32=").Data.size(), 0u);
  EXPECT_EQ(parseOk("2x0xf32=[][]").Data.size(), 0u);
  expectError("2x0xf32=[]", "expected 2 [...] groups");
}

TEST(TensorParserTest, Integers) {
  EXPECT_EQ(values<int8_t>(parseOk("2xi8=[-128 127]")),
            (std::vector<int8_t>{-128, 127}));
  EXPECT_EQ(values<uint8_t>(parseOk("3xui8=[0 255 -0]")),
            (std::vector<uint8_t>{0, 255, 0}));
  EXPECT_EQ(values<uint8_t>(parseOk("u8=+9")), std::vector<uint8_t>{9});
  EXPECT_EQ(values<int64_t>(
                parseOk("2xi64=[9223372036854775807 -9223372036854775808]")),
            (std::vector<int64_t>{INT64_MAX, INT64_MIN}));
  EXPECT_EQ(values<uint64_t>(parseOk("ui64=18446744073709551615")),
            std::vector<uint64_t>{UINT64_MAX});
  EXPECT_EQ(values<uint32_t>(parseOk("ui32=4294967295")),
            std::vector<uint32_t>{UINT32_MAX});
}

TEST(TensorParserTest, IntegerErrors) {
  expectError("2xi8=[1 128]", "value '128' is out of range for i8 [-128, 127]");
  expectError("i8=-129", "out of range for i8");
  expectError("ui8=-1", "value '-1' is out of range for ui8 [0, 255]");
  expectError("ui16=65536", "out of range for ui16");
  expectError("i64=9223372036854775808", "out of range for i64");
  expectError("ui64=18446744073709551616", "out of range for ui64");
  expectError("i32=1.5", "value '1.5' is not an integer (for i32)");
  expectError("i32=0x10", "is not an integer");
  expectError("i32=--1", "is not an integer");
  expectError("i32=-", "is not an integer");
}

TEST(TensorParserTest, Floats) {
  std::vector<double> f64 = values<double>(parseOk("3xf64=0.1 -1e300 1e-310"));
  EXPECT_EQ(f64[0], 0.1);
  EXPECT_EQ(f64[1], -1e300);
  EXPECT_EQ(f64[2], 1e-310);
  std::vector<float> special = values<float>(parseOk("3xf32=nan inf -inf"));
  EXPECT_TRUE(std::isnan(special[0]));
  EXPECT_EQ(special[1], INFINITY);
  EXPECT_EQ(special[2], -INFINITY);
  // Underflow rounds to zero rather than failing.
  EXPECT_EQ(values<float>(parseOk("f32=1e-50")), std::vector<float>{0});
  expectError("f32=1e39", "value '1e39' is out of range for f32");
  expectError("f64=1e400", "out of range for f64");
  expectError("2xf32=[1 abc]", "value 'abc' is not a number (for f32)");
  expectError("f32=1.0.0", "is not a number");
}

TEST(TensorParserTest, HalfFloats) {
  EXPECT_EQ(values<uint16_t>(parseOk("4xf16=[1 0.1 65504 -2]")),
            (std::vector<uint16_t>{0x3c00, 0x2e66, 0x7bff, 0xc000}));
  // Ties round to even: 2049 -> 2048, 2051 -> 2052.
  EXPECT_EQ(values<uint16_t>(parseOk("2xf16=2049 2051")),
            (std::vector<uint16_t>{0x6800, 0x6802}));
  // 1 + 2^-11 is a tie (-> 1.0); a hair above it must round up. Going
  // through a correctly rounded float would lose the hair.
  EXPECT_EQ(values<uint16_t>(parseOk("f16=1.00048828125")),
            std::vector<uint16_t>{0x3c00});
  EXPECT_EQ(values<uint16_t>(parseOk("f16=1.000488281250000909494701772928")),
            std::vector<uint16_t>{0x3c01});
  EXPECT_EQ(values<uint16_t>(parseOk("f16=65519")),
            std::vector<uint16_t>{0x7bff});
  expectError("f16=65520", "value '65520' is out of range for f16");
  EXPECT_EQ(values<uint16_t>(parseOk("3xbf16=[1 0.1 -3]")),
            (std::vector<uint16_t>{0x3f80, 0x3dcd, 0xc040}));
  expectError("bf16=1e39", "out of range for bf16");
}

TEST(TensorParserTest, ShapeMismatch) {
  expectError("4xf32=[1 2 3]", "expected 4 values for 4xf32, got 3");
  expectError("4xf32=1 2 3", "expected 4 values for 4xf32, got 3");
  expectError("2x2xi32=[[1 2][3 4 5]]",
              "expected 2 values in [1] of 2x2xi32, got 3");
  expectError("2x2xi32=[[1 2][3 4][5 6]]",
              "brackets do not match the shape of 2x2xi32: expected 2 [...] "
              "groups, got 3");
  expectError("2x2xi32=[1 2 3 4]", "expected 2 [...] groups, got 4 values");
  expectError("2x2xi32=[[1 [2]][3 4]]",
              "value '1' is mixed with [...] groups in [0]");
  expectError("4xf32=[1 2 3 4] junk",
              "value 'junk' is mixed with [...] groups");
  expectError("2xi32=[[1 2]]", "too many nested brackets");
  expectError("2x2xi32=1 2 3", "expected 4 values for 2x2xi32, got 3");
}

TEST(TensorParserTest, BracketErrors) {
  expectError("2x2xi32=[[1 2][3 4]", "missing ']'");
  expectError("2xi32=[1 2]]", "unmatched ']'");
  std::string deep = "2xf32=" + std::string(10000, '[');
  auto tensor = parseTensor(deep);
  ASSERT_FALSE(tensor.ok());
  EXPECT_NE(tensor.status().toString().find("nested more than"),
            std::string::npos);
}

TEST(TensorParserTest, TypeErrors) {
  expectError("4xf33=0", "unknown element type 'f33' (known: f32, f16, bf16");
  expectError("4x?xf32=0", "dynamic dimension '?'");
  expectError("-4xf32=0", "bad dimension '-4'");
  expectError("4xxf32=0", "bad dimension ''");
  expectError("ax4xf32=0", "bad dimension 'a'");
  expectError("4x=0", "missing element type");
  expectError("=5", "missing tensor type");
  expectError("", "missing tensor type");
  expectError("99999999999999999999xf32=0", "bad dimension");
  expectError("100000x100000x100000xf32=0", "is too large");
  expectError("1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32=0",
              "exceeds the maximum of 16");
}

TEST(TensorParserTest, LongInputIsShortenedInErrors) {
  std::string text = "200xf32=" + std::string(199, '1');
  for (int i = 0; i < 150; ++i)
    text += " 1";
  auto tensor = parseTensor(text);
  ASSERT_FALSE(tensor.ok());
  std::string message = tensor.status().toString();
  EXPECT_LT(message.size(), 400u);
  EXPECT_NE(message.find("...'"), std::string::npos);
}

TEST(TensorParserTest, NpyReference) {
  auto missing = parseTensor("@/nonexistent/dir/x.npy");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::NotFound);
  EXPECT_NE(missing.status().toString().find("/nonexistent/dir/x.npy"),
            std::string::npos);
  expectError("@", "missing file name after '@'");
}

// The caller's check sees the type before any value is parsed or memory
// allocated, and its error is returned as it is.
TEST(TensorParserTest, CheckSeesTheTypeFirst) {
  std::vector<ParsedTensorType> seen;
  auto refuse = [&](const ParsedTensorType &type) {
    seen.push_back(type);
    return KILN_ERROR(InvalidArgument, "not wanted");
  };
  auto refused = parseTensor("16384x65536xi8=[1 2", refuse);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(), "not wanted");
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].Shape, (std::vector<int64_t>{16384, 65536}));
  EXPECT_EQ(seen[0].Type, ElementType::I8);

  auto accept = [&](const ParsedTensorType &) { return Status(); };
  auto accepted = parseTensor("2xi8=[1 2]", accept);
  ASSERT_TRUE(accepted.ok()) << accepted.status().toString();
  EXPECT_EQ(values<int8_t>(*accepted), (std::vector<int8_t>{1, 2}));
  // A type the parser rejects never reaches the check.
  EXPECT_FALSE(parseTensor("4xq32=0", refuse).ok());
  EXPECT_EQ(seen.size(), 1u);
}

// A string whose values do not fit its type fails before the tensor is
// allocated, however large the type (1 GiB here).
TEST(TensorParserTest, MalformedLargeTensorFailsBeforeAllocating) {
  uint64_t before = peakResidentBytes();
  expectError("16384x65536xf32=1 2", "expected 1073741824 values for "
                                     "16384x65536xf32, got 2");
  expectError("16384x65536xf32=x", "value 'x' is not a number (for f32)");
  expectError("16384x65536xf32=[[1 2]]", "expected 16384 [...] groups, got 1");
  EXPECT_LT(peakResidentBytes() - before, uint64_t(64) << 20);
}

TEST(TensorParserTest, ParseTensorType) {
  auto type = parseTensorType("1x224x224x3xbf16");
  ASSERT_TRUE(type.ok());
  EXPECT_EQ(type->Shape, (std::vector<int64_t>{1, 224, 224, 3}));
  EXPECT_EQ(type->Type, ElementType::BF16);
  auto scalar = parseTensorType("ui64");
  ASSERT_TRUE(scalar.ok());
  EXPECT_TRUE(scalar->Shape.empty());
}

// Whatever the printer writes, the parser reads back to the same bytes
// (values chosen to be exact in the printed precision).
TEST(TensorParserTest, RoundTripsThroughFormatter) {
  std::mt19937 rng(2024);
  const ElementType types[] = {
      ElementType::F32, ElementType::F16, ElementType::BF16, ElementType::F64,
      ElementType::I1,  ElementType::I8,  ElementType::I16,  ElementType::I32,
      ElementType::I64, ElementType::U8,  ElementType::U16,  ElementType::U32,
      ElementType::U64};
  for (int iteration = 0; iteration < 200; ++iteration) {
    ElementType type = types[iteration % 13];
    std::vector<int64_t> shape(rng() % 4);
    for (int64_t &dim : shape)
      dim = 1 + rng() % 4;
    auto tensor = parseTensor(tensorTypeString(shape, type));
    ASSERT_TRUE(tensor.ok());
    size_t elementSize = elementTypeSize(type);
    for (size_t i = 0; i < static_cast<size_t>(tensor->elementCount()); ++i) {
      // Small multiples of 1/4 are exact in every float type.
      double value =
          static_cast<double>(static_cast<int>(rng() % 200) - 100) / 4;
      std::string token =
          formatElement(ElementType::F64, reinterpret_cast<uint8_t *>(&value));
      if (type == ElementType::I1)
        token = rng() % 2 ? "1" : "0";
      else if (type != ElementType::F32 && type != ElementType::F16 &&
               type != ElementType::BF16 && type != ElementType::F64)
        token = std::to_string(rng() % 100);
      ASSERT_TRUE(
          parseElement(token, type, tensor->Data.data() + i * elementSize)
              .ok());
    }
    std::string text = formatTensor(*tensor);
    auto reparsed = parseTensor(text);
    ASSERT_TRUE(reparsed.ok()) << text << ": " << reparsed.status().toString();
    EXPECT_EQ(reparsed->Shape, tensor->Shape) << text;
    EXPECT_EQ(reparsed->Type, tensor->Type) << text;
    EXPECT_EQ(reparsed->Data, tensor->Data) << text;
  }
}

} // namespace
} // namespace kiln::tooling
