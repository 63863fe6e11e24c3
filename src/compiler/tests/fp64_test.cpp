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

#include "compiler/tests/run_helpers.h"

namespace agx::compiler::test {
namespace {

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

std::vector<uint32_t> words(const std::vector<uint64_t>& v) {
  std::vector<uint32_t> w;
  for (uint64_t x : v) { w.push_back(static_cast<uint32_t>(x)); w.push_back(static_cast<uint32_t>(x >> 32)); }
  return w;
}
uint64_t at(const std::vector<uint32_t>& w, size_t i) { return w[2 * i] | uint64_t{w[2 * i + 1]} << 32; }

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
  // Every pair of the special values, then random operands.
  constexpr size_t kN = 1536;
  auto a = values(kN, 1), b = values(kN, 2), c = values(kN, 3);
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
  std::mt19937 rng(7);
  std::shuffle(b.begin() + kSpecials * kSpecials, b.end(), rng);
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
