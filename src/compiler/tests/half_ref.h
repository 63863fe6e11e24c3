// Reference IEEE 754 binary16 conversions for the 16-bit tests, written
// from the standard's definition (independent of util/half.h): a finite
// value is a multiple of its quantum 2^(e - 10) (e >= -14 the exponent of
// the leading bit), rounded to the nearest multiple, ties to even; a
// result of 65520 or more overflows to infinity. Buffers hold 16-bit
// elements two per 32-bit word, low half first.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace agx::compiler::test {

inline uint16_t ref_half(double d) {
  const uint16_t sign = std::signbit(d) ? 0x8000 : 0;
  if (std::isnan(d)) return sign | 0x7E00;
  const double a = std::fabs(d);
  if (a >= 65520.0) return sign | 0x7C00;
  if (a == 0.0) return sign;
  int e = 0;
  std::frexp(a, &e);  // a = m 2^e, m in [0.5, 1): the leading bit is 2^(e-1)
  int lead = std::max(e - 1, -14);
  double q = std::ldexp(1.0, lead - 10);
  double r = std::nearbyint(a / q) * q;  // a / q is exact (a power of two)
  if (r < std::ldexp(1.0, -14)) return sign | static_cast<uint16_t>(r / std::ldexp(1.0, -24));
  std::frexp(r, &e);
  int exp = e - 1;
  uint16_t mant = static_cast<uint16_t>(r / std::ldexp(1.0, exp - 10) - 1024.0);
  return sign | static_cast<uint16_t>((exp + 15) << 10) | mant;
}

inline double ref_double(uint16_t h) {
  double s = (h & 0x8000) ? -1.0 : 1.0;
  unsigned e = h >> 10 & 0x1F, m = h & 0x3FF;
  if (e == 0x1F) return m ? std::nan("") : s * INFINITY;
  if (e == 0) return s * std::ldexp(double(m), -24);
  return s * std::ldexp(double(m + 1024), int(e) - 25);
}

inline bool half_nan(uint16_t h) { return (h & 0x7C00) == 0x7C00 && (h & 0x3FF); }

// Distance in units in the last place (halves ordered as integers).
inline int half_ulps(uint16_t a, uint16_t b) {
  auto key = [](uint16_t h) { return (h & 0x8000) ? -int(h & 0x7FFF) : int(h); };
  return std::abs(key(a) - key(b));
}

inline std::vector<uint32_t> pack16(const std::vector<uint16_t>& v) {
  std::vector<uint32_t> w((v.size() + 1) / 2);
  for (size_t i = 0; i < v.size(); ++i) w[i / 2] |= uint32_t{v[i]} << (16 * (i % 2));
  return w;
}
inline uint16_t at16(const std::vector<uint32_t>& w, size_t i) { return static_cast<uint16_t>(w[i / 2] >> (16 * (i % 2))); }
inline uint8_t at8(const std::vector<uint32_t>& w, size_t i) { return static_cast<uint8_t>(w[i / 4] >> (8 * (i % 4))); }

}  // namespace agx::compiler::test
