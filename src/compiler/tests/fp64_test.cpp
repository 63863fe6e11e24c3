// Doubles (GL_ARB_gpu_shader_fp64) in software: GLSL kernels run on the
// usc emulator over special values (+-0, +-inf, NaN, denormals, the
// largest and smallest normals, rounding halfway cases) and random bit
// patterns, compared bit for bit with the host's IEEE double arithmetic.
// NaN results: the first NaN operand quieted, else x86's default NaN
// (fp64_lowering.h); fma's NaN payloads are compared as NaN-ness only.
#include <bit>
#include <cmath>
#include <limits>
#include <random>

#include <fmt/format.h>

#include "compiler/tests/buffer_words.h"
#include "compiler/tests/run_helpers.h"
#include "compiler/tests/mutation_rounds.h"

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

uint64_t bits(double d) { return std::bit_cast<uint64_t>(d); }
double dbl(uint64_t b) { return std::bit_cast<double>(b); }
bool is_nan(uint64_t b) { return std::isnan(dbl(b)); }

constexpr uint64_t kDefaultNan = 0xFFF8000000000000ull;
uint64_t quiet(uint64_t b) { return b | 0x0008000000000000ull; }

// Special and edge values, then random ones: any bit pattern, moderate
// exponents, denormals, and neighbours of the previous value (cancellation).
std::vector<uint64_t> values(size_t n, uint32_t seed) {
  std::vector<uint64_t> v = {
      bits(0.0), bits(-0.0), bits(1.0), bits(-1.0), bits(INFINITY), bits(-INFINITY), 0x7FF8000000000000ull,
      0xFFF8000000000123ull, 0x7FF0000000000001ull /* signalling */, 1ull /* smallest denormal */,
      0x000FFFFFFFFFFFFFull /* largest denormal */, 0x0010000000000000ull /* smallest normal */,
      0x7FEFFFFFFFFFFFFFull /* largest finite */, bits(0.5), bits(1.5), bits(2.5), bits(-2.5), bits(3.0),
      bits(1.0 + 0x1p-52), bits(0x1p-53), bits(0x1p-1074 * 3), bits(1e308), bits(-1e-308), bits(0x1p52 + 0.5),
      bits(4503599627370497.0), bits(123456789.75), bits(-0.49999999999999994), bits(0x1p63), bits(-0x1p31)};
  std::mt19937_64 rng(seed);
  while (v.size() < n) {
    uint64_t r = rng();
    switch (rng() % 5) {
      case 0: v.push_back(r); break;
      case 1: v.push_back((r & 0x800FFFFFFFFFFFFFull) | uint64_t(1023 - 40 + rng() % 80) << 52); break;
      case 2: v.push_back(r & 0x800FFFFFFFFFFFFFull); break;  // denormal
      case 3: v.push_back(v.back() ^ (rng() & 0xFF)); break;  // a neighbour
      default: v.push_back((r & 0x800FFFFFFFFFFFFFull) | uint64_t(rng() % 2047) << 52); break;
    }
  }
  return v;
}

// The expected result of a binary operation: NaN operands propagate (the
// first one, quieted), an invalid operation gives the default NaN.
uint64_t expect2(uint64_t a, uint64_t b, double r) {
  if (is_nan(a)) return quiet(a);
  if (is_nan(b)) return quiet(b);
  return std::isnan(r) ? kDefaultNan : bits(r);
}

constexpr size_t kN = 512;
constexpr size_t kSpecials = 29;  // values() starts with them

std::string hex(uint64_t v) { return fmt::format("{:016x}", v); }

void arithmetic_round(const Shader& s, uint32_t seed) {
  // Every pair of the special values, then random operands.
  constexpr size_t kN = 1536;
  auto a = values(kN, 1 + 3 * seed), b = values(kN, 2 + 3 * seed), c = values(kN, 3 + 3 * seed);
  const std::vector<uint64_t> special(a.begin(), a.begin() + kSpecials);
  for (size_t i = 0; i < kSpecials * kSpecials; ++i) {
    a[i] = special[i % kSpecials];
    b[i] = special[i / kSpecials];
    c[i] = special[(i * 7 + i / kSpecials) % kSpecials];
  }
  // Rounding halfway cases: 1 + 2^-53 (to even: 1), (1 + 2^-52) + 2^-53 (up).
  a[900] = bits(1.0); b[900] = bits(0x1p-53);
  a[901] = bits(1.0 + 0x1p-52); b[901] = bits(0x1p-53);
  a[902] = bits(0x1p-1022); b[902] = bits(-0x1p-1074);  // normal - denormal
  a[903] = bits(1.0 + 0x1p-52); b[903] = bits(1.0 + 0x1p-52); c[903] = bits(-1.0);  // fma keeps the low bits
  a[904] = bits(0x1p-600); b[904] = bits(0x1p-500); // product underflows to a denormal
  a[905] = bits(3.0); b[905] = bits(1.0 / 3.0); c[905] = bits(-1.0);
  std::mt19937 rng(7 + seed);
  std::shuffle(b.begin() + kSpecials * kSpecials, b.end(), rng);
  // fma with c = -(a * b) rounded: the result is the product's rounding
  // error (massive cancellation); c = a * b: doubling.
  for (size_t i = kSpecials * kSpecials + 8; i < kN; i += 3)
    c[i] = bits((i % 2 ? -1.0 : 1.0) * (dbl(a[i]) * dbl(b[i])));
  Job r;
  r.buffers = {words(a), words(b), words(c), std::vector<uint32_t>(kN * 12), std::vector<uint32_t>(kN)};
  r.groups = {kN / 64, 1, 1};
  ASSERT_OK(execute(s, r));
  const auto& o = r.buffers[3];
  int failures = 0;
  for (size_t i = 0; i < kN && failures < 20; ++i) {
    double x = dbl(a[i]), y = dbl(b[i]), z = dbl(c[i]);
    auto check = [&](const char* what, uint64_t got, uint64_t want) {
      if (got == want) return;
      ++failures;
      ADD_FAILURE() << what << " " << i << ": " << hex(a[i]) << " " << hex(b[i]) << " " << hex(c[i]) << " got "
                    << hex(got) << " want " << hex(want);
    };
    check("add", at(o, i * 6 + 0), expect2(a[i], b[i], x + y));
    check("sub", at(o, i * 6 + 1), expect2(a[i], b[i], x - y));
    check("mul", at(o, i * 6 + 2), expect2(a[i], b[i], x * y));
    check("div", at(o, i * 6 + 3), expect2(a[i], b[i], x / y));
    double f = std::fma(x, y, z);
    uint64_t got_fma = at(o, i * 6 + 4);
    if (std::isnan(f)) check("fma (NaN)", is_nan(got_fma), 1);
    else check("fma", got_fma, bits(f));
    check("sqrt", at(o, i * 6 + 5), is_nan(a[i]) ? quiet(a[i]) : std::isnan(std::sqrt(x)) ? kDefaultNan : bits(std::sqrt(x)));
    uint32_t flags = uint32_t(x < y) | uint32_t(x <= y) << 1 | uint32_t(x == y) << 2 | uint32_t(x != y) << 3 |
                     uint32_t(x > y) << 4 | uint32_t(x >= y) << 5 | uint32_t(std::isnan(x)) << 6 | uint32_t(std::isinf(x)) << 7;
    check("compare", r.buffers[4][i], flags);
  }
}

TEST(Fp64, ArithmeticBitExact) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer A { double a[]; };
layout(set = 0, binding = 1) buffer B { double b[]; };
layout(set = 0, binding = 2) buffer C { double c[]; };
layout(set = 0, binding = 3) buffer O { double o[]; };
layout(set = 0, binding = 4) buffer F { uint f[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  double x = a[i], y = b[i], z = c[i];
  o[i * 6 + 0] = x + y;
  o[i * 6 + 1] = x - y;
  o[i * 6 + 2] = x * y;
  o[i * 6 + 3] = x / y;
  o[i * 6 + 4] = fma(x, y, z);
  o[i * 6 + 5] = sqrt(x);
  f[i] = uint(x < y) | uint(x <= y) << 1 | uint(x == y) << 2 | uint(x != y) << 3 | uint(x > y) << 4 |
         uint(x >= y) << 5 | uint(isnan(x)) << 6 | uint(isinf(x)) << 7;
})");
  ASSERT_FALSE(s.code.empty());
  // AGX_FP64_ROUNDS runs more random operand sets (AGX_FP64_SEED varies
  // them) for a longer local check.
  const char* rounds_env = std::getenv("AGX_FP64_ROUNDS");
  const char* seed_env = std::getenv("AGX_FP64_SEED");
  int rounds = rounds_env ? std::atoi(rounds_env) : 1;
  uint32_t seed0 = seed_env ? static_cast<uint32_t>(std::atoi(seed_env)) : 0;
  for (int round = 0; round < rounds; ++round) {
    SCOPED_TRACE(fmt::format("round {} seed {}", round, seed0 + round));
    arithmetic_round(s, seed0 + static_cast<uint32_t>(round));
  }
}

TEST(Fp64, RoundingMinMaxAndConversions) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer A { double a[]; };
layout(set = 0, binding = 1) buffer B { double b[]; };
layout(set = 0, binding = 2) buffer I { uint iw[]; };
layout(set = 0, binding = 3) buffer O { double o[]; };
layout(set = 0, binding = 4) buffer F { uint f[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  double x = a[i], y = b[i];
  uint w = iw[i];
  o[i * 12 + 0] = floor(x);
  o[i * 12 + 1] = ceil(x);
  o[i * 12 + 2] = trunc(x);
  o[i * 12 + 3] = round(x);
  o[i * 12 + 4] = roundEven(x);
  o[i * 12 + 5] = min(x, y);
  o[i * 12 + 6] = max(x, y);
  o[i * 12 + 7] = double(uintBitsToFloat(w));
  o[i * 12 + 8] = double(int(w));
  o[i * 12 + 9] = double(w);
  o[i * 12 + 10] = ldexp(x, int(w % 4200u) - 2100);
  o[i * 12 + 11] = packDouble2x32(unpackDouble2x32(x).yx);
  f[i * 4 + 0] = floatBitsToUint(float(x));
  f[i * 4 + 1] = uint(int(y));
  f[i * 4 + 2] = uint(y);
  f[i * 4 + 3] = uint(abs(x) == -x) | uint(sign(x) == 1.0lf) << 1 | uint(sign(x) == -1.0lf) << 2;
})");
  ASSERT_FALSE(s.code.empty());
  auto a = values(kN, 11), b = values(kN, 12);
  std::vector<uint32_t> iw(kN);
  std::mt19937 rng(5);
  for (size_t i = 0; i < kN; ++i) iw[i] = i < 40 ? std::bit_cast<uint32_t>(std::vector<float>{0.0f, -0.0f, 1e-45f, -1e-40f, 1.17549435e-38f, INFINITY, -INFINITY, NAN, 3.4028235e38f, 1.5f}[i % 10]) ^ static_cast<uint32_t>(i / 10 == 3 ? 0x80000000u : 0) : rng();
  // Integer-valued b (in range) for the double -> int conversions.
  for (size_t i = 0; i < kN; ++i) {
    double v = dbl(b[i]);
    if (!(std::fabs(v) < 2147483648.0)) b[i] = bits(std::ldexp(static_cast<double>(static_cast<int32_t>(rng())), -static_cast<int>(rng() % 40)));
  }
  a[30] = bits(2.5); a[31] = bits(-3.5); a[32] = bits(0.5); a[33] = bits(-0.5); a[34] = bits(4503599627370495.5);
  a[35] = bits(0.49999999999999994); a[36] = bits(-1.5); a[37] = bits(0x1p-1074);
  Job r;
  r.buffers = {words(a), words(b), iw, std::vector<uint32_t>(kN * 24), std::vector<uint32_t>(kN * 4)};
  r.groups = {kN / 64, 1, 1};
  ASSERT_OK(execute(s, r));
  const auto& o = r.buffers[3];
  const auto& f = r.buffers[4];
  int failures = 0;
  for (size_t i = 0; i < kN && failures < 20; ++i) {
    double x = dbl(a[i]), y = dbl(b[i]);
    auto check = [&](const char* what, uint64_t got, uint64_t want) {
      if (got == want) return;
      ++failures;
      ADD_FAILURE() << what << " " << i << ": " << hex(a[i]) << " " << hex(b[i]) << " " << iw[i] << " got " << hex(got)
                    << " want " << hex(want);
    };
    auto same = [&](const char* what, uint64_t got, double want) {
      if (std::isnan(want)) check(what, is_nan(got), 1);
      else check(what, got, bits(want));
    };
    same("floor", at(o, i * 12 + 0), std::floor(x));
    same("ceil", at(o, i * 12 + 1), std::ceil(x));
    same("trunc", at(o, i * 12 + 2), std::trunc(x));
    same("round", at(o, i * 12 + 3), std::round(x));
    same("roundEven", at(o, i * 12 + 4), std::nearbyint(x));
    // GLSL: min(x, y) = y < x ? y : x; a NaN loses to a number.
    check("min", at(o, i * 12 + 5), std::isnan(x) ? b[i] : (y < x ? b[i] : a[i]));
    check("max", at(o, i * 12 + 6), std::isnan(x) ? b[i] : (x < y ? b[i] : a[i]));
    float fw = std::bit_cast<float>(iw[i]);
    check("double(float)", at(o, i * 12 + 7), bits(static_cast<double>(fw)));
    check("double(int)", at(o, i * 12 + 8), bits(static_cast<double>(static_cast<int32_t>(iw[i]))));
    check("double(uint)", at(o, i * 12 + 9), bits(static_cast<double>(iw[i])));
    int e = static_cast<int>(iw[i] % 4200u) - 2100;
    same("ldexp", at(o, i * 12 + 10), std::ldexp(x, e));
    check("pack/unpack", at(o, i * 12 + 11), a[i] << 32 | a[i] >> 32);
    check("float(double)", f[i * 4 + 0], std::bit_cast<uint32_t>(static_cast<float>(x)));
    check("int(double)", f[i * 4 + 1], static_cast<uint32_t>(static_cast<int32_t>(y)));
    check("uint(double)", f[i * 4 + 2], y >= 0 ? static_cast<uint32_t>(y) : static_cast<uint32_t>(static_cast<int32_t>(y)));
    uint32_t flags = uint32_t(std::fabs(x) == -x) | uint32_t(x > 0) << 1 | uint32_t(x < 0) << 2;
    check("abs/sign", f[i * 4 + 3], flags);
  }
}

}  // namespace
}  // namespace agx::compiler::test

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

// GLSL's min/max on doubles (a NaN loses to a number).
double gmin(double x, double y) { return std::isnan(x) ? y : (y < x ? y : x); }
double gmax(double x, double y) { return std::isnan(x) ? y : (x < y ? y : x); }

// Moderate values (exponents within 2^+-40), a few specials.
std::vector<double> moderate(size_t n, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> v;
  const double special[] = {0.0, -0.0, 1.0, -2.5, INFINITY, NAN, 0x1p-1074, 3.0, 0.5, -0.75};
  for (size_t i = 0; i < n; ++i) {
    if (i % 37 == 5) { v.push_back(special[(i / 37) % 10]); continue; }
    uint64_t r = rng();
    v.push_back(dbl((r & 0x800FFFFFFFFFFFFFull) | uint64_t(1023 - 40 + rng() % 80) << 52));
  }
  return v;
}

std::vector<uint32_t> dwords(const std::vector<double>& v) {
  std::vector<uint64_t> b;
  for (double d : v) b.push_back(bits(d));
  return words(b);
}

// Truncation as fp64_lowering.h documents it: modulo 2^64 below 2^64,
// 0 from there (and for inf, NaN).
uint64_t to_int(double x) {
  if (!(std::fabs(x) < 0x1p64)) return 0;
  uint64_t m = static_cast<uint64_t>(std::fabs(x));
  return x < 0 ? ~m + 1 : m;
}

TEST(Fp64, VectorMatrixAndLibraryFunctions) {
  Shader s = must_compile(R"(#version 450
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) buffer V { dvec4 v[]; };
layout(std430, set = 0, binding = 1) buffer M { dmat3 cm; layout(row_major) dmat3 rm; dmat2x3 m23; };
layout(std430, set = 0, binding = 2) buffer O { double o[]; };
layout(std430, set = 0, binding = 3) buffer Q { int64_t q[]; };
layout(std430, set = 0, binding = 4) buffer W { layout(row_major) dmat3 wrm; dmat2x3 wm23; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  dvec4 a = v[2 * i], b = v[2 * i + 1];
  uint k = i * 40;
  o[k + 0] = dot(a, b);
  o[k + 1] = length(a.xyz);
  o[k + 2] = distance(a, b);
  dvec3 c = cross(a.xyz, b.xyz);
  o[k + 3] = c.x; o[k + 4] = c.y; o[k + 5] = c.z;
  dvec4 n = normalize(a);
  o[k + 6] = n.x; o[k + 7] = n.w;
  o[k + 8] = mix(a.x, b.x, a.w);
  o[k + 9] = step(a.y, b.y);
  o[k + 10] = smoothstep(a.z, b.z, a.w);
  o[k + 11] = clamp(a.x, b.x, b.y);
  o[k + 12] = inversesqrt(a.y);
  o[k + 13] = mod(a.x, b.x);
  o[k + 14] = fract(a.z);
  double whole;
  o[k + 15] = modf(a.w, whole);
  o[k + 16] = whole;
  int e;
  o[k + 17] = frexp(a.x, e);
  o[k + 18] = double(e);
  dvec3 p = cm * a.xyz, r = rm * a.xyz, t = a.xyz * cm;
  o[k + 19] = p.x; o[k + 20] = p.y; o[k + 21] = p.z;
  o[k + 22] = r.x; o[k + 23] = r.y; o[k + 24] = r.z;
  o[k + 25] = t.x; o[k + 26] = t.z;
  dvec3 u = m23 * a.xy;
  o[k + 27] = u.x; o[k + 28] = u.z;
  o[k + 29] = cm[1][2] + rm[2][0];
  o[k + 30] = double(q[3 * i]);
  o[k + 31] = double(uint64_t(q[3 * i + 1]));
  q[3 * i + 2] = int64_t(b.z);
  o[k + 32] = abs(b.w) * sign(a.z);
  o[k + 33] = min(a.y, b.y) - max(a.z, b.z);
  if (i == 5) { wrm[1][1] = a.x; wrm[2] = b.xyz; }
  if (i == 0) wm23 = transpose(dmat3x2(a.xyz, b.xyz));
})");
  ASSERT_FALSE(s.code.empty());
  constexpr size_t kInv = 128;
  auto in = moderate(kInv * 8, 21);
  // The matrices: column-major (dvec3 columns 32 bytes apart), row-major
  // (rows 32 bytes apart), dmat2x3 (2 columns).
  double cm[3][3], rm[3][3], m23[2][3];
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-4, 4);
  for (auto& col : cm) for (double& x : col) x = u(rng);
  for (auto& col : rm) for (double& x : col) x = u(rng);   // rm[c][r]: column c, row r
  for (auto& col : m23) for (double& x : col) x = u(rng);
  std::vector<double> mb(12 + 12 + 8, 0.0);
  for (int c = 0; c < 3; ++c) for (int r = 0; r < 3; ++r) mb[c * 4 + r] = cm[c][r];
  for (int c = 0; c < 3; ++c) for (int r = 0; r < 3; ++r) mb[12 + r * 4 + c] = rm[c][r];
  for (int c = 0; c < 2; ++c) for (int r = 0; r < 3; ++r) mb[24 + c * 4 + r] = m23[c][r];
  std::vector<uint64_t> q(kInv * 3);
  std::mt19937_64 r64(9);
  for (size_t i = 0; i < kInv; ++i) { q[3 * i] = r64() >> (r64() % 64); q[3 * i + 1] = r64(); }
  q[0] = 0; q[1] = ~0ull; q[3] = 0x8000000000000000ull; q[4] = 0x20000000000001ull;
  Job run;
  run.buffers = {dwords(in), dwords(mb), std::vector<uint32_t>(kInv * 80), words(q), std::vector<uint32_t>(20 * 2)};
  run.groups = {kInv / 32, 1, 1};
  ASSERT_OK(execute(s, run));
  const auto& o = run.buffers[2];
  int failures = 0;
  for (size_t i = 0; i < kInv && failures < 20; ++i) {
    const double* a = &in[8 * i];
    const double* b = &in[8 * i + 4];
    size_t k = i * 40;
    auto same = [&](int j, double want) {
      uint64_t got = at(o, k + j);
      if (std::isnan(want) ? is_nan(got) : got == bits(want)) return;
      ++failures;
      ADD_FAILURE() << "output " << j << " of invocation " << i << ": got " << hex(got) << " want " << hex(bits(want));
    };
    double d = a[0] * b[0];
    for (int j = 1; j < 4; ++j) d = d + a[j] * b[j];
    same(0, d);
    double l3 = a[0] * a[0];
    for (int j = 1; j < 3; ++j) l3 = l3 + a[j] * a[j];
    same(1, std::sqrt(l3));
    double dd = (a[0] - b[0]) * (a[0] - b[0]);
    for (int j = 1; j < 4; ++j) dd = dd + (a[j] - b[j]) * (a[j] - b[j]);
    same(2, std::sqrt(dd));
    same(3, a[1] * b[2] - a[2] * b[1]);
    same(4, a[2] * b[0] - a[0] * b[2]);
    same(5, a[0] * b[1] - a[1] * b[0]);
    double l4 = a[0] * a[0];
    for (int j = 1; j < 4; ++j) l4 = l4 + a[j] * a[j];
    double inv = 1.0 / std::sqrt(l4);
    same(6, a[0] * inv);
    same(7, a[3] * inv);
    same(8, a[0] * (1.0 - a[3]) + b[0] * a[3]);
    same(9, b[1] < a[1] ? 0.0 : 1.0);
    double t = gmin(gmax((a[3] - a[2]) / (b[2] - a[2]), 0.0), 1.0);
    same(10, t * t * (3.0 - (t + t)));
    same(11, gmin(gmax(a[0], b[0]), b[1]));
    same(12, 1.0 / std::sqrt(a[1]));
    same(13, a[0] - b[0] * std::floor(a[0] / b[0]));
    same(14, a[2] - std::floor(a[2]));
    double whole;
    double frac = std::modf(a[3], &whole);
    same(15, frac);
    same(16, whole);
    int e = 0;
    double sig = std::frexp(a[0], &e);
    same(17, std::isfinite(a[0]) ? sig : a[0]);
    same(18, std::isfinite(a[0]) ? e : 0);
    for (int r = 0; r < 3; ++r) {
      double pc = cm[0][r] * a[0], pr = rm[0][r] * a[0];
      for (int c = 1; c < 3; ++c) { pc = pc + cm[c][r] * a[c]; pr = pr + rm[c][r] * a[c]; }
      same(19 + r, pc);
      same(22 + r, pr);
    }
    for (int c = 0; c < 3; c += 2) {
      double tc = a[0] * cm[c][0];
      for (int r = 1; r < 3; ++r) tc = tc + a[r] * cm[c][r];
      same(25 + c / 2, tc);
    }
    for (int r = 0; r < 3; r += 2) same(27 + r / 2, m23[0][r] * a[0] + m23[1][r] * a[1]);
    same(29, cm[1][2] + rm[2][0]);
    same(30, static_cast<double>(static_cast<int64_t>(q[3 * i])));
    same(31, static_cast<double>(q[3 * i + 1]));
    EXPECT_EQ(at(run.buffers[3], 3 * i + 2), to_int(b[2])) << i << " " << b[2];
    double sg = std::isnan(a[2]) || a[2] == 0 ? a[2] : std::copysign(1.0, a[2]);
    same(32, std::fabs(b[3]) * sg);
    same(33, gmin(a[1], b[1]) - gmax(a[2], b[2]));
  }
  // Stores into a row-major dmat3 (an element, a column: rows 32 bytes
  // apart) and a column-major dmat2x3 (dvec3 columns 32 bytes apart).
  std::vector<double> mo(20);
  std::memcpy(mo.data(), run.buffers[4].data(), mo.size() * 8);
  EXPECT_EQ(bits(mo[1 * 4 + 1]), bits(in[8 * 5]));
  for (int r = 0; r < 3; ++r) EXPECT_EQ(bits(mo[r * 4 + 2]), bits(in[8 * 5 + 4 + r])) << r;
  // transpose(dmat3x2(a.xyz, b.xyz)): the 3x2's columns are (a.x, a.y),
  // (a.z, b.x), (b.y, b.z); element (c, r) of the transpose is flat[2r + c].
  const double flat[6] = {in[0], in[1], in[2], in[4], in[5], in[6]};
  for (int c = 0; c < 2; ++c)
    for (int r = 0; r < 3; ++r) EXPECT_EQ(bits(mo[12 + c * 4 + r]), bits(flat[2 * r + c])) << c << r;
}

TEST(Fp64, LooseUniformsSharedMemoryAndPhis) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 64) in;
layout(location = 0) uniform double ud;
layout(location = 1) uniform dvec3 uv;
layout(location = 2) uniform dmat2x3 um;
layout(location = 3) uniform int count;
layout(std430, binding = 0) buffer A { double a[]; };
layout(std430, binding = 1) buffer O { double o[]; };
shared double sh[64];
shared dvec3 sv[64];
shared dmat3 sm[2];
void main() {
  uint i = gl_LocalInvocationIndex;
  sh[i] = a[i] * ud;
  sv[i] = dvec3(a[i], ud, -a[i]);
  if (i < 2u) sm[i] = dmat3(a[i]);
  barrier();
  o[320 + i] = sv[(i + 1u) % 64u].z + sm[i % 2u][1][1];
  double acc = 0.0lf;
  for (int k = 0; k < count; ++k) acc = acc + sh[(i + uint(k)) % 64u];
  dvec3 m = um * dvec2(a[i], ud) + uv;
  o[i * 4 + 0] = acc;
  o[i * 4 + 1] = m.x;
  o[i * 4 + 2] = m.z;
  o[i * 4 + 3] = sh[63u - i];
  // Division and square root loops in divergent branches. (A division by
  // a constant would become a multiply by its rounded reciprocal in
  // SPIRV-Tools' optimizer: divide by a uniform.)
  double q;
  if (a[i] > 0.0lf) q = sqrt(a[i]) / ud;
  else q = -a[i] / uv.y;
  o[256 + i] = q;
})", TargetEnv::opengl);
  ASSERT_FALSE(s.code.empty());
  auto a = moderate(64, 31);
  double ud = 1.0 / 3.0, uv[3] = {0.25, -8.5, 1e-3}, um[2][3] = {{1.5, -2.0, 0.1}, {3.0, 7.0, -0.3}};
  int count = 13;
  // Loose uniforms at the ABI's words: a double and dvecN 8-byte aligned,
  // the dmat2x3's columns packed.
  std::vector<uint32_t> push(64, 0);
  for (const LooseUniform& lu : s.abi.loose_uniforms) {
    uint32_t at_w = lu.uniform - s.abi.push_constants_uniform;
    ASSERT_LT(at_w + lu.size_B / 4, push.size() + 1) << lu.name;
    const void* src = lu.name == "ud" ? static_cast<const void*>(&ud) : lu.name == "uv" ? static_cast<const void*>(uv)
                    : lu.name == "um" ? static_cast<const void*>(um) : static_cast<const void*>(&count);
    if (lu.name != "count") {
      EXPECT_EQ(lu.uniform % 2, 0u) << lu.name;
    }
    std::memcpy(push.data() + at_w, src, lu.name == "count" ? 4 : lu.size_B);
  }
  Job run;
  run.buffers = {dwords(a), std::vector<uint32_t>(64 * 12)};
  run.push = push;
  ASSERT_OK(execute(s, run));
  const auto& o = run.buffers[1];
  for (size_t i = 0; i < 64; ++i) {
    double acc = 0.0;
    for (int k = 0; k < count; ++k) acc = acc + a[(i + k) % 64] * ud;
    auto same = [&](int j, double want) {
      uint64_t got = at(o, i * 4 + j);
      EXPECT_TRUE(std::isnan(want) ? is_nan(got) : got == bits(want)) << i << " " << j << " got " << hex(got) << " want " << hex(bits(want));
    };
    same(0, acc);
    same(1, um[0][0] * a[i] + um[1][0] * ud + uv[0]);
    same(2, um[0][2] * a[i] + um[1][2] * ud + uv[2]);
    same(3, a[63 - i] * ud);
    double q = a[i] > 0 ? std::sqrt(a[i]) / ud : -a[i] / uv[1];
    uint64_t got = at(o, 256 + i);
    EXPECT_TRUE(std::isnan(q) ? is_nan(got) : got == bits(q)) << i << " got " << hex(got) << " want " << hex(bits(q));
    double sv = -a[(i + 1) % 64] + a[i % 2];  // dvec3 array and dmat3 diagonal in shared memory
    got = at(o, 320 + i);
    EXPECT_TRUE(std::isnan(sv) ? is_nan(got) : got == bits(sv)) << i << " got " << hex(got) << " want " << hex(bits(sv));
  }
}

}  // namespace
}  // namespace agx::compiler::test

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

// Double SPIR-V (arithmetic, conversions, comparisons, dmat, library
// functions) mutated as robustness_test.cpp does: a Shader or an Error.
TEST(Fp64, MutatedSpirvGivesShadersOrErrors) {
  Options o;
  o.file_name = "fp64.comp";
  auto words = glsl_to_spirv(R"(#version 450
layout(local_size_x = 8) in;
layout(std430, set = 0, binding = 0) buffer B { dvec2 v[]; };
layout(std430, set = 0, binding = 1) buffer M { dmat2 m; layout(row_major) dmat2 r; float f[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  dvec2 a = v[i];
  dvec2 b = m * a + r[1] / a.y;
  if (sqrt(b.x) < a.y) b = floor(b) - fma(a, b, dvec2(1.0lf));
  v[i] = b + dvec2(float(b.x), ldexp(a.x, int(i)));
  f[i] = float(min(b.x, b.y) * double(int(a.y)));
})", o);
  ASSERT_TRUE(words.ok()) << words.error().message();
  auto opt = optimize_spirv(*words, o);
  ASSERT_TRUE(opt.ok());
  ASSERT_TRUE(compile_spirv(*opt, o).ok());
  std::mt19937 rng(1234);
  EXPECT_GT(mutation_rounds(*opt, o, 60, rng).errors, 0u);
}

}  // namespace
}  // namespace agx::compiler::test

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

// Cofactor expansion along the first row, in the compiler's order.
double host_minor(const std::vector<double>& m, unsigned n, std::vector<unsigned> rs, std::vector<unsigned> cs) {
  auto at = [&](unsigned r, unsigned c) { return m[c * n + r]; };
  if (rs.size() == 1) return at(rs[0], cs[0]);
  if (rs.size() == 2) return at(rs[0], cs[0]) * at(rs[1], cs[1]) - at(rs[1], cs[0]) * at(rs[0], cs[1]);
  std::vector<unsigned> sub_rows(rs.begin() + 1, rs.end());
  double acc = 0;
  for (size_t k = 0; k < cs.size(); ++k) {
    std::vector<unsigned> sub_cols;
    for (size_t j = 0; j < cs.size(); ++j)
      if (j != k) sub_cols.push_back(cs[j]);
    double term = at(rs[0], cs[k]) * host_minor(m, n, sub_rows, sub_cols);
    acc = k == 0 ? term : k % 2 ? acc - term : acc + term;
  }
  return acc;
}

TEST(Fp64, DeterminantAndInverse) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 1) in;
layout(std430, set = 0, binding = 0) buffer M { dmat2 a2; dmat3 a3; dmat4 a4; };
layout(std430, set = 0, binding = 1) buffer O { double det[4]; dmat3 i3; dmat2 i2; };
void main() {
  det[0] = determinant(a2);
  det[1] = determinant(a3);
  det[2] = determinant(a4);
  i3 = inverse(a3);
  i2 = inverse(a2);
})");
  ASSERT_FALSE(s.code.empty());
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> u(-3, 3);
  std::vector<double> a2(4), a3(9), a4(16);
  for (double& x : a2) x = u(rng);
  for (double& x : a3) x = u(rng);
  for (double& x : a4) x = u(rng);
  // std430: dmat2 columns 16 bytes, dmat3 columns 32 (dvec3), dmat4 32.
  std::vector<double> in(4 + 12 + 16, 0.0);
  for (int i = 0; i < 4; ++i) in[i] = a2[i];
  for (int c = 0; c < 3; ++c) for (int r = 0; r < 3; ++r) in[4 + c * 4 + r] = a3[c * 3 + r];
  for (int i = 0; i < 16; ++i) in[16 + i] = a4[i];
  Job run;
  run.buffers = {dwords(in), std::vector<uint32_t>((4 + 12 + 4) * 2)};
  ASSERT_OK(execute(s, run));
  const auto& o = run.buffers[1];
  auto all = [](unsigned n) { std::vector<unsigned> v(n); for (unsigned i = 0; i < n; ++i) v[i] = i; return v; };
  EXPECT_EQ(at(o, 0), bits(host_minor(a2, 2, all(2), all(2))));
  double d3 = host_minor(a3, 3, all(3), all(3)), d4 = host_minor(a4, 4, all(4), all(4));
  EXPECT_EQ(at(o, 1), bits(d3));
  EXPECT_EQ(at(o, 2), bits(d4));
  auto inverse = [&](const std::vector<double>& m, unsigned n, double det, unsigned c, unsigned r) {
    std::vector<unsigned> rs, cs;
    for (unsigned i = 0; i < n; ++i) {
      if (i != c) rs.push_back(i);
      if (i != r) cs.push_back(i);
    }
    double cof = host_minor(m, n, rs, cs);
    if ((r + c) % 2) cof = -cof;
    return cof * (1.0 / det);
  };
  for (unsigned c = 0; c < 3; ++c)
    for (unsigned r = 0; r < 3; ++r) EXPECT_EQ(at(o, 4 + c * 4 + r), bits(inverse(a3, 3, d3, c, r))) << c << r;
  double d2 = host_minor(a2, 2, all(2), all(2));
  for (unsigned c = 0; c < 2; ++c)
    for (unsigned r = 0; r < 2; ++r) EXPECT_EQ(at(o, 16 + c * 2 + r), bits(inverse(a2, 2, d2, c, r))) << c << r;
}

}  // namespace
}  // namespace agx::compiler::test

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

// std140 uniform buffer: a double array has a 16-byte stride, a dvec3
// 32-byte alignment, a dmat2's columns 16 bytes apart (row-major: rows).
TEST(Fp64, Std140UniformBuffer) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 3) in;
layout(std140, set = 0, binding = 0) uniform U { double d[3]; dvec3 v; dmat2 m; layout(row_major) dmat2 r; };
layout(std430, set = 0, binding = 1) buffer O { double o[]; };
void main() {
  uint i = gl_LocalInvocationIndex;
  dvec2 c = m[i % 2u] + r[i % 2u];
  o[i * 3 + 0] = d[i] * v[i];
  o[i * 3 + 1] = c.x - c.y;
  o[i * 3 + 2] = (m * r)[1][i % 2u];
  dmat2 pick = d[i] < 0.0lf ? m : r;
  o[9 + i] = pick[1][0];
})");
  ASSERT_FALSE(s.code.empty());
  // Resources: storage buffers first, then uniform buffers.
  ASSERT_EQ(s.abi.resources.size(), 2u);
  ASSERT_EQ(s.abi.resources[1].kind, Resource::Kind::uniform_buffer);
  // Offsets: d[i] at 16 i, v at 48 (aligned to 32: 64), m at 96, r at 128.
  std::vector<double> u(20, 0.0);
  double d[3] = {1.5, -2.25, 1e-310}, v[3] = {3.0, 0.1, 7.0}, m[2][2] = {{1, 2}, {3, 4}}, r[2][2] = {{5, 6}, {7, 8}};
  for (int i = 0; i < 3; ++i) { u[2 * i] = d[i]; u[8 + i] = v[i]; }
  for (int c = 0; c < 2; ++c) for (int k = 0; k < 2; ++k) { u[12 + c * 2 + k] = m[c][k]; u[16 + k * 2 + c] = r[c][k]; }
  Job run;
  run.buffers = {std::vector<uint32_t>(12 * 2), dwords(u)};
  ASSERT_OK(execute(s, run));
  const auto& o = run.buffers[0];
  for (unsigned i = 0; i < 3; ++i) {
    unsigned c = i % 2;
    EXPECT_EQ(at(o, i * 3 + 0), bits(d[i] * v[i])) << i;
    EXPECT_EQ(at(o, i * 3 + 1), bits((m[c][0] + r[c][0]) - (m[c][1] + r[c][1]))) << i;
    // (m r)[1][row] = m[0][row] r[1][0] + m[1][row] r[1][1]
    EXPECT_EQ(at(o, i * 3 + 2), bits(m[0][c] * r[1][0] + m[1][c] * r[1][1])) << i;
    EXPECT_EQ(at(o, 9 + i), bits(d[i] < 0 ? m[1][0] : r[1][0])) << i;  // a selected dmat2
  }
}

}  // namespace
}  // namespace agx::compiler::test
