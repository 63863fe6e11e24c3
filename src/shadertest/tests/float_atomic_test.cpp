// GL_NV_shader_atomic_float and GL_INTEL_shader_atomic_float_minmax end to
// end: the runtime offers them, renames them to glslang's
// GL_EXT_shader_atomic_float / _float2 (glsl_frontend.cpp) and the compiler
// lowers the float atomics to compare-exchange loops.
#include <gtest/gtest.h>

#include "shadertest/runner.h"
#include "shadertest/session.h"

namespace agx::shadertest {
namespace AGX_UNITY_ID {

std::string file(const std::string& shader, const std::string& commands) {
  return fmt::format(
      "[require]\nGLSL >= 3.30\nGL_NV_shader_atomic_float\nGL_INTEL_shader_atomic_float_minmax\n"
      "[compute shader]\n#version 330\n#extension GL_ARB_compute_shader: require\n"
      "#extension GL_ARB_shader_storage_buffer_object: require\n"
      "#extension GL_NV_shader_atomic_float: require\n#extension GL_INTEL_shader_atomic_float_minmax: require\n"
      "{}\n[test]\n{}",
      shader, commands);
}

// 128 invocations on buffer words: the sum of 0.25 each, the min and max
// of -i and i, and an exchange that leaves one of the invocations' values.
TEST(FloatAtomics, BufferAddMinMaxExchange) {
  const std::string shader =
      "layout(local_size_x = 64) in;\n"
      "layout(binding = 0, std430) buffer B { float sum; float lo; float hi; float x; };\n"
      "void main() {\n"
      "  float i = float(gl_GlobalInvocationID.x);\n"
      "  atomicAdd(sum, 0.25);\n"
      "  atomicMin(lo, -i);\n"
      "  atomicMax(hi, i);\n"
      "  atomicExchange(x, 1000.0);\n"
      "}\n";
  auto v = run_shader_test(file(shader,
                                "ssbo 0 16\nssbo 0 subdata float 0 1.0\nssbo 0 subdata float 4 5.0\n"
                                "ssbo 0 subdata float 8 -5.0\ncompute 2 1 1\n"
                                "probe ssbo float 0 0 == 33.0\nprobe ssbo float 0 4 == -127.0\n"
                                "probe ssbo float 0 8 == 127.0\nprobe ssbo float 0 12 == 1000.0\n"));
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  // A wrong expectation fails.
  v = run_shader_test(file(shader, "ssbo 0 16\ncompute 2 1 1\nprobe ssbo float 0 0 == 33.0\n"));
  EXPECT_EQ(v.outcome, Outcome::fail) << v.detail;
}

// The renamed extensions keep glslang's line numbers those of the file.
TEST(FloatAtomics, ErrorsKeepTheFilesLines) {
  auto v = run_shader_test(file("layout(local_size_x = 1) in;\nvoid main() { undeclared = 1.0; }\n", "compute 1 1 1\n"));
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_NE(v.detail.find("shader:12:"), std::string::npos) << v.detail;  // main() is line 12 of the file
}

}  // namespace
}  // namespace agx::shadertest
