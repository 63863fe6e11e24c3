// 64-bit vertex attributes and varyings: the double formats fetched by
// the vertex prolog into two registers per component (a dvec3 / dvec4
// going on into the next location's), read by a vertex shader and written
// as word pairs to its outputs (a dvec3 / dvec4 output over two
// locations), on the software GPU's vertex half.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>

#include "compiler/compiler.h"
#include "compiler/tests/vertex_prolog_ref.h"
#include "compiler/vertex_prolog.h"

namespace agx::compiler {
namespace AGX_UNITY_ID {

using namespace test;

std::vector<uint8_t> doubles_bytes(std::initializer_list<double> v) {
  std::vector<uint8_t> out(8 * v.size());
  std::memcpy(out.data(), v.begin(), out.size());
  return out;
}

TEST(Fp64Io, VertexAbiCountsDoubleAttributesAndOutputs) {
  auto s = compile_vs(R"(#version 450
layout(location = 0) in dvec3 a;
layout(location = 2) in double b;
layout(location = 3) in dmat2 m;
layout(location = 0) out dvec3 o;
layout(location = 2) flat out double p;
void main() {
  gl_Position = vec4(0.0, 0.0, 0.5, 1.0);
  o = a + m[1].x;
  p = b;
})");
  ASSERT_TRUE(s.ok()) << s.error().message();
  const VertexAbi& v = s->abi.vertex;
  // dvec3 at 0 (its second location 1 is no attribute of its own), the
  // double at 2, the dmat2's columns at 3 and 4.
  ASSERT_EQ(v.attributes.size(), 4u);
  const uint32_t want[4][2] = {{0, 3}, {2, 1}, {3, 2}, {4, 2}};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(v.attributes[i].location, want[i][0]);
    EXPECT_EQ(v.attributes[i].components, want[i][1]);
    EXPECT_EQ(v.attributes[i].type, VertexAttribute::BaseType::double_);
  }
  EXPECT_EQ(v.attribute_slots, 5u);
  // Outputs: the dvec3's four and two words, the double's two, all flat.
  ASSERT_EQ(v.outputs.varyings.size(), 3u);
  EXPECT_EQ(v.output_locations, (std::vector<uint32_t>{0, 1, 2}));
  const uint32_t words[3] = {4, 2, 2};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(v.outputs.varyings[i].components, words[i]);
    EXPECT_EQ(v.outputs.varyings[i].interp, varyings::Interp::flat);
  }
}

// Flat double fragment inputs (GLSL: 64-bit fragment inputs are flat): a
// dvec3 takes locations 0 (x, y: four words) and 1 (z: two), a double
// location 2; each word is its own coefficient register, read with ldcf.
TEST(Fp64Io, FragmentDoubleInputsTakeAnEntryPerLocation) {
  Options o;
  o.stage = Stage::fragment;
  o.file_name = "t.frag";
  auto s = compile_glsl(R"(#version 450
layout(location = 0) flat in dvec3 d;
layout(location = 2) flat in double e;
layout(location = 0) out vec4 o;
void main() { o = vec4(float(d.x), float(d.y), float(d.z), float(e)); })", o);
  ASSERT_TRUE(s.ok()) << s.error().message();
  const std::vector<FragmentInput>& in = s->abi.fragment.inputs;
  ASSERT_EQ(in.size(), 3u);
  const uint32_t want[3][2] = {{0, 4}, {1, 2}, {2, 2}};  // location, words
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(in[i].location, want[i][0]);
    EXPECT_EQ(in[i].components, want[i][1]);
    EXPECT_EQ(in[i].interpolation, Interpolation::flat);
  }
  EXPECT_EQ(in[0].cf, 1u);
  EXPECT_EQ(in[1].cf, 5u);
  EXPECT_EQ(in[2].cf, 7u);
  EXPECT_EQ(s->abi.fragment.cf_count, 9u);
  size_t ldcf = 0;
  for (size_t at = s->ir_text.find("iter.ldcf"); at != std::string::npos; at = s->ir_text.find("iter.ldcf", at + 1)) ++ldcf;
  EXPECT_EQ(ldcf, 8u) << s->ir_text;
}

// Structure varyings (in an array, with a double, a 64-bit integer and a
// matrix) take their members' locations in order on both sides, flat.
TEST(Fp64Io, StructureVaryingsTakeTheirMembersLocations) {
  const std::string decl = "#version 450\n#extension GL_ARB_gpu_shader_int64 : require\n"
                           "struct S { float f[2]; dvec3 d; uint64_t u; mat2 m; };\n";
  auto v = compile_vs(decl + "layout(location = 1) flat out S s[2];\n"
                      "void main() { gl_Position = vec4(0.0); s[1].d = dvec3(1.0lf); s[0].u = 7ul; s[1].m[1] = vec2(2.0); }\n");
  ASSERT_TRUE(v.ok()) << v.error().message();
  // Per element: f[0], f[1], d (4 words, then 2), u (2 words), m's two columns.
  const uint32_t words[7] = {1, 1, 4, 2, 2, 2, 2};
  const VertexAbi& va = v->abi.vertex;
  ASSERT_EQ(va.outputs.varyings.size(), 14u);
  for (uint32_t i = 0; i < 14; ++i) {
    EXPECT_EQ(va.output_locations[i], 1 + i);
    EXPECT_EQ(va.outputs.varyings[i].components, words[i % 7]);
    EXPECT_EQ(va.outputs.varyings[i].interp, varyings::Interp::flat);
  }
  Options o;
  o.stage = Stage::fragment;
  o.file_name = "t.frag";
  auto f = compile_glsl(decl + "layout(location = 1) flat in S s[2];\nlayout(location = 0) out vec4 o;\n"
                        "void main() { o = vec4(float(s[1].d.z), float(s[0].u), s[1].m[1]); }\n", o);
  ASSERT_TRUE(f.ok()) << f.error().message();
  const std::vector<FragmentInput>& in = f->abi.fragment.inputs;
  ASSERT_EQ(in.size(), 14u);
  for (uint32_t i = 0; i < 14; ++i) {
    EXPECT_EQ(in[i].location, 1 + i);
    EXPECT_EQ(in[i].components, words[i % 7]);
    EXPECT_EQ(in[i].interpolation, Interpolation::flat);
  }
}

TEST(Fp64Io, PrologKeyErrors) {
  VertexPrologAttribute a;
  a.location = 15;
  a.format = {Type::sfloat, Layout::plain, 64, 3, false};
  a.type = BaseType::double_;
  a.stride = 24;
  VertexPrologKey k;
  k.attributes = {a};
  auto p = compile_vertex_prolog(k);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message().find("R64G64B64_SFLOAT takes location 16 too, which does not exist"), std::string::npos)
      << p.error().message();
  VertexPrologAttribute b = a;
  a.location = 1;
  b.location = 2;
  b.format.components = 1;
  k.attributes = {a, b};
  p = compile_vertex_prolog(k);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message().find("takes location 2 too, which another attribute has"), std::string::npos)
      << p.error().message();
  a.type = BaseType::float_;
  k.attributes = {a};
  p = compile_vertex_prolog(k);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message().find("format R64G64B64_SFLOAT does not give the shader's float values"),
            std::string::npos)
      << p.error().message();
}

// Double attributes of every width through the prolog (a dvec4 read from
// a three-component format: w filled as 1.0), per vertex and per instance, read by a shader that does double arithmetic and writes dvec3
// and dvec4 outputs over two locations each.
TEST_F(PrologRun, DoubleAttributesToDoubleOutputs) {
  auto s = compile_vs(R"(#version 450
layout(location = 0) in dvec3 a;
layout(location = 2) in double b;
layout(location = 3) in dvec4 c;
layout(location = 5) in dvec4 d;
layout(location = 0) out dvec3 o;
layout(location = 2) out dvec4 q;
layout(location = 4) out dvec4 r;
void main() {
  gl_Position = vec4(0.0, 0.0, 0.5, 1.0);
  o = a * 2.0 + b;
  q = c;
  r = d;
})", TargetEnv::vulkan, false);  // no preamble: the fixture gives the preshader 16 register halves
  ASSERT_TRUE(s.ok()) << s.error().message();
  VertexPrologAttribute a, b, c, d;
  a.location = 0;
  a.format = {Type::sfloat, Layout::plain, 64, 3, false};
  a.stride = 24;
  b.location = 2;
  b.format = {Type::sfloat, Layout::plain, 64, 1, false};
  b.stride = 8;
  c.location = 3;
  c.format = {Type::sfloat, Layout::plain, 64, 3, false};
  c.stride = 24;
  c.per_instance = true;
  d.location = 5;
  d.format = {Type::sfloat, Layout::plain, 64, 4, false};
  d.stride = 40;  // a padded element: index times 10 words
  for (VertexPrologAttribute* x : {&a, &b, &c, &d}) x->type = BaseType::double_;
  const auto abuf = doubles_bytes({1.5, -2.0, 1e300, 0.25, 3.0, -1e-300});
  const auto bbuf = doubles_bytes({10.0, 0.1});
  const auto cbuf = doubles_bytes({7.0, 8.0, 9.0, -7.0, -8.0, -9.0});
  const auto dbuf = doubles_bytes({1.0, 2.0, 3.0, 4.0, 99.0, 5.0, 6.0, 7.0, 8.0, 99.0});
  ASSERT_TRUE(draw(*s, {a, b, c, d}, {abuf, bbuf, cbuf, dbuf}, {1, 1, 1, 1}, 2, 2)) << message;
  ASSERT_EQ(scene.vertices.size(), 4u);
  const VertexAbi& v = s->abi.vertex;
  auto slot = [&](uint32_t location) { return output_slot(v, location); };
  auto dbl = [&](size_t k, unsigned i) {
    return std::bit_cast<double>(uint64_t{out(k, i)} | uint64_t{out(k, i + 1)} << 32);
  };
  const std::vector<double> as = {1.5, -2.0, 1e300, 0.25, 3.0, -1e-300}, ds = {1, 2, 3, 4, 99, 5, 6, 7, 8, 99};
  const double bs[] = {10.0, 0.1}, cs[2][3] = {{7.0, 8.0, 9.0}, {-7.0, -8.0, -9.0}};
  for (size_t k = 0; k < 4; ++k) {
    // Which vertex: q tells the instance, o.x the vertex.
    const size_t vtx = dbl(k, slot(0)) == 1.5 * 2.0 + 10.0 ? 0 : 1;
    const size_t inst = dbl(k, slot(2)) == 7.0 ? 0 : 1;
    for (unsigned c3 = 0; c3 < 3; ++c3) {
      const unsigned at = c3 < 2 ? slot(0) + 2 * c3 : slot(1);
      EXPECT_EQ(dbl(k, at), as[3 * vtx + c3] * 2.0 + bs[vtx]) << k << " o." << c3;
    }
    const double qw[4] = {cs[inst][0], cs[inst][1], cs[inst][2], 1.0};
    for (unsigned c4 = 0; c4 < 4; ++c4) {
      const unsigned qa = c4 < 2 ? slot(2) + 2 * c4 : slot(3) + 2 * (c4 - 2);
      const unsigned ra = c4 < 2 ? slot(4) + 2 * c4 : slot(5) + 2 * (c4 - 2);
      EXPECT_EQ(dbl(k, qa), qw[c4]) << k << " q." << c4;
      EXPECT_EQ(dbl(k, ra), ds[5 * vtx + c4]) << k << " r." << c4;
    }
  }
}

}  // namespace AGX_UNITY_ID
}  // namespace agx::compiler
