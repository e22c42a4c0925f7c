//===- HalfFloat.h - f16 and bf16 conversions -----------------------------===//
//
// The runtime stores f16/bf16 tensors as raw 16-bit patterns; tools convert
// them to and from text. Conversions to 16 bits round to nearest even.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_TOOLING_HALFFLOAT_H
#define KILN_RUNTIME_TOOLING_HALFFLOAT_H

#include <cstdint>

namespace kiln::tooling {

uint16_t floatToHalf(float value);
float halfToFloat(uint16_t bits);
uint16_t floatToBFloat16(float value);
float bfloat16ToFloat(uint16_t bits);

/// Rounds a double straight to f16/bf16 (nearest even) without the double
/// rounding error of going through a correctly rounded float.
uint16_t doubleToHalf(double value);
uint16_t doubleToBFloat16(double value);

} // namespace kiln::tooling

#endif // KILN_RUNTIME_TOOLING_HALFFLOAT_H
