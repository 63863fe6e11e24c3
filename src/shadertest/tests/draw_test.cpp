// Vertex/fragment files end to end through the runtime's render passes on
// the in-process device: draw rect (clip space and ortho), uniforms of
// both stages, the compatibility matrices, [vertex data] with draw arrays,
// GL's lower-left origin (probes, gl_FragCoord, the PNG), depth, failed
// probes and unsupported commands naming their line.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "shadertest/graphics_session.h"
#include "shadertest/runner.h"
#include "util/png.h"

namespace agx::shadertest {
namespace AGX_UNITY_ID {

const std::string kPassthrough = "[require]\nGLSL >= 1.30\n[vertex shader passthrough]\n";
const std::string kUniformColour =
    "[fragment shader]\n#version 130\nuniform vec4 colour;\nvoid main() { gl_FragColor = colour; }\n";

Verdict run(const std::string& text, const RunOptions& o = {}) { return run_shader_test(text, o); }

// [vertex data] rows of a full-window triangle fan: each corner's x y, then `rest`.
std::string fan_rows(const std::string& rest) { return "-1 -1" + rest + "1 -1" + rest + "1 1" + rest + "-1 1" + rest; }

TEST(Draw, RectWithAUniformColourOverAClear) {
  auto v = run(kPassthrough + kUniformColour +
               "[test]\nclear color 0.0 0.0 1.0 1.0\nclear\nuniform vec4 colour 0.0 1.0 0.0 1.0\n"
               "draw rect -1 -1 1 2\n"
               "probe rect rgba (0, 0, 125, 250) (0.0, 1.0, 0.0, 1.0)\n"
               "probe rect rgba (125, 0, 125, 250) (0.0, 0.0, 1.0, 1.0)\n"
               "relative probe rgb (0.25, 0.5) (0.0, 1.0, 0.0)\nprobe rgba 200 10 0.0 0.0 1.0 1.0\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  // A probe that does not match fails the file with piglit's report and goes on.
  v = run(kPassthrough + kUniformColour +
          "[test]\nuniform vec4 colour 1.0 0.0 0.0 1.0\ndraw rect -1 -1 2 2\nprobe all rgb 0.0 1.0 0.0\n"
          "probe rgb 3 4 1.0 0.0 0.0\nprobe rgb 3 4 0.0 0.0 0.0\n");
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_NE(v.detail.find("Test failure on line 11"), std::string::npos) << v.detail;
  EXPECT_NE(v.detail.find("Test failure on line 13"), std::string::npos) << v.detail;
  EXPECT_EQ(v.detail.find("line 12"), std::string::npos) << v.detail;
  // The same failures as values, for --report: the line, the region, the colours.
  ASSERT_EQ(v.probe_failures.size(), 2u);
  const ProbeFailure& all = v.probe_failures[0];
  EXPECT_EQ(all.line, 11u);
  EXPECT_EQ(all.region.w, 250);
  EXPECT_EQ(all.region.h, 250);
  EXPECT_EQ(all.x, 0);
  EXPECT_EQ(all.y, 0);
  EXPECT_EQ(all.channels, 3);
  EXPECT_EQ(all.expected, (Rgba{0, 1, 0, 1}));  // an rgb probe: alpha as parsed, not compared
  EXPECT_EQ(all.observed, (Rgba{1, 0, 0, 1}));
  EXPECT_EQ(all.fb_width_px, 250u);
  const ProbeFailure& pixel = v.probe_failures[1];
  EXPECT_EQ(pixel.line, 13u);
  EXPECT_EQ(pixel.region.x, 3);
  EXPECT_EQ(pixel.region.y, 4);
  EXPECT_EQ(pixel.region.w, 1);
}

TEST(Draw, LowerLeftOriginForProbesAndFragCoord) {
  // Rows below y = 10 red: probes count rows from the bottom, as GL does.
  auto v = run(kPassthrough +
               "[fragment shader]\n#version 130\nvoid main() {\n"
               "  gl_FragColor = gl_FragCoord.y < 10.0 ? vec4(1, 0, 0, 1) : vec4(0, 1, 0, 1);\n}\n"
               "[test]\ndraw rect -1 -1 2 2\nprobe rgb 5 2 1 0 0\nprobe rgb 5 240 0 1 0\n"
               "probe rect rgb (0, 0, 250, 10) (1, 0, 0)\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  // A rectangle in clip space's bottom half covers the bottom rows.
  v = run(kPassthrough + kUniformColour +
          "[test]\nuniform vec4 colour 1 1 1 1\ndraw rect -1 -1 2 1\nprobe rgb 100 20 1 1 1\nprobe rgb 100 200 0 0 0\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
}

TEST(Draw, CompatibilityMatricesAndOrtho) {
  // gl_Vertex through ftransform(): identity until `ortho`, then window pixels.
  const std::string file =
      "[require]\nGLSL >= 1.10\n[vertex shader]\nvoid main() { gl_Position = ftransform(); gl_FrontColor = gl_Color; }\n"
      "[fragment shader]\nvoid main() { gl_FragColor = gl_Color; }\n[test]\n";
  auto v = run(file + "color 0 1 0 1\ndraw rect 0 0 1 1\nprobe rgb 200 200 0 1 0\nprobe rgb 20 20 0 0 0\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  v = run(file + "ortho\ncolor 1 0 1 1\ndraw rect 10 20 30 40\nprobe rect rgb (10, 20, 30, 40) (1, 0, 1)\n"
                 "probe rgb 9 20 0 0 0\nprobe rgb 10 60 0 0 0\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  // frustum: draw rect's corners at eye z = 0 are behind the near plane
  // (clip w = 0): nothing is drawn.
  v = run(file + "frustum -1 1 -1 1 1 3\ncolor 0 0 1 1\ndraw rect -1 -1 2 2\nprobe all rgb 0 0 0\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  v = run(file + "frustum -1 1 -1 1 0 3\n");
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_NE(v.detail.find("GL_INVALID_VALUE"), std::string::npos) << v.detail;
  v = run(kPassthrough + kUniformColour + "[test]\nuniform vec4 colour 1 1 0 1\ndraw rect ortho 0 0 125 250\n"
                                          "probe rgb 124 100 1 1 0\nprobe rgb 125 100 0 0 0\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
}

TEST(Draw, VertexDataAndDrawArrays) {
  // Two triangles from [vertex data]: a position and an integer colour index.
  const std::string file =
      "[require]\nGLSL >= 1.30\n[vertex shader]\n#version 130\nin vec2 pos;\nin int which;\nflat out int w;\n"
      "void main() { gl_Position = vec4(pos, 0.0, 1.0); w = which; }\n"
      "[fragment shader]\n#version 130\nflat in int w;\n"
      "void main() { gl_FragColor = w == 7 ? vec4(0, 0, 1, 1) : vec4(1, 0, 0, 1); }\n"
      "[vertex data]\npos/float/2 which/int/1\n-1 -1 7\n0 -1 7\n-1 0 7\n0 0 3\n1 0 3\n0 1 3\n[test]\n";
  auto v = run(file + "draw arrays GL_TRIANGLES 0 6\nprobe rgb 10 10 0 0 1\nprobe rgb 130 130 1 0 0\n"
                      "probe rgb 240 10 0 0 0\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  // FIRST skips vertices.
  v = run(file + "draw arrays GL_TRIANGLES 3 3\nprobe rgb 10 10 0 0 0\nprobe rgb 130 130 1 0 0\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
}

// GL_ARB_vertex_attrib_64bit: `double` [vertex data] columns into a dvec3
// and a dmat3 (dvec3 columns: two locations each), after a ubyte column
// that leaves them unaligned in the packed rows, doubles as varyings (a
// dvec3 over two locations), read flat by the fragment shader.
TEST(Draw, DoubleVertexDataAndVaryings) {
  const std::string file =
      "[require]\nGLSL >= 1.50\nGL_ARB_gpu_shader_fp64\nGL_ARB_vertex_attrib_64bit\n"
      "[vertex shader]\n#version 150\n#extension GL_ARB_gpu_shader_fp64 : require\n"
      "#extension GL_ARB_vertex_attrib_64bit : require\n"
      "in vec2 pos;\nin dvec3 d;\nin dmat3 m;\nflat out dvec3 v;\nflat out double k;\n"
      "void main() { gl_Position = vec4(pos, 0.0, 1.0); v = d * 2.0lf + m[2]; k = m[0].x + m[1].z; }\n"
      "[fragment shader]\n#version 150\n#extension GL_ARB_gpu_shader_fp64 : require\n"
      "flat in dvec3 v;\nflat in double k;\n"
      "void main() {\n"
      "  bool ok = v == dvec3(2.0000000000000004lf, -5.0lf, 1e100lf) && k == 0.1lf + 5.0lf;\n"
      "  gl_FragColor = ok ? vec4(0, 1, 0, 1) : vec4(1, 0, 0, 1);\n}\n"
      "[vertex data]\npos/float/2 pad/ubyte/1 d/double/3 m/double/3/0 m/double/3/1 m/double/3/2\n";
  const std::string row = " 7 1.0000000000000002 -2.5 0.0  0.1 9 9  9 9 5.0  0 0 1e100\n";
  const std::string data = fan_rows(row);
  auto v = run(file + data + "[test]\ndraw arrays GL_TRIANGLE_FAN 0 4\nprobe all rgba 0 1 0 1\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  // Float data for a double input is not converted: the file SKIPs naming it.
  std::string floats = file;
  floats.replace(floats.find("d/double/3"), 10, "d/float/3");
  v = run(floats + data + "[test]\ndraw arrays GL_TRIANGLE_FAN 0 4\n");
  EXPECT_EQ(v.outcome, Outcome::skip);
  EXPECT_NE(v.detail.find("column d: non-double data for a double input"), std::string::npos) << v.detail;
}

// Structure varyings (nested, in arrays of arrays, with doubles and 64-bit
// integers, flat) and a smooth one of floats: each member at its location
// in both stages, the #extension lines of core features accepted.
TEST(Draw, StructureVaryings) {
  const std::string decls =
      "struct S1 { float[2] f; dvec2 d; };\nstruct S2 { S1 s; uint64_t u; ivec3 i; };\nstruct C { vec2 a; vec4 b; };\n";
  const std::string ext = "#version 400\n#extension GL_ARB_arrays_of_arrays: require\n"
                          "#extension GL_ARB_gpu_shader_int64 : require\n";
  auto v = run("[require]\nGLSL >= 4.00\nGL_ARB_arrays_of_arrays\nGL_ARB_gpu_shader_int64\n"
               "[vertex shader]\n" + ext + decls +
               "in vec4 piglit_vertex;\nflat out S2[2][2] s;\nout C c;\n"
               "void main() {\n  gl_Position = piglit_vertex;\n  c.a = vec2(0.25, 0.5); c.b = vec4(1, 2, 3, 4);\n"
               "  for (int i = 0; i < 2; ++i) for (int j = 0; j < 2; ++j) {\n"
               "    int k = 2 * i + j;\n    s[i][j].s.f[0] = float(k); s[i][j].s.f[1] = float(k) + 0.5;\n"
               "    s[i][j].s.d = dvec2(k, 1.0lf / 3.0lf); s[i][j].u = 0x123456789ul * uint64_t(k + 1);\n"
               "    s[i][j].i = ivec3(-k, k, 7);\n  }\n}\n"
               "[fragment shader]\n" + ext + decls +
               "flat in S2[2][2] s;\nin C c;\nout vec4 colour;\n"
               "void main() {\n  bool ok = c.a == vec2(0.25, 0.5) && c.b == vec4(1, 2, 3, 4);\n"
               "  for (int i = 0; i < 2; ++i) for (int j = 0; j < 2; ++j) {\n"
               "    int k = 2 * i + j;\n    ok = ok && s[i][j].s.f[0] == float(k) && s[i][j].s.f[1] == float(k) + 0.5;\n"
               "    ok = ok && s[i][j].s.d == dvec2(k, 1.0lf / 3.0lf) && s[i][j].u == 0x123456789ul * uint64_t(k + 1);\n"
               "    ok = ok && s[i][j].i == ivec3(-k, k, 7);\n  }\n"
               "  colour = ok ? vec4(0, 1, 0, 1) : vec4(1, 0, 0, 1);\n}\n"
               "[test]\ndraw rect -1 -1 2 2\nprobe all rgba 0 1 0 1\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
}

// Two-sided colour: with GL_VERTEX_PROGRAM_TWO_SIDE a back-facing rect
// (negative width: clockwise) reads gl_BackColor, a front-facing one
// gl_FrontColor; without it both read the front colour.
TEST(Draw, TwoSidedColour) {
  auto v = run("[require]\nGLSL >= 1.10\n[vertex shader]\n"
               "void main() { gl_Position = gl_Vertex; gl_FrontColor = vec4(0, 1, 0, 1); gl_BackColor = vec4(0, 0, 1, 1);"
               " gl_FrontSecondaryColor = vec4(0.5); }\n"
               "[fragment shader]\nvoid main() { gl_FragColor = gl_Color; }\n"
               "[test]\nenable GL_VERTEX_PROGRAM_TWO_SIDE\ndraw rect -1 -1 1 2\ndraw rect 1 -1 -1 2\n"
               "relative probe rect rgba (0.0, 0.0, 0.5, 1.0) (0, 1, 0, 1)\n"
               "relative probe rect rgba (0.5, 0.0, 0.5, 1.0) (0, 0, 1, 1)\n"
               "disable GL_VERTEX_PROGRAM_TWO_SIDE\ndraw rect 1 -1 -1 2\ndraw rect -1 -1 1 2\nprobe all rgba 0 1 0 1\n"
               // Culling drops the back-facing (clockwise) rect only.
               "clear\nenable GL_CULL_FACE\ndraw rect 1 -1 -1 2\ndraw rect -1 -1 1 2\n"
               "relative probe rect rgba (0.0, 0.0, 0.5, 1.0) (0, 1, 0, 1)\n"
               "relative probe rect rgba (0.5, 0.0, 0.5, 1.0) (0, 0, 0, 0)\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
}

// Local arrays indexed by a uniform live in the stack in both stages: the
// render command names a helper program per stage with scratch.
TEST(Draw, StackMemoryInBothStages) {
  auto v = run("[require]\nGLSL >= 1.30\n[vertex shader]\n#version 130\nin vec4 piglit_vertex;\nuniform int i;\n"
               "out vec4 c;\nvoid main() {\n  vec4 a[5] = vec4[5](vec4(1), vec4(0, 0.5, 0, 1), vec4(2), vec4(3), vec4(4));\n"
               "  a[i + 2] = vec4(0.25);\n  gl_Position = piglit_vertex;\n  c = a[i] + a[i + 2];\n}\n"
               "[fragment shader]\n#version 130\nin vec4 c;\nuniform int i;\n"
               "void main() {\n  float f[6] = float[6](0.0, 0.0, 0.0, 0.0, 0.0, 0.0);\n"
               "  f[i * 3] = c.y;\n  gl_FragColor = vec4(f[0] + c.x - 0.25, f[i * 3], f[5], 1.0);\n}\n"
               "[test]\nuniform int i 1\ndraw rect -1 -1 2 2\nprobe all rgba 0 0.75 0 1\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
}

// Array inputs from [vertex data] NAME[I] columns: a mat2[2] (a location
// per column), an ivec2[2] and a dmat2x3[2] (dvec3 columns: two locations
// each), element after element.
TEST(Draw, ArrayInputsFromVertexData) {
  const std::string file =
      "[require]\nGLSL >= 1.50\nGL_ARB_gpu_shader_fp64\nGL_ARB_vertex_attrib_64bit\n"
      "[vertex shader]\n#version 150\n#extension GL_ARB_gpu_shader_fp64 : require\n"
      "#extension GL_ARB_vertex_attrib_64bit : require\n"
      "in vec2 pos;\nin mat2 m[2];\nin ivec2 v[2];\nin dmat2x3 d[2];\nout vec4 c;\n"
      "void main() {\n  gl_Position = vec4(pos, 0.0, 1.0);\n"
      "  bool ok = m[0] == mat2(1, 2, 3, 4) && m[1] == mat2(5, 6, 7, 8) && v[0] == ivec2(9, -10) &&\n"
      "            v[1] == ivec2(11, 12) && d[0] == dmat2x3(1, 2, 3, 4, 5, 6) && d[1] == dmat2x3(7, 8, 9, 10, 11, 12);\n"
      "  c = ok ? vec4(0, 1, 0, 1) : vec4(1, 0, 0, 1);\n}\n"
      "[fragment shader]\n#version 150\nin vec4 c;\nvoid main() { gl_FragColor = c; }\n"
      "[vertex data]\npos/float/2 m[0]/float/mat2/0 m[0]/float/mat2/1 m[1]/float/mat2/0 m[1]/float/mat2/1 "
      "v[0]/int/ivec2 v[1]/int/ivec2 d[0]/double/dmat2x3/0 d[0]/double/dmat2x3/1 d[1]/double/dmat2x3/0 "
      "d[1]/double/dmat2x3/1\n";
  const std::string row = "  1 2 3 4 5 6 7 8  9 -10 11 12  1 2 3 4 5 6 7 8 9 10 11 12\n";
  const std::string data = fan_rows(row);
  auto v = run(file + data + "[test]\ndraw arrays GL_TRIANGLE_FAN 0 4\nprobe all rgba 0 1 0 1\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  // Element 1's columns swapped: the shader sees them where they belong.
  std::string swapped = file;
  swapped.replace(swapped.find("m[1]/float/mat2/0"), 17, "m[1]/float/mat2/X");
  swapped.replace(swapped.find("m[1]/float/mat2/1"), 17, "m[1]/float/mat2/0");
  swapped.replace(swapped.find("m[1]/float/mat2/X"), 17, "m[1]/float/mat2/1");
  v = run(swapped + data + "[test]\ndraw arrays GL_TRIANGLE_FAN 0 4\nprobe all rgba 0 1 0 1\n");
  EXPECT_EQ(v.outcome, Outcome::fail) << v.detail;
}

// piglit's vs_in shape: an input array compared whole with a loose
// uniform array set element by element (`uniform ivec4 e[1] ...` at the
// compiler's array stride), and a loose mat3 array (36 bytes apart, its
// columns packed) read whole in the fragment shader.
TEST(Draw, InputArraysComparedWithLooseUniformArrays) {
  const std::string file =
      "[require]\nGLSL >= 1.50\n"
      "[vertex shader]\n#version 150\nuniform ivec4 e[3];\nin vec2 pos;\nin ivec4 value[3];\nout vec4 c;\n"
      "void main() {\n  gl_Position = vec4(pos, 0.0, 1.0);\n"
      "  c = value != e ? vec4(1, 0, 0, 1) : vec4(0, 1, 0, 1);\n}\n"
      "[fragment shader]\n#version 150\nuniform mat3 m[2];\nin vec4 c;\n"
      "void main() {\n  mat3 n[2] = m;\n"
      "  gl_FragColor = n[1] == mat3(1, 2, 3, 4, 5, 6, 7, 8, 9) && n[0] == mat3(3) ? c : vec4(0, 0, 1, 1);\n}\n"
      "[vertex data]\npos/float/2 value[0]/int/ivec4 value[1]/int/ivec4 value[2]/int/ivec4\n";
  const std::string row = "  1 2 3 4  -5 6 7 8  9 10 11 2147483647\n";
  const std::string data = fan_rows(row);
  const std::string uniforms =
      "uniform ivec4 e[0] 1 2 3 4\nuniform ivec4 e[1] -5 6 7 8\nuniform ivec4 e[2] 9 10 11 2147483647\n"
      "uniform mat3 m[0] 3 0 0 0 3 0 0 0 3\nuniform mat3 m[1] 1 2 3 4 5 6 7 8 9\n";
  auto v = run(file + data + "[test]\n" + uniforms + "draw arrays GL_TRIANGLE_FAN 0 4\nprobe all rgba 0 1 0 1\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  v = run(file + data + "[test]\n" + uniforms + "uniform ivec4 e[2] 9 10 11 12\n" +
          "draw arrays GL_TRIANGLE_FAN 0 4\nprobe all rgba 0 1 0 1\n");
  EXPECT_EQ(v.outcome, Outcome::fail) << v.detail;
  v = run(file + data + "[test]\nuniform ivec4 e[3] 1 2 3 4\n");
  EXPECT_EQ(v.outcome, Outcome::fail) << v.detail;
  EXPECT_NE(v.detail.find("16 bytes at byte 48 of a 48-byte uniform"), std::string::npos) << v.detail;
}

// Control flow in the vertex shader after the prolog's attribute loads:
// the exec-mask stack starts at 0 whatever the prolog left in r0.
TEST(Draw, VertexShaderLoopAfterThePrologsLoads) {
  auto v = run("[require]\nGLSL >= 1.30\n[vertex shader]\n#version 130\nin vec4 vertex;\nuniform int n;\nout vec4 c;\n"
               "void main() {\n  gl_Position = vertex;\n  c = vec4(0.0);\n"
               "  for (int i = 0; i < n; ++i) { if (vertex.x > 2.0) break; c.g += 0.25; }\n  c.a = 1.0;\n}\n"
               "[fragment shader]\n#version 130\nin vec4 c;\nvoid main() { gl_FragColor = c; }\n"
               "[vertex data]\nvertex/float/2\n-1 -1\n1 -1\n1 1\n-1 1\n"
               "[test]\nuniform int n 4\ndraw arrays GL_TRIANGLE_FAN 0 4\nprobe all rgba 0 1 0 1\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
}

// GLSL initializers give loose uniforms their values until `uniform` sets them.
TEST(Draw, UniformInitializers) {
  const std::string file = kPassthrough +
      "[fragment shader]\n#version 130\nuniform bool b = true;\nuniform bvec2 b2 = bvec2(true, false);\n"
      "uniform mat2 m = mat2(1.0, 2.0, 3.0, 4.0);\nuniform int i = -3;\n"
      "void main() { gl_FragColor = b && b2 == bvec2(true, false) && m[1][0] == 3.0 && i == -3\n"
      "  ? vec4(0, 1, 0, 1) : vec4(1, 0, 0, 1); }\n[test]\n";
  auto v = run(file + "draw rect -1 -1 2 2\nprobe all rgb 0 1 0\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  v = run(file + "uniform int i 2\ndraw rect -1 -1 2 2\nprobe all rgb 1 0 0\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
}

TEST(Draw, DepthTestKeepsTheNearerRect) {
  const std::string file =
      "[require]\nGLSL >= 1.30\ndepthbuffer\n[vertex shader]\n#version 130\nin vec4 piglit_vertex;\nuniform float z;\n"
      "void main() { gl_Position = vec4(piglit_vertex.xy, z, 1.0); }\n" + kUniformColour + "[test]\n"
      "clear depth 1.0\nclear\nenable GL_DEPTH_TEST\n"
      "uniform float z 0.0\nuniform vec4 colour 1 0 0 1\ndraw rect -1 -1 2 2\n"
      "uniform float z 0.5\nuniform vec4 colour 0 1 0 1\ndraw rect -1 -1 1 2\n"
      "uniform float z -0.5\nuniform vec4 colour 0 0 1 1\ndraw rect 0 -1 1 2\n";
  auto v = run(file + "probe rgb 50 50 1 0 0\nprobe rgb 200 50 0 0 1\nprobe depth 200 50 0.25\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
}

TEST(Draw, WhatTheRunnerCannotDoSkipsNamingTheLine) {
  auto v = run(kPassthrough + kUniformColour + "[test]\nuniform vec4 colour 1 1 1 1\nenable GL_POLYGON_OFFSET_FILL\n");
  EXPECT_EQ(v.outcome, Outcome::skip);
  EXPECT_NE(v.detail.find("line 10: 'enable GL_POLYGON_OFFSET_FILL'"), std::string::npos) << v.detail;
  // After a failed probe it is a FAIL, both reasons given.
  v = run(kPassthrough + kUniformColour +
          "[test]\nprobe all rgba 1 1 1 1\nenable GL_POLYGON_OFFSET_FILL\n");
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_NE(v.detail.find("GL_POLYGON_OFFSET_FILL"), std::string::npos) << v.detail;
  // A uniform neither stage has.
  v = run(kPassthrough + kUniformColour + "[test]\nuniform vec4 nothere 1 1 1 1\n");
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_NE(v.detail.find("'nothere' is not an active uniform"), std::string::npos) << v.detail;
}

TEST(Draw, PngIsTheWindowTopRowFirst) {
  const std::string path = (std::filesystem::temp_directory_path() / "agx_draw_test.png").string();
  RunOptions o;
  o.png_path = path;
  auto v = run(kPassthrough + kUniformColour + "[test]\nuniform vec4 colour 1 0 0 1\ndraw rect -1 -1 2 1\n", o);
  ASSERT_EQ(v.outcome, Outcome::pass) << v.detail;
  auto png = read_png(path);
  ASSERT_TRUE(png.ok()) << png.error().message();
  ASSERT_EQ(png->width_px, 250u);
  ASSERT_EQ(png->height_px, 250u);
  EXPECT_EQ(png->data[0], 0);  // the top row is GL's top: not drawn
  EXPECT_EQ(png->data[size_t(249) * 250 * 4], 255);  // the bottom row is red
  std::remove(path.c_str());
}

TEST(Draw, RectCornersAndMatrices) {
  auto c = rect_corners({-1, -0.5f, 2, 1});
  EXPECT_EQ(c[0], (std::array<float, 4>{-1, -0.5f, 0, 1}));
  EXPECT_EQ(c[3], (std::array<float, 4>{1, 0.5f, 0, 1}));
  auto t = rect_tex_corners({0, 0, 1, 2});
  EXPECT_EQ(t[2], (std::array<float, 2>{0, 2}));
  const Mat4 p = ortho_matrix(0, 250, 0, 100);
  EXPECT_FLOAT_EQ(p[0], 2.0f / 250);
  EXPECT_FLOAT_EQ(p[12], -1.0f);
  EXPECT_FLOAT_EQ(p[13], -1.0f);
  // glFrustum(-1, 1, -1, 1, 1, 3): a point on the near plane's corner maps to (1, 1, -1, 1).
  const Mat4 fr = frustum_matrix(-1, 1, -1, 1, 1, 3);
  EXPECT_FLOAT_EQ(fr[0], 1.0f);
  EXPECT_FLOAT_EQ(fr[10], -2.0f);
  EXPECT_FLOAT_EQ(fr[11], -1.0f);
  EXPECT_FLOAT_EQ(fr[14], -3.0f);
  EXPECT_FLOAT_EQ(fr[10] * -1 + fr[14], -1.0f);  // z at the near plane (eye z = -1)
  auto inv = compat_matrix("piglit_ProjectionMatrixInverse", p);
  ASSERT_TRUE(inv);
  EXPECT_FLOAT_EQ((*inv)[0], 125.0f);
  EXPECT_FLOAT_EQ((*inv)[12], 125.0f);
  auto tr = compat_matrix("piglit_ModelViewProjectionMatrixTranspose", p);
  ASSERT_TRUE(tr);
  EXPECT_FLOAT_EQ((*tr)[3], -1.0f);
  EXPECT_EQ(compat_matrix("piglit_NormalMatrix", p)->size(), 9u);
  EXPECT_FALSE(compat_matrix("colour", p));
}

}  // namespace
}  // namespace agx::shadertest
