// Number and word helpers the [test] command parsers share: piglit's
// integers (decimal or 0x), floats in its syntax (glsl_value.h), and its
// parenthesized tuples "(5, 1)".
#pragma once

#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "shadertest/glsl_value.h"
#include "util/result.h"

namespace agx::shadertest::words {

using Words = std::vector<std::string_view>;

inline bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

template <typename T>
Result<T> parse_int(std::string_view w, const char* what) {
  int base = 10;
  std::string_view digits = w;
  bool neg = false;
  if (!digits.empty() && digits[0] == '-') {
    neg = true;
    digits.remove_prefix(1);
  }
  if (starts_with(digits, "0x") || starts_with(digits, "0X")) {
    base = 16;
    digits.remove_prefix(2);
  }
  uint64_t u = 0;
  auto r = std::from_chars(digits.data(), digits.data() + digits.size(), u, base);
  if (digits.empty() || r.ec != std::errc() || r.ptr != digits.data() + digits.size())
    return Error::parse("{} '{}' is not an integer", what, w);
  if constexpr (std::is_signed_v<T>) {
    int64_t s = neg ? -int64_t(u) : int64_t(u);
    if (u > uint64_t(INT64_MAX) || s < int64_t(std::numeric_limits<T>::min()) ||
        s > int64_t(std::numeric_limits<T>::max()))
      return Error::parse("{} '{}' is out of range", what, w);
    return T(s);
  } else {
    if (neg || u > uint64_t(std::numeric_limits<T>::max()))
      return Error::parse("{} '{}' is out of range", what, w);
    return T(u);
  }
}

inline Result<float> parse_float(std::string_view w) {
  AGX_TRY(uint64_t bits, parse_scalar(w, Scalar::float32));
  float f;
  uint32_t b = uint32_t(bits);
  std::memcpy(&f, &b, 4);
  return f;
}

// Up to N floats; piglit's parse_floats takes what is there and leaves the
// rest, but every form used needs at least `min`.
template <size_t N>
Result<std::array<float, N>> parse_floats(const Words& w, size_t first, size_t min) {
  std::array<float, N> out{};
  size_t n = w.size() > first ? w.size() - first : 0;
  if (n < min) return Error::parse("needs {} numbers, got {}", min, n);
  for (size_t i = 0; i < N && i < n; ++i) {
    AGX_TRY(out[i], parse_float(w[first + i]));
  }
  return out;
}

// "(5, 1)" and "( 5 , 1 )" both become the words 5 1.
inline std::string unparenthesize(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c == '(' || c == ')' || c == ',') c = ' ';
  return out;
}

}  // namespace agx::shadertest::words
