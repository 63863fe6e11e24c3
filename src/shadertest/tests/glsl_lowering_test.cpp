// The compatibility-profile lowering: what each built-in becomes, the
// locations shared by both stages, and glslang accepting the result.
#include <gtest/gtest.h>

#include "compiler/compiler.h"
#include "shadertest/glsl_lowering.h"
#include "shadertest/glsl_lowering_internal.h"
#include "shadertest/graphics_program.h"

namespace agx::shadertest {
namespace AGX_UNITY_ID {

using compiler::Stage;

LoweredShader lower(std::string_view text, Stage stage, LoweringState& state, unsigned version = 110, bool es = false) {
  auto l = lower_glsl(text, stage, version, es, 5, state);
  EXPECT_TRUE(l.ok()) << (l.ok() ? "" : l.error().message());
  return l.ok() ? std::move(*l) : LoweredShader{};
}

void compiles(const LoweredShader& l, Stage stage) {
  compiler::Options o;
  o.env = compiler::TargetEnv::opengl;
  o.stage = stage;
  auto words = compiler::glsl_to_spirv(l.source, o);
  EXPECT_TRUE(words.ok()) << l.source << "\n" << (words.ok() ? "" : words.error().message());
}

bool has(const std::string& s, std::string_view part) { return s.find(part) != std::string::npos; }

TEST(GlslLowering, CompatibilityVertexShader) {
  LoweringState state;
  auto v = lower("attribute vec4 pos;\nvarying vec3 n;\nvoid main() {\n"
                 "  gl_Position = ftransform() + gl_ModelViewMatrixInverse * gl_Vertex + pos;\n"
                 "  n = gl_NormalMatrix * gl_Normal;\n  gl_FrontColor = gl_Color;\n"
                 "  gl_TexCoord[1] = gl_MultiTexCoord1;\n  gl_ClipVertex = gl_Vertex;\n}\n",
                 Stage::vertex, state);
  EXPECT_TRUE(has(v.source, "#version 450\n#line 5\n"));
  EXPECT_TRUE(has(v.source, "layout(location = 0) in vec4 piglit_Vertex;"));
  EXPECT_TRUE(has(v.source, "layout(location = 2) in vec3 piglit_Normal;"));
  EXPECT_TRUE(has(v.source, "layout(location = 3) in vec4 piglit_Color;"));
  EXPECT_TRUE(has(v.source, "layout(location = 9) in vec4 piglit_MultiTexCoord1;"));
  // The user's attribute takes the lowest location the built-ins leave: 1.
  EXPECT_TRUE(has(v.source, "layout(location = 1) in vec4 pos;")) << v.source;
  EXPECT_TRUE(has(v.source, "uniform mat4 piglit_ModelViewMatrixInverse;"));
  EXPECT_TRUE(has(v.source, "uniform mat3 piglit_NormalMatrix;"));
  EXPECT_TRUE(has(v.source, "piglit_ftransform()"));
  // gl_ClipVertex: the distances from the runner's planes (zero when off).
  EXPECT_TRUE(has(v.source, "vec4 piglit_ClipVertex;\n")) << v.source;
  EXPECT_TRUE(has(v.source, "uniform vec4 piglit_ClipPlane[8];\nvoid main() { piglit_main(); gl_ClipDistance[0] = "
                            "dot(piglit_ClipPlane[0], piglit_ClipVertex);"))
      << v.source;
  EXPECT_TRUE(has(v.source, " gl_ClipDistance[7] = dot(piglit_ClipPlane[7], piglit_ClipVertex); gl_Position.z"));
  EXPECT_EQ(v.attributes.size(), 4u);
  // GL's clip volume: the shader's main runs first, then z = (z + w) / 2.
  EXPECT_TRUE(has(v.source, "void piglit_main() {")) << v.source;
  EXPECT_TRUE(v.source.ends_with(" gl_Position.z = (gl_Position.z + gl_Position.w) * 0.5; }\n")) << v.source;
  compiles(v, Stage::vertex);
  // The fragment stage finds the varyings at the vertex stage's locations.
  auto f = lower("varying vec3 n;\nuniform sampler2D s;\nuniform sampler2DShadow z;\nvoid main() {\n"
                 "  gl_FragColor = gl_Color + texture2D(s, n.xy) + gl_TexCoord[1] + shadow2D(z, n);\n}\n",
                 Stage::fragment, state);
  uint32_t n_at = state.varying_locations.at("n");
  EXPECT_TRUE(has(f.source, fmt::format("layout(location = {}) in vec3 n;", n_at))) << f.source;
  EXPECT_TRUE(has(f.source, fmt::format("layout(location = {}) in vec4 piglit_FrontColor;",
                                        state.varying_locations.at("piglit_FrontColor"))));
  EXPECT_TRUE(has(f.source, "layout(location = 0) out vec4 piglit_FragColor;"));
  EXPECT_TRUE(has(f.source, "texture(s, n.xy)"));
  EXPECT_TRUE(has(f.source, "vec4 piglit_shadow2D(sampler2DShadow s, vec3 c) { float r = texture(s, c); return vec4(r, r, r, 1.0); }"));
  compiles(f, Stage::fragment);
}

// The declarations go after a leading conditional, not inside it.
TEST(GlslLowering, PreambleAfterALeadingConditional) {
  LoweringState state;
  auto v = lower("#ifdef GL_ES\nprecision mediump float;\n#endif\n\nvoid main() { gl_Position = gl_Vertex; }\n",
                 Stage::vertex, state);
  EXPECT_TRUE(has(v.source, "#endif\n\nlayout(location = 0) in vec4 piglit_Vertex;")) << v.source;
  compiles(v, Stage::vertex);
}

TEST(GlslLowering, FragmentOutputsTakeLocationsInOrder) {
  LoweringState state;
  auto f = lower("#version 130\nout vec4 colour;\nout vec4 second[2], third;\n"
                 "layout(location = 5) out vec4 fixed_at;\nvoid main() { colour = vec4(1.0); }\n",
                 Stage::fragment, state);
  EXPECT_TRUE(has(f.source, "layout(location = 0) out vec4 colour;")) << f.source;
  EXPECT_TRUE(has(f.source, "layout(location = 1) out vec4 second[2];layout(location = 3) out vec4 third;")) << f.source;
  EXPECT_TRUE(has(f.source, "layout(location = 5) out vec4 fixed_at;")) << f.source;
  compiles(f, Stage::fragment);
}

TEST(GlslLowering, LinesVersionsAndComments) {
  LoweringState state;
  // #version 120 with an #extension: the preamble goes after the directives,
  // and #line puts the first code line back at its file line (5 + 3).
  auto v = lower("#version 120\n#extension GL_ARB_foo : enable\n// gl_Vertex in a comment\n"
                 "void main() { gl_Position = gl_Vertex; }\n", Stage::vertex, state);
  EXPECT_TRUE(has(v.source, "// gl_Vertex in a comment\nlayout(location = 0) in vec4 piglit_Vertex;\n#line 8\n"))
      << v.source;
  // ES 3.00 is compiled as 3.10 es, with precision on the preamble.
  auto f = lower("#version 300 es\nprecision mediump float;\nout vec4 c;\nvoid main() { c = vec4(1.0); }\n",
                 Stage::fragment, state);
  EXPECT_TRUE(has(f.source, "#version 310 es\n"));
  compiles(f, Stage::fragment);
  // ES 1.00 becomes desktop 4.50.
  auto e = lower("#version 100\nprecision mediump float;\nvarying vec4 c;\nvoid main() { gl_FragColor = c; }\n",
                 Stage::fragment, state);
  EXPECT_TRUE(has(e.source, "#version 450\n"));
  compiles(e, Stage::fragment);
}

TEST(GlslLowering, ErrorsNameWhatCannotBeLowered) {
  LoweringState state;
  // A structure with a member the lowering cannot count is not placed.
  auto r = lower_glsl("const int N = 2;\nstruct S { float a[N]; };\nvarying S s;\nvoid main() {}\n", Stage::vertex, 110,
                      false, 1, state);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(has(r.error().message(), "a varying of type 'S'"));
  r = lower_glsl("const int N = 2;\nvarying vec4 v[N];\nvoid main() {}\n", Stage::vertex, 110, false, 1, state);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(has(r.error().message(), "not a number"));
  EXPECT_FALSE(lower_glsl("void main() {}", Stage::compute, 450, false, 1, state).ok());
}

// Structure varyings take their members' locations (nested structures,
// arrays of arrays, doubles and 64-bit integers), the same in both stages;
// the #extension lines glslang refuses for core features are emptied.
TEST(GlslLowering, StructureVaryingsAndCoreExtensions) {
  LoweringState state;
  const std::string decls =
      "struct S1 {\n  float[2] f1; /* a comment */\n  highp dvec2 dv1; // another\n};\n"
      "struct S2 { S1 s; dmat3 m; u64vec3 u, v[2]; };\n";
  const std::string ext = "#extension GL_ARB_arrays_of_arrays: require\n#extension GL_ARB_gpu_shader5 : enable\n"
                          "#extension GL_ARB_gpu_shader_int64 : require\n";
  auto v = lower("#version 400\n" + ext + decls + "flat out S2[2][2] a;\nflat out double after;\n"
                 "void main() { gl_Position = vec4(0.0); }\n", Stage::vertex, state);
  // S1: 2 + 1 locations; S2: 3 + 6 (dmat3) + 2 (u64vec3) + 4 (u64vec3[2]).
  EXPECT_TRUE(has(v.source, "layout(location = 0) flat out S2[2][2] a;")) << v.source;
  EXPECT_TRUE(has(v.source, "layout(location = 60) flat out double after;")) << v.source;
  EXPECT_FALSE(has(v.source, "GL_ARB_arrays_of_arrays"));
  EXPECT_TRUE(has(v.source, "#extension GL_ARB_gpu_shader5 : enable"));
  compiles(v, Stage::vertex);
  auto f = lower("#version 400\n" + ext + decls + "flat in double after;\nflat in S2[2][2] a;\nout vec4 c;\n"
                 "void main() { c = vec4(float(after + a[1][0].s.dv1.y)); }\n", Stage::fragment, state);
  EXPECT_TRUE(has(f.source, "layout(location = 60) flat in double after;")) << f.source;
  EXPECT_TRUE(has(f.source, "layout(location = 0) flat in S2[2][2] a;")) << f.source;
  compiles(f, Stage::fragment);
}

// Explicit varying locations (GL_ARB_separate_shader_objects) stay; the
// implicit ones avoid them, and a name given a location in one stage keeps
// it in the other.
TEST(GlslLowering, ImplicitVaryingsAvoidExplicitLocations) {
  LoweringState state;
  auto v = lower("#version 150\nout vec4 a;\nlayout(location = 0) out vec2 b[2];\nout float c;\n"
                 "layout(location = 3) out vec4 d;\nvoid main() { gl_Position = vec4(0.0); }\n",
                 Stage::vertex, state);
  EXPECT_TRUE(has(v.source, "layout(location = 2) out vec4 a;")) << v.source;
  EXPECT_TRUE(has(v.source, "layout(location = 0) out vec2 b[2];")) << v.source;
  EXPECT_TRUE(has(v.source, "layout(location = 4) out float c;")) << v.source;
  compiles(v, Stage::vertex);
  auto f = lower("#version 150\nin float c;\nin vec4 d;\nin vec4 a;\nout vec4 o;\nvoid main() { o = a + d + c; }\n",
                 Stage::fragment, state);
  EXPECT_TRUE(has(f.source, "layout(location = 4) in float c;")) << f.source;
  EXPECT_TRUE(has(f.source, "layout(location = 3) in vec4 d;")) << f.source;
  EXPECT_TRUE(has(f.source, "layout(location = 2) in vec4 a;")) << f.source;
  compiles(f, Stage::fragment);
}

// A redeclared colour keeps its interpolation qualifier; the uses are
// reported for the check between stages (a redeclaration is no use).
TEST(GlslLowering, ColourRedeclarationsKeepTheirQualifier) {
  LoweringState state;
  auto v = lower("#version 130\nflat out vec4 gl_FrontColor;\nnoperspective out vec4 gl_BackColor;\n"
                 "void main() { gl_Position = vec4(0); gl_FrontColor = vec4(1); }\n", Stage::vertex, state);
  EXPECT_TRUE(has(v.source, "flat out vec4 piglit_FrontColor;")) << v.source;
  EXPECT_EQ(v.colour_qualifiers, (std::map<std::string, std::string>{{"gl_FrontColor", "flat"}}));
  compiles(v, Stage::vertex);
  auto f = lower("#version 130\nflat in vec4 gl_Color;\nout vec4 c;\nvoid main() { c = gl_Color + gl_SecondaryColor; }\n",
                 Stage::fragment, state);
  EXPECT_TRUE(has(f.source, "flat in vec4 piglit_FrontColor;")) << f.source;
  EXPECT_EQ(f.colour_qualifiers,
            (std::map<std::string, std::string>{{"gl_Color", "flat"}, {"gl_SecondaryColor", ""}}));
  compiles(f, Stage::fragment);
}

// Under `shade model flat` the colours without a qualifier are flat; a
// fragment gl_Color whose back colour the vertex shader writes is chosen
// by facing in an appended main.
TEST(GlslLowering, FlatShadingAndTwoSidedColours) {
  LoweringState state;
  state.flat_colours = true;
  auto v = lower("void main() { gl_Position = vec4(0); gl_FrontColor = vec4(1); gl_BackColor = vec4(0); }\n",
                 Stage::vertex, state);
  EXPECT_TRUE(has(v.source, "flat out vec4 piglit_FrontColor;")) << v.source;
  EXPECT_TRUE(has(v.source, "flat out vec4 piglit_BackColor;")) << v.source;
  compiles(v, Stage::vertex);
  auto f = lower("void main() { gl_FragColor = gl_Color; }\n", Stage::fragment, state);
  EXPECT_TRUE(has(f.source, "flat in vec4 piglit_FrontColor;")) << f.source;
  EXPECT_TRUE(has(f.source, "flat in vec4 piglit_BackColor;")) << f.source;
  EXPECT_TRUE(has(f.source, "uniform int piglit_TwoSide;")) << f.source;
  EXPECT_TRUE(has(f.source, "piglit_Color = piglit_TwoSide != 0 && !gl_FrontFacing ? piglit_BackColor : piglit_FrontColor;"))
      << f.source;
  compiles(f, Stage::fragment);
}

TEST(GlslLowering, ClipDistancesOfDisabledPlanesAreZeroed) {
  // Implicitly sized: the largest constant index (comments do not count).
  LoweringState state;
  auto v = lower("void main() {\n  gl_Position = gl_Vertex;\n  gl_ClipDistance[0] = 1.0;\n"
                 "  gl_ClipDistance[2] = -1.0; // gl_ClipDistance[7]\n}\n",
                 Stage::vertex, state, 130);
  EXPECT_TRUE(has(v.source, "uniform uint piglit_ClipDistanceEnable;\nvoid main() { piglit_main(); if "
                            "((piglit_ClipDistanceEnable & (1u << 0)) == 0u) gl_ClipDistance[0] = 0.0;"))
      << v.source;
  EXPECT_TRUE(has(v.source, "gl_ClipDistance[2] = 0.0; gl_Position.z")) << v.source;
  EXPECT_FALSE(has(v.source, "gl_ClipDistance[3] = 0.0;")) << v.source;
  compiles(v, Stage::vertex);
  // Redeclared with a size: every element, by the array's length.
  LoweringState sized;
  auto r = lower("out float gl_ClipDistance[gl_MaxClipDistances];\nuniform int n;\nvoid main() {\n"
                 "  gl_Position = gl_Vertex;\n  for (int i = 0; i < n; ++i) gl_ClipDistance[i] = 1.0;\n}\n",
                 Stage::vertex, sized, 130);
  EXPECT_TRUE(has(r.source, "for (int i = 0; i < gl_ClipDistance.length(); ++i) if ((piglit_ClipDistanceEnable & "
                            "(1u << uint(i))) == 0u) gl_ClipDistance[i] = 0.0;"))
      << r.source;
  compiles(r, Stage::vertex);
  EXPECT_EQ(lowering::implicit_clip_distances("gl_ClipDistance[ 3u ] = 0.0;").value_or(0), 4u);
  EXPECT_FALSE(lowering::implicit_clip_distances("out float gl_ClipDistance[2];").has_value());
}

TEST(GlslLowering, WithoutClipOutputsPositionIsTheClipVertex) {
  LoweringState state;
  state.user_clip_planes = true;
  auto v = lower("void main() { gl_Position = gl_Vertex; }\n", Stage::vertex, state, 130);
  EXPECT_TRUE(has(v.source, "gl_ClipDistance[5] = dot(piglit_ClipPlane[5], gl_Position);")) << v.source;
  compiles(v, Stage::vertex);
  // A file without clip planes keeps the plain main.
  LoweringState plain;
  EXPECT_TRUE(lower("void main() { gl_Position = gl_Vertex; }\n", Stage::vertex, plain, 130).source.ends_with(kClipZMain));
}

TEST(GlslLowering, FindVersion) {
  auto v = find_version("// c\n  #version 300 es\nvoid main() {}\n");
  EXPECT_TRUE(v.found && v.es);
  EXPECT_EQ(v.number, 300u);
  EXPECT_EQ(v.body, "// c\n  \nvoid main() {}\n");
  EXPECT_FALSE(find_version("void main() {}\n").found);
}

TEST(GlslLowering, GlslangErrorKind) {
  EXPECT_EQ(glslang_error_kind("ERROR: vertex shader:12: 'gl_LightSource' : undeclared identifier\nERROR: 1 error"),
            "'gl_LightSource' : undeclared identifier");
  EXPECT_EQ(glslang_error_kind("fragment shader:6: 'gl_X' : undeclared identifier\nmore"), "'gl_X' : undeclared identifier");
  EXPECT_EQ(glslang_error_kind("no error line"), "no error line");
}

}  // namespace
}  // namespace agx::shadertest
