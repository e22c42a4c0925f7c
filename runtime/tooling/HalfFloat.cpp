//===- HalfFloat.cpp ------------------------------------------------------===//

#include "runtime/tooling/HalfFloat.h"

#include <bit>
#include <cfloat>
#include <cmath>

namespace kiln::tooling {

namespace {

// Rounds to float with "round to odd": an inexact result gets an odd last
// mantissa bit. Rounding that to 8 or 11 bits (at least 2 fewer than float's
// 24) then gives exactly the nearest-even result of rounding the double.
float doubleToFloatRoundToOdd(double value) {
  if (std::isnan(value) || std::isinf(value))
    return static_cast<float>(value);
  if (std::fabs(value) > FLT_MAX)
    return std::copysign(FLT_MAX, static_cast<float>(value));
  float rounded = static_cast<float>(value);
  if (static_cast<double>(rounded) == value)
    return rounded;
  if (std::bit_cast<uint32_t>(rounded) & 1)
    return rounded;
  // The neighbour on the other side of `value` has the odd mantissa.
  return std::nextafter(
      rounded, static_cast<double>(rounded) < value ? INFINITY : -INFINITY);
}

} // namespace

uint16_t floatToHalf(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  uint32_t magnitude = bits & 0x7fffffff;
  if (magnitude >= 0x7f800000) {
    // Infinity stays infinity; NaN stays a (quiet) NaN with its top payload.
    if (magnitude == 0x7f800000)
      return sign | 0x7c00;
    return static_cast<uint16_t>(sign | 0x7e00 | ((magnitude >> 13) & 0x3ff));
  }
  // 65520 and above round to infinity.
  if (magnitude >= 0x477ff000)
    return sign | 0x7c00;
  if (magnitude < 0x38800000) {
    // Below the smallest normal half: a subnormal, in units of 2^-24. Scaling
    // by a power of two is exact, and nearbyint rounds to nearest even.
    float scaled = std::bit_cast<float>(magnitude) * 16777216.0f;
    return static_cast<uint16_t>(sign |
                                 static_cast<uint16_t>(std::nearbyint(scaled)));
  }
  // Normal: round the 13 dropped bits to nearest even, then rebias the
  // exponent from 127 to 15. A carry out of the mantissa correctly bumps
  // the exponent.
  uint32_t rounded = magnitude + 0xfff + ((magnitude >> 13) & 1);
  return static_cast<uint16_t>(sign | ((rounded - 0x38000000) >> 13));
}

float halfToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  uint32_t exponent = (bits >> 10) & 0x1f;
  uint32_t mantissa = bits & 0x3ff;
  if (exponent == 0) {
    float magnitude = static_cast<float>(mantissa) * (1.0f / 16777216.0f);
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 31)
    return std::bit_cast<float>(sign | 0x7f800000 | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) |
                              (mantissa << 13));
}

uint16_t floatToBFloat16(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  if ((bits & 0x7fffffff) > 0x7f800000)
    return static_cast<uint16_t>((bits >> 16) | 0x0040);
  // Overflowing the largest bf16 rounds into the infinity encoding.
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

float bfloat16ToFloat(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

uint16_t doubleToHalf(double value) {
  return floatToHalf(doubleToFloatRoundToOdd(value));
}

uint16_t doubleToBFloat16(double value) {
  return floatToBFloat16(doubleToFloatRoundToOdd(value));
}

} // namespace kiln::tooling
