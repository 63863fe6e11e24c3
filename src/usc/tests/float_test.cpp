// Float arithmetic against an independent reference of applegpu's fma.py
// rules: the exact a*b+c is rounded to odd in f64 (here with the host's
// fma in round-toward-zero mode plus the inexact flag), then to f32 (RNE,
// flush-to-zero on the unrounded exponent) or f16 (RNE, subnormals kept) by
// integer rounding written for this test.
#include <algorithm>
#include <bit>
#include <cfenv>
#include <cmath>
#include <cstring>

#include "helpers.h"
#include "usc/internal.h"

namespace agx::usc::test {
namespace AGX_UNITY_ID {

using isa::Opcode;

double ref_f32_in(uint32_t b) {
  if (((b >> 23) & 0xFF) == 0) return (b >> 31) ? -0.0 : 0.0;  // FTZ
  return double(std::bit_cast<float>(b));
}
double ref_f16_in(uint16_t h) {
  int e = (h >> 10) & 0x1F, m = h & 0x3FF;
  double s = (h & 0x8000) ? -1.0 : 1.0;
  if (e == 0x1F) return m ? std::nan("") : s * INFINITY;
  return e == 0 ? s * std::ldexp(m, -24) : s * std::ldexp(1024 + m, e - 25);
}

double ref_rto(double a, double b, double c) {
  if (std::isnan(a) || std::isnan(b) || std::isnan(c)) return std::nan("");
  std::fesetround(FE_TOWARDZERO);
  std::feclearexcept(FE_INEXACT);
  volatile double va = a, vb = b, vc = c;
  double r = std::fma(va, vb, vc);
  bool inexact = std::fetestexcept(FE_INEXACT);
  std::fesetround(FE_TONEAREST);
  if (std::isnan(r)) return r;
  if (inexact) r = std::bit_cast<double>(std::bit_cast<uint64_t>(r) | 1);
  return r;
}

// Rounds |x| = m * 2^e to a multiple of 2^q, nearest even; m < 2^53.
uint64_t round_to_quantum(uint64_t m, int e, int q) {
  int sh = q - e;
  if (sh <= 0) return m << -sh;
  if (sh > 60) return 0;
  uint64_t kept = m >> sh, rem = m & ((uint64_t{1} << sh) - 1), half = uint64_t{1} << (sh - 1);
  if (rem > half || (rem == half && (kept & 1))) ++kept;
  return kept;
}

uint32_t ref_to_f32(double x) {
  if (std::isnan(x)) return 0x7FC00000u;
  uint32_t sign = std::signbit(x) ? 0x80000000u : 0;
  if (std::isinf(x)) return sign | 0x7F800000u;
  if (std::fabs(x) < std::ldexp(1.0, -126)) return sign;
  int e;
  double f = std::frexp(std::fabs(x), &e);  // |x| = f * 2^e, f in [0.5, 1)
  uint64_t m = static_cast<uint64_t>(std::ldexp(f, 53));
  uint64_t k = round_to_quantum(m, e - 53, e - 24);  // 24 significant bits
  if (k == (uint64_t{1} << 24)) { k >>= 1; ++e; }
  int biased = e - 1 + 127;
  if (biased >= 255) return sign | 0x7F800000u;
  return sign | uint32_t(biased) << 23 | uint32_t(k & 0x7FFFFF);
}

uint16_t ref_to_f16(double x) {
  if (std::isnan(x)) return 0x7E00;
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  if (std::isinf(x)) return sign | 0x7C00;
  if (x == 0) return sign;
  int e;
  double f = std::frexp(std::fabs(x), &e);
  uint64_t m = static_cast<uint64_t>(std::ldexp(f, 53));
  int q = std::max(e - 11, -24);  // quantum: 11 bits, or the subnormal step
  uint64_t k = round_to_quantum(m, e - 53, q);
  double v = std::ldexp(double(k), q);  // exact
  if (v >= 65520.0) return sign | 0x7C00;
  if (v < std::ldexp(1.0, -14)) return sign | uint16_t(k);
  int ve;
  double vf = std::frexp(v, &ve);
  uint16_t mant = uint16_t(std::ldexp(vf, 11)) & 0x3FF;
  return sign | uint16_t((ve - 1 + 15) << 10) | mant;
}

uint32_t random_f32(Rng& rng) {
  switch (rng() % 8) {
    case 0: return std::bit_cast<uint32_t>(float(int(rng() % 9) - 4));
    case 1: return rng() & 0x807FFFFFu;  // subnormal (flushed)
    case 2: return (rng() & 0x80000000u) | 0x7F800000u | (rng() % 2 ? rng() & 0x7FFFFF : 0);
    case 3: return (rng() & 0x80FFFFFFu) | 0x00800000u;  // near the smallest normal
    default: return (rng() & 0x8FFFFFFFu) | 0x30000000u;  // moderate exponents
  }
}

TEST(Float, FmaRoundToOddMatchesReference) {
  Rng rng(1);
  for (int i = 0; i < 20000; ++i) {
    double a = ref_f32_in(random_f32(rng)), b = ref_f32_in(random_f32(rng)), c = ref_f32_in(random_f32(rng));
    double want = ref_rto(a, b, c), got = detail::fma_round_to_odd(a, b, c);
    if (std::isnan(want)) {
      EXPECT_EQ(std::bit_cast<uint64_t>(got), 0x7FF8000000000000ull);
    } else {
      ASSERT_EQ(std::bit_cast<uint64_t>(got), std::bit_cast<uint64_t>(want)) << a << " " << b << " " << c;
    }
  }
}

TEST(Float, F32RoundingFlushesOnUnroundedExponent) {
  // Just below 2^-126: RNE would round up to the smallest normal, but fma.py
  // decides the flush on the f64 exponent, so the result is zero.
  double below = std::ldexp(1.0, -126) * (1 - std::ldexp(1.0, -30));
  EXPECT_EQ(detail::f64_to_f32_ftz(below), 0u);
  EXPECT_EQ(detail::f64_to_f32_ftz(-below), 0x80000000u);
  EXPECT_EQ(detail::f64_to_f32_ftz(std::ldexp(1.0, -126)), 0x00800000u);
  EXPECT_EQ(detail::f64_to_f16(std::ldexp(1.0, -24)), 0x0001);  // f16 keeps subnormals
}

struct FloatCase {
  Opcode op;
  bool three, h16;
};

// Encodes D = op(A, B[, C]) with A, B, C registers (r32 or r16 per h16) and
// source modifiers; destination r40 (or r40l).
std::vector<uint8_t> encode_float(const FloatCase& fc, uint32_t am, uint32_t bm, uint32_t cm, bool sat,
                                  bool dst16) {
  uint32_t rt = fc.h16 ? 0b001 : 0b1001;
  auto val = [&](unsigned reg) { return fc.h16 ? reg * 2 : reg * 2; };
  uint32_t dt = (dst16 || fc.h16) ? 0 : 2;
  uint32_t dv = (dst16 || fc.h16) ? 80 : 80;  // r40 as r32 (value>>1) or r40l (half 80)
  if (fc.three)
    return enc(fc.op, {{"Dt", dt}, {"S", sat}, {"D", dv}, {"At", rt}, {"Am", am}, {"A", val(10)},
                       {"Bt", rt}, {"Bm", bm}, {"B", val(11)}, {"Ct", rt}, {"Cm", cm}, {"C", val(12)}});
  return enc(fc.op, {{"Dt", dt}, {"S", sat}, {"D", dv}, {"At", rt}, {"Am", am}, {"A", val(10)},
                     {"Bt", rt}, {"Bm", bm}, {"B", val(11)}});
}

double modify(double v, uint32_t m) {
  if (m & 1) v = std::fabs(v);
  if (m & 2) v = -v;
  return v;
}

void check_float_op(const FloatCase& fc, uint32_t seed) {
  Rng rng(seed);
  for (int iter = 0; iter < 40; ++iter) {
    uint32_t am = rng() % 4, bm = rng() % 4, cm = rng() % 4;
    bool sat = rng() % 4 == 0, dst16 = !fc.h16 && rng() % 4 == 0;
    Core c = random_core(seed * 1000 + iter);
    for (unsigned l = 0; l < kLanes; ++l)
      for (unsigned r : {10u, 11u, 12u}) c.r[r][l] = fc.h16 ? (rng() & 0xFFFF) : random_f32(rng);
    Core before = c;
    ASSERT_TRUE(run_code(encode_float(fc, am, bm, cm, sat, dst16), c).ok());
    for (unsigned l = 0; l < kLanes; ++l) {
      auto in = [&](unsigned r, uint32_t m) {
        uint32_t v = before.r[r][l];
        return modify(fc.h16 ? ref_f16_in(uint16_t(v)) : ref_f32_in(v), m);
      };
      double a = in(10, am), b = in(11, bm), x = fc.three ? in(12, cm) : 0.0;
      double r = fc.op == Opcode::fadd32 || fc.op == Opcode::fadd16 ? ref_rto(a, 1.0, b)
               : fc.three ? ref_rto(a, b, x) : ref_rto(a, b, 0.0);
      // A 32-bit op rounds to f32 (flushing) before saturate and before a
      // 16-bit destination's second rounding (applegpu.py FMadd32 exec).
      if (!fc.h16) {
        uint32_t f = ref_to_f32(r);
        float fv;
        std::memcpy(&fv, &f, 4);
        r = fv;
      }
      if (sat) r = (std::isnan(r) || std::signbit(r)) ? 0.0 : std::min(r, 1.0);
      uint32_t old = before.r[40][l], want;
      if (!on(before, l)) want = old;
      else if (fc.h16 || dst16) want = (old & 0xFFFF0000u) | ref_to_f16(r);
      else want = ref_to_f32(r);
      ASSERT_EQ(c.r[40][l], want) << isa::op_info(fc.op).id << " lane " << l << " iter " << iter;
    }
  }
}

TEST(Float, Fmadd32RandomLanes) { check_float_op({Opcode::fmadd32, true, false}, 11); }
TEST(Float, Fadd32RandomLanes) { check_float_op({Opcode::fadd32, false, false}, 12); }
TEST(Float, Fmul32RandomLanes) { check_float_op({Opcode::fmul32, false, false}, 13); }
TEST(Float, Fmadd16RandomLanes) { check_float_op({Opcode::fmadd16, true, true}, 14); }
TEST(Float, Fadd16RandomLanes) { check_float_op({Opcode::fadd16, false, true}, 15); }
TEST(Float, Fmul16RandomLanes) { check_float_op({Opcode::fmul16, false, true}, 16); }

TEST(Float, KnownValues) {
  // fmul is a*b + (+0): -1 * 0 gives +0; fadd of -0 and -0 stays -0; any
  // NaN gives the default NaN; f32 subnormal inputs are flushed.
  Core c = make_core();
  auto fmul = enc(Opcode::fmul32, {{"Dt", 2}, {"D", 2}, {"At", 0b1001}, {"A", 4}, {"Bt", 0b1001}, {"B", 6}});
  auto fadd = enc(Opcode::fadd32, {{"Dt", 2}, {"D", 8}, {"At", 0b1001}, {"A", 4}, {"Bt", 0b1001}, {"B", 6}});
  auto set = [&](unsigned r, uint32_t a0, uint32_t a1, uint32_t a2) {
    c.r[r][0] = a0; c.r[r][1] = a1; c.r[r][2] = a2;
  };
  set(2, 0xBF800000u, 0x80000000u, 0x7FC12345u);  // -1, -0, NaN
  set(3, 0x00000000u, 0x80000000u, 0x3F800000u);  // +0, -0, 1
  ASSERT_TRUE(run_code(cat({fmul, fadd}), c).ok());
  EXPECT_EQ(c.r[1][0], 0x00000000u);  // -1 * +0 + 0
  EXPECT_EQ(c.r[4][1], 0x80000000u);  // -0 + -0
  EXPECT_EQ(c.r[1][2], 0x7FC00000u);  // NaN
  // (1 - 2^-24) * 2^-126 is just below the smallest normal: f32 RNE would
  // give 2^-126, but the flush is decided before rounding, so the result is 0.
  c.r[2][4] = 0x3F7FFFFFu;
  c.r[3][4] = 0x00800000u;
  c.r[2][5] = 0x3F800000u;  // 1 * 2^-126 stays
  c.r[3][5] = 0x00800000u;
  ASSERT_TRUE(run_code(fmul, c).ok());
  EXPECT_EQ(c.r[1][4], 0u);
  EXPECT_EQ(c.r[1][5], 0x00800000u);
  c.r[2][3] = 0x00400000u;  // subnormal: flushed to 0, then 0 + 1
  c.r[3][3] = 0x3F800000u;
  ASSERT_TRUE(run_code(fadd, c).ok());
  EXPECT_EQ(c.r[4][3], 0x3F800000u);
}

// Regression: a 32-bit op writing a 16-bit register rounds twice (f32, then
// f16). Vector from running applegpu.py 4c5bae61's exec on this encoding:
// fmadd32 r18h, 0.1875, r2l, r1l.cache with r2l = 0xcc61, r1l = 0x0002 gives
// 0xc292; rounding the exact result straight to f16 would give 0xc291.
TEST(Float, Fmadd32To16BitRegisterRoundsToF32First) {
  Core c = make_core();
  for (unsigned l = 0; l < kLanes; ++l) {
    c.r[2][l] = 0xcc61;
    c.r[1][l] = 0x0002;
  }
  ASSERT_TRUE(run_code({0x3a, 0x4a, 0x0c, 0x40, 0x04, 0x82}, c).ok());
  for (unsigned l = 0; l < kLanes; ++l) EXPECT_EQ(c.r[18][l] >> 16, 0xc292u) << "lane " << l;
}

TEST(Float, FloatImmediateAndUniformSources) {
  // fadd32 r1, 1.0 (code 0x30: (16+0) * 2^(3-7)), u3.
  EXPECT_EQ(detail::float_immediate(0x30), 1.0);
  EXPECT_EQ(detail::float_immediate(0x38), 1.5);
  EXPECT_EQ(detail::float_immediate(0x08), 0.125);
  EXPECT_EQ(detail::float_immediate(0xFF), -31.0);
  EXPECT_EQ(detail::float_immediate(0x01), 1.0 / 64);
  Core c = make_core();
  c.u[3] = 0x40000000u;  // 2.0
  auto code = enc(Opcode::fadd32, {{"Dt", 2}, {"D", 2}, {"At", 0}, {"A", 0x30}, {"Bt", 0b0110}, {"B", 6}});
  ASSERT_TRUE(run_code(code, c).ok());
  EXPECT_EQ(c.r[1][7], 0x40400000u);  // 3.0
}

TEST(Float, UnariesRoundOnceToDestination) {
  Core c = make_core();
  for (unsigned l = 0; l < kLanes; ++l) c.r[2][l] = std::bit_cast<uint32_t>(float(l) * 0.75f - 7.3f);
  auto op = [&](Opcode o, unsigned d) {
    return enc(o, {{"Dt", 2}, {"D", d * 2}, {"At", 0b1001}, {"A", 4}});
  };
  ASSERT_TRUE(run_code(cat({op(Opcode::floor, 3), op(Opcode::ceil, 4), op(Opcode::trunc, 5),
                            op(Opcode::rint, 6), op(Opcode::rcp, 7)}), c).ok());
  for (unsigned l = 0; l < kLanes; ++l) {
    float x = std::bit_cast<float>(c.r[2][l]);
    EXPECT_EQ(std::bit_cast<float>(c.r[3][l]), std::floor(x));
    EXPECT_EQ(std::bit_cast<float>(c.r[4][l]), std::ceil(x));
    EXPECT_EQ(std::bit_cast<float>(c.r[5][l]), std::trunc(x));
    EXPECT_EQ(std::bit_cast<float>(c.r[6][l]), std::nearbyint(x));
    EXPECT_EQ(c.r[7][l], ref_to_f32(1.0 / double(x)));
  }
}

// sin_pt_1/sin_pt_2 (derived semantics, see float_ops.cpp): sin_pt_1 folds
// an angle in quarter turns into [-1, 1] exactly; sin_pt_2(x) is
// sin(pi/2 x) / x (pi/2 at 0), applied here to the raw input as well.
constexpr uint32_t kNan = 0x7FC00000u;
struct SinCase { uint32_t in, pt1, pt2; };
constexpr SinCase kSinCases[] = {
    {0x00000000u, 0x00000000u, 0x3FC90FDBu},  // 0: 0, pi/2
    {0x3F000000u, 0x3F000000u, 0x3FB504F3u},  // 0.5: 0.5, sin(pi/4)/0.5 = sqrt(2)
    {0xBF000000u, 0xBF000000u, 0x3FB504F3u},  // -0.5: -0.5, sqrt(2) (even)
    {0x3F800000u, 0x3F800000u, 0x3F800000u},  // 1: 1, 1
    {0x3FC00000u, 0x3F000000u, 0x3EF15BEFu},  // 1.5: 2 - 1.5, sin(3pi/4)/1.5
    {0x40000000u, 0x00000000u, 0x00000000u},  // 2: +0, sin(pi)/2 = 0
    {0x40200000u, 0xBF000000u, 0xBE90D0C3u},  // 2.5: 2 - 2.5, sin(5pi/4)/2.5
    {0x40400000u, 0xBF800000u, 0xBEAAAAABu},  // 3: -1, sin(3pi/2)/3 = -1/3
    {0x40600000u, 0xBF000000u, 0xBE4EE116u},  // 3.5: 3.5 - 4, sin(7pi/4)/3.5
    {0x407FFFFFu, 0xB4800000u, 0xB3C90FDBu},  // 4 - 2^-22: -2^-22 exactly
    {0x3F800001u, 0x3F7FFFFEu, 0x3F7FFFFEu},  // 1 + 2^-23: 1 - 2^-23 exactly
    {0x40800000u, 0x00000000u, 0x00000000u},  // 4: 0 (period 4)
    {0x80000000u, 0x80000000u, 0x3FC90FDBu},  // -0: -0, pi/2
    {0xBE800000u, 0xBE800000u, 0x3FC3EF15u},  // -0.25: stays, sin(-pi/8)/-0.25
    {0x40A00000u, 0x3F800000u, 0x3E4CCCCDu},  // 5: 1, sin(5pi/2)/5 = 0.2
    {0xC0400000u, 0x3F800000u, 0xBEAAAAABu},  // -3: 1, sin(-3pi/2)/-3 = -1/3
    {0x7149F2CAu, 0x00000000u, 0x00000000u},  // 1e30, a multiple of 4: 0, 0
    {0x7F800000u, kNan, kNan},                // inf
    {0xFF800000u, kNan, kNan},                // -inf
    {0x7FC12345u, kNan, kNan},                // NaN
    {0x00400000u, 0x00000000u, 0x3FC90FDBu},  // subnormal: flushed to +0
};

std::vector<uint8_t> funary(Opcode o, unsigned d, unsigned a, Fields extra = {}) {
  std::vector<std::pair<std::string_view, uint32_t>> f = {{"Dt", 2}, {"D", d * 2}, {"At", 0b1001}, {"A", a * 2}};
  for (const auto& e : extra)
    for (auto& x : f)
      if (x.first == e.first) x.second = e.second;
  for (const auto& e : extra)
    if (std::none_of(f.begin(), f.end(), [&](const auto& x) { return x.first == e.first; })) f.push_back(e);
  auto r = isa::encode_fields(o, f);
  EXPECT_TRUE(r.ok());
  if (!r.ok()) return {};
  auto sp = r->span();
  return {sp.begin(), sp.end()};
}

TEST(Float, SinStepsKnownValues) {
  Core c = make_core();
  constexpr unsigned n = sizeof(kSinCases) / sizeof(kSinCases[0]);
  static_assert(n <= kLanes);
  for (unsigned l = 0; l < n; ++l) c.r[2][l] = kSinCases[l].in;
  ASSERT_TRUE(run_code(cat({funary(Opcode::sin_pt_1, 3, 2), funary(Opcode::sin_pt_2, 4, 2)}), c).ok());
  for (unsigned l = 0; l < n; ++l) {
    EXPECT_EQ(c.r[3][l], kSinCases[l].pt1) << "sin_pt_1 of 0x" << std::hex << kSinCases[l].in;
    EXPECT_EQ(c.r[4][l], kSinCases[l].pt2) << "sin_pt_2 of 0x" << std::hex << kSinCases[l].in;
  }
}

TEST(Float, SinStepsModifiersSaturateAndF16) {
  Core c = make_core();
  c.r[2][0] = 0x3F000000u;  // 0.5
  c.r[2][1] = 0x40600000u;  // 3.5
  c.r[2][2] = 0x3DCCCCCDu;  // 0.1f
  c.r[5][0] = 0x3800u;      // r5l = f16 0.5
  auto code = cat({
      funary(Opcode::sin_pt_1, 3, 2, {{"Am", 2}}),          // r3 = sin_pt_1(-r2)
      funary(Opcode::sin_pt_1, 4, 2, {{"S", 1}}),           // r4 = sat(sin_pt_1(r2))
      funary(Opcode::sin_pt_1, 0, 2, {{"Dt", 0}, {"D", 12}}),  // r6l = f16(sin_pt_1(r2))
      funary(Opcode::sin_pt_2, 0, 0, {{"Dt", 0}, {"D", 14}, {"At", 0b0001}, {"A", 10}}),  // r7l = sin_pt_2(r5l)
  });
  ASSERT_TRUE(run_code(code, c).ok());
  EXPECT_EQ(c.r[3][0], 0xBF000000u);  // -0.5 stays in [-1, 1]
  EXPECT_EQ(c.r[3][1], 0x3F000000u);  // -3.5 -> -3.5 + 4
  EXPECT_EQ(c.r[4][0], 0x3F000000u);
  EXPECT_EQ(c.r[4][1], 0u);           // -0.5 saturates to 0
  EXPECT_EQ(c.r[6][2] & 0xFFFF, 0x2E66u);  // 0.1f rounded to f16
  EXPECT_EQ(c.r[7][0] & 0xFFFF, 0x3DA8u);  // f16(sqrt(2))
}

// ulps between two f32 values of the same sign (or distance from zero).
double ulps(uint32_t got, double want) {
  double g = std::bit_cast<float>(got);
  int e;
  std::frexp(want, &e);
  double ulp = std::ldexp(1.0, std::max(e - 24, -149));
  return std::fabs(g - want) / ulp;
}

// Mesa's sequence for fsin/fcos (agx_lower_sincos + fsin_agx emission;
// ffract is lowered to x - floor(x), fcos's fmul+fadd fuses to fmadd):
//   t = x * f32(1/tau)  (cos: fmadd x, 1/tau, 0.25)
//   f = t + -floor(t); q = f * 4.0; y = sin_pt_1 q; s = sin_pt_2 y; r = s * y
// 1/tau sits in u0; r2 = x, r3 = t, r4 = floor, r5 = f, r6 = q, r7 = y,
// r8 = s, r9 = r.
std::vector<uint8_t> mesa_sincos(bool cos) {
  auto turns = cos ? enc(Opcode::fmadd32, {{"Dt", 2}, {"D", 6}, {"At", 0b1001}, {"A", 4}, {"Bt", 0b0110},
                                           {"B", 0}, {"Ct", 0}, {"C", 0x10}})
                   : enc(Opcode::fmul32, {{"Dt", 2}, {"D", 6}, {"At", 0b1001}, {"A", 4}, {"Bt", 0b0110}, {"B", 0}});
  return cat({turns, funary(Opcode::floor, 4, 3),
              enc(Opcode::fadd32, {{"Dt", 2}, {"D", 10}, {"At", 0b1001}, {"A", 6}, {"Bt", 0b1001}, {"Bm", 2}, {"B", 8}}),
              enc(Opcode::fmul32, {{"Dt", 2}, {"D", 12}, {"At", 0b1001}, {"A", 10}, {"Bt", 0}, {"B", 0x50}}),
              funary(Opcode::sin_pt_1, 7, 6), funary(Opcode::sin_pt_2, 8, 7),
              enc(Opcode::fmul32, {{"Dt", 2}, {"D", 18}, {"At", 0b1001}, {"A", 16}, {"Bt", 0b1001}, {"B", 14}})});
}

TEST(Float, MesaSinCosSequence) {
  Rng rng(77);
  double worst_ulp = 0;
  for (bool cos : {false, true}) {
    auto code = mesa_sincos(cos);
    for (int iter = 0; iter < 200; ++iter) {
      Core c = random_core(9000 + iter + (cos ? 1000 : 0));
      c.u[0] = 0x3E22F983u;  // f32(1/tau), the constant Mesa multiplies by
      for (unsigned l = 0; l < kLanes; ++l) {
        double mag = iter < 100 ? 8 * M_PI : iter < 180 ? 1e3 : 1e-3;
        c.r[2][l] = std::bit_cast<uint32_t>(float((double(rng()) / 4294967296.0 * 2 - 1) * mag));
      }
      Core before = c;
      ASSERT_TRUE(run_code(code, c).ok());
      for (unsigned l = 0; l < kLanes; ++l) {
        if (!on(before, l)) {
          ASSERT_EQ(c.r[9][l], before.r[9][l]);
          continue;
        }
        // (a) Against sin(pi/2 q) for the q the program computed: <= 2 ulp
        // (sin_pt_2 rounded once, then the fmul).
        double q = std::bit_cast<float>(c.r[6][l]);
        double r = q - 4 * std::floor(q / 4 + 0.5);  // [-2, 2), exact
        r = r > 1 ? 2 - r : r < -1 ? -2 - r : r;
        long double want_q = sinl(M_PIl / 2 * r);
        if (want_q == 0) EXPECT_EQ(c.r[9][l] & 0x7FFFFFFFu, 0u);
        else worst_ulp = std::max(worst_ulp, ulps(c.r[9][l], double(want_q)));
        ASSERT_LE(ulps(c.r[9][l], double(want_q)), 2.0) << "q " << q;
        // (b) Against std::sin/cos of x: the reduction's f32 rounding
        // (|x| 2^-23 in turns' ulps, at most) bounds the absolute error.
        double x = std::bit_cast<float>(before.r[2][l]);
        double want = cos ? std::cos(x) : std::sin(x);
        double got = std::bit_cast<float>(c.r[9][l]);
        ASSERT_LE(std::fabs(got - want), std::fabs(x) * 0x1p-22 + 0x1p-20) << "x " << x << (cos ? " cos" : " sin");
      }
    }
  }
  EXPECT_LE(worst_ulp, 2.0);
}

// dfdx / dfdy: the difference across the lane's 2x2 quad (lanes 0, 1 on
// top, 2, 3 below), right minus left / lower minus upper, fine (each lane
// its own row / column); lanes outside exec still give their values.
TEST(Float, DfdxDfdyAcrossTheQuad) {
  Core c = make_core();
  auto dfdx = enc(Opcode::dfdx, {{"Dt", 2}, {"D", 2}, {"At", 0b1001}, {"A", 4}});
  auto dfdy = enc(Opcode::dfdy, {{"Dt", 2}, {"D", 6}, {"At", 0b1001}, {"A", 4}});
  for (unsigned l = 0; l < kLanes; ++l) c.r[2][l] = std::bit_cast<uint32_t>(float(l * l));
  c.exec = 0x9A5C3F81u;
  ASSERT_TRUE(run_code(cat({dfdx, dfdy}), c).ok());
  for (unsigned l = 0; l < kLanes; ++l) {
    if (!(c.exec >> l & 1)) continue;
    const float x0 = float((l & ~1u) * (l & ~1u)), x1 = float((l | 1u) * (l | 1u));
    const float y0 = float((l & ~2u) * (l & ~2u)), y1 = float((l | 2u) * (l | 2u));
    EXPECT_EQ(std::bit_cast<float>(c.r[1][l]), x1 - x0) << l;
    EXPECT_EQ(std::bit_cast<float>(c.r[3][l]), y1 - y0) << l;
  }
}

}  // namespace
}  // namespace agx::usc::test
