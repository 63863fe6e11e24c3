// Arrays of storage buffers and of samplers through the session's binding
// path: each element is its own Abi resource / image at consecutive
// OpenGL binding points (units), indexed at run time in the shader.
#include <gtest/gtest.h>

#include "compute_file.h"

namespace agx::shadertest {
namespace AGX_UNITY_ID {

using test::compute_file;
using test::passes;

TEST(DescriptorArrays, BufferAndSamplerArraysAtConsecutiveBindings) {
  const std::string shader =
      "layout(local_size_x = 4) in;\n"
      "layout(std430, binding = 0) buffer O { int o[]; };\n"
      "layout(std430, binding = 1) buffer B { int v[4]; } b[2];\n"
      "uniform isampler2D s[2];\n"
      "void main() {\n"
      "  uint i = gl_LocalInvocationIndex;\n"
      "  o[i] = b[i & 1u].v[i] + texelFetch(s[i >> 1], ivec2(i, 0), 0).x;\n"
      "  b[1u - (i & 1u)].v[i] = int(i) * 3;\n"
      "}\n";
  // b[0] = 10..13 (binding 1), b[1] = 20..23 (binding 2); s[0] (set by
  // the array's name) is unit 3, texel x = 100 + x; s[1] unit 4, 200 + x.
  std::string setup = "ssbo 0 16\nssbo 1 16\nssbo 2 16\n";
  for (int i = 0; i < 4; ++i)
    setup += fmt::format("ssbo 1 subdata int {} {}\nssbo 2 subdata int {} {}\n", 4 * i, 10 + i, 4 * i, 20 + i);
  setup += "texture integer 3 (4, 1) (0, 100) GL_R32I\ntexture integer 4 (4, 1) (0, 200) GL_R32I\n"
           "uniform int s 3\nuniform int s[1] 4\ncompute 1 1 1\n";
  const std::string probes =
      "probe ssbo int 0 0 == 110\nprobe ssbo int 0 4 == 122\nprobe ssbo int 0 8 == 214\nprobe ssbo int 0 12 == 226\n"
      "probe ssbo int 2 0 == 0\nprobe ssbo int 1 4 == 3\nprobe ssbo int 2 8 == 6\nprobe ssbo int 1 12 == 9\n";
  EXPECT_TRUE(passes(compute_file(shader, setup + probes)));
  // A wrong expectation fails.
  auto v = run_shader_test(compute_file(shader, setup + "probe ssbo int 0 4 == 121\n"));
  EXPECT_EQ(v.outcome, Outcome::fail) << v.detail;
}

// An array of uniform blocks: `ubo array index N` selects the element a
// member write goes to; the shader indexes the array at run time.
TEST(DescriptorArrays, UniformBlockArrayElementsGetTheirOwnBuffers) {
  const std::string shader =
      "layout(local_size_x = 2) in;\n"
      "layout(std140) uniform A { vec4 x; } a[2];\n"
      "layout(std430, binding = 0) buffer Out { float o[]; };\n"
      "void main() {\n"
      "  uint i = gl_LocalInvocationIndex;\n"
      "  o[i] = a[i].x[i + 1u];\n"
      "}\n";
  const std::string setup =
      "ssbo 0 8\nubo array index 0\nuniform vec4 A.x 1 2 3 4\nubo array index 1\nuniform vec4 A.x 5 6 7 8\n"
      "compute 1 1 1\n";
  EXPECT_TRUE(passes(compute_file(shader, setup + "probe ssbo float 0 0 == 2\nprobe ssbo float 0 4 == 7\n")));
  auto v = run_shader_test(compute_file(shader, "ssbo 0 8\nubo array index 2\nuniform vec4 A.x 1 2 3 4\ncompute 1 1 1\n"));
  EXPECT_NE(v.outcome, Outcome::pass);
  EXPECT_NE(v.detail.find("no such element"), std::string::npos) << v.detail;
}

}  // namespace
}  // namespace agx::shadertest
