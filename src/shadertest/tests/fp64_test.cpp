// Doubles through the runner: GL_ARB_gpu_shader_fp64, `uniform double /
// dvecN / dmatN` commands laid out by the compiler's ABI, ssbo subdata and
// probes of doubles, computed by the compiler's software fp64.
#include <gtest/gtest.h>

#include "shadertest/runner.h"

namespace agx::shadertest {
namespace AGX_UNITY_ID {

constexpr const char* kTest = R"([require]
GLSL >= 4.30
GL_ARB_gpu_shader_fp64

[compute shader]
#version 430
#extension GL_ARB_gpu_shader_fp64 : require
layout(local_size_x = 2) in;
uniform double scale;
uniform dvec3 offset;
uniform dmat2x3 m;
layout(std430, binding = 0) buffer B { double x[2]; dvec3 r[2]; float f[2]; };
void main() {
  uint i = gl_LocalInvocationIndex;
  r[i] = m * dvec2(x[i], scale) + offset;
  f[i] = float(sqrt(x[i]) / scale);
}

[test]
ssbo 0 104
ssbo 0 subdata double 0 2.0
ssbo 0 subdata double 8 0.25
uniform double scale 3.0
uniform dvec3 offset 0.5 -1.0 1e-300
uniform dmat2x3 m 1.0 2.0 3.0 4.0 5.0 6.0
compute 1 1 1
probe ssbo double 0 8 == 0.25
probe ssbo double 0 32 == 14.5
probe ssbo double 0 40 == 18.0
probe ssbo double 0 48 == 24.0
probe ssbo double 0 64 == 12.75
probe ssbo double 0 72 == 14.5
probe ssbo double 0 80 == 18.75
probe ssbo float 0 96 == 0x3ef15bef
probe ssbo float 0 100 == 0x3e2aaaab
)";

TEST(Fp64, UniformsSubdataAndProbes) {
  auto v = run_shader_test(kTest);
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  // A wrong expectation fails (the probe reads the computed doubles).
  std::string wrong = kTest;
  wrong.replace(wrong.find("== 14.5"), 7, "== 14.25");
  v = run_shader_test(wrong);
  EXPECT_EQ(v.outcome, Outcome::fail);
}

TEST(Fp64, ExtensionIsOffered) {
  EXPECT_TRUE(Capabilities::stack().has_extension("GL_ARB_gpu_shader_fp64"));
}

}  // namespace
}  // namespace agx::shadertest
