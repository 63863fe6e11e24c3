// uniform_store: halves of R go to consecutive uniform halves from O (in
// 16-bit units, as Mesa's preamble stores them), the last active lane
// winning; unsupported forms report a clear error.
#include "helpers.h"

namespace agx::usc::test {
namespace {

using isa::Opcode;

std::vector<uint8_t> ustore(uint32_t mask, uint32_t r_half, bool imm, uint32_t o, uint32_t f = 1) {
  return enc(Opcode::uniform_store, {{"F", f}, {"mask", mask}, {"Rt", 0}, {"R", r_half}, {"Ot", imm}, {"O", o}});
}

uint16_t half_of(const std::array<uint32_t, kUniforms>& u, unsigned h) {
  return static_cast<uint16_t>(u[h / 2] >> (16 * (h % 2)));
}

TEST(UniformStore, HalvesFromTheLastActiveLane) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    Core c = random_core(seed);
    Core want = c;
    uint32_t mask = 1 + seed % 15;
    unsigned r_half = 40 + seed % 7;  // r20l.. (odd: starts on a high half)
    unsigned o = 3 + seed * 5;         // uniform half index, odd or even
    unsigned last = 31 - std::countl_zero(c.exec);
    std::array<uint32_t, kUniforms> u = want.u;
    unsigned next = r_half;
    for (unsigned i = 0; i < 4; ++i) {
      if (!(mask >> i & 1)) continue;
      uint32_t v = (want.r[next / 2][last] >> (16 * (next % 2))) & 0xFFFF;
      ++next;
      unsigned h = o + i;
      u[h / 2] = (h % 2) ? (u[h / 2] & 0xFFFF) | (v << 16) : (u[h / 2] & 0xFFFF0000u) | v;
    }
    ASSERT_TRUE(run_code(ustore(mask, r_half, true, o), c).ok());
    for (unsigned h = 0; h < 2 * kUniforms; ++h) EXPECT_EQ(half_of(c.u, h), half_of(u, h)) << "half " << h;
    EXPECT_EQ(c.r, want.r);
  }
}

TEST(UniformStore, RegisterIndexAndErrors) {
  Core c = random_core(3, true);
  for (auto& v : c.r[12]) v = 10;  // O = r12: uniform half 10 = u5l
  ASSERT_TRUE(run_code(enc(Opcode::uniform_store, {{"F", 1}, {"mask", 1}, {"R", 40}, {"Ot", 0}, {"O", 24}}), c).ok());
  EXPECT_EQ(c.u[5] & 0xFFFF, c.r[20][31] & 0xFFFF);
  // Past u255h.
  Status s = run_code(ustore(0b11, 40, true, 511), c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("outside u0l..u255h"), std::string::npos) << s.error().message();
  // A format other than i16 has no public meaning.
  s = run_code(ustore(1, 40, true, 0, 2), c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("not supported by the emulator"), std::string::npos) << s.error().message();
}

}  // namespace
}  // namespace agx::usc::test
