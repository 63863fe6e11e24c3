// Loose uniforms and push constants read at run-time indices
// (translate_push_dynamic.cpp): matrix columns, array elements and
// components of float, double and 64-bit integer types, as select chains
// over the uniform registers. An offset past the end reads the first word
// the chain starts from (element 0 of every run-time index).
#include <bit>
#include <cstring>
#include <map>
#include <string>

#include "compiler/tests/buffer_words.h"
#include "compiler/tests/run_helpers.h"

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

uint64_t bits(double d) { return std::bit_cast<uint64_t>(d); }

TEST(LooseUniformIndex, MatricesArraysDoublesAndInt64) {
  Shader s = must_compile(R"(#version 450
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 16) in;
layout(location = 0) uniform mat3 m;
layout(location = 1) uniform dmat3 dm;
layout(location = 2) uniform double da[3];
layout(location = 5) uniform i64vec2 qa[2];
layout(location = 7) uniform vec2 va[4];
layout(std430, binding = 0) buffer B { uint k[]; };
layout(std430, binding = 1) buffer O { vec4 o[]; };
layout(std430, binding = 2) buffer D { double od[]; };
layout(std430, binding = 3) buffer Q { int64_t oq[]; };
void main() {
  uint t = gl_LocalInvocationIndex;
  uint i = k[t], j = k[t + 16u];
  o[t] = vec4(m[i], va[i].y);
  dvec3 c = dm[i];
  od[t * 4u] = c.x;
  od[t * 4u + 1u] = c.z;
  od[t * 4u + 2u] = da[i];
  od[t * 4u + 3u] = dm[i % 3u][j % 3u];
  oq[t] = qa[i].y;
})", TargetEnv::opengl);
  ASSERT_FALSE(s.code.empty());
  float m[3][3], va[4][2];
  double dm[3][3], da[3];
  int64_t qa[2][2] = {{-5, 0x123456789abcdefll}, {7, -0x7edcba9876543210ll}};
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) { m[c][r] = 1.5f * c + 0.25f * r; dm[c][r] = 1.0 / (3 + c * 3 + r); }
  for (int e = 0; e < 4; ++e) { va[e][0] = -1.0f * e; va[e][1] = 10.0f + e; }
  for (int e = 0; e < 3; ++e) da[e] = 1e300 / (e + 1);
  std::vector<uint32_t> push(64, 0);
  ASSERT_NO_FATAL_FAILURE(fill_loose(s, {{"m", m}, {"dm", dm}, {"da", da}, {"qa", qa}, {"va", va}}, push));
  std::vector<uint32_t> k(32);
  for (uint32_t t = 0; t < 16; ++t) { k[t] = t % 5; k[16 + t] = t * 7; }  // 3, 4: past the end of some
  Job r;
  r.buffers = {k, std::vector<uint32_t>(16 * 4), std::vector<uint32_t>(16 * 4 * 2), std::vector<uint32_t>(16 * 2)};
  r.push = push;
  ASSERT_OK(execute(s, r));
  auto in = [](uint32_t i, uint32_t n) { return i < n ? i : 0u; };  // past the end: element 0
  for (uint32_t t = 0; t < 16; ++t) {
    const uint32_t i = k[t], j = k[16 + t];
    for (int c = 0; c < 3; ++c) EXPECT_EQ(r.buffers[1][t * 4 + c], std::bit_cast<uint32_t>(m[in(i, 3)][c])) << t << " m " << c;
    EXPECT_EQ(r.buffers[1][t * 4 + 3], std::bit_cast<uint32_t>(va[in(i, 4)][1])) << t;
    EXPECT_EQ(at(r.buffers[2], t * 4), bits(dm[in(i, 3)][0])) << t;
    EXPECT_EQ(at(r.buffers[2], t * 4 + 1), bits(dm[in(i, 3)][2])) << t;
    EXPECT_EQ(at(r.buffers[2], t * 4 + 2), bits(da[in(i, 3)])) << t;
    EXPECT_EQ(at(r.buffers[2], t * 4 + 3), bits(dm[i % 3][j % 3])) << t;
    EXPECT_EQ(at(r.buffers[3], t), static_cast<uint64_t>(qa[in(i, 2)][1])) << t;
  }
}

// Loose uniform arrays loaded whole (OpenGL SPIR-V gives them no
// ArrayStride): compared with a local array, copied into a buffer, their
// elements array_strides_B apart (the natural layout, docs/compiler.md).
TEST(LooseUniformIndex, WholeArraysAtTheirNaturalStride) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 1) in;
layout(location = 0) uniform ivec4 e[3];
layout(location = 3) uniform vec3 f[2];
layout(location = 5) uniform mat3 m[2];
layout(location = 7) uniform float g[2][3];
layout(std430, binding = 0) buffer O { uint ok[4]; ivec4 copy[3]; };
void main() {
  ivec4 x[3] = ivec4[3](ivec4(1, 2, 3, 4), ivec4(5, 6, 7, 8), ivec4(9, 10, 11, -12));
  ok[0] = x == e ? 1u : 0u;
  vec3 h[2] = f;
  ok[1] = h[0] == vec3(0.5, 1.5, 2.5) && h[1] == vec3(-1.0, -2.0, -3.0) ? 1u : 0u;
  mat3 n[2] = m;
  ok[2] = n[0] == mat3(1, 2, 3, 4, 5, 6, 7, 8, 9) && n[1] == mat3(2) ? 1u : 0u;
  float k[2][3] = g;
  ok[3] = k[1][2] == 6.0 && k[0][1] == 2.0 ? 1u : 0u;
  copy = e;
})", TargetEnv::opengl);
  ASSERT_FALSE(s.code.empty());
  std::map<std::string, std::vector<uint32_t>> strides;
  for (const LooseUniform& lu : s.abi.loose_uniforms) strides[lu.name] = lu.array_strides_B;
  EXPECT_EQ(strides["e"], (std::vector<uint32_t>{16}));
  EXPECT_EQ(strides["f"], (std::vector<uint32_t>{16}));
  EXPECT_EQ(strides["m"], (std::vector<uint32_t>{36}));  // a matrix element packed
  EXPECT_EQ(strides["g"], (std::vector<uint32_t>{12, 4}));
  const int32_t e[3][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, -12}};
  const float f[2][3] = {{0.5f, 1.5f, 2.5f}, {-1.0f, -2.0f, -3.0f}};
  const float m[2][9] = {{1, 2, 3, 4, 5, 6, 7, 8, 9}, {2, 0, 0, 0, 2, 0, 0, 0, 2}};
  const float g[6] = {1, 2, 3, 4, 5, 6};
  std::vector<uint32_t> push(128, 0);
  for (const LooseUniform& lu : s.abi.loose_uniforms) {
    const uint32_t at_B = (lu.uniform - s.abi.push_constants_uniform) * 4;
    auto put = [&](uint32_t off_B, const void* src, size_t n) {
      ASSERT_LE(off_B + n, lu.size_B) << lu.name;
      std::memcpy(reinterpret_cast<uint8_t*>(push.data()) + at_B + off_B, src, n);
    };
    for (uint32_t i = 0; i < 3; ++i) {
      if (lu.name == "e") put(i * lu.array_strides_B[0], e[i], 16);
      if (lu.name == "f" && i < 2) put(i * lu.array_strides_B[0], f[i], 12);
      if (lu.name == "m" && i < 2) put(i * lu.array_strides_B[0], m[i], 36);
    }
    if (lu.name == "g")
      for (uint32_t i = 0; i < 6; ++i) put(i / 3 * lu.array_strides_B[0] + i % 3 * lu.array_strides_B[1], &g[i], 4);
  }
  Job r;
  r.buffers = {std::vector<uint32_t>(4 + 12, 0)};
  r.push = push;
  ASSERT_OK(execute(s, r));
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(r.buffers[0][i], 1u) << i;
  for (uint32_t i = 0; i < 12; ++i) EXPECT_EQ(int32_t(r.buffers[0][4 + i]), e[i / 4][i % 4]) << i;
}

TEST(LooseUniformIndex, VulkanPushConstantArrays) {
  // std430 push constants: v at 0 (16 bytes apart), d at 64 (dvec2, 16).
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 8) in;
layout(push_constant) uniform P { vec4 v[4]; dvec2 d[2]; } pc;
layout(std430, binding = 0) buffer O { vec4 o[]; };
layout(std430, binding = 1) buffer D { double od[]; };
void main() {
  uint t = gl_LocalInvocationIndex;
  o[t] = pc.v[t % 4u].wzyx;
  od[t] = pc.d[t % 3u][(t / 3u) % 2u];
})");
  ASSERT_FALSE(s.code.empty());
  std::vector<uint32_t> push(24);
  for (uint32_t w = 0; w < 16; ++w) push[w] = std::bit_cast<uint32_t>(0.5f * w - 3.0f);
  const double d[2][2] = {{0.1, -7.25}, {1e-310, 3e100}};
  std::memcpy(push.data() + 16, d, sizeof d);
  Job r;
  r.buffers = {std::vector<uint32_t>(8 * 4), std::vector<uint32_t>(8 * 2)};
  r.push = push;
  ASSERT_OK(execute(s, r));
  for (uint32_t t = 0; t < 8; ++t) {
    for (uint32_t c = 0; c < 4; ++c) EXPECT_EQ(r.buffers[0][t * 4 + c], push[(t % 4) * 4 + 3 - c]) << t << " " << c;
    // d[2][k] is past the end: the chain's first word, d[0][0].
    EXPECT_EQ(at(r.buffers[1], t), bits(t % 3 < 2 ? d[t % 3][(t / 3) % 2] : d[0][0])) << t;
  }
}

}  // namespace
}  // namespace agx::compiler::test
