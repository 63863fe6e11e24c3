// uniform_store: the uniform file as 1024 little-endian bytes (u0l = bytes
// 0-1); element i of the mask goes to element (O << s) + i (s = 3 acts as 2)
// of 2 bytes (i16, f16) or 1 byte (i8, the low byte), data halves R, R+1, ...
// in order, the last active lane winning. The 32-bit forms report a clear
// error. Mesa's form (i16, shift 0) is checked with exact values too.
#include <cstring>

#include "helpers.h"

namespace agx::usc::test {
namespace AGX_UNITY_ID {

using isa::Opcode;

enum Format : uint32_t { kI8 = 0, kI16 = 1, kI32 = 2, kF16 = 3 };

std::vector<uint8_t> ustore(uint32_t mask, uint32_t r_half, bool imm, uint32_t o, uint32_t f = kI16,
                            uint32_t shift = 0, uint32_t rt = 0) {
  return enc(Opcode::uniform_store,
             {{"F", f}, {"mask", mask}, {"Rt", rt}, {"R", r_half}, {"Ot", imm}, {"O", o}, {"s", shift}});
}

uint16_t half_of(const std::array<uint32_t, kUniforms>& u, unsigned h) {
  return static_cast<uint16_t>(u[h / 2] >> (16 * (h % 2)));
}

// Reference: lane `lane`'s store applied to a byte view of the uniforms.
std::array<uint32_t, kUniforms> expected_uniforms(const Core& c, unsigned lane, uint32_t mask, unsigned r_half,
                                                  int64_t index, unsigned size_B) {
  uint8_t bytes[kUniforms * 4];
  std::memcpy(bytes, c.u.data(), sizeof bytes);  // little-endian host (x86-64)
  unsigned next = r_half;
  for (unsigned i = 0; i < 4; ++i) {
    if (!(mask >> i & 1)) continue;
    uint16_t v = c.r16(next++, lane);
    int64_t at = (index + i) * size_B;
    bytes[at] = static_cast<uint8_t>(v);
    if (size_B == 2) bytes[at + 1] = static_cast<uint8_t>(v >> 8);
  }
  std::array<uint32_t, kUniforms> u;
  std::memcpy(u.data(), bytes, sizeof bytes);
  return u;
}

unsigned last_lane(const Core& c) { return 31 - std::countl_zero(c.exec); }

TEST(UniformStore, HalvesFromTheLastActiveLane) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    Core c = random_core(seed);
    Core want = c;
    uint32_t mask = 1 + seed % 15;
    unsigned r_half = 40 + seed % 7;  // r20l.. (odd: starts on a high half)
    unsigned o = 3 + seed * 5;         // uniform half index, odd or even
    auto u = expected_uniforms(want, last_lane(want), mask, r_half, o, 2);
    ASSERT_TRUE(run_code(ustore(mask, r_half, true, o), c).ok());
    for (unsigned h = 0; h < 2 * kUniforms; ++h) EXPECT_EQ(half_of(c.u, h), half_of(u, h)) << "half " << h;
    EXPECT_EQ(c.r, want.r);
    EXPECT_EQ(c.exec, want.exec);
  }
}

// Mesa's preamble (agx_emit_store_preamble + agx_pack.c): a 32-bit value rN
// goes as the halves rNl, rNh with mask 0b11 to index 2k, i.e. to uk.
TEST(UniformStore, MesaThirtyTwoBitValueAsTwoHalves) {
  Core c = random_core(7, true);
  c.u.fill(0);
  for (unsigned l = 0; l < kLanes; ++l) c.r[6][l] = 0xA0000000u + l;
  ASSERT_TRUE(run_code(ustore(0b11, 12, true, 10), c).ok());  // r6 -> u5
  EXPECT_EQ(c.u[5], 0xA000001Fu);
  for (unsigned u = 0; u < kUniforms; ++u) {
    if (u == 5) continue;
    EXPECT_EQ(c.u[u], 0u) << "u" << u;
  }
  // Two 32-bit values r6, r7 (mask 0b1111) to u8, u9.
  for (unsigned l = 0; l < kLanes; ++l) c.r[7][l] = 0x12345678u;
  ASSERT_TRUE(run_code(ustore(0b1111, 12, true, 16), c).ok());
  EXPECT_EQ(c.u[8], 0xA000001Fu);
  EXPECT_EQ(c.u[9], 0x12345678u);
}

TEST(UniformStore, RegisterIndexAndErrors) {
  Core c = random_core(3, true);
  for (auto& v : c.r[12]) v = 10;  // O = r12: uniform half 10 = u5l
  ASSERT_TRUE(run_code(enc(Opcode::uniform_store, {{"F", 1}, {"mask", 1}, {"R", 40}, {"Ot", 0}, {"O", 24}}), c).ok());
  EXPECT_EQ(c.u[5] & 0xFFFF, c.r[20][31] & 0xFFFF);
  // Past u255h, and below u0l (negative immediate, negative register).
  for (auto code : {ustore(0b11, 40, true, 511), ustore(1, 40, true, 0xFFFF)}) {
    Status s = run_code(code, c);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().message().find("outside u0..u255"), std::string::npos) << s.error().message();
  }
  for (auto& v : c.r[12]) v = 0x80000000u;
  EXPECT_FALSE(run_code(enc(Opcode::uniform_store, {{"F", 1}, {"mask", 1}, {"R", 40}, {"Ot", 0}, {"O", 24}}), c).ok());
}

TEST(UniformStore, ShiftScalesTheIndex) {
  for (uint32_t shift = 0; shift < 4; ++shift) {
    Core c = random_core(40 + shift);
    Core want = c;
    unsigned eff = shift == 3 ? 2 : shift;
    auto u = expected_uniforms(want, last_lane(want), 0b1011, 41, int64_t{25} << eff, 2);
    ASSERT_TRUE(run_code(ustore(0b1011, 41, true, 25, kI16, shift), c).ok());
    EXPECT_EQ(c.u, u) << "s " << shift;
  }
}

TEST(UniformStore, F16IsMovedRawLikeI16) {
  Core a = random_core(11), b = a;
  ASSERT_TRUE(run_code(ustore(0b0111, 30, true, 77, kI16), a).ok());
  ASSERT_TRUE(run_code(ustore(0b0111, 30, true, 77, kF16), b).ok());
  EXPECT_EQ(a.u, b.u);
}

TEST(UniformStore, I8StoresLowBytes) {
  for (uint32_t seed = 1; seed <= 8; ++seed) {
    Core c = random_core(100 + seed);
    Core want = c;
    uint32_t mask = 16 - seed;
    unsigned o = 101 + 3 * seed;  // a byte index: odd, unaligned
    auto u = expected_uniforms(want, last_lane(want), mask, 50, o, 1);
    ASSERT_TRUE(run_code(ustore(mask, 50, true, o, kI8), c).ok());
    EXPECT_EQ(c.u, u) << "seed " << seed;
  }
  // Register index in bytes, shifted: lane 0 only, byte 4 * 2 + 1 = u2 byte 1.
  Core c = random_core(9, true);
  c.exec = 1;
  c.u.fill(0);
  c.r[4][0] = 4;
  c.r[10][0] = 0xBEEF;  // r10l
  ASSERT_TRUE(run_code(enc(Opcode::uniform_store, {{"F", kI8}, {"mask", 2}, {"R", 20}, {"Ot", 0}, {"O", 8}, {"s", 1}}), c).ok());
  EXPECT_EQ(c.u[2], 0xEF00u);
}

TEST(UniformStore, MaskZeroStoresNothing) {
  Core c = random_core(5);
  Core want = c;
  ASSERT_TRUE(run_code(ustore(0, 40, true, 3), c).ok());
  EXPECT_EQ(c.u, want.u);
}

TEST(UniformStore, ThirtyTwoBitFormsAreRefused) {
  struct Form { uint32_t f, rt; };
  for (Form form : {Form{kI32, 1}, Form{kI16, 1}, Form{kI8, 1}, Form{kI32, 0}}) {
    Core c = random_core(2);
    Status s = run_code(ustore(1, 40, true, 0, form.f, 0, form.rt), c);
    ASSERT_FALSE(s.ok()) << "F " << form.f << " Rt " << form.rt;
    EXPECT_NE(s.error().message().find("not supported by the emulator: uniform_store"), std::string::npos)
        << s.error().message();
  }
}

}  // namespace
}  // namespace agx::usc::test
