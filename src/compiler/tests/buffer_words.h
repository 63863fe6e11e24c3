// Test data as the 32-bit words of a buffer: random words, float bits,
// and 64-bit values as low/high word pairs.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace agx::compiler::test {

// n words from mt19937(seed), each in 0..max.
inline std::vector<uint32_t> random_words(size_t n, uint32_t seed, uint32_t max = UINT32_MAX) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> v(n);
  for (auto& x : v) x = static_cast<uint32_t>(rng() % (uint64_t{max} + 1));
  return v;
}

// A float as its buffer word, and back.
inline uint32_t fbits(float f) { return std::bit_cast<uint32_t>(f); }
inline float bitsf(uint32_t u) { return std::bit_cast<float>(u); }

// 64-bit values as buffer words, low word first.
inline std::vector<uint32_t> words(const std::vector<uint64_t>& v) {
  std::vector<uint32_t> w;
  for (uint64_t x : v) { w.push_back(static_cast<uint32_t>(x)); w.push_back(static_cast<uint32_t>(x >> 32)); }
  return w;
}
// The i-th 64-bit value of buffer words w.
inline uint64_t at(const std::vector<uint32_t>& w, size_t i) { return w[2 * i] | uint64_t{w[2 * i + 1]} << 32; }

}  // namespace agx::compiler::test
