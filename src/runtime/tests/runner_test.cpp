// One file through the runner: requirements, GLSL adaptation, link results,
// and FAIL reasons that name the line.
#include <gtest/gtest.h>

#include "runtime/runner.h"

namespace agx::runtime {
namespace {

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
  EXPECT_EQ(*skip_reason(parse("[require]\n[vertex shader]\nvoid main() {}\n"), caps),
            "has a [vertex shader] section: not a compute-only test");
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
  v = run_shader_test("[require]\nGL_NV_compute_shader_derivatives\n[compute shader]\nnot glsl\n");
  EXPECT_EQ(v.outcome, Outcome::skip);
  // Parse errors fail the file.
  v = run_shader_test("[require]\nGLSL >= 4.30\n[compute shader]\n[test]\nfrob\n");
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_NE(v.detail.find("line 5"), std::string::npos) << v.detail;
}

#if AGX_RUNTIME_TESTS_HAVE_GPU
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
#endif

}  // namespace
}  // namespace agx::runtime
