// Bit-field and integer helpers used by every unit.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace agx {

// Bits [start, start+size) of a 64-bit word. size may be 0..64.
constexpr uint64_t bits(uint64_t word, unsigned start, unsigned size) {
  if (size == 0) return 0;
  uint64_t v = word >> start;
  return size >= 64 ? v : (v & ((uint64_t{1} << size) - 1));
}

// Mask of `size` low bits.
constexpr uint64_t low_mask(unsigned size) {
  return size >= 64 ? ~uint64_t{0} : (uint64_t{1} << size) - 1;
}

// `word` with bits [start, start+size) replaced by the low bits of value.
constexpr uint64_t set_bits(uint64_t word, unsigned start, unsigned size, uint64_t value) {
  uint64_t m = low_mask(size) << start;
  return (word & ~m) | ((value << start) & m);
}

// Sign-extends the low `size` bits of v.
constexpr int64_t sign_extend(uint64_t v, unsigned size) {
  if (size == 0) return 0;
  if (size >= 64) return static_cast<int64_t>(v);
  uint64_t m = uint64_t{1} << (size - 1);
  v &= low_mask(size);
  return static_cast<int64_t>((v ^ m) - m);
}

constexpr bool is_pow2(uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }

// Smallest power of two >= x; next_pow2(0) = next_pow2(1) = 1.
constexpr uint64_t next_pow2(uint64_t x) { return x <= 1 ? 1 : std::bit_ceil(x); }

constexpr unsigned log2_floor(uint64_t x) { return x == 0 ? 0 : 63 - std::countl_zero(x); }
constexpr unsigned log2_ceil(uint64_t x) { return x <= 1 ? 0 : 64 - std::countl_zero(x - 1); }

constexpr uint64_t div_round_up(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// Rounds up to a multiple of `alignment` (any positive value, not just powers of two).
constexpr uint64_t align_up(uint64_t v, uint64_t alignment) {
  return div_round_up(v, alignment) * alignment;
}
constexpr uint64_t align_down(uint64_t v, uint64_t alignment) { return v / alignment * alignment; }

// minify(x, l) = max(1, x >> l): the size of mip level l.
constexpr uint32_t minify(uint32_t x, unsigned level) {
  uint32_t v = level >= 32 ? 0 : (x >> level);
  return v ? v : 1;
}

// True if a + b overflows 64 bits.
constexpr bool add_overflows(uint64_t a, uint64_t b) { return a + b < a; }

// Little-endian loads and stores from unaligned bytes.
template <typename T>
inline T load_le(const void* p) {
  static_assert(std::is_trivially_copyable_v<T>);
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;  // the project only targets little-endian hosts (x86-64)
}
template <typename T>
inline void store_le(void* p, T v) {
  static_assert(std::is_trivially_copyable_v<T>);
  std::memcpy(p, &v, sizeof(T));
}

static_assert(std::endian::native == std::endian::little, "AGX and this project are little-endian");

}  // namespace agx
