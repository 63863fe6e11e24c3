// Morton (Z-order) helpers: x bit i goes to bit 2i, y bit i to bit 2i+1.
// The GPU-tiled and twiddled image layouts order elements this way inside a
// tile (seed "Image layouts"; Mesa src/asahi/layout).
#pragma once

#include <cstdint>

namespace agx {

// Spreads the low 16 bits of v to the even bit positions of a 32-bit value.
constexpr uint32_t morton_spread(uint32_t v) {
  v &= 0xFFFF;
  v = (v | (v << 8)) & 0x00FF00FF;
  v = (v | (v << 4)) & 0x0F0F0F0F;
  v = (v | (v << 2)) & 0x33333333;
  v = (v | (v << 1)) & 0x55555555;
  return v;
}

// Gathers the even bits of v back into the low 16 bits.
constexpr uint32_t morton_compact(uint32_t v) {
  v &= 0x55555555;
  v = (v | (v >> 1)) & 0x33333333;
  v = (v | (v >> 2)) & 0x0F0F0F0F;
  v = (v | (v >> 4)) & 0x00FF00FF;
  v = (v | (v >> 8)) & 0x0000FFFF;
  return v;
}

constexpr uint32_t morton_interleave(uint32_t x, uint32_t y) {
  return morton_spread(x) | (morton_spread(y) << 1);
}

static_assert(morton_interleave(0b11, 0b01) == 0b0111);
static_assert(morton_compact(morton_spread(0xBEEF)) == 0xBEEF);

}  // namespace agx
