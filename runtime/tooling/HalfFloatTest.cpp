//===- HalfFloatTest.cpp --------------------------------------------------===//

#include "runtime/tooling/HalfFloat.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>

namespace kiln::tooling {
namespace {

TEST(HalfFloatTest, EveryHalfRoundTrips) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    auto half = static_cast<uint16_t>(bits);
    float value = halfToFloat(half);
    if (std::isnan(value)) {
      EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(value)))) << bits;
      continue;
    }
    EXPECT_EQ(floatToHalf(value), half) << std::hex << bits;
  }
}

TEST(HalfFloatTest, EveryBFloat16RoundTrips) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    auto half = static_cast<uint16_t>(bits);
    float value = bfloat16ToFloat(half);
    if (std::isnan(value)) {
      EXPECT_TRUE(std::isnan(bfloat16ToFloat(floatToBFloat16(value))));
      continue;
    }
    EXPECT_EQ(floatToBFloat16(value), half) << std::hex << bits;
  }
}

// Checks that `half` is the nearest representable value to `value`, ties to
// an even mantissa, by comparing with both neighbours in double precision.
void expectNearestEven(double value, uint16_t half, float (*toFloat)(uint16_t),
                       uint16_t infinity) {
  uint16_t magnitude = half & 0x7fff;
  if (magnitude == infinity)
    return; // overflow is checked separately
  double chosen = toFloat(half);
  double error = std::fabs(chosen - value);
  for (int step : {-1, 1}) {
    int neighbour = magnitude + step;
    if (neighbour < 0 || neighbour >= infinity)
      continue;
    auto other = static_cast<uint16_t>((half & 0x8000) | neighbour);
    double otherError = std::fabs(toFloat(other) - value);
    ASSERT_LE(error, otherError) << value << " -> " << std::hex << half;
    if (error == otherError) {
      EXPECT_EQ(half & 1, 0) << "tie not to even: " << value;
    }
  }
}

TEST(HalfFloatTest, RandomFloatsRoundToNearestEven) {
  std::mt19937 rng(5);
  for (int i = 0; i < 200000; ++i) {
    // Random bit patterns within f16 range exercise normals, subnormals and
    // ties alike.
    float value = std::bit_cast<float>(
        static_cast<uint32_t>((rng() % 0x477f0000u) | (rng() & 0x80000000u)));
    expectNearestEven(value, floatToHalf(value), halfToFloat, 0x7c00);
    float wide = std::bit_cast<float>(static_cast<uint32_t>(rng()));
    if (!std::isnan(wide))
      expectNearestEven(wide, floatToBFloat16(wide), bfloat16ToFloat, 0x7f80);
  }
}

TEST(HalfFloatTest, RandomDoublesRoundToNearestEven) {
  std::mt19937_64 rng(6);
  for (int i = 0; i < 200000; ++i) {
    // Values near f16 ties: a tie plus a tiny random offset.
    auto below = static_cast<uint16_t>(rng() % 0x7bff);
    double base = halfToFloat(below);
    double next = halfToFloat(static_cast<uint16_t>(below + 1));
    double tie = (base + next) / 2;
    double value =
        tie + (static_cast<double>(rng() % 2001) - 1000) * std::ldexp(tie, -45);
    expectNearestEven(value, doubleToHalf(value), halfToFloat, 0x7c00);
    double wide = std::ldexp(static_cast<double>(rng() >> 11), -40) *
                  ((rng() & 1) ? 1 : -1);
    expectNearestEven(wide, doubleToBFloat16(wide), bfloat16ToFloat, 0x7f80);
  }
}

TEST(HalfFloatTest, SpecialValues) {
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(floatToHalf(65519.0f), 0x7bff);
  EXPECT_EQ(floatToHalf(65520.0f), 0x7c00);
  EXPECT_EQ(floatToHalf(-INFINITY), 0xfc00);
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -24)), 0x0001);
  // Half of the smallest subnormal ties to zero; 1.5 of it to 2.
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(floatToHalf(std::ldexp(3.0f, -25)), 0x0002);
  EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(NAN))));
  EXPECT_EQ(floatToBFloat16(1.0f), 0x3f80);
  EXPECT_EQ(floatToBFloat16(3.4e38f), 0x7f80); // rounds past the largest
  EXPECT_TRUE(std::isnan(bfloat16ToFloat(floatToBFloat16(NAN))));
  EXPECT_EQ(doubleToHalf(1e300), 0x7c00);
  EXPECT_EQ(doubleToBFloat16(-1e300), 0xff80);
  EXPECT_EQ(doubleToHalf(1e-300), 0x0000);
}

} // namespace
} // namespace kiln::tooling
