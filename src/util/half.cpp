#include "util/half.h"

#include <bit>
#include <cmath>
#include <limits>

namespace agx {

double half_to_double(uint16_t h) {
  const bool neg = h & 0x8000;
  const int e = (h >> 10) & 0x1F;
  const int m = h & 0x3FF;
  double v;
  if (e == 0x1F) {
    if (m == 0) {
      v = std::numeric_limits<double>::infinity();
    } else {
      // Keep the payload: half mantissa bit 9 is the quiet bit, as in double bit 51.
      uint64_t bits = 0x7FF0000000000000ull | (uint64_t(m) << 42);
      v = std::bit_cast<double>(bits);
    }
  } else if (e == 0) {
    v = std::ldexp(static_cast<double>(m), -24);
  } else {
    v = std::ldexp(static_cast<double>(m | 0x400), e - 25);
  }
  return neg ? -v : v;
}

float half_to_float(uint16_t h) { return static_cast<float>(half_to_double(h)); }

namespace {

// Rounds the non-negative value scaled (an integer part plus fraction) to an
// integer by `mode`, for a result of sign `neg`.
uint64_t round_scaled(double scaled, bool neg, Rounding mode) {
  double n = std::floor(scaled);
  double rem = scaled - n;
  uint64_t i = static_cast<uint64_t>(n);
  if (rem == 0) return i;
  switch (mode) {
    case Rounding::nearest_even:
      if (rem > 0.5 || (rem == 0.5 && (i & 1))) ++i;
      break;
    case Rounding::toward_zero:
      break;
    case Rounding::toward_pos:
      if (!neg) ++i;
      break;
    case Rounding::toward_neg:
      if (neg) ++i;
      break;
  }
  return i;
}

bool overflow_to_inf(bool neg, Rounding mode) {
  switch (mode) {
    case Rounding::nearest_even: return true;
    case Rounding::toward_zero: return false;
    case Rounding::toward_pos: return !neg;
    case Rounding::toward_neg: return neg;
  }
  return true;
}

}  // namespace

uint16_t double_to_half(double d, Rounding mode) {
  const uint64_t u = std::bit_cast<uint64_t>(d);
  const bool neg = u >> 63;
  const uint16_t sign = neg ? 0x8000 : 0;
  if (std::isnan(d)) return sign | 0x7E00 | static_cast<uint16_t>((u >> 42) & 0x1FF);
  if (std::isinf(d)) return sign | 0x7C00;
  const double a = std::fabs(d);
  if (a == 0) return sign;
  int e;
  std::frexp(a, &e);  // a = f * 2^e, f in [0.5, 1)
  // A half has 11 significant bits; the smallest quantum is 2^-24 (subnormals).
  int q = e - 11;
  if (q < -24) q = -24;
  uint64_t n = round_scaled(std::ldexp(a, -q), neg, mode);
  if (n == 0) return sign;
  if (q == -24 && n < 1024) return sign | static_cast<uint16_t>(n);  // subnormal
  if (n >= 2048) {
    n >>= 1;
    ++q;
  }
  const int exp = q + 10;  // unbiased exponent of n * 2^q with n in [1024, 2048)
  if (exp > 15) return overflow_to_inf(neg, mode) ? (sign | 0x7C00) : (sign | 0x7BFF);
  return sign | static_cast<uint16_t>(((exp + 15) << 10) | (n - 1024));
}

float double_to_float(double d, Rounding mode) {
  if (mode == Rounding::nearest_even || std::isnan(d) || std::isinf(d))
    return static_cast<float>(d);  // host conversion is RNE
  const bool neg = std::signbit(d);
  const double a = std::fabs(d);
  if (a == 0) return static_cast<float>(d);
  int e;
  std::frexp(a, &e);
  int q = e - 24;
  if (q < -149) q = -149;
  uint64_t n = round_scaled(std::ldexp(a, -q), neg, mode);
  double r = std::ldexp(static_cast<double>(n), q);
  if (r > static_cast<double>(std::numeric_limits<float>::max())) {
    float inf = std::numeric_limits<float>::infinity();
    float big = std::numeric_limits<float>::max();
    float v = overflow_to_inf(neg, mode) ? inf : big;
    return neg ? -v : v;
  }
  float f = static_cast<float>(r);  // exact: r has at most 24 significant bits
  return neg ? -f : f;
}

}  // namespace agx
