// 64-bit integers (GL_ARB_gpu_shader_int64): GLSL kernels run on the usc
// emulator against the same expressions in C++ on random and edge values.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <functional>
#include <random>

#include <fmt/format.h>

#include "compiler/tests/buffer_words.h"
#include "compiler/tests/run_helpers.h"

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

// Edge values first, then random ones of every magnitude.
std::vector<uint64_t> values(size_t n, uint32_t seed) {
  std::vector<uint64_t> v = {0, 1, 2, 3, 31, 32, 33, 63, 64, 0xFFFFFFFFull, 0x100000000ull, 0x7FFFFFFFFFFFFFFFull,
                             0x8000000000000000ull, ~0ull, ~0ull - 1, 0xFFFFFFFF00000000ull, 0x80000000ull, 29852643761ull,
                             static_cast<uint64_t>(-4398046511104ll), static_cast<uint64_t>(-1192ll)};
  std::mt19937_64 rng(seed);
  while (v.size() < n) {
    uint64_t x = rng();
    v.push_back(x >> (rng() % 64));
  }
  std::shuffle(v.begin() + 20, v.end(), rng);
  return v;
}

constexpr size_t kN = 128;

TEST(Int64, ArithmeticBitwiseAndShifts) {
  Shader s = must_compile(R"(#version 450
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer A { uint64_t a[]; };
layout(set = 0, binding = 1) buffer B { uint64_t b[]; };
layout(set = 0, binding = 2) buffer O { uint64_t o[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint64_t x = a[i], y = b[i];
  int64_t sx = int64_t(x);
  uint sh = uint(y) & 63u;
  o[i * 10 + 0] = x + y;
  o[i * 10 + 1] = x - y;
  o[i * 10 + 2] = x * y;
  o[i * 10 + 3] = (x & y) ^ (x | 0x123456789ul);
  o[i * 10 + 4] = ~x;
  o[i * 10 + 5] = x << sh;
  o[i * 10 + 6] = x >> sh;
  o[i * 10 + 7] = uint64_t(sx >> sh);
  o[i * 10 + 8] = uint64_t(-sx) + uint64_t(int64_t(int(uint(y))));
  o[i * 10 + 9] = uint64_t(uint(x)) + (uint64_t(uint(y)) << 32) * 3ul;
})");
  ASSERT_FALSE(s.code.empty());
  auto a = values(kN, 1), b = values(kN, 2);
  std::reverse(b.begin(), b.end());
  Job r;
  r.buffers = {words(a), words(b), std::vector<uint32_t>(kN * 20)};
  r.groups = {2, 1, 1};
  ASSERT_OK(execute(s, r));
  for (size_t i = 0; i < kN; ++i) {
    uint64_t x = a[i], y = b[i];
    unsigned sh = static_cast<uint32_t>(y) & 63;
    const auto& o = r.buffers[2];
    EXPECT_EQ(at(o, i * 10 + 0), x + y) << i;
    EXPECT_EQ(at(o, i * 10 + 1), x - y) << i;
    EXPECT_EQ(at(o, i * 10 + 2), x * y) << i;
    EXPECT_EQ(at(o, i * 10 + 3), (x & y) ^ (x | 0x123456789ull)) << i;
    EXPECT_EQ(at(o, i * 10 + 4), ~x) << i;
    EXPECT_EQ(at(o, i * 10 + 5), x << sh) << i << " " << sh;
    EXPECT_EQ(at(o, i * 10 + 6), x >> sh) << i << " " << sh;
    EXPECT_EQ(at(o, i * 10 + 7), static_cast<uint64_t>(static_cast<int64_t>(x) >> sh)) << i;
    EXPECT_EQ(at(o, i * 10 + 8), (0 - x) + static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(y)))) << i;
    EXPECT_EQ(at(o, i * 10 + 9), (x & 0xFFFFFFFFu) + ((y & 0xFFFFFFFFu) << 32) * 3) << i;
  }
}

TEST(Int64, ComparisonsMinMaxAbsSign) {
  Shader s = must_compile(R"(#version 450
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer A { i64vec2 a[]; };
layout(set = 0, binding = 1) buffer O { uint o[]; };
layout(set = 0, binding = 2) buffer W { int64_t wv[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  int64_t x = a[i].x, y = a[i].y;
  uint64_t ux = uint64_t(x), uy = uint64_t(y);
  uint bits = 0u;
  if (x < y) bits |= 1u;
  if (x <= y) bits |= 2u;
  if (x > y) bits |= 4u;
  if (x >= y) bits |= 8u;
  if (x == y) bits |= 16u;
  if (x != y) bits |= 32u;
  if (ux < uy) bits |= 64u;
  if (ux <= uy) bits |= 128u;
  if (ux > uy) bits |= 256u;
  if (ux >= uy) bits |= 512u;
  bvec2 lt = lessThan(i64vec2(x, y), i64vec2(y, x));
  bits |= (lt.x ? 1024u : 0u) | (lt.y ? 2048u : 0u);
  o[i] = bits;
  wv[i * 8 + 0] = min(x, y);
  wv[i * 8 + 1] = max(x, y);
  wv[i * 8 + 2] = int64_t(min(ux, uy));
  wv[i * 8 + 3] = int64_t(max(ux, uy));
  wv[i * 8 + 4] = abs(x);
  wv[i * 8 + 5] = sign(x);
  wv[i * 8 + 6] = clamp(x, -1000l, 1000000000000l);
  wv[i * 8 + 7] = x == y ? 7l : (x < y ? y : x);
})");
  ASSERT_FALSE(s.code.empty());
  auto a = values(kN * 2, 3);
  for (size_t i = 0; i < 16; ++i) a[2 * i + 1] = a[2 * i];  // some equal pairs
  for (size_t i = 16; i < 24; ++i) a[2 * i + 1] = a[2 * i] ^ 1;  // equal high words
  Job r;
  r.buffers = {words(a), std::vector<uint32_t>(kN), std::vector<uint32_t>(kN * 16)};
  r.groups = {2, 1, 1};
  ASSERT_OK(execute(s, r));
  for (size_t i = 0; i < kN; ++i) {
    int64_t x = static_cast<int64_t>(a[2 * i]), y = static_cast<int64_t>(a[2 * i + 1]);
    uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
    uint32_t bits = (x < y) | (x <= y) << 1 | (x > y) << 2 | (x >= y) << 3 | (x == y) << 4 | (x != y) << 5 |
                    (ux < uy) << 6 | (ux <= uy) << 7 | (ux > uy) << 8 | (ux >= uy) << 9 | (x < y) << 10 | (y < x) << 11;
    EXPECT_EQ(r.buffers[1][i], bits) << i << " " << x << " " << y;
    const auto& w = r.buffers[2];
    EXPECT_EQ(static_cast<int64_t>(at(w, i * 8 + 0)), std::min(x, y)) << i;
    EXPECT_EQ(static_cast<int64_t>(at(w, i * 8 + 1)), std::max(x, y)) << i;
    EXPECT_EQ(at(w, i * 8 + 2), std::min(ux, uy)) << i;
    EXPECT_EQ(at(w, i * 8 + 3), std::max(ux, uy)) << i;
    EXPECT_EQ(at(w, i * 8 + 4), x < 0 ? 0 - ux : ux) << i;
    EXPECT_EQ(static_cast<int64_t>(at(w, i * 8 + 5)), x < 0 ? -1 : x > 0 ? 1 : 0) << i;
    EXPECT_EQ(static_cast<int64_t>(at(w, i * 8 + 6)), std::clamp<int64_t>(x, -1000, 1000000000000)) << i;
    EXPECT_EQ(static_cast<int64_t>(at(w, i * 8 + 7)), x == y ? 7 : std::max(x, y)) << i;
  }
}

TEST(Int64, DivisionAndModulo) {
  Shader s = must_compile(R"(#version 450
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer A { uint64_t a[]; };
layout(set = 0, binding = 1) buffer O { uint64_t o[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint64_t x = a[2 * i], y = a[2 * i + 1];
  int64_t sx = int64_t(x), sy = int64_t(y);
  o[i * 4 + 0] = x / y;
  o[i * 4 + 1] = x % y;
  o[i * 4 + 2] = uint64_t(sx / sy);
  o[i * 4 + 3] = uint64_t(sx % sy);
})");
  ASSERT_FALSE(s.code.empty());
  auto a = values(kN * 2, 4);
  for (size_t i = 0; i < a.size(); i += 2)
    if (a[i + 1] == 0) a[i + 1] = 3;
  a[2] = 0x8000000000000000ull; a[3] = ~0ull;  // INT64_MIN / -1 is undefined in C++: avoid below
  Job r;
  r.buffers = {words(a), std::vector<uint32_t>(kN * 8)};
  r.groups = {2, 1, 1};
  ASSERT_OK(execute(s, r));
  for (size_t i = 0; i < kN; ++i) {
    uint64_t x = a[2 * i], y = a[2 * i + 1];
    int64_t sx = static_cast<int64_t>(x), sy = static_cast<int64_t>(y);
    const auto& o = r.buffers[1];
    EXPECT_EQ(at(o, i * 4 + 0), x / y) << i << " " << x << " / " << y;
    EXPECT_EQ(at(o, i * 4 + 1), x % y) << i;
    if (sx == INT64_MIN && sy == -1) continue;
    EXPECT_EQ(static_cast<int64_t>(at(o, i * 4 + 2)), sx / sy) << i << " " << sx << " / " << sy;
    // GLSL's % on signed operands: glslang emits OpSMod (the divisor's sign)
    int64_t m = sx % sy;
    if (m != 0 && ((m < 0) != (sy < 0))) m += sy;
    EXPECT_EQ(static_cast<int64_t>(at(o, i * 4 + 3)), m) << i << " " << sx << " % " << sy;
  }
}

TEST(Int64, LooseUniformsPhisAndPacking) {
  Shader s = must_compile(R"(#version 450
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer O { uint64_t o[]; };
layout(location = 0) uniform uint n;
layout(location = 1) uniform int64_t start;
layout(location = 2) uniform u64vec2 step;
void main() {
  uint i = gl_GlobalInvocationID.x;
  int64_t acc = start;
  uint64_t p = 1ul;
  for (uint k = 0u; k < n + i; ++k) {
    acc += int64_t(step.x);
    p *= step.y;
  }
  o[i * 2 + 0] = uint64_t(acc);
  o[i * 2 + 1] = p ^ packUint2x32(uvec2(i, 7u));
}
)", TargetEnv::opengl);
  ASSERT_FALSE(s.code.empty());
  ASSERT_EQ(s.abi.loose_uniforms.size(), 3u);
  EXPECT_EQ(s.abi.loose_uniforms[1].uniform % 2, 0u) << "int64 uniforms start 8-byte aligned";
  EXPECT_EQ(s.abi.loose_uniforms[2].uniform % 2, 0u);
  uint32_t base = s.abi.push_constants_uniform;
  Job r;
  r.buffers = {std::vector<uint32_t>(64 * 2)};
  int64_t start = -5000000000ll;
  uint64_t step_x = 0x100000001ull, step_y = 3;
  r.push.resize(s.abi.loose_uniforms[2].uniform - base + 4);
  r.push[s.abi.loose_uniforms[0].uniform - base] = 3;
  auto put64 = [&](uint32_t u, uint64_t v) {
    r.push[u - base] = static_cast<uint32_t>(v);
    r.push[u - base + 1] = static_cast<uint32_t>(v >> 32);
  };
  put64(s.abi.loose_uniforms[1].uniform, static_cast<uint64_t>(start));
  put64(s.abi.loose_uniforms[2].uniform, step_x);
  put64(s.abi.loose_uniforms[2].uniform + 2, step_y);
  ASSERT_OK(execute(s, r));
  for (uint32_t i = 0; i < 32; ++i) {
    uint64_t acc = static_cast<uint64_t>(start), p = 1;
    for (uint32_t k = 0; k < 3 + i; ++k) { acc += step_x; p *= step_y; }
    EXPECT_EQ(at(r.buffers[0], i * 2), acc) << i;
    EXPECT_EQ(at(r.buffers[0], i * 2 + 1), p ^ (uint64_t{7} << 32 | i)) << i;
  }
}

TEST(Int64, SharedAtomicsUnderTheLock) {
  Shader s = must_compile(R"(#version 450
#extension GL_ARB_gpu_shader_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer O { uint64_t o[]; };
shared uint64_t sum;
shared int64_t lo;
shared uint64_t hi;
shared uint64_t bits, mask;
void main() {
  uint i = gl_LocalInvocationIndex;
  if (i == 0u) { sum = 0ul; lo = 0l; hi = 0ul; bits = 0ul; mask = ~0ul; }
  barrier();
  uint64_t v = (uint64_t(i) << 33) | uint64_t(i);
  uint64_t old = atomicAdd(sum, v);
  atomicMin(lo, -int64_t(v));
  atomicMax(hi, v);
  atomicXor(bits, 1ul << i);
  atomicAnd(mask, ~(1ul << i));
  barrier();
  if (i == 0u) { o[0] = sum; o[1] = uint64_t(lo); o[2] = hi; o[3] = bits; o[4] = mask; }
})");
  ASSERT_FALSE(s.code.empty());
  Job r;
  r.buffers = {std::vector<uint32_t>(2 * 5)};
  ASSERT_OK(execute(s, r));
  uint64_t sum = 0;
  for (uint64_t i = 0; i < 64; ++i) sum += (i << 33) | i;
  EXPECT_EQ(at(r.buffers[0], 0), sum);
  EXPECT_EQ(static_cast<int64_t>(at(r.buffers[0], 1)), -static_cast<int64_t>((63ull << 33) | 63));
  EXPECT_EQ(at(r.buffers[0], 2), (63ull << 33) | 63);
  EXPECT_EQ(at(r.buffers[0], 3), ~0ull);
  EXPECT_EQ(at(r.buffers[0], 4), 0ull);
}

TEST(Int64, SharedLockIsClearedBeforeUse) {
  // Threadgroup memory starts undefined: the lock word is cleared by one
  // thread and a barrier comes before the first lock exchange.
  Shader s = must_compile(R"(#version 450
#extension GL_ARB_gpu_shader_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer O { uint64_t o[]; };
shared uint64_t v;
void main() { o[gl_LocalInvocationIndex] = atomicAdd(v, 1ul); }
)");
  ASSERT_FALSE(s.code.empty());
  const std::string& ir = s.ir_text;
  std::string lock = fmt::format("#0x{:x}", s.abi.threadgroup_memory_B - 4);
  size_t clear = ir.find("local_store"), barrier = ir.find("barrier"), take = ir.find("local_atomic.xchg " + lock);
  ASSERT_NE(clear, std::string::npos) << ir;
  ASSERT_NE(take, std::string::npos) << ir;
  EXPECT_NE(ir.find(lock, clear), std::string::npos);
  EXPECT_LT(clear, barrier);
  EXPECT_LT(barrier, take);
}

TEST(Int64, BufferAtomicsUnderTheDeviceLock) {
  Shader s = must_compile(R"(#version 450
#extension GL_ARB_gpu_shader_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer O { uint64_t sum; int64_t lo; uint64_t bits; uint64_t swapped; uint64_t old[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint64_t v = (uint64_t(i + 1u) << 33) | uint64_t(i + 1u);
  old[i] = atomicAdd(sum, v);
  atomicMin(lo, -int64_t(v));
  atomicXor(bits, 1ul << (i % 64u));
  atomicCompSwap(swapped, uint64_t(i), uint64_t(i) + 1ul);
})");
  ASSERT_FALSE(s.code.empty());
  ASSERT_NE(s.abi.atomic_lock_uniform, UINT32_MAX);
  EXPECT_EQ(s.abi.atomic_lock_uniform % 2, 0u);
  constexpr uint32_t kThreads = 256;
  Job r;
  r.buffers = {std::vector<uint32_t>(2 * (4 + kThreads))};
  r.groups = {kThreads / 64, 1, 1};
  ASSERT_OK(execute(s, r));
  const auto& o = r.buffers[0];
  uint64_t sum = 0;
  for (uint64_t i = 1; i <= kThreads; ++i) sum += (i << 33) | i;
  EXPECT_EQ(at(o, 0), sum);
  EXPECT_EQ(static_cast<int64_t>(at(o, 1)), -static_cast<int64_t>((uint64_t{kThreads} << 33) | kThreads));
  EXPECT_EQ(at(o, 2), 0ull);  // every bit flipped 4 times
  // The old values are the partial sums of some order of the v's: distinct,
  // and each one plus its own v is another one or the total.
  std::vector<uint64_t> olds;
  for (uint32_t i = 0; i < kThreads; ++i) olds.push_back(at(o, 4 + i));
  std::vector<uint64_t> sorted = olds;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());
  for (uint32_t i = 0; i < kThreads; ++i) {
    uint64_t next = olds[i] + ((uint64_t{i + 1} << 33) | (i + 1));
    EXPECT_TRUE(next == sum || std::binary_search(sorted.begin(), sorted.end(), next)) << i;
  }
  // Compare-and-swap chains 0 -> 1 -> ... as far as the lock order lets it.
  EXPECT_GE(at(o, 3), 1ull);
  EXPECT_LE(at(o, 3), uint64_t{kThreads});
}

TEST(Int64, ConversionsToAndFromFloat) {
  Shader s = must_compile(R"(#version 450
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer A { uint64_t a[]; };
layout(set = 0, binding = 1) buffer F { float f[]; };
layout(set = 0, binding = 2) buffer O { float of[]; };
layout(set = 0, binding = 3) buffer P { uint64_t oi[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  of[i * 2 + 0] = float(a[i]);
  of[i * 2 + 1] = float(int64_t(a[i]));
  oi[i * 2 + 0] = uint64_t(f[i] < 0.0 ? -f[i] : f[i]);
  oi[i * 2 + 1] = uint64_t(int64_t(f[i]));
})");
  ASSERT_FALSE(s.code.empty());
  auto a = values(kN, 5);
  // Halfway and sticky cases of the rounding.
  a[40] = (1ull << 40) + (1ull << 16);           // exactly halfway, even below: down
  a[41] = (1ull << 40) + (1ull << 16) + 1;       // just above halfway: up
  a[42] = (1ull << 40) + (3ull << 16);           // halfway, odd below: up
  a[43] = 0xFFFFFFFFFFFFFFFFull;                 // rounds up to 2^64
  std::vector<uint32_t> fl(kN);
  std::mt19937 rng(6);
  for (size_t i = 0; i < kN; ++i) {
    float mag = std::ldexp(static_cast<float>(rng() % 0xFFFFFF) / 0xFFFFFF, static_cast<int>(rng() % 62));
    float v = i % 3 == 0 ? -mag : mag;
    if (i < 8) v = std::array<float, 8>{0.0f, -0.0f, 0.5f, -0.75f, 1.0f, -1.0f, 4.6116860e18f, -4.6116860e18f}[i];
    fl[i] = std::bit_cast<uint32_t>(v);
  }
  Job r;
  r.buffers = {words(a), fl, std::vector<uint32_t>(kN * 2), std::vector<uint32_t>(kN * 4)};
  r.groups = {2, 1, 1};
  ASSERT_OK(execute(s, r));
  for (size_t i = 0; i < kN; ++i) {
    EXPECT_EQ(r.buffers[2][i * 2], std::bit_cast<uint32_t>(static_cast<float>(a[i]))) << i << " " << a[i];
    EXPECT_EQ(r.buffers[2][i * 2 + 1], std::bit_cast<uint32_t>(static_cast<float>(static_cast<int64_t>(a[i])))) << i;
    float v = std::bit_cast<float>(fl[i]);
    EXPECT_EQ(at(r.buffers[3], i * 2), static_cast<uint64_t>(std::fabs(v))) << i << " " << v;
    EXPECT_EQ(static_cast<int64_t>(at(r.buffers[3], i * 2 + 1)), static_cast<int64_t>(v)) << i << " " << v;
  }
}

// Differential test: random 64-bit integer expressions over x, y, z
// (uint64_t; uniform u: a loose uniform pair), in GLSL and in C++.
struct Expr64 {
  std::string glsl;
  std::function<uint64_t(uint64_t, uint64_t, uint64_t, uint64_t)> eval;
};

Expr64 random_int64(std::mt19937_64& rng, int depth) {
  using F = std::function<uint64_t(uint64_t, uint64_t, uint64_t, uint64_t)>;
  auto leaf = [&]() -> Expr64 {
    switch (rng() % 6) {
      case 0: return {"x", [](uint64_t x, uint64_t, uint64_t, uint64_t) { return x; }};
      case 1: return {"y", [](uint64_t, uint64_t y, uint64_t, uint64_t) { return y; }};
      case 2: return {"z", [](uint64_t, uint64_t, uint64_t z, uint64_t) { return z; }};
      case 3: return {"u", [](uint64_t, uint64_t, uint64_t, uint64_t u) { return u; }};
      default: {
        uint64_t c = rng() % 3 ? rng() % 300 : rng();
        return {std::to_string(c) + "ul", [c](uint64_t, uint64_t, uint64_t, uint64_t) { return c; }};
      }
    }
  };
  if (depth == 0 || rng() % 6 == 0) return leaf();
  Expr64 a = random_int64(rng, depth - 1), b = random_int64(rng, depth - 1);
  F A = a.eval, B = b.eval;
  auto S = [](uint64_t v) { return static_cast<int64_t>(v); };
  auto bin = [&](const char* op, auto fn) -> Expr64 {
    return {"(" + a.glsl + " " + op + " " + b.glsl + ")",
            [=](uint64_t x, uint64_t y, uint64_t z, uint64_t u) { return fn(A(x, y, z, u), B(x, y, z, u)); }};
  };
  switch (rng() % 17) {
    case 0: return bin("+", [](uint64_t p, uint64_t q) { return p + q; });
    case 1: return bin("-", [](uint64_t p, uint64_t q) { return p - q; });
    case 2: return bin("*", [](uint64_t p, uint64_t q) { return p * q; });
    case 3: return bin("&", [](uint64_t p, uint64_t q) { return p & q; });
    case 4: return bin("|", [](uint64_t p, uint64_t q) { return p | q; });
    case 5: return bin("^", [](uint64_t p, uint64_t q) { return p ^ q; });
    case 6: return {"(" + a.glsl + " << uint(" + b.glsl + " & 63ul))",
                    [=](auto x, auto y, auto z, auto u) { return A(x, y, z, u) << (B(x, y, z, u) & 63); }};
    case 7: return {"(" + a.glsl + " >> uint(" + b.glsl + " & 63ul))",
                    [=](auto x, auto y, auto z, auto u) { return A(x, y, z, u) >> (B(x, y, z, u) & 63); }};
    case 8: return {"uint64_t(int64_t(" + a.glsl + ") >> uint(" + b.glsl + " & 63ul))",
                    [=](auto x, auto y, auto z, auto u) { return static_cast<uint64_t>(S(A(x, y, z, u)) >> (B(x, y, z, u) & 63)); }};
    case 9: return {"min(" + a.glsl + ", " + b.glsl + ")",
                    [=](auto x, auto y, auto z, auto u) { return std::min(A(x, y, z, u), B(x, y, z, u)); }};
    case 10: return {"uint64_t(max(int64_t(" + a.glsl + "), int64_t(" + b.glsl + ")))",
                     [=](auto x, auto y, auto z, auto u) { return static_cast<uint64_t>(std::max(S(A(x, y, z, u)), S(B(x, y, z, u)))); }};
    case 11: {
      Expr64 c = random_int64(rng, depth - 1);
      F C = c.eval;
      bool sign = rng() % 2;
      std::string cond = sign ? "int64_t(" + a.glsl + ") < int64_t(" + b.glsl + ")" : a.glsl + " < " + b.glsl;
      return {"(" + cond + " ? " + c.glsl + " : " + b.glsl + ")", [=](auto x, auto y, auto z, auto u) {
                uint64_t p = A(x, y, z, u), q = B(x, y, z, u);
                return (sign ? S(p) < S(q) : p < q) ? C(x, y, z, u) : q;
              }};
    }
    case 12: return {"(" + a.glsl + " / (" + b.glsl + " | 1ul))",
                     [=](auto x, auto y, auto z, auto u) { return A(x, y, z, u) / (B(x, y, z, u) | 1); }};
    case 13: return {"(" + a.glsl + " % (" + b.glsl + " | 1ul))",
                     [=](auto x, auto y, auto z, auto u) { return A(x, y, z, u) % (B(x, y, z, u) | 1); }};
    case 15: {
      // Signed division truncates (INT64_MIN / -1 wraps, as the lowering
      // gives); signed % is defined for non-negative operands only (GLSL
      // 4.60 section 5.9; glslang folds constants as a truncated remainder).
      if (rng() % 2)
        return {"uint64_t(int64_t(" + a.glsl + ") / int64_t(" + b.glsl + " | 1ul))", [=](auto x, auto y, auto z, auto u) {
                  int64_t p = S(A(x, y, z, u)), q = S(B(x, y, z, u) | 1);
                  return p == INT64_MIN && q == -1 ? static_cast<uint64_t>(p) : static_cast<uint64_t>(p / q);
                }};
      constexpr uint64_t kPos = 0x7FFFFFFFFFFFFFFFull;
      return {"uint64_t(int64_t(" + a.glsl + " & 0x7FFFFFFFFFFFFFFFul) % int64_t((" + b.glsl + " | 1ul) & 0x7FFFFFFFFFFFFFFFul))",
              [=](auto x, auto y, auto z, auto u) {
                return static_cast<uint64_t>(S(A(x, y, z, u) & kPos) % S((B(x, y, z, u) | 1) & kPos));
              }};
    }
    case 14: return {"uint64_t(int(uint(" + a.glsl + ")))",
                     [=](auto x, auto y, auto z, auto u) { return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(A(x, y, z, u)))); }};
    default: return {"(~" + a.glsl + ")", [=](auto x, auto y, auto z, auto u) { return ~A(x, y, z, u); }};
  }
}

TEST(Int64, RandomExpressionsMatchCpp) {
  std::mt19937_64 rng(getenv("AGX_INT64_RANDOM_SEED") ? std::strtoull(getenv("AGX_INT64_RANDOM_SEED"), nullptr, 0) : 64);
  int programs = getenv("AGX_INT64_RANDOM_PROGRAMS") ? std::atoi(getenv("AGX_INT64_RANDOM_PROGRAMS")) : 12;
  for (int prog = 0; prog < programs; ++prog) {
    std::vector<Expr64> exprs;
    for (int k = 0; k < 3; ++k) exprs.push_back(random_int64(rng, 4));
    std::string src = "#version 450\n#extension GL_ARB_gpu_shader_int64 : require\nlayout(local_size_x = 64) in;\n"
                      "layout(std430, binding = 0) buffer I { uint64_t v[]; };\n"
                      "layout(std430, binding = 1) buffer O { uint64_t o[]; };\n"
                      "layout(location = 0) uniform uint64_t u;\n"
                      "void main() {\n  uint i = gl_GlobalInvocationID.x;\n"
                      "  uint64_t x = v[i * 3u], y = v[i * 3u + 1u], z = v[i * 3u + 2u];\n";
    for (int k = 0; k < 3; ++k) src += "  o[i * 3u + " + std::to_string(k) + "u] = " + exprs[k].glsl + ";\n";
    src += "}\n";
    auto s = compile(src, TargetEnv::opengl);
    ASSERT_TRUE(s.ok()) << s.error().message() << "\n" << src;
    std::vector<uint64_t> in(64 * 3);
    for (auto& v : in) v = rng() % 4 ? rng() >> (rng() % 64) : rng() % 40;
    uint64_t u = rng();
    Job r;
    // By the ABI's resource list: I is left out when no expression reads it.
    size_t out_at = s->abi.resources.size() - 1;
    ASSERT_EQ(s->abi.resources[out_at].name, "O");
    r.buffers = out_at ? std::vector<std::vector<uint32_t>>{words(in), std::vector<uint32_t>(64 * 3 * 2)}
                       : std::vector<std::vector<uint32_t>>{std::vector<uint32_t>(64 * 3 * 2)};
    ASSERT_LE(s->abi.loose_uniforms.size(), 1u);  // none when no expression reads u
    if (!s->abi.loose_uniforms.empty()) {
      uint32_t at_u = s->abi.loose_uniforms[0].uniform - s->abi.push_constants_uniform;
      r.push.resize(at_u + 2);
      r.push[at_u] = static_cast<uint32_t>(u);
      r.push[at_u + 1] = static_cast<uint32_t>(u >> 32);
    }
    auto st = execute(*s, r);
    ASSERT_TRUE(st.ok()) << st.error().message() << "\n" << src;
    for (uint32_t i = 0; i < 64; ++i)
      for (int k = 0; k < 3; ++k) {
        uint64_t want = exprs[k].eval(in[i * 3], in[i * 3 + 1], in[i * 3 + 2], u);
        ASSERT_EQ(at(r.buffers[out_at], i * 3 + k), want) << "program " << prog << " expr " << k << " lane " << i
                                                           << " x=" << in[i * 3] << " y=" << in[i * 3 + 1]
                                                           << " z=" << in[i * 3 + 2] << " u=" << u << ": "
                                                      << exprs[k].glsl;
      }
  }
}

// Once refused; subgroup_gaps_test.cpp runs it against C++.
TEST(Int64, SubgroupMulTranslates) {
  auto s = compile(R"(#version 450
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_ARB_gpu_shader_int64 : require
#extension GL_EXT_shader_subgroup_extended_types_int64 : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer O { int64_t v[]; };
void main() { v[gl_GlobalInvocationID.x] = subgroupMul(v[gl_GlobalInvocationID.x]); }
)");
  ASSERT_TRUE(s.ok()) << s.error().message();
}

}  // namespace
}  // namespace agx::compiler::test
