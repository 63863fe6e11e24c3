// Fragment shaders: inputs through coefficient registers, built-ins,
// outputs in the fixed registers, discard, the reserved uniforms and what
// is refused (docs/compiler.md, "Fragment shaders").
#include <gtest/gtest.h>

#include <string>

#include "compiler/compiler.h"

namespace agx::compiler {
namespace AGX_UNITY_ID {

Options frag_options() {
  Options o;
  o.stage = Stage::fragment;
  o.file_name = "t.frag";
  return o;
}

Shader compile_frag(const std::string& src) {
  auto s = compile_glsl(src, frag_options());
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message());
  return s.ok() ? *s : Shader{};
}

std::string error_of(const std::string& src) {
  auto s = compile_glsl(src, frag_options());
  EXPECT_FALSE(s.ok());
  return s.ok() ? "" : s.error().message();
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

TEST(Fragment, InputsGetCoefficientRegistersInLocationOrder) {
  const Shader s = compile_frag(R"(#version 450
layout(location = 2) flat in ivec2 id;
layout(location = 0) in vec4 colour;
layout(location = 1) noperspective centroid in float t;
layout(location = 0) out vec4 o;
void main() { o = colour * t + vec4(id, 0, 0); })");
  const FragmentAbi& fa = s.abi.fragment;
  ASSERT_EQ(fa.inputs.size(), 3u);
  EXPECT_EQ(fa.w_cf, 0u);
  EXPECT_EQ(fa.z_cf, FragmentAbi::kNoCf);
  EXPECT_EQ(fa.inputs[0].location, 0u);
  EXPECT_EQ(fa.inputs[0].components, 4u);
  EXPECT_EQ(fa.inputs[0].interpolation, Interpolation::smooth);
  EXPECT_EQ(fa.inputs[0].cf, 1u);
  EXPECT_EQ(fa.inputs[1].location, 1u);
  EXPECT_EQ(fa.inputs[1].interpolation, Interpolation::noperspective);
  EXPECT_EQ(fa.inputs[1].point, InterpolationPoint::centroid);
  EXPECT_EQ(fa.inputs[1].cf, 5u);
  EXPECT_EQ(fa.inputs[2].location, 2u);
  EXPECT_EQ(fa.inputs[2].interpolation, Interpolation::flat);
  EXPECT_EQ(fa.inputs[2].components, 2u);
  EXPECT_EQ(fa.inputs[2].cf, 6u);
  EXPECT_EQ(fa.cf_count, 8u);
  EXPECT_EQ(fa.colour_outputs, 1u);
  EXPECT_FALSE(fa.discards);
  const std::string d = disassemble(s.code);
  EXPECT_TRUE(has(d, "iterproj")) << d;     // smooth: divided by the W register
  EXPECT_TRUE(has(d, "cf1, cf0")) << d;
  EXPECT_TRUE(has(d, "centroid")) << d;     // noperspective centroid: iter
  EXPECT_TRUE(has(d, "ldcf")) << d;         // flat: the coefficients' C
  EXPECT_TRUE(has(s.ir_text, "reg_write r4")) << s.ir_text;
  EXPECT_TRUE(has(s.ir_text, "reg_write r7")) << s.ir_text;
}

TEST(Fragment, OutputsStayOutOfAllocationAndGoToTheirRegisters) {
  const Shader s = compile_frag(R"(#version 450
layout(location = 0) in vec4 a;
layout(location = 2) out vec4 o2;
layout(location = 0) out vec3 o0;
void main() { o0 = a.xyz; o2 = a * 2.0; gl_FragDepth = a.w; })");
  const FragmentAbi& fa = s.abi.fragment;
  EXPECT_EQ(fa.colour_outputs, 0b101u);
  EXPECT_TRUE(fa.writes_depth);
  EXPECT_FALSE(fa.writes_stencil);
  // Render targets 0..2: r4..r15 (and r2, r3) are never allocated.
  EXPECT_GE(s.stats.gprs, 2u * 16);
  for (const char* r : {"reg_write r2", "reg_write r4", "reg_write r7", "reg_write r12", "reg_write r15"})
    EXPECT_TRUE(has(s.ir_text, r)) << r << "\n" << s.ir_text;
  EXPECT_FALSE(has(s.ir_text, "reg_write r8")) << s.ir_text;  // render target 1 is not written
  size_t writes = 0;  // depth, render target 0 (its missing alpha too) and 2
  for (size_t at = s.ir_text.find("reg_write"); at != std::string::npos; at = s.ir_text.find("reg_write", at + 1)) ++writes;
  EXPECT_EQ(writes, 9u) << s.ir_text;
}

TEST(Fragment, BuiltinsComeFromSpecialAndCoefficientRegisters) {
  const Shader s = compile_frag(R"(#version 450
layout(location = 0) in float v;
layout(location = 0) out vec4 o;
void main() {
  o = vec4(gl_FragCoord.x + gl_FragCoord.y, gl_FragCoord.z * gl_FragCoord.w, gl_PointCoord.x + v,
           gl_FrontFacing ? float(gl_PrimitiveID) : float(gl_SampleMaskIn[0] + gl_Layer));
})");
  const FragmentAbi& fa = s.abi.fragment;
  EXPECT_TRUE(fa.reads_frag_coord && fa.reads_front_facing && fa.reads_point_coord && fa.reads_primitive_id &&
              fa.reads_sample_mask);
  EXPECT_EQ(fa.z_cf, 1u);  // Z right after W, then the inputs
  ASSERT_EQ(fa.inputs.size(), 1u);
  EXPECT_EQ(fa.inputs[0].cf, 2u);
  EXPECT_EQ(fa.point_coord_cf, 3u);
  EXPECT_EQ(fa.primitive_id_cf, 5u);
  EXPECT_EQ(fa.cf_count, 6u);
  const std::string d = disassemble(s.code);
  for (const char* sr : {"sr80", "sr81", "sr62", "sr124", "sr2"}) EXPECT_TRUE(has(d, sr)) << sr << "\n" << d;
  EXPECT_TRUE(has(d, "cf5")) << d;
  EXPECT_FALSE(fa.origin_lower_left);
  EXPECT_FALSE(fa.pixel_center_integer);
}

TEST(Fragment, DiscardAndDemoteKillTheLanesSamples) {
  const Shader s = compile_frag(R"(#version 450
layout(location = 0) in vec4 c;
layout(location = 0) out vec4 o;
void main() { if (c.x < 0.5) discard; o = c; })");
  EXPECT_TRUE(s.abi.fragment.discards);
  const std::string text = disassemble(s.code);
  EXPECT_TRUE(has(text, "sample_mask") && has(text, " 255, 0\n")) << text;
  const Shader d = compile_frag(R"(#version 450
#extension GL_EXT_demote_to_helper_invocation : require
layout(location = 0) in vec4 c;
layout(location = 0) out vec4 o;
void main() { if (c.x < 0.5) demote; o = c; })");
  EXPECT_TRUE(d.abi.fragment.discards);
  EXPECT_TRUE(has(disassemble(d.code), "sample_mask")) << disassemble(d.code);
}

TEST(Fragment, UniformsStartAtU8) {
  const Shader s = compile_frag(R"(#version 450
layout(set = 0, binding = 0) uniform U { vec4 tint; };
layout(location = 0) out vec4 o;
void main() { o = tint; })");
  ASSERT_EQ(s.abi.resources.size(), 1u);
  EXPECT_EQ(s.abi.resources[0].uniform, FragmentAbi::kFirstShaderUniform);
  EXPECT_EQ(FragmentAbi::kBlendConstantUniform, 2u);
  EXPECT_EQ(FragmentAbi::kRootDescriptorUniform, 6u);
}

TEST(Fragment, ExecutionModes) {
  Options o = frag_options();
  o.env = TargetEnv::opengl;
  auto s = compile_glsl(R"(#version 450
layout(early_fragment_tests) in;
layout(pixel_center_integer) in vec4 gl_FragCoord;
layout(location = 0) out vec4 o;
void main() { o = gl_FragCoord; })", o);
  ASSERT_TRUE(s.ok()) << s.error().message();
  EXPECT_TRUE(s->abi.fragment.early_fragment_tests);
  EXPECT_TRUE(s->abi.fragment.origin_lower_left);  // GL's default origin
  EXPECT_TRUE(s->abi.fragment.pixel_center_integer);
  // Pixel centres at integers: no + 0.5.
  EXPECT_FALSE(has(s->ir_text, "fadd")) << s->ir_text;
}

TEST(Fragment, RefusedFeaturesAreNamed) {
  EXPECT_TRUE(has(error_of(R"(#version 450
layout(location = 0) sample in vec4 c;
layout(location = 0) out vec4 o;
void main() { o = c; })"), "sample-qualified")) ;
  EXPECT_TRUE(has(error_of(R"(#version 450
layout(location = 0) out vec4 o;
void main() { o = vec4(gl_SampleID); })"), "gl_SampleID"));
  EXPECT_TRUE(has(error_of(R"(#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
struct S { vec4 a; f16vec2 h; };
layout(location = 0) flat in S c;
layout(location = 0) out vec4 o;
void main() { o = c.a; })"), "only 32- and 64-bit int, uint and float types are supported"));
  Options o = frag_options();
  o.stage = Stage::compute;
  auto spirv = glsl_to_spirv("#version 450\nlayout(location = 0) out vec4 o;\nvoid main() { o = vec4(1); }\n", frag_options());
  ASSERT_TRUE(spirv.ok());
  auto mismatch = compile_spirv(*spirv, o);
  ASSERT_FALSE(mismatch.ok());
  EXPECT_TRUE(has(mismatch.error().message(), "is a fragment shader, a compute shader was asked for"));
}

}  // namespace
}  // namespace agx::compiler
