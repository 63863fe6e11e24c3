// Float rounding as the USC does it (dougallj/applegpu fma.py): the fused
// multiply-add is computed exactly and rounded to odd in f64; the result is
// then rounded to the destination: f32 with round-to-nearest-even and
// flush-to-zero (decided on the unrounded exponent), or f16 with RNE keeping
// subnormals. Any NaN gives the default NaN. Inputs here are f16/f32 values
// or float immediates widened to f64, so a*b is exact in f64. The
// per-lane helpers are inline in internal.h; this file keeps the f16 path.
#include <bit>
#include <cmath>
#include <cstdint>

#include "usc/internal.h"
#include "util/half.h"

namespace agx::usc::detail {

uint16_t f64_to_f16(double v) {
  if (std::isnan(v)) return kF16DefaultNan;
  return double_to_half(v, Rounding::nearest_even);
}

}  // namespace agx::usc::detail
