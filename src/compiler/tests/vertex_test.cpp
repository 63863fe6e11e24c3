// Vertex shaders: the VertexAbi (attributes, the prolog's uniforms, the
// output layout), the st_var stores the code ends with, errors, and
// compiled shaders run by the software GPU's vertex half
// (gpu::VertexPipeline) with the attribute registers filled as the vertex
// prolog leaves them.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "compiler/compiler.h"
#include "compiler/tests/vertex_run.h"

namespace agx::compiler {
namespace AGX_UNITY_ID {

using test::compile_vs;
using test::VertexRun;

std::string error_of(const std::string& src, TargetEnv env = TargetEnv::vulkan) {
  auto s = compile_vs(src, env);
  EXPECT_FALSE(s.ok());
  return s.ok() ? "" : s.error().message();
}

// The st_var / st_var_final lines of the disassembly, in order.
std::vector<std::string> output_stores(const Shader& s) {
  std::vector<std::string> out;
  std::istringstream in(disassemble(s.code));
  for (std::string line; std::getline(in, line);)
    if (line.find("st_var") != std::string::npos) out.push_back(line);
  return out;
}

TEST(Vertex, AbiNamesAttributesUniformsAndOutputs) {
  auto s = compile_vs(R"(#version 450
layout(location = 0) in vec4 pos;
layout(location = 2) in ivec2 id;
layout(location = 3) in uvec3 flags;
layout(location = 1) out vec3 colour;
layout(location = 0) flat out int tag;
layout(location = 2) noperspective out float fog;
void main() {
  gl_Position = pos;
  colour = pos.xyz * 2.0;
  tag = id.x + int(flags.z);
  fog = pos.w;
})");
  ASSERT_TRUE(s.ok()) << s.error().message();
  const VertexAbi& v = s->abi.vertex;
  ASSERT_EQ(v.attributes.size(), 3u);
  EXPECT_EQ(v.attributes[0].location, 0u);
  EXPECT_EQ(v.attributes[0].components, 4u);
  EXPECT_EQ(v.attributes[0].type, VertexAttribute::BaseType::float_);
  EXPECT_EQ(v.attributes[1].location, 2u);
  EXPECT_EQ(v.attributes[1].components, 2u);
  EXPECT_EQ(v.attributes[1].type, VertexAttribute::BaseType::int_);
  EXPECT_EQ(v.attributes[2].type, VertexAttribute::BaseType::uint_);
  // n = 4: u0..u7 addresses, u8..u11 clamps, u12 base vertex, u13 base
  // instance, u14 draw ID, the shader's own from u16 (even).
  EXPECT_EQ(v.attribute_slots, 4u);
  EXPECT_EQ(v.address_uniform, 0u);
  EXPECT_EQ(v.clamp_uniform, 8u);
  EXPECT_EQ(v.base_vertex_uniform, 12u);
  EXPECT_EQ(v.base_instance_uniform, 13u);
  EXPECT_EQ(v.draw_id_uniform, 14u);
  EXPECT_EQ(v.first_shader_uniform, 16u);
  // Outputs in declaration order; the layout groups smooth, flat, linear.
  ASSERT_EQ(v.outputs.varyings.size(), 3u);
  EXPECT_EQ(v.output_locations, (std::vector<uint32_t>{1, 0, 2}));
  EXPECT_EQ(v.outputs.varyings[0].components, 3u);
  EXPECT_EQ(v.outputs.varyings[1].interp, varyings::Interp::flat);
  EXPECT_EQ(v.outputs.varyings[2].interp, varyings::Interp::linear);
  EXPECT_EQ(v.layout.output_count, 4u + 3 + 1 + 1);
  EXPECT_EQ(v.layout.find_varying(0)->index, 4u);  // smooth colour
  EXPECT_EQ(v.layout.find_varying(1)->index, 7u);  // flat tag
  EXPECT_EQ(v.layout.find_varying(2)->index, 8u);  // linear fog
  auto expect = varyings::layout_vertex_outputs(v.outputs);
  ASSERT_TRUE(expect.ok());
  EXPECT_EQ(v.layout.output_select, expect->output_select);
  EXPECT_EQ(v.layout.varying_counts_32, expect->varying_counts_32);
  EXPECT_EQ(v.layout.vdm_vertex_outputs, expect->vdm_vertex_outputs);
  // One store per word, in slot order, the last st_var_final.
  auto stores = output_stores(*s);
  ASSERT_EQ(stores.size(), 9u);
  for (size_t i = 0; i + 1 < stores.size(); ++i) EXPECT_EQ(stores[i].find("st_var_final"), std::string::npos) << stores[i];
  EXPECT_NE(stores.back().find("st_var_final"), std::string::npos) << stores.back();
}

TEST(Vertex, PerVertexBlockMembersWritten) {
  auto s = compile_vs(R"(#version 450
layout(location = 0) in vec4 pos;
void main() {
  gl_Position = pos;
  gl_PointSize = 3.0;
  gl_ClipDistance[0] = pos.x;
  gl_ClipDistance[1] = pos.y;
})");
  ASSERT_TRUE(s.ok()) << s.error().message();
  const VertexAbi& v = s->abi.vertex;
  EXPECT_TRUE(v.outputs.point_size);
  EXPECT_EQ(v.outputs.clip_distances, 2u);
  EXPECT_FALSE(v.outputs.layer_viewport);
  EXPECT_EQ(v.layout.output_count, 4u + 1 + 2);
  EXPECT_EQ(output_stores(*s).size(), 7u);
  // Without them: only the position.
  auto p = compile_vs("#version 450\nlayout(location = 0) in vec4 pos;\nvoid main() { gl_Position = pos; }\n");
  ASSERT_TRUE(p.ok()) << p.error().message();
  EXPECT_FALSE(p->abi.vertex.outputs.point_size);
  EXPECT_EQ(p->abi.vertex.outputs.clip_distances, 0u);
  EXPECT_EQ(p->abi.vertex.layout.output_count, 4u);
  EXPECT_EQ(p->abi.vertex.attribute_slots, 1u);
  EXPECT_EQ(p->abi.vertex.first_shader_uniform, 6u);
}

TEST(Vertex, ShaderUniformsStartAfterThePrologs) {
  auto s = compile_vs(R"(#version 450
layout(location = 1) in vec4 pos;
layout(set = 0, binding = 0) uniform U { mat4 mvp; };
layout(push_constant) uniform P { vec4 offset; };
void main() { gl_Position = mvp * pos + offset; })");
  ASSERT_TRUE(s.ok()) << s.error().message();
  const Abi& a = s->abi;
  EXPECT_EQ(a.vertex.attribute_slots, 2u);
  EXPECT_EQ(a.vertex.first_shader_uniform, 10u);  // 3 * 2 + 3 = 9, rounded up to even
  ASSERT_EQ(a.resources.size(), 1u);
  EXPECT_EQ(a.resources[0].uniform, 10u);
  EXPECT_GT(a.push_constants_uniform, 10u);
}

TEST(Vertex, Errors) {
  const std::pair<const char*, const char*> cases[] = {
      {"#version 450\nvoid main() { gl_Position = vec4(0.0); gl_CullDistance[0] = 1.0; }\n",
       "gl_CullDistance is not supported"},
      {"#version 450\nlayout(location = 16) in vec4 a;\nvoid main() { gl_Position = a; }\n", "location 16"},
      {"#version 450\n#extension GL_ARB_gpu_shader_int64 : require\nlayout(location = 0) in i64vec2 a;\n"
       "void main() { gl_Position = vec4(a, 0.0, 1.0); }\n",
       "64-bit integer attributes are not supported"},
      {"#version 450\nlayout(location = 0) in dvec3 a;\nlayout(location = 1) in vec4 b;\n"
       "void main() { gl_Position = vec4(a, 1.0) + b; }\n",
       "location 1"},  // a dvec3 takes two locations (the SPIR-V validator says so first)
      {"#version 450\n#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require\n"
       "struct S { vec4 a; f16vec2 h; };\nlayout(location = 0) out S s;\nvoid main() { s.a = vec4(1.0); }\n",
       "only 32- and 64-bit int, uint and float types are supported"},
  };
  for (const auto& [src, want] : cases) {
    const std::string e = error_of(src);
    EXPECT_NE(e.find(want), std::string::npos) << e;
  }
  // A fragment shader compiled as a vertex shader is refused by its stage.
  Options o;
  o.file_name = "f.frag";
  o.stage = Stage::fragment;
  auto spirv = glsl_to_spirv("#version 450\nlayout(location = 0) out vec4 c;\nvoid main() { c = vec4(1.0); }\n", o);
  ASSERT_TRUE(spirv.ok()) << spirv.error().message();
  o.stage = Stage::vertex;
  auto f = compile_spirv(*spirv, o);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().message().find("is a fragment shader, a vertex shader was asked for"), std::string::npos)
      << f.error().message();
}

TEST_F(VertexRun, VertexAndInstanceIdsAndUniforms) {
  auto s = compile_vs(R"(#version 460
layout(location = 0) flat out ivec4 ids;
layout(push_constant) uniform P { float scale; };
void main() {
  gl_Position = vec4(float(gl_VertexIndex) * scale, 0.0, 0.5, 1.0);
  ids = ivec4(gl_VertexIndex, gl_InstanceIndex, gl_BaseInstance, gl_DrawID);
})");
  ASSERT_TRUE(s.ok()) << s.error().message();
  const VertexAbi& v = s->abi.vertex;
  EXPECT_EQ(v.attribute_slots, 0u);
  std::vector<uint32_t> u(s->abi.uniform_count, 0);
  u[v.base_vertex_uniform] = 5;
  u[v.base_instance_uniform] = 7;
  u[v.draw_id_uniform] = 0xABCD0003;  // draw ID: the low 16 bits
  u[s->abi.push_constants_uniform] = gpu::test::bits(0.125f);
  ASSERT_TRUE(draw_points(*s, u, 3, 2, 5)) << message;
  ASSERT_EQ(scene.vertices.size(), 6u);
  const unsigned ids = v.layout.find_varying(0)->index;
  for (size_t k = 0; k < 6; ++k) {
    const uint32_t vid = out(k, ids), iid = out(k, ids + 1);
    EXPECT_GE(vid, 5u);
    EXPECT_LE(vid, 7u);
    EXPECT_GE(iid, 7u);  // base instance + 0..1
    EXPECT_LE(iid, 8u);
    EXPECT_EQ(out(k, ids + 2), 7u);
    EXPECT_EQ(out(k, ids + 3), 3u);
    EXPECT_FLOAT_EQ(outf(k, 0), vid * 0.125f);
    EXPECT_FLOAT_EQ(outf(k, 3), 1.0f);
  }
}

// The attribute registers r(8 + 4L + c) as a prolog leaves them, read by a
// shader that writes its outputs under control flow and in a loop.
TEST_F(VertexRun, AttributesAndConditionalOutputs) {
  auto s = compile_vs(R"(#version 450
layout(location = 0) in vec4 pos;
layout(location = 1) in uvec2 sel;
layout(location = 0) out vec2 a;
layout(location = 1) flat out uint b[3];
void main() {
  gl_Position = pos;
  if (sel.x > 4u) a = pos.yx; else a.y = 9.0;
  for (uint i = 0u; i < sel.y; ++i) b[i] = i + 100u;
  gl_PointSize = 2.0;
})",
                      TargetEnv::vulkan, false);
  ASSERT_TRUE(s.ok()) << s.error().message();
  // pos = (0.25, -0.5, 0.5, 1) in r8..r11; sel = (r5 * 5, 2) in r12, r13.
  auto pre = isa::assemble_program(
      "mov_imm r8, 0x3e800000, 0b0\nmov_imm r9, 0xbf000000, 0b0\nmov_imm r10, 0x3f000000, 0b0\n"
      "mov_imm r11, 0x3f800000, 0b0\niadd r12, r5, r5\niadd r12, r12, r12\niadd r12, r12, r5\nmov_imm r13, 2, 0b0");
  ASSERT_TRUE(pre.ok()) << pre.error().message();
  prefix_ = *pre;
  prefix_halves_ = 2 * 14;
  ASSERT_TRUE(draw_points(*s, {}, 2)) << message;
  ASSERT_EQ(scene.vertices.size(), 2u);
  const VertexAbi& v = s->abi.vertex;
  const unsigned a = v.layout.find_varying(0)->index, b = v.layout.find_varying(1)->index;
  for (size_t k = 0; k < 2; ++k) {
    EXPECT_FLOAT_EQ(outf(k, 0), 0.25f);
    EXPECT_FLOAT_EQ(outf(k, 1), -0.5f);
    EXPECT_EQ(out(k, b), 100u);
    EXPECT_EQ(out(k, b + 1), 101u);
    EXPECT_EQ(out(k, b + 2), 0u);  // never written
  }
  // Vertex 0: sel.x = 0, a = (0, 9); vertex 1: sel.x = 5, a = pos.yx.
  EXPECT_FLOAT_EQ(outf(0, a), 0.0f);
  EXPECT_FLOAT_EQ(outf(0, a + 1), 9.0f);
  EXPECT_FLOAT_EQ(outf(1, a), -0.5f);
  EXPECT_FLOAT_EQ(outf(1, a + 1), 0.25f);
}

// Arrays of matrices take one location per column, element after element
// (a dmat2x3's dvec3 columns two each): the ABI lists one attribute per
// location a column starts at, and the shader reads r(8 + 4L + c).
TEST_F(VertexRun, ArraysOfMatricesTakeALocationPerColumn) {
  auto s = compile_vs(R"(#version 450
layout(location = 0) in mat2 m[2];
layout(location = 4) in dmat2x3 d[2];
layout(location = 0) out vec4 a;
layout(location = 1) out vec4 b;
void main() {
  gl_Position = vec4(0.0, 0.0, 0.5, 1.0);
  a = vec4(m[0][0], m[1][1]);
  b = vec4(vec3(d[1][1]), 1.0);
})",
                      TargetEnv::vulkan, false);
  ASSERT_TRUE(s.ok()) << s.error().message();
  const VertexAbi& v = s->abi.vertex;
  ASSERT_EQ(v.attributes.size(), 8u);
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(v.attributes[i].location, i);
    EXPECT_EQ(v.attributes[i].components, 2u);
    EXPECT_EQ(v.attributes[i].type, VertexAttribute::BaseType::float_);
    EXPECT_EQ(v.attributes[4 + i].location, 4 + 2 * i);  // dvec3 columns: two locations each
    EXPECT_EQ(v.attributes[4 + i].components, 3u);
    EXPECT_EQ(v.attributes[4 + i].type, VertexAttribute::BaseType::double_);
  }
  // m[0][0] at location 0 (r8, r9), m[1][1] at 3 (r20, r21); d[1][1] at
  // 4 + 2 * 2 + 2 = 10: (0.5, -2, 8) in r48..r53, low word first.
  auto pre = isa::assemble_program(
      "mov_imm r8, 0x3f800000, 0b0\nmov_imm r9, 0x40000000, 0b0\nmov_imm r20, 0x40400000, 0b0\n"
      "mov_imm r21, 0x40800000, 0b0\nmov_imm r48, 0, 0b0\nmov_imm r49, 0x3fe00000, 0b0\nmov_imm r50, 0, 0b0\n"
      "mov_imm r51, 0xc0000000, 0b0\nmov_imm r52, 0, 0b0\nmov_imm r53, 0x40200000, 0b0");
  ASSERT_TRUE(pre.ok()) << pre.error().message();
  prefix_ = *pre;
  prefix_halves_ = 2 * 54;
  ASSERT_TRUE(draw_points(*s, {}, 1)) << message;
  ASSERT_EQ(scene.vertices.size(), 1u);
  const unsigned a = test::output_slot(v, 0), b = test::output_slot(v, 1);
  const float want_a[] = {1.0f, 2.0f, 3.0f, 4.0f}, want_b[] = {0.5f, -2.0f, 8.0f, 1.0f};
  for (unsigned c = 0; c < 4; ++c) {
    EXPECT_FLOAT_EQ(outf(0, a + c), want_a[c]) << c;
    EXPECT_FLOAT_EQ(outf(0, b + c), want_b[c]) << c;
  }
}

// OpenGL SPIR-V: gl_VertexID / gl_InstanceID (VertexId / InstanceId): the
// instance ID does not count the base instance.
TEST_F(VertexRun, OpenGlVertexIdAndInstanceId) {
  auto s = compile_vs(R"(#version 450
layout(location = 0) flat out ivec2 ids;
void main() {
  gl_Position = vec4(0.0, 0.0, 0.5, 1.0);
  ids = ivec2(gl_VertexID, gl_InstanceID);
})",
                      TargetEnv::opengl);
  ASSERT_TRUE(s.ok()) << s.error().message();
  std::vector<uint32_t> u(s->abi.uniform_count, 0);
  u[s->abi.vertex.base_instance_uniform] = 40;
  ASSERT_TRUE(draw_points(*s, u, 1, 2, 3)) << message;
  ASSERT_EQ(scene.vertices.size(), 2u);
  const unsigned ids = s->abi.vertex.layout.find_varying(0)->index;
  EXPECT_EQ(out(0, ids), 3u);
  EXPECT_EQ(out(1, ids), 3u);
  EXPECT_EQ(out(0, ids + 1) + out(1, ids + 1), 1u);  // instances 0 and 1
}

TEST_F(VertexRun, LayerAndViewportShareAWord) {
  auto s = compile_vs(R"(#version 450
#extension GL_ARB_shader_viewport_layer_array : require
void main() {
  gl_Position = vec4(0.0, 0.0, 0.5, 1.0);
  gl_Layer = 3;
  gl_ViewportIndex = 0;
})");
  ASSERT_TRUE(s.ok()) << s.error().message();
  const VertexAbi& v = s->abi.vertex;
  ASSERT_TRUE(v.outputs.layer_viewport);
  const auto r = std::find_if(v.layout.outputs.begin(), v.layout.outputs.end(),
                               [](const varyings::OutputRange& o) { return o.kind == varyings::OutputKind::layer_viewport; });
  ASSERT_NE(r, v.layout.outputs.end());
  ASSERT_TRUE(draw_points(*s, {}, 1)) << message;
  ASSERT_EQ(scene.vertices.size(), 1u);
  EXPECT_EQ(out(0, r->index), 3u);  // layer low, viewport 0 high
}

}  // namespace
}  // namespace agx::compiler
