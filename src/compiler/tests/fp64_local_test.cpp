// Doubles and 64-bit integers in dynamically indexed local variables
// (translate_local.cpp): arrays on the stack and in registers (select
// chains up to 16 bytes), dvec / dmat elements at run-time indices, structs
// holding them, initialized tables, clamped out-of-range indices, and a
// per-thread sort, against the same computation in host doubles, bit for
// bit.
#include <algorithm>
#include <bit>
#include <cmath>
#include <random>

#include "compiler/tests/buffer_words.h"
#include "compiler/tests/run_helpers.h"

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

uint64_t bits(double d) { return std::bit_cast<uint64_t>(d); }
double dbl(uint64_t b) { return std::bit_cast<double>(b); }

std::vector<uint32_t> dwords(const std::vector<double>& v) {
  std::vector<uint64_t> b;
  for (double d : v) b.push_back(bits(d));
  return words(b);
}

// Values with exponents within 2^+-30, so products and sums stay finite.
std::vector<double> moderate(size_t n, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> v(n);
  for (double& x : v) x = dbl((rng() & 0x800FFFFFFFFFFFFFull) | uint64_t(1023 - 30 + rng() % 60) << 52);
  return v;
}

int64_t clamp_index(int64_t i, int64_t n) { return i < 0 || i >= n ? n - 1 : i; }

TEST(Fp64Local, StackArraysWithClampedIndices) {
  // a[] is on the stack between two other dynamically indexed double
  // arrays; indices -3 .. 16 read and write the last element when out of
  // range and never the neighbours.
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer I { int k[]; };
layout(std430, binding = 1) buffer X { double x[]; };
layout(std430, binding = 2) buffer O { double o[]; };
void main() {
  uint t = gl_GlobalInvocationID.x;
  double before[3], a[12], after[3];
  for (int i = 0; i < 3; ++i) { before[i] = double(i) + 0.5lf; after[i] = -double(i) - 0.25lf; }
  for (int i = 0; i < 12; ++i) a[i] = x[t * 12u + uint(i)];
  int j = k[t];
  a[j] = (a[j] + x[t]) * a[j + 1];  // (a * b + c would become an fma: SPIRV-Tools merges them)
  before[j] = a[j];
  o[t * 5u] = a[j - 2];
  o[t * 5u + 1u] = a[int(t % 12u)];
  o[t * 5u + 2u] = before[int(t % 3u)] - after[int((t + 1u) % 3u)];
  o[t * 5u + 3u] = a[11] + before[2];
  o[t * 5u + 4u] = after[j];
})");
  ASSERT_FALSE(s.code.empty());
  EXPECT_GE(s.stats.scratch_B, (3u + 12u + 3u) * 8u);
  constexpr uint32_t kT = 32;
  std::vector<uint32_t> k(kT);
  for (uint32_t t = 0; t < kT; ++t) k[t] = static_cast<uint32_t>(static_cast<int32_t>(t % 20) - 3);
  auto x = moderate(kT * 12, 5);
  Job r;
  r.buffers = {k, dwords(x), std::vector<uint32_t>(kT * 5 * 2)};
  ASSERT_OK(execute(s, r));
  for (uint32_t t = 0; t < kT; ++t) {
    double before[3], a[12], after[3];
    for (int i = 0; i < 3; ++i) { before[i] = i + 0.5; after[i] = -double(i) - 0.25; }
    for (int i = 0; i < 12; ++i) a[i] = x[t * 12 + i];
    int32_t j = static_cast<int32_t>(k[t]);
    a[clamp_index(j, 12)] = (a[clamp_index(j, 12)] + x[t]) * a[clamp_index(int64_t(j) + 1, 12)];
    before[clamp_index(j, 3)] = a[clamp_index(j, 12)];
    const double want[5] = {a[clamp_index(int64_t(j) - 2, 12)], a[t % 12], before[t % 3] - after[(t + 1) % 3],
                            a[11] + before[2], after[clamp_index(j, 3)]};
    for (int n = 0; n < 5; ++n) EXPECT_EQ(at(r.buffers[2], t * 5 + n), bits(want[n])) << "thread " << t << " output " << n;
  }
}

TEST(Fp64Local, SmallArraysAndVectorsAreSelectChains) {
  // double[2], dvec2 and a uint64_t[2]: 16 bytes each, in registers (no
  // stack), read and written at run-time indices (clamped).
  Shader s = must_compile(R"(#version 450
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer I { uint k[]; };
layout(std430, binding = 1) buffer X { double x[]; };
layout(std430, binding = 2) buffer O { double o[]; };
layout(std430, binding = 3) buffer Q { uint64_t q[]; };
void main() {
  uint t = gl_GlobalInvocationID.x;
  uint j = k[t];
  double r[2] = double[](x[t * 2u], -x[t * 2u + 1u]);
  dvec2 v = dvec2(x[t * 2u + 1u], 0.75lf);
  uint64_t w[2] = uint64_t[](uint64_t(t) << 33, ~uint64_t(t));
  r[j] = r[j ^ 1u] * v[j];
  v[j + 1u] = v[j] - r[0];
  w[j] += uint64_t(j) << 40;
  o[t * 4u] = r[0];
  o[t * 4u + 1u] = r[1];
  o[t * 4u + 2u] = v.x;
  o[t * 4u + 3u] = v.y;
  q[t] = w[0] ^ w[1];
})");
  ASSERT_FALSE(s.code.empty());
  EXPECT_EQ(s.stats.scratch_B, 0u);
  constexpr uint32_t kT = 32;
  std::vector<uint32_t> k(kT);
  for (uint32_t t = 0; t < kT; ++t) k[t] = t % 4 == 3 ? 0xFFFFFFFFu : t % 3;  // 0, 1, 2 (clamped), -1 (clamped)
  auto x = moderate(kT * 2, 7);
  Job r;
  r.buffers = {k, dwords(x), std::vector<uint32_t>(kT * 4 * 2), std::vector<uint32_t>(kT * 2)};
  ASSERT_OK(execute(s, r));
  for (uint32_t t = 0; t < kT; ++t) {
    uint32_t j = k[t];
    double rr[2] = {x[t * 2], -x[t * 2 + 1]}, v[2] = {x[t * 2 + 1], 0.75};
    uint64_t w[2] = {uint64_t{t} << 33, ~uint64_t{t}};
    auto c = [](uint32_t i) { return clamp_index(i, 2); };  // unsigned: -1 is huge
    rr[c(j)] = rr[c(j ^ 1u)] * v[c(j)];
    v[c(j + 1u)] = v[c(j)] - rr[0];
    w[c(j)] += uint64_t{j} << 40;
    const double want[4] = {rr[0], rr[1], v[0], v[1]};
    for (int n = 0; n < 4; ++n) EXPECT_EQ(at(r.buffers[2], t * 4 + n), bits(want[n])) << "thread " << t << " output " << n;
    EXPECT_EQ(at(r.buffers[3], t), w[0] ^ w[1]) << t;
  }
}

TEST(Fp64Local, StructsWithDvecAndDmatMembersAtRunTimeIndices) {
  // An array of structs with dvec3, double, dmat3 and i64vec2 members:
  // a dmat column and component written at run-time indices, a whole
  // struct read at a run-time index and stored to a buffer (std430 P has
  // the natural layout: pos 0, w 24, m 32 (columns 32 apart), id 128, size
  // 160), and a table of doubles with an initializer read at a run-time
  // index.
  Shader s = must_compile(R"(#version 450
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 16) in;
struct P { dvec3 pos; double w; dmat3 m; i64vec2 id; };
layout(std430, binding = 0) buffer I { uint k[]; };
layout(std430, binding = 1) buffer X { double x[]; };
layout(std430, binding = 2) buffer O { P o[]; };
layout(std430, binding = 3) buffer T { double tab_out[]; };
const double kTable[5] = double[](0.1lf, -2.5lf, 1e300lf, 5e-324lf, 3.0lf);
void main() {
  uint t = gl_GlobalInvocationID.x;
  P p[3];
  for (int i = 0; i < 3; ++i) {
    uint b = t * 8u + uint(i);
    p[i] = P(dvec3(x[b], x[b + 1u], x[b + 2u]), x[b + 3u], dmat3(x[b + 4u]), i64vec2(int64_t(i) - 5l, int64_t(t) << 34));
  }
  uint a = k[t] % 4u, c = (k[t] >> 2) % 3u, r = (k[t] >> 4) % 3u;
  p[a].m[c][r] = p[a].pos[r] * p[a].w;
  p[a].m[r] += p[(a + 1u) % 3u].pos;
  p[a].id[c & 1u] -= int64_t(c);
  o[t] = p[a];
  tab_out[t] = kTable[k[t] % 6u] + p[2].w;
})");
  ASSERT_FALSE(s.code.empty());
  constexpr uint32_t kT = 16;
  auto k = random_words(kT, 11, 255);
  auto x = moderate(kT * 8 + 8, 13);
  Job run;
  run.buffers = {k, dwords(x), std::vector<uint32_t>(kT * 160 / 4), std::vector<uint32_t>(kT * 2)};
  ASSERT_OK(execute(s, run));
  const double table[5] = {0.1, -2.5, 1e300, 5e-324, 3.0};
  for (uint32_t t = 0; t < kT; ++t) {
    struct Host { double pos[3], w, m[3][3]; int64_t id[2]; } p[3];
    for (int i = 0; i < 3; ++i) {
      uint32_t b = t * 8 + i;
      p[i] = Host{{x[b], x[b + 1], x[b + 2]}, x[b + 3], {}, {int64_t{i} - 5, int64_t{t} << 34}};
      for (int cc = 0; cc < 3; ++cc)
        for (int rr = 0; rr < 3; ++rr) p[i].m[cc][rr] = cc == rr ? x[b + 4] : 0.0;
    }
    uint32_t a_raw = k[t] % 4, a = clamp_index(a_raw, 3), c = (k[t] >> 2) % 3, r = (k[t] >> 4) % 3;
    p[a].m[c][r] = p[a].pos[r] * p[a].w;
    for (int rr = 0; rr < 3; ++rr) p[a].m[r][rr] = p[a].m[r][rr] + p[(a_raw + 1) % 3].pos[rr];
    p[a].id[c & 1] -= c;
    const std::vector<uint32_t>& o = run.buffers[2];
    const size_t base = t * 160 / 8;  // in 64-bit units
    for (int n = 0; n < 3; ++n) EXPECT_EQ(at(o, base + n), bits(p[a].pos[n])) << t << " pos " << n;
    EXPECT_EQ(at(o, base + 3), bits(p[a].w)) << t;
    for (int cc = 0; cc < 3; ++cc)
      for (int rr = 0; rr < 3; ++rr) EXPECT_EQ(at(o, base + 4 + cc * 4 + rr), bits(p[a].m[cc][rr])) << t << " m " << cc << rr;
    for (int n = 0; n < 2; ++n) EXPECT_EQ(at(o, base + 16 + n), static_cast<uint64_t>(p[a].id[n])) << t << " id " << n;
    EXPECT_EQ(at(run.buffers[3], t), bits(table[clamp_index(k[t] % 6, 5)] + p[2].w)) << t;
  }
}

TEST(Fp64Local, InsertionSortPerThread) {
  // A run-time count keeps the loops (and the array) whole: insertion sort
  // of up to 10 doubles with fp64 comparisons at run-time indices.
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer X { double x[]; };
layout(std430, binding = 1) buffer N { uint n[]; };
layout(std430, binding = 2) buffer O { double o[]; };
void main() {
  uint t = gl_GlobalInvocationID.x;
  uint count = n[t];
  double a[10];
  for (uint i = 0u; i < count; ++i) a[i] = x[t * 10u + i];
  for (uint i = 1u; i < count; ++i) {
    double v = a[i];
    uint j = i;
    while (j > 0u && a[j - 1u] > v) { a[j] = a[j - 1u]; --j; }
    a[j] = v;
  }
  for (uint i = 0u; i < count; ++i) o[t * 10u + i] = a[i];
})");
  ASSERT_FALSE(s.code.empty());
  constexpr uint32_t kT = 32;
  auto x = moderate(kT * 10, 17);
  for (size_t i = 0; i < x.size(); i += 7) x[i] = -x[i];
  x[3] = x[4];  // equal keys keep their order (only their bits are compared)
  x[15] = -0.0;
  x[16] = 0.0;
  std::vector<uint32_t> n(kT);
  for (uint32_t t = 0; t < kT; ++t) n[t] = 1 + t % 10;
  Job r;
  r.buffers = {dwords(x), n, std::vector<uint32_t>(kT * 10 * 2)};
  ASSERT_OK(execute(s, r));
  for (uint32_t t = 0; t < kT; ++t) {
    std::vector<double> want(x.begin() + t * 10, x.begin() + t * 10 + n[t]);
    std::stable_sort(want.begin(), want.end());  // insertion sort is stable; -0 == +0 keep their order
    for (uint32_t i = 0; i < n[t]; ++i) EXPECT_EQ(at(r.buffers[2], t * 10 + i), bits(want[i])) << t << " " << i;
  }
}

}  // namespace
}  // namespace agx::compiler::test
