// Integer, bit and select instructions on random 32-lane state with partial
// exec masks. Expected values follow applegpu's exec formulas, restated here
// with 128-bit arithmetic in place of Python's unbounded integers.
#include <bit>

#include "helpers.h"

namespace agx::usc::test {
namespace AGX_UNITY_ID {

using isa::Opcode;

enum class K { r16, r32, r64, imm, u16, u32 };
struct Src {
  K k;
  unsigned n;  // half index (r16/u16), register (r32/r64/u32), or immediate
};

// ALU source encoding (value, type) per applegpu ALUSrcDesc.encode.
std::pair<uint32_t, uint32_t> enc_src(Src s) {
  switch (s.k) {
    case K::r16: return {s.n, 0b0001};
    case K::r32: return {s.n * 2, 0b1001};
    case K::r64: return {s.n * 2, 0b1101};
    case K::imm: return {s.n, 0};
    case K::u16: return {s.n & 0xFF, 0b0100 | (s.n >> 8)};
    case K::u32: return {(s.n * 2) & 0xFF, 0b0110 | ((s.n * 2) >> 8)};
  }
  return {};
}
unsigned bits_of(K k) { return k == K::r32 || k == K::u32 ? 32 : k == K::r64 ? 64 : 16; }

uint64_t ref_read(const Core& c, Src s, unsigned l) {
  switch (s.k) {
    case K::r16: return (c.r[s.n / 2][l] >> (16 * (s.n & 1))) & 0xFFFF;
    case K::r32: return c.r[s.n][l];
    case K::r64: return c.r[s.n][l] | uint64_t{c.r[s.n + 1][l]} << 32;
    case K::imm: return s.n;
    case K::u16: return (c.u[s.n / 2] >> (16 * (s.n & 1))) & 0xFFFF;
    case K::u32: return c.u[s.n];
  }
  return 0;
}
__int128 sext(uint64_t v, unsigned bits) {
  if (bits == 64) return static_cast<int64_t>(v);
  uint64_t m = uint64_t{1} << (bits - 1);
  return static_cast<__int128>(static_cast<int64_t>((v ^ m) - m));
}

Src random_src(Rng& rng, bool allow64) {
  switch (rng() % (allow64 ? 6 : 5)) {
    case 0: return {K::r16, 20 + rng() % 60};
    case 1: return {K::r32, 10 + rng() % 30};
    case 2: return {K::imm, rng() % 256};
    case 3: return {K::u16, rng() % 512};
    case 4: return {K::u32, rng() % 256};
    default: return {K::r64, 2 * (5 + rng() % 20)};
  }
}

struct Dst {
  K k;
  unsigned n;
};
std::pair<uint32_t, uint32_t> enc_dst(Dst d) {
  return d.k == K::r16 ? std::pair<uint32_t, uint32_t>{d.n, 0} : d.k == K::r32 ? std::pair<uint32_t, uint32_t>{d.n * 2, 2}
                                                                               : std::pair<uint32_t, uint32_t>{d.n * 2 + 1, 2};
}
// The expected destination registers after writing `v` to lane l.
void ref_write(Core& c, Dst d, unsigned l, unsigned __int128 v) {
  if (d.k == K::r16) {
    uint32_t& w = c.r[d.n / 2][l];
    w = (d.n & 1) ? (w & 0xFFFF) | uint32_t(v & 0xFFFF) << 16 : (w & 0xFFFF0000u) | uint32_t(v & 0xFFFF);
  } else {
    c.r[d.n][l] = uint32_t(v);
    if (d.k == K::r64) c.r[d.n + 1][l] = uint32_t(v >> 32);
  }
}
unsigned dbits(Dst d) { return d.k == K::r16 ? 16 : d.k == K::r32 ? 32 : 64; }

void expect_same(const Core& got, const Core& want, const char* what, int iter) {
  for (unsigned r = 0; r < kRegisters; ++r)
    for (unsigned l = 0; l < kLanes; ++l)
      ASSERT_EQ(got.r[r][l], want.r[r][l]) << what << " iter " << iter << " r" << r << " lane " << l;
}

__int128 sat(__int128 r, unsigned bits, bool is_signed) {
  __int128 lo = is_signed ? -(__int128{1} << (bits - 1)) : 0;
  __int128 hi = is_signed ? (__int128{1} << (bits - 1)) - 1 : (__int128{1} << bits) - 1;
  return r < lo ? lo : r > hi ? hi : r;
}

TEST(Alu, IaddIsubAllFormsAndSaturation) {
  Rng rng(21);
  for (int it = 0; it < 400; ++it) {
    Src a = random_src(rng, true), b = random_src(rng, true);
    Dst d{K(rng() % 3), d.k == K::r16 ? 100u + rng() % 50 : 60u + rng() % 10};
    d.n = d.k == K::r16 ? 100 + rng() % 50 : 60 + rng() % 10;
    uint32_t as = rng() % 2, bs = rng() % 2, n = rng() % 2, S = rng() % 2, sh = rng() % 2 ? 0 : rng() % 8;
    auto [av, at] = enc_src(a);
    auto [bv, bt] = enc_src(b);
    auto [dv, dt] = enc_dst(d);
    auto code = enc(Opcode::iadd, {{"S", S}, {"N", n}, {"Dt", dt}, {"D", dv}, {"At", at}, {"As", as}, {"A", av},
                                   {"Bt", bt}, {"Bs", bs}, {"B", bv}, {"s", sh}});
    Core c = random_core(100 + it), want = c;
    ASSERT_TRUE(run_code(code, c).ok()) << it;
    bool saturate = S && sh == 0 && bits_of(a.k) <= 32 && bits_of(b.k) <= 32 && dbits(d) <= 32;
    for (unsigned l = 0; l < kLanes; ++l) {
      if (!on(want, l)) continue;
      __int128 x = ref_read(want, a, l), y = ref_read(want, b, l);
      if (as && a.k != K::imm) x = sext(uint64_t(x), bits_of(a.k));
      if (bs && b.k != K::imm) y = sext(uint64_t(y), bits_of(b.k));
      if (n) y = -y;
      y = sh < 5 ? y * (__int128{1} << sh) : 0;
      __int128 r = x + y;
      if (saturate) r = sat(r, dbits(d), as || bs);
      ref_write(want, d, l, static_cast<unsigned __int128>(r));
    }
    expect_same(c, want, "iadd", it);
  }
}

TEST(Alu, ImaddAllForms) {
  Rng rng(22);
  for (int it = 0; it < 300; ++it) {
    Src a = random_src(rng, false), b = random_src(rng, false), cc = random_src(rng, true);
    Dst d{K(rng() % 3), 0};
    d.n = d.k == K::r16 ? 100 + rng() % 50 : 60 + rng() % 10;
    uint32_t as = rng() % 2, bs = rng() % 2, cs = rng() % 2, n = rng() % 2, S = rng() % 2, sh = rng() % 2 ? 0 : rng() % 8;
    auto [av, at] = enc_src(a);
    auto [bv, bt] = enc_src(b);
    auto [cv, ct] = enc_src(cc);
    auto [dv, dt] = enc_dst(d);
    auto code = enc(Opcode::imadd, {{"S", S}, {"N", n}, {"Dt", dt}, {"D", dv}, {"At", at}, {"As", as}, {"A", av},
                                    {"Bt", bt}, {"Bs", bs}, {"B", bv}, {"Ct", ct}, {"Cs", cs}, {"C", cv}, {"s", sh}});
    Core c = random_core(200 + it), want = c;
    ASSERT_TRUE(run_code(code, c).ok()) << it;
    bool saturate = S && sh == 0 && bits_of(cc.k) <= 32 && dbits(d) <= 32;
    for (unsigned l = 0; l < kLanes; ++l) {
      if (!on(want, l)) continue;
      __int128 x = ref_read(want, a, l), y = ref_read(want, b, l), z = ref_read(want, cc, l);
      if (as && a.k != K::imm) x = sext(uint64_t(x), bits_of(a.k));
      if (bs && b.k != K::imm) y = sext(uint64_t(y), bits_of(b.k));
      if (cs && cc.k != K::imm) z = sext(uint64_t(z), bits_of(cc.k));
      if (n) z = -z;
      z = sh < 5 ? z * (__int128{1} << sh) : 0;
      __int128 r = x * y + z;
      if (saturate) r = sat(r, dbits(d), as || bs || cs);
      ref_write(want, d, l, static_cast<unsigned __int128>(r));
    }
    expect_same(c, want, "imadd", it);
  }
}

// Python-semantics big shifts, enough for these formulas (results are
// truncated to 32 bits).
unsigned __int128 shl(unsigned __int128 v, unsigned s) { return s >= 128 ? 0 : v << s; }
unsigned __int128 shr(unsigned __int128 v, unsigned s) { return s >= 128 ? 0 : v >> s; }

uint32_t ref_bitfield(Opcode op, uint64_t a, uint64_t b, uint64_t cc, unsigned m) {
  unsigned s = cc & 0x7F;
  unsigned __int128 mask = m ? (uint64_t{1} << m) - 1 : 0xFFFFFFFFull, A = a, B = b, r = 0;
  if (op == Opcode::bfi) r = (A & ~shl(mask, s)) | shl(B & mask, s);
  if (op == Opcode::bfeil) r = (A & ~mask) | (shr(B, s) & mask);
  if (op == Opcode::extr) r = shr(shl(B, 32) | A, s) & mask;
  if (op == Opcode::shlhi) {
    unsigned __int128 sm = shl(mask, s > 32 ? s - 32 : 0);
    r = (shr(shl(B, s), 32) & sm) | (A & ~sm);
  }
  if (op == Opcode::shrhi) {
    unsigned __int128 sm = shr(shl(mask, 32), std::min(s, 32u));
    r = (shr(shl(B, 32), s) & sm) | (A & ~sm);
  }
  return uint32_t(r);
}

TEST(Alu, BitfieldFamily) {
  Rng rng(23);
  for (Opcode op : {Opcode::bfi, Opcode::bfeil, Opcode::extr, Opcode::shlhi, Opcode::shrhi}) {
    for (int it = 0; it < 150; ++it) {
      Src a = random_src(rng, false), b = random_src(rng, false), cc = random_src(rng, false);
      if (rng() % 2) cc = {K::imm, rng() % 128};
      Dst d{rng() % 4 ? K::r32 : K::r16, 0};
      d.n = d.k == K::r16 ? 100 + rng() % 50 : 60 + rng() % 10;
      unsigned m = rng() % 32;
      auto [av, at] = enc_src(a);
      auto [bv, bt] = enc_src(b);
      auto [cv, ct] = enc_src(cc);
      auto [dv, dt] = enc_dst(d);
      auto code = enc(op, {{"Dt", dt}, {"D", dv}, {"At", at}, {"A", av}, {"Bt", bt}, {"B", bv},
                           {"Ct", ct}, {"C", cv}, {"m", m}});
      Core c = random_core(300 + it), want = c;
      ASSERT_TRUE(run_code(code, c).ok());
      for (unsigned l = 0; l < kLanes; ++l)
        if (on(want, l))
          ref_write(want, d, l, ref_bitfield(op, ref_read(want, a, l), ref_read(want, b, l), ref_read(want, cc, l), m));
      expect_same(c, want, isa::op_info(op).id.data(), it);
    }
  }
}

TEST(Alu, ArithmeticShifts) {
  Rng rng(24);
  for (Opcode op : {Opcode::asr, Opcode::asrh}) {
    for (int it = 0; it < 150; ++it) {
      Src a = random_src(rng, false), b = rng() % 2 ? Src{K::imm, rng() % 128} : random_src(rng, false);
      Dst d{K::r32, 60 + rng() % 10};
      auto [av, at] = enc_src(a);
      auto [bv, bt] = enc_src(b);
      auto [dv, dt] = enc_dst(d);
      auto code = enc(op, {{"Dt", dt}, {"D", dv}, {"At", at}, {"A", av}, {"Bt", bt}, {"B", bv}});
      Core c = random_core(400 + it), want = c;
      ASSERT_TRUE(run_code(code, c).ok());
      for (unsigned l = 0; l < kLanes; ++l) {
        if (!on(want, l)) continue;
        __int128 v = sext(ref_read(want, a, l), bits_of(a.k));
        if (op == Opcode::asrh) v *= (__int128{1} << 32);
        unsigned s = ref_read(want, b, l) & 0x7F;
        ref_write(want, d, l, static_cast<unsigned __int128>(s >= 127 ? (v < 0 ? -1 : 0) : v >> s));
      }
      expect_same(c, want, "asr", it);
    }
  }
}

TEST(Alu, BitopEveryTruthTableAndUnaries) {
  Rng rng(25);
  for (uint32_t tt = 0; tt < 16; ++tt) {
    Src a = random_src(rng, false), b = random_src(rng, false);
    auto [av, at] = enc_src(a);
    auto [bv, bt] = enc_src(b);
    auto code = enc(Opcode::bitop, {{"tt0", tt & 1}, {"tt1", tt >> 1 & 1}, {"tt2", tt >> 2 & 1}, {"tt3", tt >> 3 & 1},
                                    {"Dt", 2}, {"D", 120}, {"At", at}, {"A", av}, {"Bt", bt}, {"B", bv}});
    Core c = random_core(500 + tt), want = c;
    ASSERT_TRUE(run_code(code, c).ok());
    for (unsigned l = 0; l < kLanes; ++l) {
      if (!on(want, l)) continue;
      uint32_t x = uint32_t(ref_read(want, a, l)), y = uint32_t(ref_read(want, b, l)), r = 0;
      if (tt == 0b1100 || tt == 0b0011) r = x;
      else {
        if (tt & 1) r |= ~x & ~y;
        if (tt & 2) r |= x & ~y;
        if (tt & 4) r |= ~x & y;
        if (tt & 8) r |= x & y;
      }
      want.r[60][l] = r;
    }
    expect_same(c, want, "bitop", tt);
  }
  Core c = random_core(550), want = c;
  auto un = [](Opcode op, uint32_t d) { return enc(op, {{"Dt", 2}, {"D", d}, {"At", 0b1001}, {"A", 20}}); };
  ASSERT_TRUE(run_code(cat({un(Opcode::bitrev, 60), un(Opcode::popcount, 62), un(Opcode::ffs, 64)}), c).ok());
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!on(want, l)) continue;
    uint32_t x = want.r[10][l], rev = 0;
    for (int i = 0; i < 32; ++i) rev |= ((x >> i) & 1u) << (31 - i);
    int hi = -1;
    for (int i = 31; i >= 0; --i) if ((x >> i) & 1) { hi = i; break; }
    EXPECT_EQ(c.r[30][l], rev);
    EXPECT_EQ(c.r[31][l], uint32_t(std::popcount(x)));
    EXPECT_EQ(c.r[32][l], uint32_t(hi));
  }
}

TEST(Alu, IntlInterleavesLowHalvesEveryForm) {
  Rng rng(26);
  for (int iter = 0; iter < 40; ++iter) {
    Src a = random_src(rng, iter % 4 == 3), b = random_src(rng, false);
    Dst d{iter % 2 ? K::r32 : K::r16, iter % 2 ? 100u + iter % 7 : 2 * 100u + iter % 5};
    auto [av, at] = enc_src(a);
    auto [bv, bt] = enc_src(b);
    auto [dv, dt] = enc_dst(d);
    auto code = enc(Opcode::intl, {{"Dt", dt}, {"D", dv}, {"At", at}, {"A", av}, {"Bt", bt}, {"B", bv}});
    Core c = random_core(600 + iter), want = c;
    ASSERT_TRUE(run_code(code, c).ok());
    for (unsigned l = 0; l < kLanes; ++l) {
      if (!on(want, l)) continue;
      uint64_t x = ref_read(want, a, l), y = ref_read(want, b, l);
      uint32_t r = 0;
      for (unsigned i = 0; i < 16; ++i) r |= uint32_t((x >> i) & 1) << (2 * i) | uint32_t((y >> i) & 1) << (2 * i + 1);
      ref_write(want, d, l, r);
    }
    expect_same(c, want, "intl", iter);
  }
}

bool ref_icmp(uint32_t cc, uint64_t a, unsigned abits, uint64_t b, unsigned bbits) {
  bool r;
  if (cc & 4) {
    __int128 x = sext(a, abits), y = sext(b, bbits);
    r = (cc & 3) == 0 ? x == y : (cc & 3) == 1 ? x < y : x > y;
  } else {
    r = (cc & 3) == 0 ? a == b : (cc & 3) == 1 ? a < b : a > b;
  }
  return (cc & 8) ? !r : r;
}

TEST(Alu, IcmpselEveryCondition) {
  Rng rng(26);
  for (uint32_t cc : {0u, 1u, 2u, 4u, 5u, 6u}) {
    for (int it = 0; it < 20; ++it) {
      Src a = random_src(rng, false), b = random_src(rng, false);
      if (it % 3 == 0) b = a;  // equal operands
      bool is32 = rng() % 2;
      auto [av, at] = enc_src(a);
      auto [bv, bt] = enc_src(b);
      uint32_t xv = is32 ? 2 * 30 : 80, yv = 7;  // X: register, Y: immediate 7
      auto code = enc(Opcode::icmpsel, {{"cc", cc}, {"Dt", is32 ? 2u : 0u}, {"D", is32 ? 120u : 150u}, {"At", at},
                                        {"A", av}, {"Bt", bt}, {"B", bv}, {"Xt", 1}, {"X", xv}, {"Yt", 4}, {"Y", yv}});
      Core c = random_core(600 + it), want = c;
      ASSERT_TRUE(run_code(code, c).ok());
      for (unsigned l = 0; l < kLanes; ++l) {
        if (!on(want, l)) continue;
        bool t = ref_icmp(cc, ref_read(want, a, l), bits_of(a.k), ref_read(want, b, l), bits_of(b.k));
        uint64_t x = is32 ? want.r[30][l] : want.r[40][l] & 0xFFFF;
        ref_write(want, Dst{is32 ? K::r32 : K::r16, is32 ? 60u : 150u}, l, t ? x : 7);
      }
      expect_same(c, want, "icmpsel", it);
    }
  }
}

TEST(Alu, FcmpselAndConvert) {
  Core c = make_core();
  for (unsigned l = 0; l < kLanes; ++l) {
    c.r[2][l] = std::bit_cast<uint32_t>(float(l) - 16.0f);
    c.r[3][l] = l == 5 ? 0x7FC00000u : std::bit_cast<uint32_t>(0.0f);
  }
  // fcmpsel lt: r4 = (r2 < r3) ? 1 : 2; with NaN in lane 5 the compare is false.
  auto sel = enc(Opcode::fcmpsel, {{"cc", 1}, {"Dt", 2}, {"D", 8}, {"At", 0b1001}, {"A", 4}, {"Bt", 0b1001},
                                   {"B", 6}, {"Xt", 4}, {"X", 1}, {"Yt", 4}, {"Y", 2}});
  // convert s32_to_f (mode 11, rte) of r5 -> r6; f_to_s32 (9, rtz) of r2 -> r7.
  auto i2f = enc(Opcode::convert, {{"mode", 11}, {"Dt", 2}, {"D", 12}, {"srct", 0b1001}, {"src", 10}, {"round", 1}});
  auto f2i = enc(Opcode::convert, {{"mode", 9}, {"Dt", 2}, {"D", 14}, {"srct", 0b1001}, {"src", 4}, {"round", 0}});
  for (unsigned l = 0; l < kLanes; ++l) c.r[5][l] = uint32_t(int32_t(l) * -1000003);
  ASSERT_TRUE(run_code(cat({sel, i2f, f2i}), c).ok());
  for (unsigned l = 0; l < kLanes; ++l) {
    EXPECT_EQ(c.r[4][l], (l < 16 && l != 5) ? 1u : 2u) << l;
    EXPECT_EQ(c.r[6][l], std::bit_cast<uint32_t>(float(int32_t(l) * -1000003)));
    EXPECT_EQ(c.r[7][l], uint32_t(int32_t(l) - 16));
  }
}

TEST(Alu, MovImmAndGetSr) {
  Core c = random_core(700), want = c;
  auto code = cat({enc(Opcode::mov_imm32, {{"Dt", 2}, {"D", 10}, {"imm32", 0xDEADBEEF}}),
                   enc(Opcode::mov_imm16, {{"Dt", 0}, {"D", 13}, {"imm16", 0x1234}}),
                   enc(Opcode::get_sr, {{"Dt", 2}, {"D", 14}, {"SR", 80}}),
                   enc(Opcode::get_sr, {{"Dt", 2}, {"D", 16}, {"SR", 58}})});
  ASSERT_TRUE(run_code(code, c).ok());
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!on(want, l)) { EXPECT_EQ(c.r[5][l], want.r[5][l]); continue; }
    EXPECT_EQ(c.r[5][l], 0xDEADBEEFu);
    EXPECT_EQ(c.r[6][l], (want.r[6][l] & 0xFFFF) | 0x12340000u);  // r6h only
    EXPECT_EQ(c.r[7][l], l);                                       // thread_position_in_grid.x
    EXPECT_EQ(c.r[8][l], uint32_t(std::popcount(want.exec & ((1u << l) - 1))));
  }
}

TEST(Alu, UndefinedEncodingsAreReportedWhenRun) {
  Core c = make_core();
  // Source type 0b1000 with hint bits 00 is undefined.
  auto bad = enc(Opcode::fadd32, {{"Dt", 2}, {"D", 2}, {"At", 0b1000}, {"A", 4}, {"Bt", 0b1001}, {"B", 6}});
  Status st = run_code(bad, c);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message().find("undefined source type"), std::string::npos) << st.error().message();
  // A 64-bit pair past r127.
  auto past = enc(Opcode::iadd, {{"Dt", 2}, {"D", 255}, {"At", 0}, {"A", 1}, {"Bt", 0}, {"B", 1}});
  st = run_code(past, c);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message().find("beyond r127"), std::string::npos) << st.error().message();
}

}  // namespace
}  // namespace agx::usc::test
