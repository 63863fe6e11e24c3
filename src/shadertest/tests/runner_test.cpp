// One file through the runner: requirements, GLSL adaptation, link results,
// and FAIL reasons that name the line.
#include <gtest/gtest.h>

#include "shadertest/runner.h"

namespace agx::shadertest {
namespace AGX_UNITY_ID {

ShaderTest parse(std::string_view text) {
  auto t = parse_shader_test(text);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message());
  return t.ok() ? std::move(t).value() : ShaderTest{};
}

TEST(Runner, SkipReasons) {
  const auto& caps = Capabilities::stack();
  EXPECT_FALSE(skip_reason(parse("[require]\nGLSL >= 4.30\n[compute shader]\n[test]\n"), caps));
  EXPECT_EQ(*skip_reason(parse("[require]\nGLSL >= 4.70\n[compute shader]\n"), caps),
            "requires >= GLSL 4.70, the stack offers GLSL 4.60");
  EXPECT_EQ(*skip_reason(parse("[require]\nGL_ARB_shader_clock\n[compute shader]\n"), caps),
            "GL_ARB_shader_clock is not supported");
  EXPECT_FALSE(skip_reason(parse("[require]\nGL_ARB_gpu_shader_int64\nGL_NV_shader_atomic_int64\n[compute shader]\n"), caps));
  EXPECT_EQ(*skip_reason(parse("[require]\n!GL_ARB_compute_shader\n[compute shader]\n"), caps),
            "requires GL_ARB_compute_shader to be absent");
  EXPECT_FALSE(skip_reason(parse("[require]\nGL ES >= 3.1\nGLSL ES >= 3.10\n[compute shader]\n"), caps));
  // Extensions whose features are core in GLSL 4.50 are offered; the ones
  // refused for a known missing feature say which.
  EXPECT_FALSE(skip_reason(parse("[require]\nGL_ARB_arrays_of_arrays\nGL_ARB_shader_precision\nGL_ARB_gpu_shader5\n"
                                 "GL_MESA_shader_integer_functions\n[vertex shader]\nvoid main() {}\n"), caps));
  EXPECT_EQ(*skip_reason(parse("[require]\nGL_ARB_enhanced_layouts\n[vertex shader]\n"), caps),
            "GL_ARB_enhanced_layouts is not supported: component qualifiers (several varyings in one location) "
            "are not supported");
  EXPECT_FALSE(refused_extension_reason("GL_ARB_shader_clock"));
  // Vertex/fragment files go on to the graphics path (tests below); the
  // stages the runner cannot run are skipped by name.
  EXPECT_FALSE(skip_reason(parse("[require]\n[vertex shader]\nvoid main() {}\n"), caps));
  EXPECT_EQ(*skip_reason(parse("[require]\n[vertex shader]\n[geometry shader]\n"), caps),
            "geometry/tessellation shaders are not supported");
  EXPECT_EQ(*skip_reason(parse("[require]\n[tessellation control shader]\n"), caps),
            "geometry/tessellation shaders are not supported");
  EXPECT_EQ(*skip_reason(parse("[require]\n[vertex program]\n"), caps),
            "has a [vertex program] section: only GLSL vertex and fragment shaders are supported");
}

TEST(Runner, VertexFragmentVerdicts) {
  const std::string vs = "[require]\nGLSL >= 1.10\n[vertex shader]\nvoid main() { gl_Position = gl_Vertex; }\n";
  const std::string fs = "[fragment shader]\nvoid main() { gl_FragColor = vec4(0.0, 1.0, 0.0, 1.0); }\n";
  // glslang rejects the program: what `link error` wants.
  auto v = run_shader_test(vs + "[fragment shader]\nvoid main() { undeclared = 1.0; }\n[test]\nlink error\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  v = run_shader_test(vs + "[fragment shader]\nvoid main() { undeclared = 1.0; }\n[test]\nlink success\n");
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_NE(v.detail.find("'undeclared' : undeclared identifier"), std::string::npos) << v.detail;
  // A compatibility built-in the lowering leaves: a SKIP naming it.
  v = run_shader_test(vs + "[fragment shader]\nvoid main() { gl_FragColor = gl_LightSource[0].ambient; }\n");
  EXPECT_EQ(v.outcome, Outcome::skip);
  EXPECT_NE(v.detail.find("gl_LightSource"), std::string::npos) << v.detail;
  // Both stages lower and compile, and the file draws (draw_test.cpp has more).
  v = run_shader_test(vs + fs + "[test]\ndraw rect -1 -1 2 2\nprobe all rgba 0 1 0 1\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  v = run_shader_test(vs + fs + "[test]\ndraw rect -1 -1 2 2\nprobe all rgba 1 0 0 1\n");
  EXPECT_EQ(v.outcome, Outcome::fail) << v.detail;
  // Two shader objects of one stage: glslang's SPIR-V path takes one.
  v = run_shader_test(vs + "[vertex shader]\nvoid f() {}\n" + fs);
  EXPECT_EQ(v.outcome, Outcome::skip);
  EXPECT_NE(v.detail.find("2 [vertex shader] sections"), std::string::npos) << v.detail;
  v = run_shader_test("[require]\nGLSL >= 1.10\n[vertex shader]\nconst int N = 2;\nvarying vec4 a[N];\n"
                      "void main() {}\n" + fs);
  EXPECT_EQ(v.outcome, Outcome::skip);
  EXPECT_NE(v.detail.find("GLSL lowering: an array of a size that is not a number"), std::string::npos) << v.detail;
}

// GLSL 1.30 section 4.3.7: the colour built-ins a program uses take one
// interpolation qualifier; unused ones and the secondary group apart do
// not count.
TEST(Runner, ColourInterpolationQualifiersBetweenStages) {
  const std::string head = "[require]\nGLSL >= 1.30\n[vertex shader]\n#version 130\n";
  const std::string fs_flat = "[fragment shader]\n#version 130\nflat in vec4 gl_Color;\nout vec4 c;\n"
                              "void main() { c = gl_Color; }\n";
  auto v = run_shader_test(head + "void main() { gl_Position = vec4(0); gl_BackColor = vec4(0); }\n" + fs_flat +
                           "[test]\nlink error\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  v = run_shader_test(head + "void main() { gl_Position = vec4(0); gl_BackColor = vec4(0); }\n" + fs_flat +
                      "[test]\nlink success\n");
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_NE(v.detail.find("gl_BackColor is without a qualifier but gl_Color is flat"), std::string::npos) << v.detail;
  // Both flat, or the redeclared one unused: links.
  const std::string flat_back = "flat out vec4 gl_BackColor;\n";
  v = run_shader_test(head + flat_back + "void main() { gl_Position = vec4(0); gl_BackColor = vec4(0); }\n" +
                      fs_flat + "[test]\nlink success\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  v = run_shader_test(head + "noperspective out vec4 gl_FrontColor;\n" + flat_back +
                      "void main() { gl_Position = vec4(0); gl_BackColor = vec4(0); }\n" + fs_flat +
                      "[test]\nlink success\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  v = run_shader_test(head + "noperspective out vec4 gl_FrontColor;\n" + flat_back +
                      "void main() { gl_Position = vec4(0); gl_FrontColor = vec4(1); gl_BackColor = vec4(0); }\n" +
                      fs_flat + "[test]\nlink error\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  v = run_shader_test(head + "smooth out vec4 gl_FrontSecondaryColor;\n"
                      "void main() { gl_Position = vec4(0); gl_FrontSecondaryColor = vec4(1); }\n" + fs_flat +
                      "[test]\nlink success\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
}

TEST(Runner, LimitRequirements) {
  const auto& caps = Capabilities::stack();
  auto req = [&](std::string_view lines) {
    return skip_reason(parse(fmt::format("[require]\nGLSL >= 4.30\n{}\n[compute shader]\n", lines)), caps);
  };
  EXPECT_FALSE(req("INT GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS >= 1024"));
  EXPECT_FALSE(req("INT GL_MAX_COMPUTE_SHARED_MEMORY_SIZE >= 32768"));
  EXPECT_EQ(*req("INT GL_MAX_COMPUTE_SHARED_MEMORY_SIZE >= 131072"),
            "Test requires GL_MAX_COMPUTE_SHARED_MEMORY_SIZE >= 131072.  The driver supports 65536.");
  EXPECT_EQ(*req("INT GL_MAX_TESS_GEN_LEVEL >= 64"), "GL_MAX_TESS_GEN_LEVEL: the stack reports no such integer");
  // Atomic counter buffers of the graphics stages: the 8 binding points.
  EXPECT_FALSE(req("INT GL_MAX_FRAGMENT_ATOMIC_COUNTER_BUFFERS >= 8"));
  EXPECT_EQ(*req("INT GL_MAX_VERTEX_ATOMIC_COUNTER_BUFFERS >= 9"),
            "Test requires GL_MAX_VERTEX_ATOMIC_COUNTER_BUFFERS >= 9.  The driver supports 8.");
  // The limits shader_runner reads itself: the graphics stages' (16 attributes).
  EXPECT_FALSE(req("GL_MAX_VERTEX_ATTRIBS >= 16"));
  EXPECT_EQ(*req("GL_MAX_VERTEX_ATTRIBS >= 17"), "Test requires vertex attribs >= 17.  The driver supports 16.");
  EXPECT_FALSE(req("GL_MAX_VARYING_COMPONENTS >= 64"));
  EXPECT_FALSE(req("GL_NUM_PROGRAM_BINARY_FORMATS == 0"));
  // What does not change a compute program is accepted.
  EXPECT_FALSE(req("SIZE 32 16\ndepthbuffer\nSSO ENABLED\nignore_missing_uniforms\nSPIRV NO"));
  EXPECT_EQ(*req("rlimit 1000000"), "requirement 'rlimit 1000000' is not honoured by the runner");
  EXPECT_EQ(*req("SPIRV ONLY\nSPIRV NO"), "This shader is not compatible with SPIR-V");
}

TEST(Runner, WindowSizeAndMissingUniforms) {
  // SIZE sets the window the probes read (a probe outside it is an error).
  const std::string shader = "[compute shader]\nlayout(local_size_x = 1) in;\nvoid main() {}\n[test]\n";
  auto v = run_shader_test("[require]\nGLSL >= 4.30\nSIZE 8 4\n" + shader +
                           "clear color 0 1 0 1\nclear\nprobe all rgba 0 1 0 1\nprobe rgb 7 3 0 1 0\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  v = run_shader_test("[require]\nGLSL >= 4.30\nSIZE 8 4\n" + shader + "probe rgb 8 3 0 0 0\n");
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_NE(v.detail.find("outside the 8x4 framebuffer"), std::string::npos) << v.detail;
  v = run_shader_test("[require]\nGLSL >= 4.30\n" + shader + "uniform vec2 nothere 1 2\n");
  EXPECT_EQ(v.outcome, Outcome::fail);
  v = run_shader_test("[require]\nGLSL >= 4.30\nignore_missing_uniforms\n" + shader + "uniform vec2 nothere 1 2\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
}

TEST(Runner, VariableGroupSizeLinking) {
  const std::string head = "[require]\nGLSL >= 3.30\nGL_ARB_compute_variable_group_size\n";
  const std::string variable =
      "[compute shader]\n#version 330\n#extension GL_ARB_compute_shader: enable\n"
      "#extension GL_ARB_compute_variable_group_size: enable\nlayout(local_size_variable) in;\nvoid main() {}\n";
  const std::string fixed =
      "[compute shader]\n#version 330\n#extension GL_ARB_compute_shader: enable\n"
      "layout(local_size_x = 2) in;\nvoid f() {}\n";
  EXPECT_FALSE(skip_reason(parse(head + variable), Capabilities::stack()));
  // Fixed and variable in one program: a link error (the extension's spec).
  auto v = run_shader_test(head + fixed + variable + "[test]\nlink error\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  v = run_shader_test(head + fixed + variable + "[test]\n");
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_NE(v.detail.find("fixed and a variable local size"), std::string::npos) << v.detail;
  // Variable alone links; `compute` on it is GL's INVALID_OPERATION.
  v = run_shader_test(head + variable + "[test]\nlink success\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  v = run_shader_test(head + variable + "[test]\ncompute 1 1 1\n");
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_NE(v.detail.find("GL_INVALID_OPERATION"), std::string::npos) << v.detail;
}

TEST(Runner, AdaptsGlsl) {
  ShaderTest t = parse("[require]\nGLSL >= 3.30\n\n[compute shader]\n#version 330\nvoid main() {}\n");
  std::vector<std::string> notes;
  std::string text = adapt_glsl(t, t.shaders[0], &notes);
  EXPECT_EQ(text.rfind("#version 430\n#line 5\n", 0), 0u) << text;
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], "GLSL 330 compute shader compiled as GLSL 430");
  ShaderTest u = parse("[require]\nGLSL >= 4.50\n[compute shader]\nvoid main() {}\n");
  notes.clear();
  EXPECT_EQ(adapt_glsl(u, u.shaders[0], &notes).rfind("#version 450\n#line 4\nvoid main", 0), 0u);
  EXPECT_EQ(notes[0], "#version 450 added from [require]");
  ShaderTest e = parse("[require]\nGLSL ES >= 3.10\n[compute shader]\n#version 310 es\nvoid main() {}\n");
  EXPECT_EQ(adapt_glsl(e, e.shaders[0], nullptr).rfind("#version 310 es\n", 0), 0u);
}

TEST(Runner, LinkErrorsAndFailures) {
  // No local size: a link error, which the file expects.
  auto v = run_shader_test("[require]\nGLSL >= 4.30\n[compute shader]\nvoid main() {}\n[test]\nlink error\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  // The same without "link error" fails with glslang's reason.
  v = run_shader_test("[require]\nGLSL >= 4.30\n[compute shader]\nvoid main() {}\n[test]\n");
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_NE(v.detail.find("local size"), std::string::npos) << v.detail;
  // A GLSL error names the file's line (the #line the runner adds).
  v = run_shader_test("[require]\nGLSL >= 4.30\n[compute shader]\nlayout(local_size_x = 1) in;\n"
                      "void main() { undeclared = 1; }\n[test]\ncompute 1 1 1\n");
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_NE(v.detail.find("shader:5"), std::string::npos) << v.detail;
  // A buffer the shader uses but the file never creates: the line is named.
  v = run_shader_test("[require]\nGLSL >= 4.30\n[compute shader]\nlayout(local_size_x = 1) in;\n"
                      "layout(std430, binding = 2) buffer B { uint v[]; };\nvoid main() { v[0] = 1u; }\n"
                      "[test]\nssbo 0 16\ncompute 1 1 1\n");
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_NE(v.detail.find("line 9: 'compute 1 1 1'"), std::string::npos) << v.detail;
  EXPECT_NE(v.detail.find("binding 2"), std::string::npos) << v.detail;
  // Skips come before any compile.
  v = run_shader_test("[require]\nGL_ARB_shader_clock\n[compute shader]\nnot glsl\n");
  EXPECT_EQ(v.outcome, Outcome::skip);
  // Parse errors fail the file.
  v = run_shader_test("[require]\nGLSL >= 4.30\n[compute shader]\n[test]\nfrob\n");
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_NE(v.detail.find("line 5"), std::string::npos) << v.detail;
}

TEST(Runner, MatrixAndBoolUniforms) {
  // The dispatches run on the software GPU (agx_gpu_default is linked in).
  // piglit's syntax: matrices column after column; bool and bvec uniforms
  // set as int/ivec (glUniform*i), any nonzero value is true. Expected:
  // a * b's column 0 is a's column 0; column 2 is 2 a0 + 3 a1 = (14, 19, 24).
  const char* file = R"([require]
GLSL >= 4.30
[compute shader]
layout(local_size_x = 1) in;
uniform mat2x3 a;
uniform mat3x2 b;
uniform bool flag;
uniform bvec2 bv;
layout(std430, binding = 0) buffer O { float o[]; };
void main() {
  mat3 p = a * b;
  o[0] = p[0][0];
  o[1] = p[2][1];
  o[2] = a[1][2];
  o[3] = flag ? 1.0 : 0.0;
  o[4] = bv.y ? 1.0 : 0.0;
  o[5] = bv.x ? 1.0 : 0.0;
}
[test]
ssbo 0 64
uniform mat2x3 a 1 2 3 4 5 6
uniform mat3x2 b 1 0 0 1 2 3
uniform int flag 5
uniform ivec2 bv 0 1
compute 1 1 1
probe ssbo float 0 0 == 1.0
probe ssbo float 0 4 == 19.0
probe ssbo float 0 8 == 6.0
probe ssbo float 0 12 == 1.0
probe ssbo float 0 16 == 1.0
probe ssbo float 0 20 == 0.0
uniform int flag 0
compute 1 1 1
probe ssbo float 0 12 == 0.0
)";
  auto v = run_shader_test(file);
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  // A wrong expectation fails (the probes do compare).
  std::string wrong(file);
  wrong.replace(wrong.find("== 19.0"), 7, "== 18.0");
  v = run_shader_test(wrong);
  EXPECT_EQ(v.outcome, Outcome::fail) << v.detail;
}

TEST(Runner, FailedProbesDoNotEndTheFile) {
  // No dispatch: the commands alone.
  const std::string head =
      "[require]\nGLSL >= 4.30\n[compute shader]\nlayout(local_size_x = 1) in;\n"
      "layout(std430, binding = 0) buffer B { uint v[]; };\nvoid main() { v[0] = 7u; }\n[test]\n"
      "ssbo 0 16\nssbo 0 subdata int 0 7\n";  // lines 8 and 9
  auto v = run_shader_test(head + "probe ssbo uint 0 0 == 7\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  // Every failed probe is reported as shader_runner prints it; the commands
  // between them still run (the subdata and the passing probe).
  v = run_shader_test(head + "probe ssbo uint 0 0 == 6\nssbo 0 subdata int 4 1\nprobe ssbo uint 0 0 == 7\n"
                             "probe ssbo uint 0 4 == 2\n");
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_EQ(v.detail,
            "SSBO 0 test failed: Reference == Observed\n  Reference: 6\n  Observed:  7\nTest failure on line 10\n"
            "SSBO 4 test failed: Reference == Observed\n  Reference: 2\n  Observed:  1\nTest failure on line 13");
  // An error still ends the file, after the probes that failed before it.
  v = run_shader_test(head + "probe ssbo uint 0 0 == 6\nfb tex 2d 3\nprobe ssbo uint 0 4 == 1\n");
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_EQ(v.detail.find("SSBO 0 test failed"), 0u) << v.detail;
  EXPECT_NE(v.detail.find("\nline 11: 'fb tex 2d 3': "), std::string::npos) << v.detail;
  EXPECT_EQ(v.detail.find("SSBO 4"), std::string::npos) << v.detail;
}
}  // namespace
}  // namespace agx::shadertest
