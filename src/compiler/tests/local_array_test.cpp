// Dynamically indexed local (Function / Private) variables, run on the usc
// emulator against the same computation in C++: arrays on the stack and in
// registers (select chains up to 16 bytes), loops over them, a bubble sort,
// arrays of vec4, structs, matrices, nested arrays, 64-bit integers,
// initializers, whole-array copies, and clamped out-of-range indices.
#include <algorithm>
#include <bit>
#include <random>

#include "buffer_words.h"
#include "run_helpers.h"
#include "compiler/tests/mutation_rounds.h"

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

TEST(LocalArrays, ReadAndWriteByDynamicIndexOnTheStack) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer I { uint idx[]; };
layout(set = 0, binding = 1) buffer O { uint o[]; };
void main() {
  uint t = gl_GlobalInvocationID.x;
  uint a[24];
  for (uint i = 0u; i < 24u; ++i) a[i] = t * 100u + i * i;
  a[idx[t * 2u] % 24u] += 7u;                 // read-modify-write at a run-time index
  o[t] = a[idx[t * 2u + 1u] % 24u] ^ a[(t + 5u) % 24u];
})");
  ASSERT_FALSE(s.code.empty());
  EXPECT_EQ(s.stats.scratch_B, 96u);  // 24 words on the stack, no spills
  Job r;
  auto idx = random_words(128, 3, 1000);
  r.buffers = {idx, std::vector<uint32_t>(64)};
  ASSERT_OK(execute(s, r));
  for (uint32_t t = 0; t < 64; ++t) {
    uint32_t a[24];
    for (uint32_t i = 0; i < 24; ++i) a[i] = t * 100 + i * i;
    a[idx[t * 2] % 24] += 7;
    EXPECT_EQ(r.buffers[1][t], a[idx[t * 2 + 1] % 24] ^ a[(t + 5) % 24]) << t;
  }
}

TEST(LocalArrays, PrefixSumsInALoop) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer I { uint x[]; };
layout(set = 0, binding = 1) buffer O { uint o[]; };
void main() {
  uint t = gl_GlobalInvocationID.x;
  uint n = 8u + t % 9u;              // a run-time trip count keeps the array whole
  uint a[16];
  for (uint i = 0u; i < n; ++i) a[i] = x[t * 16u + i];
  for (uint i = 1u; i < n; ++i) a[i] += a[i - 1u];
  for (uint i = 0u; i < 16u; ++i) o[t * 16u + i] = i < n ? a[i] : 0u;
})");
  ASSERT_FALSE(s.code.empty());
  Job r;
  auto x = random_words(32 * 16, 5, 1 << 20);
  r.buffers = {x, std::vector<uint32_t>(32 * 16)};
  ASSERT_OK(execute(s, r));
  for (uint32_t t = 0; t < 32; ++t) {
    uint32_t n = 8 + t % 9, sum = 0;
    for (uint32_t i = 0; i < 16; ++i) {
      if (i < n) sum += x[t * 16 + i];
      EXPECT_EQ(r.buffers[1][t * 16 + i], i < n ? sum : 0u) << t << " " << i;
    }
  }
}

TEST(LocalArrays, BubbleSortPerThread) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer I { int x[]; };
layout(set = 0, binding = 1) buffer O { int o[]; };
void main() {
  uint t = gl_GlobalInvocationID.x;
  int a[20];
  for (int i = 0; i < 20; ++i) a[i] = x[t * 20u + uint(i)];
  for (int i = 0; i < 19; ++i)
    for (int j = 0; j < 19 - i; ++j)
      if (a[j] > a[j + 1]) { int k = a[j]; a[j] = a[j + 1]; a[j + 1] = k; }
  for (int i = 0; i < 20; ++i) o[t * 20u + uint(i)] = a[i];
})");
  ASSERT_FALSE(s.code.empty());
  Job r;
  auto x = random_words(64 * 20, 7);
  r.buffers = {x, std::vector<uint32_t>(64 * 20)};
  r.groups = {2, 1, 1};
  ASSERT_OK(execute(s, r));
  for (uint32_t t = 0; t < 64; ++t) {
    std::vector<int32_t> want(20);
    for (int i = 0; i < 20; ++i) want[i] = static_cast<int32_t>(x[t * 20 + i]);
    std::sort(want.begin(), want.end());
    for (int i = 0; i < 20; ++i) EXPECT_EQ(static_cast<int32_t>(r.buffers[1][t * 20 + i]), want[i]) << t << " " << i;
  }
}

TEST(LocalArrays, Vec4AndStructElements) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer I { uint k[]; };
layout(set = 0, binding = 1) buffer O { vec4 o[]; };
struct P { vec3 pos; float w; int id; vec2 uv; };
void main() {
  uint t = gl_GlobalInvocationID.x;
  vec4 v[6];
  P p[5];
  for (int i = 0; i < 6; ++i) v[i] = vec4(float(t), float(i), float(t * 2u + uint(i)), 0.5 * float(i));
  for (int i = 0; i < 5; ++i) p[i] = P(vec3(float(i), 1.0, float(t)), float(i) * 0.25, i * 10 + int(t), vec2(-float(i), 2.0));
  uint a = k[t] % 6u, b = (k[t] / 6u) % 5u;
  v[a].y += 100.0;              // one component through a dynamic element
  p[b].pos.z = v[a].y;          // a struct member through a dynamic element
  p[b].id += 1;
  P q = p[b];                   // a whole struct read at a run-time index
  o[t * 3u] = v[a];
  o[t * 3u + 1u] = vec4(q.pos, q.w);
  o[t * 3u + 2u] = vec4(float(q.id), q.uv, v[(a + 1u) % 6u][a % 4u]);
})");
  ASSERT_FALSE(s.code.empty());
  Job r;
  auto k = random_words(32, 11, 1000);
  r.buffers = {k, std::vector<uint32_t>(32 * 12)};
  ASSERT_OK(execute(s, r));
  for (uint32_t t = 0; t < 32; ++t) {
    uint32_t a = k[t] % 6, b = (k[t] / 6) % 5;
    float vy = float(a) + 100.0f;
    float want[12] = {float(t), vy, float(t * 2 + a), 0.5f * float(a),
                      float(b), 1.0f, vy, float(b) * 0.25f,
                      float(int(b) * 10 + int(t) + 1), -float(b), 2.0f, 0};
    uint32_t a1 = (a + 1) % 6, c = a % 4;
    float v1[4] = {float(t), float(a1) + (a1 == a ? 100.0f : 0.0f), float(t * 2 + a1), 0.5f * float(a1)};
    want[11] = v1[c];
    for (int i = 0; i < 12; ++i) EXPECT_EQ(bitsf(r.buffers[1][t * 12 + i]), want[i]) << t << " " << i;
  }
}

TEST(LocalArrays, MatricesNestedArraysAnd64BitIntegers) {
  Shader s = must_compile(R"(#version 450
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer I { uint k[]; };
layout(set = 0, binding = 1) buffer O { uint o[]; };
void main() {
  uint t = gl_GlobalInvocationID.x;
  mat3 m[3];
  int g[4][5];
  uint64_t w[6];
  for (int i = 0; i < 3; ++i) m[i] = mat3(float(i + 1)) + mat3(vec3(0.0), vec3(float(t)), vec3(0.0));
  for (int i = 0; i < 4; ++i) for (int j = 0; j < 5; ++j) g[i][j] = i * 10 + j + int(t);
  for (int i = 0; i < 6; ++i) w[i] = (uint64_t(t + 1u) << 32) + uint64_t(i * 3);
  uint a = k[t] % 3u, b = k[t] % 4u, c = (k[t] / 4u) % 5u, d = k[t] % 6u;
  m[a][1] *= 2.0;
  g[b][c] = -g[b][c];
  w[d] += 0xFFFFFFFFul;         // carries into the high word
  vec3 r = m[a] * vec3(1.0, 2.0, 3.0);
  o[t * 8u] = floatBitsToUint(r.x);
  o[t * 8u + 1u] = floatBitsToUint(r.y);
  o[t * 8u + 2u] = floatBitsToUint(r.z);
  o[t * 8u + 3u] = uint(g[b][c]);
  o[t * 8u + 4u] = uint(g[(b + 1u) % 4u][c]);
  o[t * 8u + 5u] = uint(w[d]);
  o[t * 8u + 6u] = uint(w[d] >> 32);
  o[t * 8u + 7u] = uint(w[(d + 1u) % 6u]);
})");
  ASSERT_FALSE(s.code.empty());
  Job r;
  auto k = random_words(32, 13, 100000);
  r.buffers = {k, std::vector<uint32_t>(32 * 8)};
  ASSERT_OK(execute(s, r));
  for (uint32_t t = 0; t < 32; ++t) {
    uint32_t a = k[t] % 3, b = k[t] % 4, c = (k[t] / 4) % 5, d = k[t] % 6;
    // m[a]: diagonal a+1, column 1 += t, then column 1 doubled.
    float m[3][3] = {};
    for (int i = 0; i < 3; ++i) m[i][i] = float(a + 1);
    for (int i = 0; i < 3; ++i) m[1][i] += float(t);
    for (int i = 0; i < 3; ++i) m[1][i] *= 2.0f;
    float v[3] = {1, 2, 3}, res[3] = {};
    for (int row = 0; row < 3; ++row)
      for (int col = 0; col < 3; ++col) res[row] += m[col][row] * v[col];
    for (int i = 0; i < 3; ++i) EXPECT_EQ(bitsf(r.buffers[1][t * 8 + i]), res[i]) << t;
    EXPECT_EQ(int32_t(r.buffers[1][t * 8 + 3]), -int32_t(b * 10 + c + t)) << t;
    EXPECT_EQ(int32_t(r.buffers[1][t * 8 + 4]), int32_t(((b + 1) % 4) * 10 + c + t)) << t;
    uint64_t wd = (uint64_t(t + 1) << 32) + d * 3 + 0xFFFFFFFFull;
    EXPECT_EQ(r.buffers[1][t * 8 + 5], uint32_t(wd)) << t;
    EXPECT_EQ(r.buffers[1][t * 8 + 6], uint32_t(wd >> 32)) << t;
    EXPECT_EQ(r.buffers[1][t * 8 + 7], ((d + 1) % 6) * 3) << t;
  }
}

TEST(LocalArrays, PrivateInitializerAndWholeArrayCopies) {
  // As piglit's texture-implicit-lod files: a global array with an
  // initializer, read at gl_LocalInvocationIndex; and an array copied whole
  // then changed (the copy keeps its own values).
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) buffer O { vec4 o[]; };
vec2 texcoord[8] = { vec2(0, 0), vec2(1, 0), vec2(0, 1), vec2(1, 1),
                     vec2(2, 0), vec2(2, 1), vec2(0, 2), vec2(2, 2) };
void main() {
  uint i = gl_LocalInvocationIndex;
  vec2 b[8] = texcoord;
  texcoord[i] *= 10.0;
  b[(i + 1u) % 8u].x += 0.5;
  o[i * 2u] = vec4(texcoord[i], b[i]);
  o[i * 2u + 1u] = vec4(b[(i + 1u) % 8u], texcoord[(i + 1u) % 8u]);
})");
  ASSERT_FALSE(s.code.empty());
  Job r;
  r.buffers = {std::vector<uint32_t>(64)};
  ASSERT_OK(execute(s, r));
  const float tc[8][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {2, 0}, {2, 1}, {0, 2}, {2, 2}};
  for (uint32_t i = 0; i < 8; ++i) {
    const uint32_t n = (i + 1) % 8;
    // Each thread has its own copies: only its texcoord[i] and b[n] changed.
    float want[8] = {tc[i][0] * 10, tc[i][1] * 10, tc[i][0], tc[i][1], tc[n][0] + 0.5f, tc[n][1], tc[n][0], tc[n][1]};
    for (int c = 0; c < 8; ++c) EXPECT_EQ(bitsf(r.buffers[0][i * 8 + c]), want[c]) << i << " " << c;
  }
}

TEST(LocalArrays, SmallArraysStayInRegisters) {
  // 16 bytes or less: select chains, no stack.
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer I { uint k[]; };
layout(set = 0, binding = 1) buffer O { uint o[]; };
void main() {
  uint t = gl_GlobalInvocationID.x;
  float a[4] = float[](1.5, 2.5, 3.5, float(t));
  uvec2 v[2] = uvec2[](uvec2(t, 7u), uvec2(9u, t * 3u));
  uint i = k[t] % 4u, j = (k[t] / 4u) % 2u, c = (k[t] / 8u) % 2u;
  a[i] += 10.0;
  v[j][c] = 100u + t;
  o[t * 4u] = floatBitsToUint(a[(i + 1u) % 4u]);
  o[t * 4u + 1u] = floatBitsToUint(a[i]);
  o[t * 4u + 2u] = v[j].x + v[j].y;
  o[t * 4u + 3u] = v[1u - j][c];
})");
  ASSERT_FALSE(s.code.empty());
  EXPECT_EQ(s.stats.scratch_B, 0u);
  EXPECT_EQ(s.ir_text.find("stack_"), std::string::npos) << s.ir_text;
  Job r;
  auto k = random_words(32, 17, 1000);
  r.buffers = {k, std::vector<uint32_t>(32 * 4)};
  ASSERT_OK(execute(s, r));
  for (uint32_t t = 0; t < 32; ++t) {
    float a[4] = {1.5f, 2.5f, 3.5f, float(t)};
    uint32_t v[2][2] = {{t, 7}, {9, t * 3}};
    uint32_t i = k[t] % 4, j = (k[t] / 4) % 2, c = (k[t] / 8) % 2;
    a[i] += 10.0f;
    v[j][c] = 100 + t;
    EXPECT_EQ(r.buffers[1][t * 4], fbits(a[(i + 1) % 4])) << t;
    EXPECT_EQ(r.buffers[1][t * 4 + 1], fbits(a[i])) << t;
    EXPECT_EQ(r.buffers[1][t * 4 + 2], v[j][0] + v[j][1]) << t;
    EXPECT_EQ(r.buffers[1][t * 4 + 3], v[1 - j][c]) << t;
  }
}

TEST(LocalArrays, OutOfRangeIndicesAreClampedToTheLastElement) {
  // Indices past the end (and negative ones, huge as unsigned) read and
  // write the last element: the rest of the array, the other variables and
  // the other threads' stacks keep their values.
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer I { int k[]; };
layout(set = 0, binding = 1) buffer O { int o[]; };
void main() {
  uint t = gl_GlobalInvocationID.x;
  int before[8], a[8], after[8];
  int s[3];
  for (int i = 0; i < 8; ++i) { before[i] = 1000 + i; a[i] = int(t) * 10 + i; after[i] = 2000 + i; }
  for (int i = 0; i < 3; ++i) s[i] = 50 + i;
  int x = k[t];                       // -3 .. 12: some in range, some not
  a[x] = -1;
  s[x] = -2;
  o[t * 4u] = a[x + 1];
  int sum = 0;
  for (int i = 0; i < 8; ++i) sum += a[i] * (i + 1) + before[i] + after[i];
  o[t * 4u + 1u] = sum;
  o[t * 4u + 2u] = s[0] + s[1] * 100 + s[2] * 10000;
  o[t * 4u + 3u] = a[int(t % 8u)];
})");
  ASSERT_FALSE(s.code.empty());
  Job r;
  std::vector<uint32_t> k(64);
  for (uint32_t t = 0; t < 64; ++t) k[t] = static_cast<uint32_t>(static_cast<int32_t>(t % 16) - 3);
  r.buffers = {k, std::vector<uint32_t>(64 * 4)};
  ASSERT_OK(execute(s, r));
  auto clamp = [](int64_t i, int64_t n) { return i < 0 || i >= n ? n - 1 : i; };
  for (uint32_t t = 0; t < 64; ++t) {
    int32_t a[8], sv[3] = {50, 51, 52};
    for (int i = 0; i < 8; ++i) a[i] = int32_t(t) * 10 + i;
    int32_t x = int32_t(k[t]);
    a[clamp(x, 8)] = -1;
    sv[clamp(x, 3)] = -2;
    EXPECT_EQ(int32_t(r.buffers[1][t * 4]), a[clamp(int64_t(x) + 1, 8)]) << t;
    int32_t sum = 0;
    for (int i = 0; i < 8; ++i) sum += a[i] * (i + 1) + 1000 + i + 2000 + i;
    EXPECT_EQ(int32_t(r.buffers[1][t * 4 + 1]), sum) << t;
    EXPECT_EQ(int32_t(r.buffers[1][t * 4 + 2]), sv[0] + sv[1] * 100 + sv[2] * 10000) << t;
    EXPECT_EQ(int32_t(r.buffers[1][t * 4 + 3]), a[t % 8]) << t;
  }
}

TEST(LocalArrays, StructOfArraysWithBoolsAndABreak) {
  // A struct with an array member and a bool array, a vec4 written at a
  // run-time component, and a loop that breaks on a bool read back.
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer O { uint o[]; };
struct S { uint n; uint v[6]; bool f[3]; };
void main() {
  uint t = gl_GlobalInvocationID.x;
  S s;
  s.n = t;
  for (uint i = 0u; i < 6u; ++i) s.v[i] = i + t;
  for (uint i = 0u; i < 3u; ++i) s.f[i] = (t & (8u << i)) != 0u;
  vec4 w = vec4(t);
  w[t % 4u] = 2.0;
  uint acc = 0u;
  for (uint i = 0u; i < o[0]; ++i) {
    if (s.f[i % 3u] && i > 4u) break;
    acc += s.v[(i * 5u) % 6u];
    s.v[i % 6u] ^= acc;
  }
  o[t + 1u] = acc + uint(w[(t + 1u) % 4u]) * 1000u + uint(w[t % 4u]) * 100000u + (s.f[t % 3u] ? 7u : 0u);
})");
  ASSERT_FALSE(s.code.empty());
  Job r;
  std::vector<uint32_t> o(33, 0);
  o[0] = 20;
  r.buffers = {o};
  ASSERT_OK(execute(s, r));
  for (uint32_t t = 0; t < 32; ++t) {
    uint32_t v[6];
    bool f[3];
    for (uint32_t i = 0; i < 6; ++i) v[i] = i + t;
    for (uint32_t i = 0; i < 3; ++i) f[i] = (t & (8u << i)) != 0;
    float w[4] = {float(t), float(t), float(t), float(t)};
    w[t % 4] = 2.0f;
    uint32_t acc = 0;
    // o[0] is the trip count (outputs go to o[1..32]).
    for (uint32_t i = 0; i < 20; ++i) {
      if (f[i % 3] && i > 4) break;
      acc += v[(i * 5) % 6];
      v[i % 6] ^= acc;
    }
    uint32_t want = acc + uint32_t(w[(t + 1) % 4]) * 1000 + uint32_t(w[t % 4]) * 100000 + (f[t % 3] ? 7 : 0);
    EXPECT_EQ(r.buffers[0][t + 1], want) << t;
  }
}

TEST(LocalArrays, MutatedModulesGiveShadersOrErrors) {
  // Bit flips, replaced and dropped words in a module with stack and
  // register arrays, structs and an initializer: never a crash.
  Options o;
  auto words_or = glsl_to_spirv(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer O { uint o[]; };
struct S { vec3 p; uint id; };
vec2 tc[4] = { vec2(0, 0), vec2(1, 0), vec2(0, 1), vec2(1, 1) };
void main() {
  uint t = gl_GlobalInvocationID.x;
  uint a[12];
  S s[3];
  float r[3];
  for (uint i = 0u; i < 12u; ++i) a[i] = i * t;
  for (uint i = 0u; i < 3u; ++i) { s[i].p = vec3(float(i)); s[i].id = i; r[i] = float(i); }
  a[o[t] % 12u] += 1u;
  s[t % 3u].id = a[(t + 1u) % 12u];
  r[t % 3u] = tc[t % 4u].y;
  o[t] = a[o[t + 1u]] + s[o[t + 2u] % 3u].id + uint(r[(t + 1u) % 3u]);
})", o);
  ASSERT_TRUE(words_or.ok());
  auto opt = optimize_spirv(*words_or, o);
  ASSERT_TRUE(opt.ok());
  std::mt19937 rng(91);
  EXPECT_GT(mutation_rounds(*opt, o, 150, rng).compiled, 0u);
}

TEST(LocalArrays, LoweringIsSelectChainsOrStackAccesses) {
  // The IR the lowering leaves (docs/compiler.md, "Local arrays"): a
  // 16-byte array read at a run-time index is a clamp and a 3-select chain
  // over its words, set by the initializer without a zero first; a 32-byte
  // one is two xyzw stores, a clamp and a stack access at a register
  // offset.
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer O { uint o[]; };
void main() {
  uint t = gl_GlobalInvocationID.x;
  uint a[4] = uint[](t, 5u, 6u, 7u);
  uint b[8] = uint[](t, 1u, 2u, 3u, 4u, 5u, 6u, 7u);
  b[o[t]] = 9u;
  o[t] = a[o[t + 1u]] + b[o[t + 2u]];
})");
  ASSERT_FALSE(s.code.empty());
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = s.ir_text.find(what); at != std::string::npos; at = s.ir_text.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("icmpsel.ueq"), 3u) << s.ir_text;   // a[i]: words 1..3 against word 0
  EXPECT_EQ(count("icmpsel.ult"), 3u) << s.ir_text;   // three clamped indices
  EXPECT_EQ(count("= mov #0x0"), 0u) << s.ir_text;    // no zero before the initializer
  EXPECT_EQ(count("x4 = collect"), 2u) << s.ir_text;  // b's initializer: two runs of 4 words
  EXPECT_EQ(count("stack_store"), 3u) << s.ir_text;
  EXPECT_EQ(count("stack_load"), 1u) << s.ir_text;
  EXPECT_EQ(s.stats.scratch_B, 32u);
}

TEST(LocalArrays, TooLargeAFrameIsAClearError) {
  auto s = compile(R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer O { float o[]; };
void main() {
  float a[5000];
  for (int i = 0; i < 5000; ++i) a[i] = float(i);
  o[0] = a[int(o[1])];
})");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("local arrays need at least 20000 bytes of stack per thread (at most 16384)"), std::string::npos)
      << s.error().message();
  // Two arrays under the limit that together are over it.
  s = compile(R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer O { float o[]; };
void main() {
  float a[3000], b[3000];
  for (int i = 0; i < 3000; ++i) { a[i] = float(i); b[i] = float(-i); }
  o[0] = a[int(o[1])] + b[int(o[2])];
})");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("local arrays need 24000 bytes of stack per thread (at most 16384)"), std::string::npos)
      << s.error().message();
}

}  // namespace
}  // namespace agx::compiler::test
