// IEEE binary16 ("half") conversions, bit-exact, with explicit rounding.
// The USC computes 16-bit float ops by rounding wider results to half
// (dougallj/applegpu fma.py), so every rounding mode must be exact here.
#pragma once

#include <cstdint>

namespace agx {

enum class Rounding : uint8_t {
  nearest_even,  // IEEE default (RNE)
  toward_zero,   // RTZ
  toward_pos,    // RTP (ceiling)
  toward_neg,    // RTN (floor)
};

// Exact widening conversion; subnormal halves are kept.
float half_to_float(uint16_t h);
double half_to_double(uint16_t h);

// Rounds a double to half. NaN keeps its sign and the top payload bits and
// is made quiet; overflow gives infinity or the largest finite value as the
// rounding mode says. Subnormal results are produced (no flush).
uint16_t double_to_half(double d, Rounding mode = Rounding::nearest_even);
inline uint16_t float_to_half(float f, Rounding mode = Rounding::nearest_even) {
  return double_to_half(static_cast<double>(f), mode);
}

// Rounds a double to float with the given mode (the FPU's mode is not touched).
float double_to_float(double d, Rounding mode = Rounding::nearest_even);

constexpr bool half_is_nan(uint16_t h) { return (h & 0x7C00) == 0x7C00 && (h & 0x03FF) != 0; }
constexpr bool half_is_subnormal(uint16_t h) { return (h & 0x7C00) == 0 && (h & 0x03FF) != 0; }

}  // namespace agx
