// GLSL compute kernels compiled and run on the usc emulator, compared with
// the same computation in C++.
#include <algorithm>
#include <bit>
#include <cmath>
#include <random>

#include "compiler/tests/buffer_words.h"
#include "compiler/tests/run_helpers.h"

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

TEST(Exec, IntegerArithmeticPerInvocation) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer A { uint a[]; };
layout(set = 0, binding = 1) buffer B { uint b[]; };
layout(set = 0, binding = 2) buffer O { uint o[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint x = a[i], y = b[i];
  o[i * 4 + 0] = x * y + (x >> 3) - (y << 5);
  o[i * 4 + 1] = (x & y) ^ (x | 12345u);
  o[i * 4 + 2] = uint(int(x) >> 7) + ~y;
  o[i * 4 + 3] = min(x, y) + max(x, y) * 3u + (x < y ? 7u : 9u);
})");
  ASSERT_FALSE(s.code.empty());
  Job r;
  size_t n = 128;
  r.buffers = {random_words(n, 1), random_words(n, 2), std::vector<uint32_t>(n * 4)};
  r.groups = {2, 1, 1};
  auto a = r.buffers[0], b = r.buffers[1];
  ASSERT_OK(execute(s, r));
  for (size_t i = 0; i < n; ++i) {
    uint32_t x = a[i], y = b[i];
    EXPECT_EQ(r.buffers[2][i * 4 + 0], x * y + (x >> 3) - (y << 5)) << i;
    EXPECT_EQ(r.buffers[2][i * 4 + 1], (x & y) ^ (x | 12345u)) << i;
    EXPECT_EQ(r.buffers[2][i * 4 + 2], uint32_t(int32_t(x) >> 7) + ~y) << i;
    EXPECT_EQ(r.buffers[2][i * 4 + 3], std::min(x, y) + std::max(x, y) * 3u + (x < y ? 7u : 9u)) << i;
  }
}

TEST(Exec, FloatSaxpyWithPushConstants) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 32) in;
layout(push_constant) uniform P { float alpha; uint n; } pc;
layout(set = 0, binding = 0) readonly buffer X { float x[]; };
layout(set = 0, binding = 1) buffer Y { float y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < pc.n) y[i] = pc.alpha * x[i] + y[i];
})");
  ASSERT_FALSE(s.code.empty());
  Job r;
  size_t n = 90;  // not a multiple of 32: the guard matters
  std::vector<uint32_t> x(96), y(96);
  for (size_t i = 0; i < 96; ++i) { x[i] = fbits(float(i) * 0.5f - 3.0f); y[i] = fbits(float(i % 7) + 0.25f); }
  r.buffers = {x, y};
  r.push = {fbits(2.5f), static_cast<uint32_t>(n)};
  r.groups = {3, 1, 1};
  ASSERT_OK(execute(s, r));
  for (size_t i = 0; i < 96; ++i) {
    float want = i < n ? std::fma(2.5f, bitsf(x[i]), bitsf(y[i])) : bitsf(y[i]);
    EXPECT_EQ(bitsf(r.buffers[1][i]), want) << i;
  }
}

TEST(Exec, VectorsAndStructs) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 16) in;
struct Item { vec4 pos; uvec2 ids; float w; };
layout(std430, set = 0, binding = 0) buffer In { Item items[]; };
layout(std430, set = 0, binding = 1) buffer Out { vec4 outv[]; };
void main() {
  uint i = gl_LocalInvocationIndex;
  Item it = items[i];
  vec4 p = it.pos * it.w + vec4(1.0, 2.0, 3.0, 4.0);
  outv[i] = vec4(p.x + p.y, p.z * p.w, float(it.ids.x + it.ids.y), dot(it.pos, it.pos));
})");
  // std430 Item: vec4 at 0, uvec2 at 16, float at 24, size 32 (align 16).
  std::vector<uint32_t> in(16 * 8);
  for (uint32_t i = 0; i < 16; ++i) {
    for (int c = 0; c < 4; ++c) in[i * 8 + c] = fbits(float(i) + 0.5f * c);
    in[i * 8 + 4] = i * 3;
    in[i * 8 + 5] = 100 + i;
    in[i * 8 + 6] = fbits(0.25f * i);
  }
  Job r;
  r.buffers = {in, std::vector<uint32_t>(16 * 4)};
  ASSERT_OK(execute(s, r));
  for (uint32_t i = 0; i < 16; ++i) {
    float pos[4], p[4];
    for (int c = 0; c < 4; ++c) {
      pos[c] = bitsf(in[i * 8 + c]);
      p[c] = std::fma(pos[c], 0.25f * i, float(c + 1));
    }
    float d = pos[0] * pos[0];
    for (int c = 1; c < 4; ++c) d = std::fma(pos[c], pos[c], d);
    EXPECT_EQ(bitsf(r.buffers[1][i * 4 + 0]), p[0] + p[1]) << i;
    EXPECT_EQ(bitsf(r.buffers[1][i * 4 + 1]), p[2] * p[3]) << i;
    EXPECT_EQ(bitsf(r.buffers[1][i * 4 + 2]), float(i * 3 + 100 + i)) << i;
    EXPECT_EQ(bitsf(r.buffers[1][i * 4 + 3]), d) << i;
  }
}

TEST(Exec, DivergentIfElseAndLoopsWithBreakContinue) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer A { uint a[]; };
layout(set = 0, binding = 1) buffer O { uint o[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint x = a[i];
  uint acc = 0u;
  for (uint k = 0u; k < x % 23u; ++k) {
    if ((k & 3u) == 1u) continue;
    if (acc > 40u + (x & 15u)) break;
    if ((k ^ x) % 3u == 0u) acc += k * 2u; else acc += 1u;
  }
  uint y;
  if ((x & 1u) != 0u) { y = acc * 3u; } else { y = acc + 1000u; }
  uint n = 0u;
  uint v = x;
  while (v != 0u) { v &= v - 1u; n++; }
  o[i] = y + (n << 20);
})");
  ASSERT_FALSE(s.code.empty());
  Job r;
  size_t n = 64;
  r.buffers = {random_words(n, 7), std::vector<uint32_t>(n)};
  r.groups = {2, 1, 1};
  auto a = r.buffers[0];
  ASSERT_OK(execute(s, r));
  for (size_t i = 0; i < n; ++i) {
    uint32_t x = a[i], acc = 0;
    for (uint32_t k = 0; k < x % 23u; ++k) {
      if ((k & 3u) == 1u) continue;
      if (acc > 40u + (x & 15u)) break;
      if ((k ^ x) % 3u == 0u) acc += k * 2u; else acc += 1u;
    }
    uint32_t y = (x & 1u) ? acc * 3u : acc + 1000u;
    EXPECT_EQ(r.buffers[1][i], y + (uint32_t(std::popcount(x)) << 20)) << i;
  }
}

TEST(Exec, SharedMemoryReductionWithBarriers) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 128) in;
layout(set = 0, binding = 0) buffer A { uint a[]; };
layout(set = 0, binding = 1) buffer O { uint o[]; };
shared uint tmp[128];
void main() {
  uint l = gl_LocalInvocationID.x;
  tmp[l] = a[gl_GlobalInvocationID.x];
  barrier();
  for (uint stride = 64u; stride > 0u; stride >>= 1) {
    if (l < stride) tmp[l] += tmp[l + stride];
    barrier();
  }
  if (l == 0u) o[gl_WorkGroupID.x] = tmp[0];
})");
  ASSERT_FALSE(s.code.empty());
  EXPECT_EQ(s.abi.threadgroup_memory_B, 512u);
  Job r;
  r.buffers = {random_words(384, 11, 1000000), std::vector<uint32_t>(3)};
  r.groups = {3, 1, 1};
  auto a = r.buffers[0];
  ASSERT_OK(execute(s, r));
  for (size_t g = 0; g < 3; ++g) {
    uint32_t sum = 0;
    for (size_t i = 0; i < 128; ++i) sum += a[g * 128 + i];
    EXPECT_EQ(r.buffers[1][g], sum) << g;
  }
}

TEST(Exec, BufferAndSharedAtomics) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer A { uint a[]; };
layout(set = 0, binding = 1) buffer C { uint total; uint maxv; uint hist[8]; int minv; };
layout(set = 0, binding = 2) buffer O { uint slot[]; };
shared uint local_count;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (gl_LocalInvocationIndex == 0u) local_count = 0u;
  barrier();
  uint x = a[i];
  atomicAdd(total, x);
  atomicMax(maxv, x);
  atomicAdd(hist[x & 7u], 1u);
  atomicMin(minv, int(x) - 5000);
  uint mine = atomicAdd(local_count, 1u);
  barrier();
  slot[i] = mine + local_count * 1000u;
})");
  ASSERT_FALSE(s.code.empty());
  Job r;
  size_t n = 128;
  r.buffers = {random_words(n, 5, 100000), std::vector<uint32_t>(11), std::vector<uint32_t>(n)};
  r.buffers[1][10] = 0x7FFFFFFF;
  r.groups = {2, 1, 1};
  auto a = r.buffers[0];
  ASSERT_OK(execute(s, r));
  uint32_t total = 0, maxv = 0, hist[8] = {};
  int32_t minv = 0x7FFFFFFF;
  for (uint32_t x : a) { total += x; maxv = std::max(maxv, x); hist[x & 7]++; minv = std::min(minv, int32_t(x) - 5000); }
  EXPECT_EQ(r.buffers[1][0], total);
  EXPECT_EQ(r.buffers[1][1], maxv);
  for (int k = 0; k < 8; ++k) EXPECT_EQ(r.buffers[1][2 + k], hist[k]) << k;
  EXPECT_EQ(int32_t(r.buffers[1][10]), minv);
  // Every invocation of a group got a distinct ticket 0..63 and saw 64.
  for (size_t g = 0; g < 2; ++g) {
    std::vector<bool> seen(64);
    for (size_t l = 0; l < 64; ++l) {
      uint32_t v = r.buffers[2][g * 64 + l];
      EXPECT_EQ(v / 1000, 64u);
      ASSERT_LT(v % 1000, 64u);
      EXPECT_FALSE(seen[v % 1000]);
      seen[v % 1000] = true;
    }
  }
}

TEST(Exec, BuiltinsOfA2DDispatch) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 8, local_size_y = 4) in;
layout(set = 0, binding = 0) buffer O { uvec4 o[]; };
void main() {
  uvec3 g = gl_GlobalInvocationID;
  uint w = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  uint idx = g.y * w + g.x;
  o[idx] = uvec4(gl_WorkGroupID.x + 10u * gl_WorkGroupID.y, gl_LocalInvocationID.x + 10u * gl_LocalInvocationID.y,
                 gl_LocalInvocationIndex, gl_NumWorkGroups.y);
})");
  ASSERT_FALSE(s.code.empty());
  Job r;
  r.groups = {3, 2, 1};
  size_t w = 24, h = 8;
  r.buffers = {std::vector<uint32_t>(w * h * 4)};
  ASSERT_OK(execute(s, r));
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      const uint32_t* v = &r.buffers[0][(y * w + x) * 4];
      EXPECT_EQ(v[0], x / 8 + 10 * (y / 4)) << x << "," << y;
      EXPECT_EQ(v[1], x % 8 + 10 * (y % 4));
      EXPECT_EQ(v[2], (y % 4) * 8 + x % 8);
      EXPECT_EQ(v[3], 2u);
    }
}

TEST(Exec, IntegerDivisionAndModulo) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer A { uint a[]; };
layout(set = 0, binding = 1) buffer O { uint o[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint x = a[i], d = a[i + 64u] | 1u;
  int sx = int(x) - 0x40000000, sd = int(d % 1000u) - 500;
  if (sd == 0) sd = 7;
  o[i * 5u + 0u] = x / d;
  o[i * 5u + 1u] = x % d;
  o[i * 5u + 2u] = x / 16u + x % 8u + (x / 10u) * 3u + (x % 7u) * 5u + x / 641u + x / 0xFFFFFFFFu + x % 0x80000001u;
  o[i * 5u + 3u] = uint(sx / sd);
  o[i * 5u + 4u] = uint(sx % sd);
})");
  ASSERT_FALSE(s.code.empty());
  Job r;
  auto a = random_words(128, 21);
  for (size_t i = 64; i < 128; i += 3) a[i] &= 0xFF;  // small divisors too
  a[0] = 0xFFFFFFFFu;  // dividends at the extremes
  a[1] = 0xFFFFFFFEu;
  a[2] = 0;
  a[3] = 0x80000000u;
  r.buffers = {a, std::vector<uint32_t>(64 * 5)};
  r.groups = {2, 1, 1};
  ASSERT_OK(execute(s, r));
  for (size_t i = 0; i < 64; ++i) {
    uint32_t x = a[i], d = a[i + 64] | 1u;
    int32_t sx = int32_t(x - 0x40000000u), sd = int32_t(d % 1000u) - 500;
    if (sd == 0) sd = 7;
    EXPECT_EQ(r.buffers[1][i * 5 + 0], x / d) << i;
    EXPECT_EQ(r.buffers[1][i * 5 + 1], x % d) << i;
    EXPECT_EQ(r.buffers[1][i * 5 + 2], x / 16u + x % 8u + (x / 10u) * 3u + (x % 7u) * 5u + x / 641u + x / 0xFFFFFFFFu +
                                           x % 0x80000001u) << i;
    EXPECT_EQ(int32_t(r.buffers[1][i * 5 + 3]), sx / sd) << i;
    int32_t m = sx % sd;  // OpSMod (GLSL %): the sign of the divisor
    if (m != 0 && ((m ^ sd) < 0)) m += sd;
    EXPECT_EQ(int32_t(r.buffers[1][i * 5 + 4]), m) << i;
  }
}

}  // namespace
}  // namespace agx::compiler::test

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

TEST(Exec, SwitchWithFallthroughAndDefault) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer A { uint a[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint x = a[i] % 6u, y = 100u;
  switch (x) {
    case 0u: y = 10u; break;
    case 1u: case 4u: y = 20u;  // falls through
    case 2u: y += 3u; break;
    default: y = x * 7u;
  }
  a[i] = y;
})");
  ASSERT_FALSE(s.code.empty());
  Job r;
  r.buffers = {random_words(32, 99)};
  auto a = r.buffers[0];
  ASSERT_OK(execute(s, r));
  for (size_t i = 0; i < 32; ++i) {
    uint32_t x = a[i] % 6u, y = 100u;
    switch (x) {
      case 0u: y = 10u; break;
      case 1u: case 4u: y = 20u; [[fallthrough]];
      case 2u: y += 3u; break;
      default: y = x * 7u;
    }
    EXPECT_EQ(r.buffers[0][i], y) << i << " x=" << x;
  }
}

TEST(Exec, OpenGLAtomicCountersAndLooseUniforms) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 32) in;
layout(binding = 0, offset = 4) uniform atomic_uint counter;
layout(std430, binding = 1) buffer O { uint o[]; };
layout(location = 0) uniform uint scale;
layout(location = 1) uniform uint bias;
void main() {
  uint t = atomicCounterIncrement(counter);
  o[gl_GlobalInvocationID.x] = t * scale + bias;
})", TargetEnv::opengl);
  ASSERT_FALSE(s.code.empty());
  ASSERT_EQ(s.abi.resources.size(), 2u);
  EXPECT_EQ(s.abi.resources[0].kind, Resource::Kind::storage_buffer);
  EXPECT_EQ(s.abi.resources[1].kind, Resource::Kind::atomic_counter);
  ASSERT_EQ(s.abi.loose_uniforms.size(), 2u);
  EXPECT_EQ(s.abi.loose_uniforms[1].name, "bias");
  Job r;
  r.buffers = {std::vector<uint32_t>(64), {7, 1000, 9}};
  r.push = {3, 5};  // scale, bias (loose uniforms in location order)
  r.groups = {2, 1, 1};
  ASSERT_OK(execute(s, r));
  EXPECT_EQ(r.buffers[1][1], 1064u);
  EXPECT_EQ(r.buffers[1][0], 7u);
  std::vector<bool> seen(64);
  for (uint32_t v : r.buffers[0]) {
    ASSERT_EQ((v - 5) % 3, 0u);
    uint32_t t = (v - 5) / 3 - 1000;
    ASSERT_LT(t, 64u);
    EXPECT_FALSE(seen[t]);
    seen[t] = true;
  }
}

TEST(Exec, FloatFunctionsAgainstLibm) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer A { float a[]; };
layout(set = 0, binding = 1) buffer O { vec4 o[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  float x = a[i];
  o[i * 2u] = vec4(sin(x), cos(x), exp2(x * 0.25), log2(abs(x) + 1.0));
  o[i * 2u + 1u] = vec4(sqrt(abs(x)), inversesqrt(abs(x) + 0.5), floor(x) + fract(x) * 8.0, clamp(x, -1.5, 2.0) / 3.0);
})");
  ASSERT_FALSE(s.code.empty());
  Job r;
  std::vector<uint32_t> a(64);
  for (size_t i = 0; i < 64; ++i) a[i] = fbits(-7.0f + 0.23f * float(i));
  r.buffers = {a, std::vector<uint32_t>(64 * 8)};
  ASSERT_OK(execute(s, r));
  for (size_t i = 0; i < 64; ++i) {
    double x = bitsf(a[i]);
    const uint32_t* o = &r.buffers[1][i * 8];
    // sin/cos through the two sine steps: a few ulp; the rest are
    // correctly rounded (docs/usc.md) up to the float ops around them.
    EXPECT_NEAR(bitsf(o[0]), std::sin(x), 2e-6) << x;
    EXPECT_NEAR(bitsf(o[1]), std::cos(x), 2e-6) << x;
    EXPECT_NEAR(bitsf(o[2]), std::exp2(x * 0.25), 1e-6 * std::exp2(x * 0.25)) << x;
    EXPECT_NEAR(bitsf(o[3]), std::log2(std::fabs(x) + 1.0), 1e-6) << x;
    EXPECT_NEAR(bitsf(o[4]), std::sqrt(std::fabs(x)), 1e-6 * (1 + std::sqrt(std::fabs(x)))) << x;
    EXPECT_NEAR(bitsf(o[5]), 1.0 / std::sqrt(std::fabs(x) + 0.5), 1e-6) << x;
    EXPECT_NEAR(bitsf(o[6]), std::floor(x) + (x - std::floor(x)) * 8.0, 1e-5) << x;
    EXPECT_NEAR(bitsf(o[7]), std::clamp(x, -1.5, 2.0) / 3.0, 1e-6) << x;
  }
}

}  // namespace
}  // namespace agx::compiler::test

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

TEST(Exec, RegionsNoLaneRunsAreJumpedOver) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 32) in;
layout(push_constant) uniform P { uint mode; } pc;
layout(set = 0, binding = 0) buffer A { uint a[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint x = a[i];
  if (pc.mode == 1u) {
    x = x * 3u + 1u; x ^= x >> 5; x += i * 7u; x = x * 9u; a[i + 32u] = x;
  } else {
    x = x * 5u + 2u; x ^= x >> 3; x += i * 11u; x = x * 13u; a[i + 64u] = x;
  }
  a[i] = x;
})");
  ASSERT_FALSE(s.code.empty());
  EXPECT_NE(disassemble(s.code).find("jmp_exec_none"), std::string::npos);
  for (uint32_t mode : {1u, 2u}) {
    Job r;
    auto a = random_words(96, 40 + mode);
    r.buffers = {a};
    r.push = {mode};
    ASSERT_OK(execute(s, r));
    for (uint32_t i = 0; i < 32; ++i) {
      uint32_t x = a[i];
      if (mode == 1) { x = x * 3u + 1u; x ^= x >> 5; x += i * 7u; x = x * 9u; }
      else { x = x * 5u + 2u; x ^= x >> 3; x += i * 11u; x = x * 13u; }
      EXPECT_EQ(r.buffers[0][i], x) << mode << " " << i;
      EXPECT_EQ(r.buffers[0][i + 32], mode == 1 ? x : a[i + 32]) << mode << " " << i;
      EXPECT_EQ(r.buffers[0][i + 64], mode == 2 ? x : a[i + 64]) << mode << " " << i;
    }
  }
}

}  // namespace
}  // namespace agx::compiler::test

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

TEST(Exec, VectorComparisonsAllAny) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer A { uvec2 a[]; };
layout(set = 0, binding = 1) buffer O { uint o[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  uvec2 v = a[i];
  bvec2 lt = lessThan(v, uvec2(8u, 16u));
  o[i] = (all(lt) ? 1u : 0u) + (any(lt) ? 2u : 0u) + (all(equal(v, v.yx)) ? 4u : 0u);
})");
  ASSERT_FALSE(s.code.empty());
  Job r;
  auto a = random_words(64, 77, 20);
  r.buffers = {a, std::vector<uint32_t>(32)};
  ASSERT_OK(execute(s, r));
  for (uint32_t i = 0; i < 32; ++i) {
    uint32_t x = a[2 * i], y = a[2 * i + 1];
    bool l0 = x < 8, l1 = y < 16;
    EXPECT_EQ(r.buffers[1][i], (l0 && l1 ? 1u : 0u) + (l0 || l1 ? 2u : 0u) + (x == y ? 4u : 0u)) << i;
  }
}

}  // namespace
}  // namespace agx::compiler::test

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

TEST(Exec, UniformBufferStd140AndSharedStructs) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 16) in;
layout(std140, set = 0, binding = 0) uniform U { vec3 scale[4]; uint count; } u;
layout(set = 0, binding = 1) buffer O { vec4 o[]; };
struct S { vec3 p; uint id; vec2 q; };
shared S items[16];
void main() {
  uint l = gl_LocalInvocationIndex;
  items[l].p = u.scale[l % 4u] * float(l);
  items[l].id = l + u.count;
  items[l].q = vec2(float(l), 0.5);
  barrier();
  S other = items[15u - l];
  o[l] = vec4(other.p.x + other.p.y + other.p.z, float(other.id), other.q.x * other.q.y, 1.0);
})");
  ASSERT_FALSE(s.code.empty());
  ASSERT_EQ(s.abi.resources.size(), 2u);
  EXPECT_EQ(s.abi.resources[1].kind, Resource::Kind::uniform_buffer);  // storage buffers first
  // std140: vec3 array elements every 16 bytes, count at 64.
  std::vector<uint32_t> ubo(17, 0);
  float scales[4][3] = {{1, 2, 3}, {0.5f, 0.25f, 4}, {-1, 1, 2}, {8, 0, 1}};
  for (int i = 0; i < 4; ++i)
    for (int c = 0; c < 3; ++c) ubo[i * 4 + c] = fbits(scales[i][c]);
  ubo[16] = 1000;
  Job r;
  r.buffers = {std::vector<uint32_t>(16 * 4), ubo};
  ASSERT_OK(execute(s, r));
  for (uint32_t l = 0; l < 16; ++l) {
    uint32_t k = 15 - l;
    float p[3];
    for (int c = 0; c < 3; ++c) p[c] = scales[k % 4][c] * float(k);
    EXPECT_EQ(bitsf(r.buffers[0][l * 4 + 0]), (p[0] + p[1]) + p[2]) << l;
    EXPECT_EQ(bitsf(r.buffers[0][l * 4 + 1]), float(k + 1000)) << l;
    EXPECT_EQ(bitsf(r.buffers[0][l * 4 + 2]), float(k) * 0.5f) << l;
    EXPECT_EQ(bitsf(r.buffers[0][l * 4 + 3]), 1.0f) << l;
  }
}

}  // namespace
}  // namespace agx::compiler::test

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

TEST(Exec, BitScansStepAndSmoothstep) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer A { uint a[]; };
layout(set = 0, binding = 1) buffer O { uint o[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint x = a[i];
  o[i * 5u] = uint(findMSB(x));
  o[i * 5u + 1u] = uint(findMSB(int(x)));
  o[i * 5u + 2u] = uint(findLSB(x));
  float f = float(x & 255u) / 255.0;
  o[i * 5u + 3u] = floatBitsToUint(step(0.5, f));
  o[i * 5u + 4u] = floatBitsToUint(smoothstep(0.25, 0.75, f));
})");
  ASSERT_FALSE(s.code.empty());
  Job r;
  auto a = random_words(32, 5);
  a[0] = 0; a[1] = 0xFFFFFFFFu; a[2] = 1; a[3] = 0x80000000u; a[4] = 0x7FFFFFFFu; a[5] = 0x40;
  r.buffers = {a, std::vector<uint32_t>(32 * 5)};
  ASSERT_OK(execute(s, r));
  for (uint32_t i = 0; i < 32; ++i) {
    uint32_t x = a[i];
    int32_t umsb = x ? 31 - std::countl_zero(x) : -1;
    int32_t sx = int32_t(x), sv = sx < 0 ? ~sx : sx;
    int32_t smsb = sv ? 31 - std::countl_zero(uint32_t(sv)) : -1;
    int32_t lsb = x ? std::countr_zero(x) : -1;
    EXPECT_EQ(int32_t(r.buffers[1][i * 5]), umsb) << i;
    EXPECT_EQ(int32_t(r.buffers[1][i * 5 + 1]), smsb) << i;
    EXPECT_EQ(int32_t(r.buffers[1][i * 5 + 2]), lsb) << i;
    float f = float(x & 255u) * (1.0f / 255.0f);
    EXPECT_EQ(bitsf(r.buffers[1][i * 5 + 3]), f < 0.5f ? 0.0f : 1.0f) << i;
    double t = std::clamp((double(f) - 0.25) / 0.5, 0.0, 1.0);
    EXPECT_NEAR(bitsf(r.buffers[1][i * 5 + 4]), t * t * (3 - 2 * t), 1e-6) << i;
  }
}

}  // namespace
}  // namespace agx::compiler::test

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

TEST(Exec, SpillsWhenMoreValuesLiveThanRegisters) {
  // 200 loaded values all live at once: more than the 128 registers, so
  // some go to the stack and come back.
  std::string src = many_live_values("uint", 200);
  src += "  uint s = 0u;\n";
  for (int i = 0; i < 200; ++i) src += "  s = s * 3u + v" + std::to_string(199 - i) + ";\n";
  src += "  o[gl_GlobalInvocationID.x] = s;\n}\n";
  Shader s = must_compile(src);
  ASSERT_FALSE(s.code.empty());
  EXPECT_GT(s.stats.spills, 0u);
  EXPECT_GE(s.stats.fills, s.stats.spills);
  EXPECT_LE(s.stats.gprs, 256u);
  Job r;
  auto a = random_words(32 * 200, 31);
  r.buffers = {a, std::vector<uint32_t>(32)};
  ASSERT_OK(execute(s, r));
  for (uint32_t t = 0; t < 32; ++t) {
    uint32_t sum = 0;
    for (int i = 0; i < 200; ++i) sum = sum * 3u + a[t * 200 + 199 - i];
    EXPECT_EQ(r.buffers[1][t], sum) << t;
  }
}

}  // namespace
}  // namespace agx::compiler::test

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

TEST(Exec, EarlyReturnsFromIfsAndLoops) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 32) in;
layout(push_constant) uniform P { uint n; } pc;
layout(set = 0, binding = 0) buffer A { uint a[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= pc.n) return;
  for (uint k = 0u; k < 4u + i % 5u; ++k) {
    if (a[i] > 1000u) return;
    a[i] += k * 300u;
  }
  a[i] *= 2u;
})");
  ASSERT_FALSE(s.code.empty());
  Job r;
  auto a = random_words(64, 17, 1200);
  r.buffers = {a};
  r.push = {50};
  r.groups = {2, 1, 1};
  ASSERT_OK(execute(s, r));
  for (uint32_t i = 0; i < 64; ++i) {
    uint32_t v = a[i];
    bool returned = i >= 50;
    for (uint32_t k = 0; !returned && k < 4 + i % 5; ++k) {
      if (v > 1000) { returned = true; break; }
      v += k * 300;
    }
    if (!returned) v *= 2;
    EXPECT_EQ(r.buffers[0][i], v) << i;
  }
}

}  // namespace
}  // namespace agx::compiler::test
