// 16-bit floats (GL_EXT_shader_explicit_arithmetic_types_float16): GLSL
// kernels run on the usc emulator against IEEE binary16 computed in C++
// (half_ref.h, checked against the host's F16C conversion when it has one)
// on edge values (zeros, infinities, NaN, denormals, the largest half,
// rounding ties, overflow) and random halves.
#include <cpuid.h>
#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <random>

#include <fmt/format.h>

#include "compiler/tests/buffer_words.h"
#include "compiler/tests/half_ref.h"
#include "compiler/tests/run_helpers.h"

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

const std::vector<uint16_t> kEdges = {
    0x0000, 0x8000, 0x3C00, 0xBC00, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0x0001, 0x03FF,
    0x0400, 0x3800, 0x3E00, 0x3C01, 0x1000, 0x4000, 0x6800, 0x0003, 0x4C00, 0x3555, 0xC500};

// Edge pairs first (every a with every b), then random halves.
void operands(size_t n, std::vector<uint16_t>& a, std::vector<uint16_t>& b, std::vector<uint16_t>& c, uint32_t seed) {
  std::mt19937 rng(seed);
  for (size_t i = 0; i < n; ++i) {
    if (i < kEdges.size() * kEdges.size()) {
      a.push_back(kEdges[i / kEdges.size()]);
      b.push_back(kEdges[i % kEdges.size()]);
      c.push_back(kEdges[(i * 7) % kEdges.size()]);
    } else {
      auto r = [&] { return static_cast<uint16_t>(rng() & 0xFFFF); };
      a.push_back(r()); b.push_back(r()); c.push_back(r());
    }
  }
}

__attribute__((target("f16c"))) uint16_t f16c_half(float f) {
  return static_cast<uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT));
}
__attribute__((target("f16c"))) float f16c_float(uint16_t h) { return _cvtsh_ss(h); }

// CPUID leaf 1, ECX bit 29: F16C (Intel SDM vol. 2A, CPUID). clang 14's
// __builtin_cpu_supports does not know "f16c", so the bit is read directly.
bool host_has_f16c() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 29)) != 0;
}

TEST(HalfTypes, ReferenceMatchesF16c) {
  if (!host_has_f16c()) GTEST_SKIP() << "no F16C on this host";
  std::mt19937 rng(5);
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if (half_nan(static_cast<uint16_t>(h))) continue;
    ASSERT_EQ(std::bit_cast<uint32_t>(static_cast<float>(ref_double(static_cast<uint16_t>(h)))),
              std::bit_cast<uint32_t>(f16c_float(static_cast<uint16_t>(h))));
  }
  for (int i = 0; i < 200000; ++i) {
    float f = std::bit_cast<float>(static_cast<uint32_t>(rng()));
    if (std::isnan(f)) continue;
    ASSERT_EQ(ref_half(f), f16c_half(f)) << f;
  }
}

struct Check {
  const char* glsl;                       // expression of a, b, c (float16_t)
  std::function<double(double, double, double)> ref;
  int ulps = 0;                           // 0: bit exact
  std::function<bool(double, double, double)> skip = nullptr;  // inputs GLSL leaves undefined
  bool zero_sign = true;                  // false: +0 and -0 are both right (min/max/sign of zeros)
};

bool any_nan(double a, double b, double c) { return std::isnan(a) || std::isnan(b) || std::isnan(c); }
bool not_finite(double a, double b, double c) { return !std::isfinite(a) || !std::isfinite(b) || !std::isfinite(c); }

TEST(HalfTypes, Arithmetic) {
  // sqrt/inversesqrt/exp2/log2/division go through f32 and one rounding
  // to half: within an ulp; the rest is exact.
  const std::vector<Check> checks = {
      {"a + b", [](double a, double b, double) { return a + b; }},
      {"a - b", [](double a, double b, double) { return a - b; }},
      // A zero product's sign: the multiplier adds +0 (dougallj/applegpu
      // fma.py, which the usc unit follows), so -0 may come out +0.
      {"a * b", [](double a, double b, double) { return a * b; }, 0, nullptr, false},
      {"fma(a, b, c)", [](double a, double b, double c) { return std::fma(a, b, c); }, 1},
      {"a / b", [](double a, double b, double) { return a / b; }, 1, [](double, double b, double) { return b == 0; }},
      {"-a", [](double a, double, double) { return -a; }},
      {"abs(a)", [](double a, double, double) { return std::fabs(a); }},
      {"min(a, b)", [](double a, double b, double) { return b < a ? b : a; }, 0, any_nan, false},
      {"max(a, b)", [](double a, double b, double) { return a < b ? b : a; }, 0, any_nan, false},
      {"clamp(a, min(b, c), max(b, c))",
       [](double a, double b, double c) { return std::min(std::max(a, std::min(b, c)), std::max(b, c)); }, 0, any_nan, false},
      {"floor(a)", [](double a, double, double) { return std::floor(a); }},
      {"ceil(a)", [](double a, double, double) { return std::ceil(a); }},
      {"trunc(a)", [](double a, double, double) { return std::trunc(a); }},
      {"roundEven(a)", [](double a, double, double) { return std::nearbyint(a); }},
      {"fract(a)", [](double a, double, double) { return a - std::floor(a); }, 0, not_finite},
      {"sign(a)", [](double a, double, double) { return a > 0 ? 1.0 : a < 0 ? -1.0 : a; }, 0, any_nan, false},
      {"step(b, a)", [](double a, double b, double) { return a < b ? 0.0 : 1.0; }, 0, any_nan},
      {"sqrt(abs(a))", [](double a, double, double) { return std::sqrt(std::fabs(a)); }, 1},
      {"inversesqrt(abs(a))", [](double a, double, double) { return 1.0 / std::sqrt(std::fabs(a)); }, 1},
      {"exp2(a)", [](double a, double, double) { return std::exp2(a); }, 1},
      {"log2(abs(a))", [](double a, double, double) { return std::log2(std::fabs(a)); }, 1},
      {"mix(a, b, c)", [](double a, double b, double c) { return a * (1 - c) + b * c; }, 1, not_finite},
      {"pow(abs(a), b)", [](double a, double b, double) { return std::pow(std::fabs(a), b); }, 1,
       [](double a, double b, double) {
         double x = std::fabs(a);
         return !(x >= 0.25 && x <= 8 && std::fabs(b) <= 4);
       }},
      {"sin(a)", [](double a, double, double) { return std::sin(a); }, 2, [](double a, double, double) { return !(std::fabs(a) <= 3.5); }},
      {"cos(a)", [](double a, double, double) { return std::cos(a); }, 2, [](double a, double, double) { return !(std::fabs(a) <= 3.5); }},
  };
  std::string body;
  for (size_t k = 0; k < checks.size(); ++k)
    body += fmt::format("  o[i * {}u + {}u] = {};\n", checks.size(), k, checks[k].glsl);
  Shader s = must_compile(R"(#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer A { float16_t a_[]; };
layout(set = 0, binding = 1) buffer B { float16_t b_[]; };
layout(set = 0, binding = 2) buffer C { float16_t c_[]; };
layout(set = 0, binding = 3) buffer O { float16_t o[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  float16_t a = a_[i], b = b_[i], c = c_[i];
)" + body + "}\n");
  ASSERT_FALSE(s.code.empty());
  const size_t n = 640;
  std::vector<uint16_t> a, b, c;
  operands(n, a, b, c, 3);
  Job r;
  r.groups = {static_cast<uint32_t>(n / 64), 1, 1};
  r.buffers = {pack16(a), pack16(b), pack16(c), std::vector<uint32_t>(n * checks.size() / 2 + 1)};
  ASSERT_OK(execute(s, r));
  size_t checked = 0;
  for (size_t i = 0; i < n; ++i) {
    double x = ref_double(a[i]), y = ref_double(b[i]), z = ref_double(c[i]);
    for (size_t k = 0; k < checks.size(); ++k) {
      const Check& ck = checks[k];
      if (ck.skip && ck.skip(x, y, z)) continue;
      uint16_t want = ref_half(ck.ref(x, y, z)), got = at16(r.buffers[3], i * checks.size() + k);
      ++checked;
      if (half_nan(want) || half_nan(got)) {
        EXPECT_EQ(half_nan(want), half_nan(got)) << ck.glsl << " a=" << x << " b=" << y << " c=" << z;
        continue;
      }
      if (!ck.zero_sign && (got & 0x7FFF) == 0 && (want & 0x7FFF) == 0) continue;
      if (ck.ulps == 0) EXPECT_EQ(got, want) << ck.glsl << " a=" << x << " b=" << y << " c=" << z;
      else EXPECT_LE(half_ulps(got, want), ck.ulps) << ck.glsl << " a=" << x << " b=" << y << " c=" << z << " got " << ref_double(got);
    }
  }
  EXPECT_GT(checked, n * checks.size() / 2);
}

TEST(HalfTypes, RoundingTiesOverflowAndDenormals) {
  // Sums and products whose exact results sit on a tie or past the top.
  Shader s = must_compile(R"(#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer O { float16_t o[]; };
layout(push_constant) uniform P { float16_t one, tiny, big, sixteen, den3, half_; } p;
void main() {
  o[0] = p.one + p.tiny;                       // 1 + 2^-11: tie -> 1
  o[1] = (p.one + float16_t(p.one * 0.0009765625hf)) + p.tiny;  // (1 + 2^-10) + 2^-11: tie -> 1 + 2^-9
  o[2] = p.big + p.sixteen;                    // 65504 + 16 = 65520: tie -> infinity
  o[3] = p.big + float16_t(15.0);              // 65519 -> 65504
  o[4] = p.big * float16_t(2.0);               // overflow
  o[5] = p.den3 * p.half_;                     // 1.5 x 2^-24: tie -> 2 x 2^-24
  o[6] = -(p.den3 - p.den3);                   // -0
  o[7] = p.big * -p.big;                       // -infinity
  o[8] = (p.big * p.sixteen) * (p.one - p.one);  // inf x 0: NaN
}
)");
  ASSERT_FALSE(s.code.empty());
  Job r;
  r.buffers = {std::vector<uint32_t>(5)};
  r.push = pack16({0x3C00, 0x1000, 0x7BFF, 0x4C00, 0x0003, 0x3800});
  ASSERT_OK(execute(s, r));
  EXPECT_EQ(at16(r.buffers[0], 0), 0x3C00);
  EXPECT_EQ(at16(r.buffers[0], 1), 0x3C02);
  EXPECT_EQ(at16(r.buffers[0], 2), 0x7C00);
  EXPECT_EQ(at16(r.buffers[0], 3), 0x7BFF);
  EXPECT_EQ(at16(r.buffers[0], 4), 0x7C00);
  EXPECT_EQ(at16(r.buffers[0], 5), 0x0002);
  EXPECT_EQ(at16(r.buffers[0], 6), 0x8000);
  EXPECT_EQ(at16(r.buffers[0], 7), 0xFC00);
  EXPECT_TRUE(half_nan(at16(r.buffers[0], 8)));
}

TEST(HalfTypes, ComparisonsAndConversions) {
  Shader s = must_compile(R"(#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer A { float16_t a_[]; };
layout(set = 0, binding = 1) buffer B { float16_t b_[]; };
layout(set = 0, binding = 2) buffer F { float f_[]; };
layout(set = 0, binding = 3) buffer I { int i_[]; };
layout(set = 0, binding = 4) buffer D { double d_[]; };
layout(set = 0, binding = 5) buffer O { uint o[]; };
layout(set = 0, binding = 6) buffer H { float16_t h[]; };
layout(set = 0, binding = 7) buffer W { double wd[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  float16_t a = a_[i], b = b_[i];
  o[i * 8u + 0u] = (a < b ? 1u : 0u) | (a <= b ? 2u : 0u) | (a == b ? 4u : 0u) | (a != b ? 8u : 0u) |
                   (a > b ? 16u : 0u) | (a >= b ? 32u : 0u) | (isnan(a) ? 64u : 0u) | (isinf(a) ? 128u : 0u);
  o[i * 8u + 1u] = floatBitsToUint(float(a));
  o[i * 8u + 2u] = uint(int(clamp(a, -30000.0hf, 30000.0hf)));
  o[i * 8u + 3u] = uint(clamp(a, 0.0hf, 60000.0hf));
  o[i * 8u + 4u] = uint(int(int16_t(clamp(a, -32000.0hf, 32000.0hf))));
  o[i * 8u + 5u] = uint(int(int8_t(clamp(a, -100.0hf, 100.0hf))));
  o[i * 8u + 6u] = uint(float16BitsToUint16(a)) | uint(float16BitsToInt16(-a)) << 16;
  o[i * 8u + 7u] = uint(uint16BitsToFloat16(uint16_t(i * 977u)) == a ? 1u : 0u);
  h[i * 8u + 0u] = float16_t(f_[i]);
  h[i * 8u + 1u] = float16_t(i_[i]);
  h[i * 8u + 2u] = float16_t(uint(i_[i]));
  h[i * 8u + 3u] = float16_t(d_[i]);
  h[i * 8u + 4u] = float16_t(int16_t(i_[i]));
  h[i * 8u + 5u] = float16_t(uint8_t(i_[i]));
  h[i * 8u + 6u] = float16_t(int8_t(i_[i]));
  h[i * 8u + 7u] = float16_t(int64_t(i_[i]) * 3l);
  wd[i] = double(a);
}
)");
  ASSERT_FALSE(s.code.empty());
  const size_t n = 576;
  std::vector<uint16_t> a, b, c;
  operands(n, a, b, c, 9);
  // Floats, ints and doubles around the half's ties and its top.
  std::vector<float> f = {65519.99f, 65520.0f, 1.0f + 0x1p-11f, 1.0f + 0x1p-11f + 0x1p-23f, 0x1p-25f, 0x1.8p-25f,
                          0x1p-130f, 1e-10f, NAN, INFINITY, -INFINITY, -0.0f, 3.14159f, -65504.0f, 0x1.ffcp-15f, 0x1.ff8p-15f};
  std::vector<int32_t> iv = {2049, 2051, 65519, 65520, -65536, 0x7FFFFFFF, INT32_MIN, 1, -1, 4095, 0, -32768, 32767, 255, -129, 70000};
  std::vector<double> dv = {1.0 + 0x1p-11 + 0x1p-40, 1.0 + 0x1p-11, 1.0 + 0x1p-11 - 0x1p-40, 1e300, 1e-300, 65519.999, NAN, -INFINITY,
                            0x1p-25, 0x1p-25 + 0x1p-60, -(1.0 + 0x1p-10 + 0x1p-11), 0x1.ffcp-15 + 0x1p-50, 2049.0000001, -0.0};
  std::mt19937 rng(4);
  while (f.size() < n) f.push_back(std::bit_cast<float>(static_cast<uint32_t>((rng() % 0x3D000000u) + 0x1A000000u)) * ((rng() & 1) ? -1.0f : 1.0f));
  while (iv.size() < n) iv.push_back(static_cast<int32_t>(rng()) >> (rng() % 32));
  while (dv.size() < n) dv.push_back(std::ldexp(static_cast<double>(rng()) / 4294967296.0 + 1.0 + std::ldexp(double(rng()), -60), static_cast<int>(rng() % 50) - 30));
  std::vector<uint32_t> dwords;
  for (double d : dv) { uint64_t u = std::bit_cast<uint64_t>(d); dwords.push_back(static_cast<uint32_t>(u)); dwords.push_back(static_cast<uint32_t>(u >> 32)); }
  std::vector<uint32_t> fw, iw;
  for (float x : f) fw.push_back(fbits(x));
  for (int32_t x : iv) iw.push_back(static_cast<uint32_t>(x));
  Job r;
  r.groups = {static_cast<uint32_t>(n / 64), 1, 1};
  r.buffers = {pack16(a), pack16(b), fw, iw, dwords, std::vector<uint32_t>(n * 8), std::vector<uint32_t>(n * 4), std::vector<uint32_t>(n * 2)};
  ASSERT_OK(execute(s, r));
  for (size_t i = 0; i < n; ++i) {
    double x = ref_double(a[i]), y = ref_double(b[i]);
    uint32_t flags = (x < y) | (x <= y) << 1 | (x == y) << 2 | (!(x == y)) << 3 | (x > y) << 4 | (x >= y) << 5 |
                     std::isnan(x) << 6 | std::isinf(x) << 7;
    const uint32_t* o = &r.buffers[5][i * 8];
    EXPECT_EQ(o[0], flags) << x << " " << y;
    if (!std::isnan(x)) EXPECT_EQ(o[1], fbits(static_cast<float>(x))) << x;
    else EXPECT_TRUE(std::isnan(bitsf(o[1])));
    if (!std::isnan(x)) {
      EXPECT_EQ(static_cast<int32_t>(o[2]), static_cast<int32_t>(std::trunc(std::clamp(x, -30000.0, 30000.0)))) << x;
      EXPECT_EQ(o[3], static_cast<uint32_t>(std::trunc(std::clamp(x, 0.0, 60000.0)))) << x;
      EXPECT_EQ(static_cast<int32_t>(o[4]), static_cast<int32_t>(std::trunc(std::clamp(x, -32000.0, 32000.0)))) << x;
      EXPECT_EQ(static_cast<int32_t>(o[5]), static_cast<int32_t>(std::trunc(std::clamp(x, -100.0, 100.0)))) << x;
    }
    // A NaN's sign and payload do not survive the float unit (docs/compiler.md).
    if (std::isnan(x)) EXPECT_TRUE(half_nan(static_cast<uint16_t>(o[6])) && half_nan(static_cast<uint16_t>(o[6] >> 16)));
    else EXPECT_EQ(o[6], uint32_t{a[i]} | uint32_t(static_cast<uint16_t>(a[i] ^ 0x8000)) << 16) << x;
    uint16_t bits = static_cast<uint16_t>(i * 977u);
    EXPECT_EQ(o[7], !std::isnan(x) && ref_double(bits) == x ? 1u : 0u) << x;
    auto same = [&](uint16_t got, uint16_t want, const char* what, double in) {
      if (half_nan(want)) EXPECT_TRUE(half_nan(got)) << what << " " << in;
      else EXPECT_EQ(got, want) << what << " " << in;
    };
    same(at16(r.buffers[6], i * 8 + 0), ref_half(f[i]), "float", f[i]);
    same(at16(r.buffers[6], i * 8 + 1), ref_half(iv[i]), "int", iv[i]);
    same(at16(r.buffers[6], i * 8 + 2), ref_half(static_cast<uint32_t>(iv[i])), "uint", iv[i]);
    same(at16(r.buffers[6], i * 8 + 3), ref_half(dv[i]), "double", dv[i]);
    same(at16(r.buffers[6], i * 8 + 4), ref_half(static_cast<int16_t>(iv[i])), "int16", iv[i]);
    same(at16(r.buffers[6], i * 8 + 5), ref_half(static_cast<uint8_t>(iv[i])), "uint8", iv[i]);
    same(at16(r.buffers[6], i * 8 + 6), ref_half(static_cast<int8_t>(iv[i])), "int8", iv[i]);
    same(at16(r.buffers[6], i * 8 + 7), ref_half(static_cast<double>(int64_t{iv[i]} * 3)), "int64", iv[i]);
    double wd = std::bit_cast<double>(at(r.buffers[7], i));
    if (std::isnan(x)) EXPECT_TRUE(std::isnan(wd));
    else EXPECT_EQ(std::bit_cast<uint64_t>(wd), std::bit_cast<uint64_t>(x)) << x;
  }
}

TEST(HalfTypes, VectorsBitcastsAndPacking) {
  Shader s = must_compile(R"(#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer A { f16vec4 a[]; };
layout(set = 0, binding = 1) buffer B { f16vec3 b3[]; };
layout(set = 0, binding = 2) buffer O { uint o[]; };
layout(set = 0, binding = 3) buffer V { f16vec4 v[]; };
layout(set = 0, binding = 4) buffer W { f16vec2 v2[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  f16vec4 x = a[i];
  f16vec3 y = b3[i];
  o[i * 4u + 0u] = packFloat2x16(x.xy);
  o[i * 4u + 1u] = packFloat2x16(f16vec2(x.w, y.z));
  f16vec2 u = unpackFloat2x16(i * 0x9E3779B9u);
  o[i * 4u + 2u] = packFloat2x16(u * 1.0hf);
  o[i * 4u + 3u] = packHalf2x16(vec2(x.zw));
  v[i] = x * x.wzyx + f16vec4(y, 1.0hf);
  v2[i] = f16vec2(dot(x.xy, x.zw), length(y.xy));
}
)");
  ASSERT_FALSE(s.code.empty());
  const size_t n = 64;
  std::vector<uint16_t> av, bv, cv;
  operands(n * 4, av, bv, cv, 21);
  // Only finite halves of moderate size in the vectors (dot and length
  // are allowed their own rounding: checked with a tolerance).
  for (auto* v : {&av, &bv})
    for (auto& h : *v) h = static_cast<uint16_t>((h & 0x83FF) | (((h >> 10) & 0xF) + 8) << 10);
  std::vector<uint16_t> b3;
  for (size_t i = 0; i < n; ++i) { for (int k = 0; k < 3; ++k) b3.push_back(bv[i * 4 + k]); b3.push_back(0); }
  Job r;
  r.groups = {static_cast<uint32_t>(n / 32), 1, 1};
  r.buffers = {pack16(av), pack16(b3), std::vector<uint32_t>(n * 4), std::vector<uint32_t>(n * 2), std::vector<uint32_t>(n)};
  ASSERT_OK(execute(s, r));
  for (size_t i = 0; i < n; ++i) {
    const uint16_t* x = &av[i * 4];
    const uint16_t* y = &b3[i * 4];
    EXPECT_EQ(r.buffers[2][i * 4 + 0], x[0] | uint32_t{x[1]} << 16);
    EXPECT_EQ(r.buffers[2][i * 4 + 1], x[3] | uint32_t{y[2]} << 16);
    uint32_t word = static_cast<uint32_t>(i * 0x9E3779B9u);
    for (int k = 0; k < 2; ++k) {
      uint16_t h = static_cast<uint16_t>(word >> (16 * k)), got = static_cast<uint16_t>(r.buffers[2][i * 4 + 2] >> (16 * k));
      if (half_nan(h)) EXPECT_TRUE(half_nan(got));
      else EXPECT_EQ(got, h) << std::hex << word;
    }
    EXPECT_EQ(r.buffers[2][i * 4 + 3], x[2] | uint32_t{x[3]} << 16);
    for (int k = 0; k < 4; ++k) {
      double yk = k < 3 ? ref_double(y[k]) : 1.0;
      // SPIRV-Tools may contract the product and sum into one fma.
      uint16_t separate = ref_half(ref_double(ref_half(ref_double(x[k]) * ref_double(x[3 - k]))) + yk);
      uint16_t fused = ref_half(ref_double(x[k]) * ref_double(x[3 - k]) + yk);
      uint16_t got = at16(r.buffers[3], i * 4 + k);
      EXPECT_TRUE(got == separate || half_ulps(got, fused) <= 1) << i << " " << k << ": " << got;
    }
    double dot = ref_double(x[0]) * ref_double(x[2]) + ref_double(x[1]) * ref_double(x[3]);
    double len = std::hypot(ref_double(y[0]), ref_double(y[1]));
    EXPECT_LE(half_ulps(at16(r.buffers[4], i * 2), ref_half(dot)), 1) << dot;
    EXPECT_LE(half_ulps(at16(r.buffers[4], i * 2 + 1), ref_half(len)), 1) << len;
  }
}

TEST(HalfTypes, LoopCarriedHalfAndPhis) {
  Shader s = must_compile(R"(#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer A { float16_t a[]; };
layout(set = 0, binding = 1) buffer O { float16_t o[]; };
layout(set = 0, binding = 2) buffer Q { int16_t q[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  float16_t acc = float16_t(i);
  int16_t n = int16_t(0);
  for (uint k = 0u; k < 40u; ++k) {
    acc = acc * 0.5hf + a[(k + i) % 40u];
    if (acc > 100.0hf) n += int16_t(1000); else n -= int16_t(7);
  }
  o[i] = acc;
  q[i] = n;
}
)");
  ASSERT_FALSE(s.code.empty());
  std::vector<uint16_t> a;
  std::mt19937 rng(12);
  for (int k = 0; k < 40; ++k) a.push_back(ref_half(static_cast<double>(rng() % 20000) / 64.0 - 100.0));
  Job r;
  r.buffers = {pack16(a), std::vector<uint32_t>(16), std::vector<uint32_t>(16)};
  ASSERT_OK(execute(s, r));
  for (uint32_t i = 0; i < 32; ++i) {
    // acc * 0.5 is exact here (no denormals), so a contracted fma rounds the same.
    double acc = i;
    int n = 0;
    for (uint32_t k = 0; k < 40; ++k) {
      acc = ref_double(ref_half(acc * 0.5 + ref_double(a[(k + i) % 40])));
      n += acc > 100.0 ? 1000 : -7;
    }
    EXPECT_EQ(at16(r.buffers[1], i), ref_half(acc)) << i;
    EXPECT_EQ(static_cast<int16_t>(at16(r.buffers[2], i)), static_cast<int16_t>(n)) << i;
  }
}

TEST(HalfTypes, UnsupportedFormsAreErrors) {
  // Subgroup operations, matrices and whole-struct moves on halves work
  // now (small_types_memory_test.cpp). determinant / inverse of an f16mat:
  // glslang emits them, SPIR-V validation refuses the 16-bit result (and
  // the translator would too: translate_matrix.cpp).
  auto s = compile(R"(#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer A { f16mat2 m[64]; float16_t d[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  d[i] = determinant(m[i]);
}
)");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("Invalid use of 8- or 16-bit result"), std::string::npos)
      << s.error().message();
}

}  // namespace
}  // namespace agx::compiler::test
