// Descriptor arrays of buffers (`buffer B { ... } b[3];`, `uniform U {
// ... } u[2];`): one Abi::resources entry per element, each with its own
// base pair; constant indices name the pair, run-time indices (uniform or
// nonuniformEXT) select it (translate_memory.cpp). Expected values are
// computed here from the inputs.
#include <gtest/gtest.h>

#include "compiler/tests/run_helpers.h"

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

TEST(DescriptorArray, VulkanBuffersIndexedByConstantsUniformAndNonUniformValues) {
  Shader s = must_compile(R"(#version 450
#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer In { uint v[]; } b[3];
layout(set = 0, binding = 1) uniform U { uvec4 k[8]; } u[2];
layout(set = 0, binding = 2) buffer Out { uint o[]; };
layout(push_constant) uniform P { uint sel; } pc;
void main() {
  uint t = gl_LocalInvocationIndex;
  uint i = t % 3u;
  o[t * 5u] = b[nonuniformEXT(i)].v[t];
  o[t * 5u + 1u] = b[pc.sel].v[t] + u[1].k[t % 8u].y;
  o[t * 5u + 2u] = b[2].v[t] ^ u[nonuniformEXT(t & 1u)].k[t % 8u].x;
  o[t * 5u + 3u] = uint(b[nonuniformEXT(i)].v.length());
  b[nonuniformEXT(i)].v[t + 32u] = t * 7u + i;
  atomicAdd(b[nonuniformEXT(t % 2u)].v[64], t + 1u);
  o[t * 5u + 4u] = uint(b[0].v.length());
})");
  ASSERT_FALSE(s.code.empty());
  const Abi& abi = s.abi;
  ASSERT_EQ(abi.resources.size(), 6u);  // In[0..2], Out, U[0..1]
  for (uint32_t e = 0; e < 3; ++e) {
    EXPECT_EQ(abi.resources[e].kind, Resource::Kind::storage_buffer);
    EXPECT_EQ(abi.resources[e].binding, 0u);  // Vulkan: one binding, elements of it
    EXPECT_EQ(abi.resources[e].array_element, e);
    EXPECT_EQ(abi.resources[e].array_size, 3u);
    EXPECT_EQ(abi.resources[e].uniform, 2 * e);
    EXPECT_NE(abi.resources[e].size_uniform, Resource::kNoUniform);
  }
  EXPECT_EQ(abi.resources[3].binding, 2u);
  EXPECT_EQ(abi.resources[3].array_size, 0u);
  for (uint32_t e = 0; e < 2; ++e) {
    EXPECT_EQ(abi.resources[4 + e].kind, Resource::Kind::uniform_buffer);
    EXPECT_EQ(abi.resources[4 + e].binding, 1u);
    EXPECT_EQ(abi.resources[4 + e].array_element, e);
  }

  Job run;
  run.buffers.resize(6);
  // Different lengths, so .length() tells the elements apart.
  const uint32_t words[3] = {65, 72, 80};
  for (uint32_t e = 0; e < 3; ++e) {
    run.buffers[e].resize(words[e]);
    for (uint32_t x = 0; x < words[e]; ++x) run.buffers[e][x] = 1000 * (e + 1) + x * 3;
  }
  run.buffers[3].assign(32 * 5, 0xDEAD);
  for (uint32_t e = 0; e < 2; ++e) {
    run.buffers[4 + e].resize(8 * 4);
    for (uint32_t x = 0; x < 32; ++x) run.buffers[4 + e][x] = 50000 * (e + 1) + x * 11;
  }
  run.push = {1};  // pc.sel
  const auto in = run.buffers;
  ASSERT_OK(execute(s, run));
  for (uint32_t t = 0; t < 32; ++t) {
    uint32_t i = t % 3;
    auto ubo = [&](uint32_t e, uint32_t comp) { return in[4 + e][(t % 8) * 4 + comp]; };
    EXPECT_EQ(run.buffers[3][t * 5], in[i][t]) << t;
    EXPECT_EQ(run.buffers[3][t * 5 + 1], in[1][t] + ubo(1, 1)) << t;
    EXPECT_EQ(run.buffers[3][t * 5 + 2], in[2][t] ^ ubo(t & 1, 0)) << t;
    EXPECT_EQ(run.buffers[3][t * 5 + 3], words[i]) << t;
    EXPECT_EQ(run.buffers[3][t * 5 + 4], words[0]) << t;
    EXPECT_EQ(run.buffers[i][t + 32], t * 7 + i) << t;
  }
  // v[64] of elements 0 and 1 gathered the even and odd threads' t + 1.
  uint32_t even = 0, odd = 0;
  for (uint32_t t = 0; t < 32; ++t) (t % 2 ? odd : even) += t + 1;
  EXPECT_EQ(run.buffers[0][64], in[0][64] + even);
  EXPECT_EQ(run.buffers[1][64], in[1][64] + odd);
  EXPECT_EQ(run.buffers[2][64], in[2][64]);
}

// OpenGL: the elements take consecutive binding points; 64-bit and vector
// loads go through the selected base too.
TEST(DescriptorArray, OpenGlConsecutiveBindingPoints) {
  Shader s = must_compile(R"(#version 450
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 16) in;
layout(std430, binding = 1) buffer B { uvec4 q[16]; int64_t w[16]; } b[2];
layout(std430, binding = 0) buffer O { uvec4 o[]; };
layout(std140, binding = 3) uniform U { uint sel[4]; } u[2];
void main() {
  uint t = gl_LocalInvocationIndex;
  uint e = u[t / 8u].sel[0] & 1u;
  uvec4 v = b[e].q[t];
  int64_t x = b[e ^ 1u].w[t];
  o[t] = v + uvec4(uint(x), uint(x >> 32), e, 0u);
})", TargetEnv::opengl);
  ASSERT_FALSE(s.code.empty());
  const Abi& abi = s.abi;
  ASSERT_EQ(abi.resources.size(), 5u);  // O, B[0], B[1], U[0], U[1]
  EXPECT_EQ(abi.resources[0].binding, 0u);
  EXPECT_EQ(abi.resources[1].binding, 1u);
  EXPECT_EQ(abi.resources[2].binding, 2u);
  EXPECT_EQ(abi.resources[2].array_element, 1u);
  EXPECT_EQ(abi.resources[3].binding, 3u);
  EXPECT_EQ(abi.resources[4].binding, 4u);
  EXPECT_EQ(abi.resources[4].array_element, 1u);
  Job run;
  run.buffers.resize(5);
  run.buffers[0].assign(16 * 4, 0);
  for (uint32_t e = 0; e < 2; ++e) {
    run.buffers[1 + e].resize(16 * 4 + 16 * 2);
    for (uint32_t x = 0; x < run.buffers[1 + e].size(); ++x) run.buffers[1 + e][x] = (e + 1) * 0x01010101u * (x + 1);
  }
  run.buffers[3] = {0, 0, 0, 0};
  run.buffers[4] = {1, 0, 0, 0};
  const auto in = run.buffers;
  ASSERT_OK(execute(s, run));
  for (uint32_t t = 0; t < 16; ++t) {
    uint32_t e = t / 8;
    const auto& v = in[1 + e];
    const auto& w = in[1 + (e ^ 1)];
    EXPECT_EQ(run.buffers[0][t * 4 + 0], v[t * 4 + 0] + w[64 + t * 2]) << t;
    EXPECT_EQ(run.buffers[0][t * 4 + 1], v[t * 4 + 1] + w[64 + t * 2 + 1]) << t;
    EXPECT_EQ(run.buffers[0][t * 4 + 2], v[t * 4 + 2] + e) << t;
    EXPECT_EQ(run.buffers[0][t * 4 + 3], v[t * 4 + 3]) << t;
  }
}

TEST(DescriptorArray, RuntimeSizedArrayOfBlocksIsAnError) {
  auto s = compile(R"(#version 450
#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer In { uint v[]; } b[];
void main() { b[nonuniformEXT(gl_LocalInvocationIndex)].v[0] = 1u; }
)");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("neither a block nor a sized array of blocks"), std::string::npos) << s.error().message();
}

}  // namespace
}  // namespace agx::compiler::test
