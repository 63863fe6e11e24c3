// glGetProgramiv's counts from a program's SPIR-V. Expected values are GL
// 4.6 section 7.3.1.1's enumeration, and for the piglit programs what
// llvmpipe answers (arb_gl_spirv atomic-uint-*-cs: 9, 7, 8).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "runtime/glsl_frontend.h"
#include "runtime/program_query.h"

namespace agx::runtime {
namespace AGX_UNITY_ID {

ProgramResources of_glsl(const std::string& source) {
  std::vector<std::string> units{source};
  auto words = glsl_to_opengl_spirv(units, "test");
  EXPECT_TRUE(words.ok()) << (words.ok() ? "" : words.error().message());
  if (!words.ok()) return {};
  auto r = program_resources(*words);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message());
  return r.ok() ? *r : ProgramResources{};
}

TEST(ProgramQuery, AtomicCounterArraysOfArrays) {
  // piglit arb_gl_spirv/execution/uniform/atomic-uint-aoa-cs: a[2][3] is two
  // active uniforms (a[0], a[1]), each ok_* one, each *_expected one.
  auto r = of_glsl(R"(#version 450
layout (local_size_x = 3, local_size_y = 2) in;
layout (binding = 0, offset = 4) uniform atomic_uint a[2][3];
layout (binding = 1) uniform atomic_uint ok_a00;
layout (binding = 2) uniform atomic_uint ok_a01;
layout (binding = 3) uniform atomic_uint ok_a12;
layout (location = 0) uniform uint a00_expected[6];
layout (location = 6) uniform uint a01_expected[6];
layout (location = 12) uniform uint a12_expected;
void main() {
  if (atomicCounterIncrement(a[0][0]) == a00_expected[gl_LocalInvocationIndex]) atomicCounterIncrement(ok_a00);
  if (atomicCounterDecrement(a[0][1]) == a01_expected[gl_LocalInvocationIndex]) atomicCounterIncrement(ok_a01);
  if (atomicCounter(a[1][2]) == a12_expected) atomicCounterIncrement(ok_a12);
})");
  EXPECT_EQ(r.active_uniforms, 8u);
  EXPECT_EQ(r.active_atomic_counter_buffers, 4u);
}

TEST(ProgramQuery, BlockMembersCountStorageBlocksDoNot) {
  // v: 1, s[2] of a two-member structure: 4, f[3]: 1 (innermost array of a
  // basic type); the storage block's members are buffer variables.
  auto r = of_glsl(R"(#version 450
layout (local_size_x = 1) in;
struct S { int a; float b; };
layout (std140, binding = 0) uniform B { vec4 v; S s[2]; float f[3]; };
layout (std430, binding = 1) buffer O { float o[]; };
void main() { o[0] = v.x + float(s[1].a) + f[2]; })");
  EXPECT_EQ(r.active_uniforms, 6u);
  EXPECT_EQ(r.active_atomic_counter_buffers, 0u);
}

TEST(ProgramQuery, OnlyUsedVariablesAreActive) {
  auto r = of_glsl(R"(#version 450
layout (local_size_x = 1) in;
layout (location = 0) uniform uint used;
layout (location = 1) uniform uint unused;
layout (binding = 2) uniform atomic_uint idle;
layout (std430, binding = 1) buffer O { uint o; };
void main() { o = used; })");
  EXPECT_EQ(r.active_uniforms, 1u);
  EXPECT_EQ(r.active_atomic_counter_buffers, 0u);
}

TEST(ProgramQuery, SpirvAssembly) {
  // Hand-written SPIR-V as piglit's [compute shader spirv] gives it: a
  // UniformConstant array of arrays of uint (uint m[2][4]) counts 2, the
  // atomic counter 1.
  auto words = assemble_spirv(R"(
OpCapability Shader
OpCapability AtomicStorage
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
OpDecorate %m Location 0
OpDecorate %c Binding 5
OpDecorate %c Offset 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%uint_0 = OpConstant %uint 0
%uint_1 = OpConstant %uint 1
%uint_2 = OpConstant %uint 2
%uint_4 = OpConstant %uint 4
%arr4 = OpTypeArray %uint %uint_4
%arr24 = OpTypeArray %arr4 %uint_2
%p_m = OpTypePointer UniformConstant %arr24
%p_u = OpTypePointer UniformConstant %uint
%p_c = OpTypePointer AtomicCounter %uint
%m = OpVariable %p_m UniformConstant
%c = OpVariable %p_c AtomicCounter
%main = OpFunction %void None %fn
%l = OpLabel
%e = OpAccessChain %p_u %m %uint_1 %uint_2
%v = OpLoad %uint %e
%old = OpAtomicIAdd %uint %c %uint_1 %uint_0 %v
OpReturn
OpFunctionEnd
)");
  ASSERT_TRUE(words.ok()) << words.error().message();
  auto r = program_resources(*words);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->active_uniforms, 3u);
  EXPECT_EQ(r->active_atomic_counter_buffers, 1u);
}

TEST(ProgramQuery, NestedStructuresAreCountedOnceEach) {
  // S0 {uint, uint}, S(k+1) {Sk, Sk}: S_k enumerates 2^(k+1) uniforms. 20
  // levels count 2^21 quickly; 40 levels pass GL's range and are an error.
  auto module = [](int levels) {
    std::string t = R"(
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%s0 = OpTypeStruct %uint %uint
)";
    for (int k = 1; k <= levels; ++k) t += fmt::format("%s{} = OpTypeStruct %s{} %s{}\n", k, k - 1, k - 1);
    t += fmt::format(R"(OpDecorate %s{0} Block
%p = OpTypePointer Uniform %s{0}
%b = OpVariable %p Uniform
%main = OpFunction %void None %fn
%l = OpLabel
%v = OpLoad %s{0} %b
OpReturn
OpFunctionEnd
)", levels);
    return assemble_spirv(t);
  };
  auto small = module(20);
  ASSERT_TRUE(small.ok()) << small.error().message();
  auto r = program_resources(*small);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->active_uniforms, 1u << 21);
  auto big = module(40);
  ASSERT_TRUE(big.ok()) << big.error().message();
  r = program_resources(*big);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind(), ErrorKind::unsupported);
}

TEST(ProgramQuery, MalformedModulesNameWhere) {
  std::vector<uint32_t> none{1, 2, 3};
  auto r = program_resources(none);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("magic"), std::string::npos);
  // A header, then an instruction claiming 9 words with 1 left.
  std::vector<uint32_t> cut{0x07230203, 0x00010000, 0, 10, 0, (9u << 16) | 59u};
  r = program_resources(cut);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("word 5"), std::string::npos) << r.error().message();
  // An instruction of zero words would never advance.
  std::vector<uint32_t> zero{0x07230203, 0x00010000, 0, 10, 0, 0};
  EXPECT_FALSE(program_resources(zero).ok());
}

TEST(ProgramQuery, Names) {
  ProgramResources r{7, 3};
  EXPECT_EQ(*program_query(r, "GL_ACTIVE_UNIFORMS"), 7);
  EXPECT_EQ(*program_query(r, "GL_ACTIVE_ATOMIC_COUNTER_BUFFERS"), 3);
  auto other = program_query(r, "GL_PROGRAM_BINARY_LENGTH");
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().kind(), ErrorKind::unsupported);
}

}  // namespace
}  // namespace agx::runtime
