// Push constant / loose uniform blocks too big for the uniform file
// (docs/compiler.md, "Push constants in memory"): the whole block in a
// buffer whose address is the uniform pair Abi::push_memory_uniform, read
// with device loads at constant and run-time offsets (an offset past a
// loose uniform reads its element 0, as the pushed select chains do),
// placed by the runtime's encoder on the software GPU.
#include <bit>
#include <cstring>
#include <string>

#include "compiler/tests/buffer_words.h"
#include "compiler/tests/run_helpers.h"

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

// A Vulkan kernel with one buffer (u0_u1; gl_NumWorkGroups u2..u4, so the
// block starts at u6) and `words` words of push constants, copying
// p.a[k[t]] and p.a[words - 1] to the buffer.
std::string push_words_kernel(uint32_t words) {
  return "#version 450\nlayout(local_size_x = 32) in;\n"
         "layout(push_constant) uniform P { uint a[" + std::to_string(words) + "]; } p;\n"
         "layout(std430, binding = 0) buffer O { uint o[]; };\n"
         "void main() {\n  uint t = gl_LocalInvocationIndex;\n"
         "  o[t * 2u] = p.a[o[t * 2u]];\n  o[t * 2u + 1u] = p.a[" + std::to_string(words - 1) + "];\n}\n";
}

// Runs a kernel that reads o[2t] = x[o[2t]] and o[2t + 1] = x[count - 1]
// from its push constants, with index t * step % wrap for thread t, and
// checks what it read against element(i) (past `count`: element 0).
template <class F>
void expect_indexed_reads(const Shader& s, const std::vector<uint32_t>& push, uint32_t step, uint32_t wrap,
                          uint32_t count, F&& element) {
  std::vector<uint32_t> o(64);
  for (uint32_t t = 0; t < 32; ++t) o[t * 2] = t * step % wrap;
  Job r;
  r.buffers = {o};
  r.push = push;
  ASSERT_OK(execute(s, r));
  for (uint32_t t = 0; t < 32; ++t) {
    const uint32_t i = o[t * 2];
    EXPECT_EQ(r.buffers[0][t * 2], element(i < count ? i : 0)) << t;
    EXPECT_EQ(r.buffers[0][t * 2 + 1], element(count - 1)) << t;
  }
}

// The block stays pushed while P + words <= 256 and moves to memory at one
// word more; both read the same values.
TEST(PushMemory, BlockMovesToMemoryOnlyWhenItDoesNotFit) {
  for (uint32_t words : {250u, 251u, 400u}) {
    SCOPED_TRACE(words);
    Shader s = must_compile(push_words_kernel(words));
    ASSERT_FALSE(s.code.empty());
    const bool in_memory = words > 250;
    EXPECT_EQ(s.abi.push_memory_uniform != Resource::kNoUniform, in_memory);
    if (in_memory) {
      EXPECT_EQ(s.abi.push_memory_uniform, 6u);
      EXPECT_EQ(s.abi.push_constants_uniform, Abi::kPushMemoryFirstWord);
      EXPECT_LE(s.abi.uniform_count, 8u + s.abi.preamble_uniform_count);
    } else {
      EXPECT_EQ(s.abi.push_constants_uniform, 6u);
      EXPECT_EQ(s.abi.uniform_count, 256u);
    }
    EXPECT_EQ(s.abi.push_constants_size_B, words * 4);
    std::vector<uint32_t> push = random_words(words, words);
    expect_indexed_reads(s, push, 37, words + 20, words, [&](uint32_t i) { return push[i]; });
  }
}

uint64_t bits(double d) { return std::bit_cast<uint64_t>(d); }

// OpenGL loose uniforms of 32- and 64-bit types past the file: vec4 and
// double arrays, a dmat3 and an int64 vector, indexed by constants and at
// run time (matrix columns and elements too).
TEST(PushMemory, LooseUniformsOfEveryWidth) {
  Shader s = must_compile(R"(#version 450
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 16) in;
layout(location = 0) uniform vec4 big[60];
layout(location = 60) uniform dmat3 dm;
layout(location = 61) uniform double da[5];
layout(location = 66) uniform i64vec2 q;
layout(location = 67) uniform uint last;
layout(std430, binding = 0) buffer B { uint k[]; };
layout(std430, binding = 1) buffer O { vec4 o[]; };
layout(std430, binding = 2) buffer D { double od[]; };
layout(std430, binding = 3) buffer Q { int64_t oq[]; };
void main() {
  uint t = gl_LocalInvocationIndex;
  uint i = k[t], j = k[t + 16u];
  o[t * 2u] = big[i];
  o[t * 2u + 1u] = vec4(big[59].w, big[j % 60u].y, float(last), dm[1][2]);
  dvec3 c = dm[i % 4u];
  od[t * 4u] = c.x;
  od[t * 4u + 1u] = dm[j % 3u][i % 3u];
  od[t * 4u + 2u] = da[j];
  od[t * 4u + 3u] = da[4];
  oq[t * 2u] = q[i % 2u];
  oq[t * 2u + 1u] = q.y;
})", TargetEnv::opengl);
  ASSERT_FALSE(s.code.empty());
  ASSERT_NE(s.abi.push_memory_uniform, Resource::kNoUniform);
  float big[60][4];
  double dm[3][3], da[5];
  int64_t q[2] = {-0x123456789abll, 0x7edcba9876543210ll};
  uint32_t last = 0xabcdef;
  for (int e = 0; e < 60; ++e)
    for (int c = 0; c < 4; ++c) big[e][c] = 0.5f * e - 3.0f * c;
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) dm[c][r] = 1.0 / (2 + c * 3 + r);
  for (int e = 0; e < 5; ++e) da[e] = 1e200 / (e + 1);
  std::vector<uint32_t> push(s.abi.push_constants_size_B / 4, 0);
  for (const LooseUniform& lu : s.abi.loose_uniforms) ASSERT_GE(lu.uniform, Abi::kPushMemoryFirstWord) << lu.name;
  ASSERT_NO_FATAL_FAILURE(fill_loose(s, {{"big", big}, {"dm", dm}, {"da", da}, {"q", q}, {"last", &last}}, push));
  std::vector<uint32_t> k(32);
  for (uint32_t t = 0; t < 16; ++t) { k[t] = t * 5; k[16 + t] = t % 7; }  // some past the end: element 0
  Job r;
  r.buffers = {k, std::vector<uint32_t>(16 * 8), std::vector<uint32_t>(16 * 4 * 2), std::vector<uint32_t>(16 * 2 * 2)};
  r.push = push;
  ASSERT_OK(execute(s, r));
  auto in = [](uint32_t i, uint32_t n) { return i < n ? i : 0u; };
  for (uint32_t t = 0; t < 16; ++t) {
    const uint32_t i = k[t], j = k[16 + t];
    for (int c = 0; c < 4; ++c) EXPECT_EQ(r.buffers[1][t * 8 + c], fbits(big[in(i, 60)][c])) << t << " big " << c;
    EXPECT_EQ(r.buffers[1][t * 8 + 4], fbits(big[59][3])) << t;
    EXPECT_EQ(r.buffers[1][t * 8 + 5], fbits(big[j % 60][1])) << t;
    EXPECT_EQ(r.buffers[1][t * 8 + 6], fbits(float(last))) << t;
    EXPECT_EQ(r.buffers[1][t * 8 + 7], fbits(float(dm[1][2]))) << t;
    EXPECT_EQ(at(r.buffers[2], t * 4), bits(dm[in(i % 4, 3)][0])) << t;
    EXPECT_EQ(at(r.buffers[2], t * 4 + 1), bits(dm[j % 3][i % 3])) << t;
    EXPECT_EQ(at(r.buffers[2], t * 4 + 2), bits(da[in(j, 5)])) << t;
    EXPECT_EQ(at(r.buffers[2], t * 4 + 3), bits(da[4])) << t;
    EXPECT_EQ(at(r.buffers[3], t * 2), static_cast<uint64_t>(q[i % 2])) << t;
    EXPECT_EQ(at(r.buffers[3], t * 2 + 1), static_cast<uint64_t>(q[1])) << t;
  }
}

// 16-bit push constants past the file, at a run-time index (a stride of
// 2 bytes: the offset in halves) and a constant one.
TEST(PushMemory, SixteenBitElements) {
  Shader s = must_compile(R"(#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 32) in;
layout(push_constant) uniform P { uint16_t h[600]; } p;
layout(std430, binding = 0) buffer O { uint o[]; };
void main() {
  uint t = gl_LocalInvocationIndex;
  o[t * 2u] = uint(p.h[o[t * 2u]]);
  o[t * 2u + 1u] = uint(p.h[599]);
})");
  ASSERT_FALSE(s.code.empty());
  ASSERT_NE(s.abi.push_memory_uniform, Resource::kNoUniform);
  std::vector<uint32_t> push = random_words(300, 5);
  auto half = [&](uint32_t i) { return (push[i / 2] >> (i % 2 * 16)) & 0xffffu; };
  expect_indexed_reads(s, push, 23, UINT32_MAX, 600, half);  // 598, 621, ...: some past the end
}

// With resources filling the file, not even the address pair fits.
TEST(PushMemory, NoRoomForTheAddressIsAnError) {
  Options o;
  o.file_name = "full.comp";
  auto s = compile_glsl(R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer B { uint x; } b[126];
layout(push_constant) uniform P { uint a[4]; } p;
void main() { b[125].x = p.a[3] + b[0].x; })", o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("needs 258 uniform registers (at most 256)"), std::string::npos)
      << s.error().message();
}

}  // namespace AGX_UNITY_ID
}  // namespace agx::compiler::test
