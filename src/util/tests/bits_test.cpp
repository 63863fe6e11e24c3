#include <gtest/gtest.h>

#include "util/bits.h"
#include "util/morton.h"

namespace agx {
namespace AGX_UNITY_ID {

TEST(Bits, ExtractAndInsert) {
  EXPECT_EQ(bits(0xABCD, 4, 8), 0xBCu);
  EXPECT_EQ(bits(~0ull, 0, 64), ~0ull);
  EXPECT_EQ(bits(0x1234, 0, 0), 0u);
  EXPECT_EQ(set_bits(0xFFFF, 4, 8, 0x12), 0xF12Fu);
  EXPECT_EQ(set_bits(0, 60, 8, 0xFF), 0xF000000000000000ull);  // clipped at bit 63
}

TEST(Bits, SignExtend) {
  EXPECT_EQ(sign_extend(0xFFFF, 16), -1);
  EXPECT_EQ(sign_extend(0x7FFF, 16), 0x7FFF);
  EXPECT_EQ(sign_extend(0x8000, 16), -32768);
  EXPECT_EQ(sign_extend(0x1F, 4), -1);  // bits above size are ignored
}

TEST(Bits, RoundingHelpers) {
  EXPECT_EQ(next_pow2(0), 1u);
  EXPECT_EQ(next_pow2(1), 1u);
  EXPECT_EQ(next_pow2(17), 32u);
  EXPECT_EQ(align_up(129, 128), 256u);
  EXPECT_EQ(align_up(96, 48), 96u);
  EXPECT_EQ(div_round_up(10, 4), 3u);
  EXPECT_EQ(minify(644, 1), 322u);
  EXPECT_EQ(minify(1, 5), 1u);
  EXPECT_EQ(minify(5, 40), 1u);
  EXPECT_EQ(log2_floor(4096), 12u);
  EXPECT_EQ(log2_ceil(4097), 13u);
}

TEST(Morton, InterleavesXInEvenBitsYInOdd) {
  EXPECT_EQ(morton_interleave(1, 0), 1u);
  EXPECT_EQ(morton_interleave(0, 1), 2u);
  EXPECT_EQ(morton_interleave(3, 3), 15u);
  for (uint32_t v = 0; v < 70000; v += 7) EXPECT_EQ(morton_compact(morton_spread(v)), v & 0xFFFF);
}

}  // namespace
}  // namespace agx
