// GLSL.std.450 functions, float remainders and AMD trinary min/max
// compiled and run on the usc emulator, against libm in double precision
// with tolerances within piglit's (its generated tests allow 1e-3 of the
// result's size for the inverse trigonometry, Mesa's polynomials' error
// is about 4e-4 there).
#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <limits>

#include "compiler/tests/buffer_words.h"
#include "compiler/tests/run_helpers.h"

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

struct Case {
  const char* glsl;                          // expression of x (and y)
  std::function<double(double, double)> ref;
  double tol_rel;                            // tolerance: tol_rel * max(1, |ref|)
};

// Runs `cases` (one output each) on x = xs[i], y = ys[i].
void run_cases(const std::vector<Case>& cases, const std::vector<float>& xs, const std::vector<float>& ys,
               const char* extension = "") {
  std::string body;
  for (size_t j = 0; j < cases.size(); ++j) body += "  o[i * " + std::to_string(cases.size()) + "u + " + std::to_string(j) + "u] = " + cases[j].glsl + ";\n";
  std::string src = std::string("#version 450\n") + extension + R"(
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer A { float a[]; };
layout(set = 0, binding = 1) buffer B { float bb[]; };
layout(set = 0, binding = 2) buffer O { float o[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  float x = a[i], y = bb[i];
  int e; float w; ivec2 e2; vec2 w2;
)" + body + "}\n";
  auto s = compile(src);
  ASSERT_TRUE(s.ok()) << s.error().message() << "\n" << src;
  size_t n = xs.size();
  ASSERT_EQ(n % 64, 0u);
  Job r;
  std::vector<uint32_t> a(n), b(n);
  for (size_t i = 0; i < n; ++i) { a[i] = fbits(xs[i]); b[i] = fbits(ys[i]); }
  r.buffers = {a, b, std::vector<uint32_t>(n * cases.size())};
  r.groups = {static_cast<uint32_t>(n / 64), 1, 1};
  auto st = execute(*s, r);
  ASSERT_TRUE(st.ok()) << st.error().message();
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < cases.size(); ++j) {
      double want = cases[j].ref(xs[i], ys[i]);
      double got = bitsf(r.buffers[2][i * cases.size() + j]);
      double tol = cases[j].tol_rel * std::max(1.0, std::fabs(want));
      EXPECT_NEAR(got, want, tol) << cases[j].glsl << " x=" << xs[i] << " y=" << ys[i];
    }
  }
}

std::vector<float> spread(size_t n, float lo, float hi) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = lo + (hi - lo) * float(i) / float(n - 1);
  return v;
}

TEST(GlslStd, TrigonometryAndAngles) {
  std::vector<float> x = spread(128, -6.0f, 6.0f), y = spread(128, 5.0f, -7.0f);
  std::reverse(y.begin() + 64, y.end());
  run_cases({
      {"radians(x)", [](double x, double) { return x * M_PI / 180.0; }, 1e-6},
      {"degrees(x)", [](double x, double) { return x * 180.0 / M_PI; }, 1e-6},
      {"tan(x * 0.25)", [](double x, double) { return std::tan(double(float(x * 0.25))); }, 2e-5},
      {"atan(x)", [](double x, double) { return std::atan(x); }, 2e-5},
      {"atan(x * 1e-3)", [](double x, double) { return std::atan(double(float(x * 1e-3))); }, 2e-5},
      {"atan(y, x)", [](double x, double y) { return std::atan2(y, x); }, 3e-5},
      {"atan(x, 1e20)", [](double x, double) { return std::atan2(x, 1e20); }, 3e-5},
      {"asin(x / 6.0)", [](double x, double) { return std::asin(double(float(x) / 6.0f)); }, 5e-4},
      {"acos(x / 6.0)", [](double x, double) { return std::acos(double(float(x) / 6.0f)); }, 5e-4},
  }, x, y);
}

TEST(GlslStd, HyperbolicExpLogPow) {
  std::vector<float> x = spread(64, -4.0f, 4.0f), y = spread(64, 0.5f, 3.0f);
  run_cases({
      {"sinh(x)", [](double x, double) { return std::sinh(x); }, 1e-5},
      {"cosh(x)", [](double x, double) { return std::cosh(x); }, 1e-5},
      {"tanh(x * 4.0)", [](double x, double) { return std::tanh(double(float(x * 4.0))); }, 1e-5},
      {"asinh(x)", [](double x, double) { return std::asinh(x); }, 1e-5},
      {"acosh(abs(x) + 1.0)", [](double x, double) { return std::acosh(double(std::fabs(float(x)) + 1.0f)); }, 2e-4},
      {"atanh(x / 4.5)", [](double x, double) { return std::atanh(double(float(x) / 4.5f)); }, 1e-5},
      {"exp(x)", [](double x, double) { return std::exp(x); }, 1e-5},
      {"log(y)", [](double, double y) { return std::log(y); }, 1e-5},
      {"pow(y, x)", [](double x, double y) { return std::pow(y, x); }, 1e-5},
  }, x, y);
}

TEST(GlslStd, RoundingSignRemaindersMixAndExponents) {
  std::vector<float> x = spread(64, -5.25f, 5.25f), y = spread(64, 1.5f, -2.25f);
  for (auto& v : y) if (v == 0.0f) v = 0.75f;
  run_cases({
      {"round(x)", [](double x, double) { return std::nearbyint(x); }, 0},
      {"float(sign(int(x)))", [](double x, double) { int i = int(float(x)); return double((i > 0) - (i < 0)); }, 0},
      {"sign(x)", [](double x, double) { return double((x > 0) - (x < 0)); }, 0},
      {"mod(x, y)", [](double x, double y) { return x - y * std::floor(x / y); }, 1e-6},
      {"mod(x, 1.25)", [](double x, double) { return x - 1.25 * std::floor(x / 1.25); }, 1e-6},
      {"mix(x, y, 0.25)", [](double x, double y) { return x + (y - x) * 0.25; }, 1e-6},
      {"mix(x, y, x < y)", [](double x, double y) { return x < y ? y : x; }, 0},
      {"ldexp(x, int(y * 4.0))", [](double x, double y) { return std::ldexp(x, int(float(y * 4.0))); }, 1e-7},
      // Output parameters (spirv_rewrite.cpp turns them into the struct forms).
      {"frexp(x * 100.0, e) + float(e)", [](double x, double) {
         int e; double f = std::frexp(double(float(x * 100.0)), &e); return f + e; }, 1e-6},
      {"modf(x, w) + w * 16.0", [](double x, double) { double w; double f = std::modf(x, &w); return f + w * 16.0; }, 1e-6},
      {"dot(frexp(vec2(x, y), e2), vec2(1.0, 4.0)) + float(e2.x * 8 + e2.y)", [](double x, double y) {
         int ex, ey; double fx = std::frexp(x, &ex), fy = std::frexp(y, &ey); return fx + 4 * fy + ex * 8 + ey; }, 1e-6},
      {"modf(vec2(y, x), w2).y - w2.x", [](double x, double y) { double wy, wx; std::modf(y, &wy); return std::modf(x, &wx) - wy; }, 1e-6},
  }, x, y);
}

// isinf and isnan on infinities, NaNs, the largest finite float and
// ordinary numbers (OpIsInf / OpIsNan, scalar and vector).
TEST(GlslStd, IsInfAndIsNan) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const float big = std::numeric_limits<float>::max();
  const std::vector<float> pool = {inf, -inf, nan, -nan, big, -big, 0.0f, -1.5f, 1e-40f, 3.0f};
  std::vector<float> x(64), y(64);
  for (size_t i = 0; i < 64; ++i) { x[i] = pool[i % pool.size()]; y[i] = pool[(i / pool.size()) % pool.size()]; }
  run_cases({
      {"isinf(x) ? 1.0 : 0.0", [](double x, double) { return std::isinf(x) ? 1.0 : 0.0; }, 0},
      {"isnan(x) ? 1.0 : 0.0", [](double x, double) { return std::isnan(x) ? 1.0 : 0.0; }, 0},
      {"dot(vec2(isinf(vec2(x, y))), vec2(1.0, 2.0))",
       [](double x, double y) { return (std::isinf(x) ? 1.0 : 0.0) + (std::isinf(y) ? 2.0 : 0.0); }, 0},
  }, x, y);
}

// uaddCarry, usubBorrow, umulExtended and imulExtended (OpIAddCarry,
// OpISubBorrow, OpUMulExtended, OpSMulExtended: struct results) against
// the host's 64-bit arithmetic, scalar and vector.
TEST(GlslStd, ExtendedIntegerArithmetic) {
  auto s = compile(R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer A { uint a[]; };
layout(set = 0, binding = 1) buffer B { uint b[]; };
layout(set = 0, binding = 2) buffer O { uint o[]; };
void main() {
  uint i = gl_GlobalInvocationID.x, x = a[i], y = b[i], hi, lo, c;
  o[i * 8u + 0u] = uaddCarry(x, y, c); o[i * 8u + 1u] = c;
  o[i * 8u + 2u] = usubBorrow(x, y, c); o[i * 8u + 3u] = c;
  umulExtended(x, y, hi, lo); o[i * 8u + 4u] = hi; o[i * 8u + 5u] = lo;
  ivec2 shi, slo;
  imulExtended(ivec2(x, y), ivec2(y, -7), shi, slo);
  o[i * 8u + 6u] = uint(shi.x); o[i * 8u + 7u] = uint(shi.y) ^ uint(slo.y);
})");
  ASSERT_TRUE(s.ok()) << s.error().message();
  const std::vector<uint32_t> pool = {0, 1, 7, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu, 0x12345678u, 0xDEADBEEFu};
  std::vector<uint32_t> a(64), b(64);
  for (size_t i = 0; i < 64; ++i) { a[i] = pool[i % 8]; b[i] = pool[i / 8]; }
  Job r;
  r.buffers = {a, b, std::vector<uint32_t>(64 * 8)};
  r.groups = {1, 1, 1};
  auto st = execute(*s, r);
  ASSERT_TRUE(st.ok()) << st.error().message();
  for (size_t i = 0; i < 64; ++i) {
    const uint32_t* o = &r.buffers[2][i * 8];
    const uint64_t sum = uint64_t(a[i]) + b[i], prod = uint64_t(a[i]) * b[i];
    const int64_t sprod = int64_t(int32_t(a[i])) * int32_t(b[i]), sprod7 = int64_t(int32_t(b[i])) * -7;
    EXPECT_EQ(o[0], uint32_t(sum)) << i;
    EXPECT_EQ(o[1], uint32_t(sum >> 32)) << i;
    EXPECT_EQ(o[2], a[i] - b[i]) << i;
    EXPECT_EQ(o[3], a[i] < b[i] ? 1u : 0u) << i;
    EXPECT_EQ(o[4], uint32_t(prod >> 32)) << i;
    EXPECT_EQ(o[5], uint32_t(prod)) << i;
    EXPECT_EQ(o[6], uint32_t(uint64_t(sprod) >> 32)) << i;
    EXPECT_EQ(o[7], uint32_t(uint64_t(sprod7) >> 32) ^ uint32_t(sprod7)) << i;
  }
}

TEST(GlslStd, VectorGeometry) {
  std::vector<float> x = spread(64, -2.0f, 2.0f), y = spread(64, 1.0f, -1.5f);
  auto refl = [](double i0, double i1, double n0, double n1, int c) {
    double d = n0 * i0 + n1 * i1;
    return c == 0 ? i0 - 2 * d * n0 : i1 - 2 * d * n1;
  };
  auto refr = [](double i0, double i1, double n0, double n1, double eta, int c) {
    double d = n0 * i0 + n1 * i1;
    double k = 1 - eta * eta * (1 - d * d);
    if (k < 0) return 0.0;
    double f = eta * d + std::sqrt(k);
    return c == 0 ? eta * i0 - f * n0 : eta * i1 - f * n1;
  };
  // N = normalize(vec2(0.6, 0.8)) exactly enough: (0.6, 0.8).
  run_cases({
      {"reflect(vec2(x, y), vec2(0.6, 0.8)).x", [&](double x, double y) { return refl(x, y, 0.6, 0.8, 0); }, 1e-6},
      {"reflect(vec2(x, y), vec2(0.6, 0.8)).y", [&](double x, double y) { return refl(x, y, 0.6, 0.8, 1); }, 1e-6},
      {"refract(normalize(vec2(x, -1.0)), vec2(0.0, 1.0), 0.75).x", [&](double x, double) {
         double l = std::sqrt(x * x + 1); return refr(x / l, -1 / l, 0, 1, 0.75, 0); }, 1e-5},
      {"refract(normalize(vec2(x, -1.0)), vec2(0.0, 1.0), 1.5).y", [&](double x, double) {
         double l = std::sqrt(x * x + 1); return refr(x / l, -1 / l, 0, 1, 1.5, 1); }, 1e-5},
      {"faceforward(vec2(1.0, 2.0), vec2(x, y), vec2(0.5, -1.0)).y", [](double x, double y) {
         return 0.5 * x - y < 0 ? 2.0 : -2.0; }, 0},
      {"faceforward(x, y, 1.0)", [](double x, double y) { return y < 0 ? x : -x; }, 0},
      {"reflect(x, 1.0)", [](double x, double) { return -x; }, 1e-6},
  }, x, y);
}

TEST(GlslStd, PackingRoundTrips) {
  std::vector<float> x = spread(64, -1.25f, 1.25f), y = spread(64, 0.9f, -0.3f);
  // In float, as the shader rounds (0.9f * 255 is 229.5 in float).
  auto q = [](double v, double lo, double s) {
    return double(std::nearbyintf(std::clamp(float(v), float(lo), 1.0f) * float(s))) / s;
  };
  run_cases({
      {"unpackUnorm2x16(packUnorm2x16(vec2(x, y))).x", [&](double x, double) { return q(x, 0, 65535); }, 1e-6},
      {"unpackSnorm2x16(packSnorm2x16(vec2(x, y))).y", [&](double, double y) { return q(y, -1, 32767); }, 1e-6},
      {"unpackUnorm4x8(packUnorm4x8(vec4(x, y, 0.5, 1.0))).y", [&](double, double y) { return q(y, 0, 255); }, 1e-6},
      {"unpackSnorm4x8(packSnorm4x8(vec4(0.0, y, 0.5, x))).w", [&](double x, double) { return q(x, -1, 127); }, 1e-6},
      {"float(packUnorm4x8(vec4(0.0, 1.0, 0.0, 0.5)) >> 8u)", [](double, double) { return double(0x8000FFu); }, 0},
      {"float(packSnorm2x16(vec2(-1.0, 0.0)))", [](double, double) { return double(0x8001u); }, 0},
      // Halves: 1.0 = 0x3c00, -2.0 = 0xc000; x and y survive to f16 precision.
      {"float(packHalf2x16(vec2(1.0, -2.0)) >> 8u)", [](double, double) { return double(0xc0003cu); }, 0},
      {"unpackHalf2x16(packHalf2x16(vec2(x, y))).x", [](double x, double) { return x; }, 1e-3},
      {"unpackHalf2x16(packHalf2x16(vec2(x * 100.0, y))).y", [](double, double y) { return y; }, 1e-3},
      {"unpackHalf2x16(0x3c00c000u).y + unpackHalf2x16(0x3c00c000u).x * 4.0", [](double, double) { return 1.0 - 8.0; }, 0},
  }, x, y);
}

TEST(GlslStd, TrinaryMinMaxMid) {
  std::vector<float> x = spread(64, -3.0f, 3.0f), y = spread(64, 2.0f, -2.0f);
  run_cases({
      {"min3(x, y, 0.5)", [](double x, double y) { return std::min({x, y, 0.5}); }, 0},
      {"max3(x, y, 0.5)", [](double x, double y) { return std::max({x, y, 0.5}); }, 0},
      {"mid3(x, y, 0.5)", [](double x, double y) { double v[] = {x, y, 0.5}; std::sort(v, v + 3); return v[1]; }, 0},
      {"float(mid3(int(x * 4.0), int(y * 4.0), 1))", [](double x, double y) {
         int v[] = {int(float(x * 4)), int(float(y * 4)), 1}; std::sort(v, v + 3); return double(v[1]); }, 0},
      {"float(max3(uint(abs(x) * 4.0), uint(abs(y) * 4.0), 3u))", [](double x, double y) {
         return double(std::max({unsigned(std::fabs(float(x)) * 4), unsigned(std::fabs(float(y)) * 4), 3u})); }, 0},
  }, x, y, "#extension GL_AMD_shader_trinary_minmax : require\n");
}

}  // namespace
}  // namespace agx::compiler::test

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

// Votes over the SIMD group: lanes 0-31 and 32-63 are two groups; the
// values make any/all/allEqual differ between them, and a branch leaves
// some lanes out (inactive lanes do not vote).
TEST(GlslStd, GroupVotesOverTheSimdGroup) {
  auto s = compile(R"(#version 450
#extension GL_ARB_shader_group_vote : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer A { uint a[]; };
layout(set = 0, binding = 1) buffer O { uint o[]; };
void main() {
  uint i = gl_LocalInvocationIndex;
  uint x = a[i];
  uint r = uint(anyInvocationARB(x > 5u)) | uint(allInvocationsARB(x < 9u)) << 1 |
           uint(allInvocationsEqualARB(x < 4u)) << 2 | uint(allInvocationsEqualARB(x == 7u)) << 3;
  if (x != 3u) r |= uint(allInvocationsARB(x != 3u)) << 4 | uint(anyInvocationARB(x == 3u)) << 5;
  o[i] = r;
}
)");
  ASSERT_TRUE(s.ok()) << s.error().message();
  std::vector<uint32_t> a(64);
  for (uint32_t i = 0; i < 32; ++i) a[i] = i % 4;        // group 0: 0..3 (3 present)
  for (uint32_t i = 32; i < 64; ++i) a[i] = i == 40 ? 8 : 7;  // group 1: 7 and one 8
  Job r;
  r.buffers = {a, std::vector<uint32_t>(64)};
  auto st = execute(*s, r);
  ASSERT_TRUE(st.ok()) << st.error().message();
  for (uint32_t g = 0; g < 2; ++g) {
    bool any = false, all = true, eq_lt4 = true, eq_7 = true;
    bool first_lt4 = a[g * 32] < 4, first_7 = a[g * 32] == 7;
    bool all_ne3 = true, any_eq3 = false;  // over the lanes with x != 3
    for (uint32_t l = 0; l < 32; ++l) {
      uint32_t x = a[g * 32 + l];
      any |= x > 5;
      all &= x < 9;
      eq_lt4 &= (x < 4) == first_lt4;
      eq_7 &= (x == 7) == first_7;
      if (x != 3) { all_ne3 &= x != 3; any_eq3 |= x == 3; }
    }
    for (uint32_t l = 0; l < 32; ++l) {
      uint32_t x = a[g * 32 + l];
      uint32_t want = uint32_t(any) | uint32_t(all) << 1 | uint32_t(eq_lt4) << 2 | uint32_t(eq_7) << 3;
      if (x != 3) want |= uint32_t(all_ne3) << 4 | uint32_t(any_eq3) << 5;
      EXPECT_EQ(r.buffers[1][g * 32 + l], want) << "lane " << g * 32 + l;
    }
  }
}

}  // namespace
}  // namespace agx::compiler::test

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

// .length() of runtime arrays: the bound sizes (in the size uniforms the
// ABI names) minus the fixed part, over the stride; a range shorter than
// the fixed part has none.
TEST(GlslStd, RuntimeArrayLengthFromTheBoundSize) {
  auto s = compile(R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer A { vec4 head; vec4 v[]; };
layout(set = 0, binding = 1) buffer B { uint n; float f[]; };
layout(set = 0, binding = 2) buffer C { uvec4 big[4]; uint tail[]; };
layout(set = 0, binding = 3) buffer O { uint o[]; };
void main() { o[0] = uint(v.length()); o[1] = uint(f.length()); o[2] = uint(tail.length()); o[3] = uint(o.length()); }
)");
  ASSERT_TRUE(s.ok()) << s.error().message();
  unsigned with_size = 0;
  for (const auto& r : s->abi.resources) with_size += r.size_uniform != Resource::kNoUniform;
  EXPECT_EQ(with_size, 4u);
  Job r;
  r.buffers = {std::vector<uint32_t>(32), std::vector<uint32_t>(10), std::vector<uint32_t>(8), std::vector<uint32_t>(6)};
  auto st = execute(*s, r);
  ASSERT_TRUE(st.ok()) << st.error().message();
  EXPECT_EQ(r.buffers[3][0], 7u);   // (128 - 16) / 16
  EXPECT_EQ(r.buffers[3][1], 9u);   // (40 - 4) / 4
  EXPECT_EQ(r.buffers[3][2], 0u);   // 32 bytes < 64 bytes of big[]
  EXPECT_EQ(r.buffers[3][3], 6u);
}

}  // namespace
}  // namespace agx::compiler::test

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

// A packed half pair stored straight to memory is one word (the 16-bit
// pair read as a 32-bit register): the word after the last stays.
TEST(GlslStd, PackHalfStoresOneWord) {
  auto s = compile(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer O { uint o[]; };
void main() { uint i = gl_LocalInvocationIndex; o[i] = packHalf2x16(vec2(float(i), -0.5 * float(i + 1u))); }
)");
  ASSERT_TRUE(s.ok()) << s.error().message();
  Job r;
  r.buffers = {std::vector<uint32_t>(33, 0xDEADBEEFu)};
  auto st = execute(*s, r);
  ASSERT_TRUE(st.ok()) << st.error().message();
  for (uint32_t i = 0; i < 32; ++i) {
    // Small integers and halves are exact in f16: sign, 5-bit exponent (bias 15), 10-bit fraction.
    auto half = [](float f) -> uint32_t {
      if (f == 0) return std::signbit(f) ? 0x8000u : 0;
      int e; float m = std::frexp(std::fabs(f), &e);  // |f| = m 2^e, m in [0.5, 1)
      uint32_t frac = uint32_t((m * 2 - 1) * 1024);
      return (f < 0 ? 0x8000u : 0) | uint32_t(e - 1 + 15) << 10 | frac;
    };
    EXPECT_EQ(r.buffers[0][i], half(float(i)) | half(-0.5f * float(i + 1)) << 16) << i;
  }
  EXPECT_EQ(r.buffers[0][32], 0xDEADBEEFu);
}

}  // namespace
}  // namespace agx::compiler::test

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

// An OpenGL loose uniform array read by a dynamic index (a select chain
// over its uniform registers) and an atomic counter array element.
TEST(GlslStd, LooseUniformArrayByDynamicIndex) {
  auto s = compile(R"(#version 450
layout(local_size_x = 8) in;
layout(location = 0) uniform uint vals[5];
layout(location = 5) uniform uint tail;
layout(binding = 0) uniform atomic_uint c[3];
layout(std430, binding = 1) buffer O { uint o[]; };
void main() {
  uint i = gl_LocalInvocationIndex;
  o[i] = (i < 5u ? vals[i] : 1000u) + tail;
  atomicCounterIncrement(c[i % 3u]);
}
)", TargetEnv::opengl);
  ASSERT_TRUE(s.ok()) << s.error().message();
  ASSERT_EQ(s->abi.loose_uniforms.size(), 2u);
  Job r;
  r.push = {11, 22, 33, 44, 55, 7};
  r.buffers = {std::vector<uint32_t>(8), std::vector<uint32_t>(3)};  // storage buffers, then counters
  auto st = execute(*s, r);
  ASSERT_TRUE(st.ok()) << st.error().message();
  for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(r.buffers[0][i], (i < 5 ? 11 * (i + 1) : 1000) + 7) << i;
  EXPECT_EQ(r.buffers[1], (std::vector<uint32_t>{3, 3, 2}));
}

}  // namespace
}  // namespace agx::compiler::test
