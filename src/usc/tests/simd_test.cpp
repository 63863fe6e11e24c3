// SIMD-group operations: ballots and the simd shuffles against applegpu's
// exec rules (sources read in every lane; the low two bits of B ORed across
// each quad), and the derived reductions.
#include <bit>

#include "helpers.h"

namespace agx::usc::test {
namespace AGX_UNITY_ID {

using isa::Opcode;

enum class Sh { index, down, up, rotate, xor_ };

uint32_t ref_shuffle(Sh kind, const Core& c, unsigned l) {
  auto A = [&](unsigned t) { return c.r[10][t]; };
  auto B = [&](unsigned t) { return c.r[11][t] & 0xFFFF; };  // B is r11l (16-bit)
  auto qbits = [&](unsigned q) { return (B(4 * q) | B(4 * q + 1) | B(4 * q + 2) | B(4 * q + 3)) & 3; };
  int64_t b = B(l), t;
  switch (kind) {
    case Sh::index:
      if (b >= 32) return A(l);
      return A(4 * (b >> 2) + qbits(b >> 2));
    case Sh::down: t = l + b; if (t >= 32) return A(l); return A(4 * (t >> 2) + ((l + qbits(t >> 2)) & 3));
    case Sh::up: t = int64_t(l) - b; if (t < 0) return A(l); return A(4 * (t >> 2) + ((l - qbits(t >> 2)) & 3));
    case Sh::rotate: t = (int64_t(l) - b) & 31; return A(4 * (t >> 2) + ((l - qbits(t >> 2)) & 3));
    case Sh::xor_: t = l ^ b; if (t >= 32) return A(l); return A(4 * (t >> 2) + ((l ^ qbits(t >> 2)) & 3));
  }
  return 0;
}

TEST(Simd, ShufflesFollowQuadOrRule) {
  std::pair<Opcode, Sh> ops[] = {{Opcode::simd_shuffle, Sh::index}, {Opcode::simd_shuffle_down, Sh::down},
                                 {Opcode::simd_shuffle_up, Sh::up}, {Opcode::simd_shuffle_rotate_up, Sh::rotate},
                                 {Opcode::simd_shuffle_xor, Sh::xor_}};
  Rng rng(31);
  for (auto [op, kind] : ops) {
    for (int it = 0; it < 30; ++it) {
      Core c = random_core(800 + it);
      for (unsigned l = 0; l < kLanes; ++l) {
        uint32_t b = it % 3 == 0 ? rng() % 40 : it % 3 == 1 ? 5 : rng() % 8;  // mixed, uniform, small
        c.r[11][l] = (c.r[11][l] & 0xFFFF0000u) | b;
      }
      Core want = c;
      auto code = enc(op, {{"Dt", 2}, {"D", 40}, {"At", 0b1001}, {"A", 20}, {"Bt", 0b0001}, {"B", 22}});
      ASSERT_TRUE(run_code(code, c).ok());
      for (unsigned l = 0; l < kLanes; ++l) {
        uint32_t w = on(want, l) ? ref_shuffle(kind, want, l) : want.r[20][l];
        ASSERT_EQ(c.r[20][l], w) << isa::op_info(op).id << " it " << it << " lane " << l;
      }
    }
  }
}

TEST(Simd, IcmpBallotCountsActiveLanes) {
  Core c = random_core(900);
  for (unsigned l = 0; l < kLanes; ++l) c.r[10][l] = l * 7 % 11;
  Core want = c;
  // ballot of r10 < 5 (ult), and the quad form.
  auto code = cat({enc(Opcode::icmp_ballot, {{"Dt", 2}, {"D", 40}, {"cc", 1}, {"At", 0b1001}, {"A", 20}, {"Bt", 0}, {"B", 5}}),
                   enc(Opcode::icmp_quad_ballot, {{"Dt", 2}, {"D", 42}, {"cc", 1}, {"At", 0b1001}, {"A", 20}, {"Bt", 0}, {"B", 5}})});
  ASSERT_TRUE(run_code(code, c).ok());
  uint32_t ballot = 0;
  for (unsigned l = 0; l < kLanes; ++l) ballot |= uint32_t(on(want, l) && want.r[10][l] < 5) << l;
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!on(want, l)) continue;
    EXPECT_EQ(c.r[20][l], ballot);
    EXPECT_EQ(c.r[21][l] & 0xF, (ballot >> (l & ~3u)) & 0xF);
  }
}

TEST(Simd, ReductionsAndPrefixOverActiveLanes) {
  Core c = random_core(901);
  Core want = c;
  auto red = [](Opcode op, unsigned d) { return enc(op, {{"Dt", 2}, {"D", d * 2}, {"At", 0b1001}, {"A", 20}}); };
  ASSERT_TRUE(run_code(cat({red(Opcode::simd_iadd, 40), red(Opcode::simd_prefix_iadd, 41),
                            red(Opcode::simd_max_u, 42), red(Opcode::quad_and, 43)}), c).ok());
  uint32_t sum = 0, maxu = 0;
  for (unsigned l = 0; l < kLanes; ++l)
    if (on(want, l)) { sum += want.r[10][l]; maxu = std::max(maxu, want.r[10][l]); }
  uint32_t prefix = 0;
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!on(want, l)) continue;
    EXPECT_EQ(c.r[40][l], sum);
    EXPECT_EQ(c.r[41][l], prefix);  // exclusive
    prefix += want.r[10][l];
    EXPECT_EQ(c.r[42][l], maxu);
    uint32_t q = ~0u;
    for (unsigned t = l & ~3u; t < (l & ~3u) + 4; ++t) if (on(want, t)) q &= want.r[10][t];
    EXPECT_EQ(c.r[43][l], q);
  }
}

}  // namespace
}  // namespace agx::usc::test
