// Vertex/fragment files with textures, samplers, storage buffers, atomic
// counters and uniform blocks: the compute session's commands for them
// (Session, kept by the graphics session) and each draw binding them to
// both stages.
#include <gtest/gtest.h>

#include "shadertest/runner.h"
#include "command_helpers.h"

namespace agx::shadertest {
namespace AGX_UNITY_ID {

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

const std::string kPassthrough = "[require]\nGLSL >= 4.30\nSIZE 16 16\n[vertex shader passthrough]\n";

TEST(DrawResources, TextureAndStorageBufferFile) {
  const std::string text = test::read_file("tests/data/draw-texture-ssbo.shader_test");
  ASSERT_FALSE(text.empty());
  auto v = run_shader_test(text, {});
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  // A buffer probe after the draw that does not match fails, naming its line.
  v = run_shader_test(replaced(text, "probe ssbo uint 1 4 == 128", "probe ssbo uint 1 4 == 127"), {});
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_NE(v.detail.find("Test failure on line 31"), std::string::npos) << v.detail;
  // Another unit than the texture's: the draw names the missing texture.
  v = run_shader_test(replaced(text, "uniform int tex 3", "uniform int tex 2"), {});
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_NE(v.detail.find("fragment shader: image 'tex': no texture 2"), std::string::npos) << v.detail;
  // No buffer at the shader's binding.
  v = run_shader_test(replaced(text, "ssbo 1 8", "ssbo 0 8"), {});
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_NE(v.detail.find("has no 'ssbo 1 SIZE'"), std::string::npos) << v.detail;
}

// piglit_checkerboard_texture: w/2 x h/2 squares, C1 where the square's
// row and column differ, else C0; outside, clamp to a red border. The
// window's pixels 4..11 read the texture (coordinates 0..1).
TEST(DrawResources, CheckerboardTextureWithItsBorder) {
  auto v = run_shader_test(
      kPassthrough +
          "[fragment shader]\n#version 430\nuniform sampler2D t;\nout vec4 c;\n"
          "void main() { c = texture(t, gl_FragCoord.xy / 8.0 - 0.5); }\n"
          "[test]\ntexture checkerboard 1 0 (4, 4) (0.0, 0.0, 1.0, 1.0) (0.0, 1.0, 0.0, 1.0)\nuniform int t 1\n"
          "draw rect -1 -1 2 2\n"
          "probe rect rgba (4, 4, 4, 4) (0.0, 0.0, 1.0, 1.0)\nprobe rect rgba (8, 4, 4, 4) (0.0, 1.0, 0.0, 1.0)\n"
          "probe rect rgba (4, 8, 4, 4) (0.0, 1.0, 0.0, 1.0)\nprobe rect rgba (8, 8, 4, 4) (0.0, 0.0, 1.0, 1.0)\n"
          "probe rect rgba (0, 0, 16, 4) (1.0, 0.0, 0.0, 1.0)\nprobe rect rgba (12, 0, 4, 16) (1.0, 0.0, 0.0, 1.0)\n",
      {});
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
}

// A vertex shader sampling (explicit LOD): its texture and sampler state
// registers are the vertex program's.
TEST(DrawResources, TextureInAVertexShader) {
  auto v = run_shader_test(
      "[require]\nGLSL >= 1.30\nSIZE 16 16\n"
      "[vertex shader]\n#version 130\nin vec4 piglit_vertex;\nuniform sampler2D t;\nout vec4 c;\n"
      "void main() {\n  gl_Position = piglit_vertex;\n  c = textureLod(t, piglit_vertex.xy * 0.5 + 0.5, 0.0);\n}\n"
      "[fragment shader]\n#version 130\nin vec4 c;\nvoid main() { gl_FragColor = c; }\n"
      "[test]\ntexture rgbw 0 (2, 2)\nuniform int t 0\ndraw rect -0.9 -0.9 0.8 0.8\n"
      "relative probe rgb (0.25, 0.25) (1.0, 0.0, 0.0)\n",
      {});
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
}

TEST(DrawResources, AtomicCountersInAFragmentShader) {
  const std::string fs = "[fragment shader]\n#version 430\nlayout(binding = 0) uniform atomic_uint n;\nout vec4 c;\n"
                         "void main() { atomicCounterIncrement(n); c = vec4(0.0, 1.0, 0.0, 1.0); }\n";
  auto v = run_shader_test(kPassthrough + fs +
                               "[test]\natomic counters 1\ndraw rect -1 -1 1 2\nprobe atomic counter 0 == 128\n"
                               "draw rect -1 -1 2 2\nprobe atomic counter 0 == 384\nprobe all rgb 0.0 1.0 0.0\n",
                           {});
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  v = run_shader_test(kPassthrough + fs + "[test]\natomic counters 1\ndraw rect -1 -1 1 2\nprobe atomic counter 0 == 64\n",
                      {});
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_NE(v.detail.find("Observed:  128"), std::string::npos) << v.detail;
}

// A counter at binding 5 (glslang's default resources allow binding 0
// only; the front end declares the 8 binding points the runtime binds).
TEST(DrawResources, AtomicCounterBufferAtAnotherBinding) {
  auto v = run_shader_test(kPassthrough +
                               "[fragment shader]\n#version 430\nlayout(binding = 5) uniform atomic_uint n;\n"
                               "out vec4 c;\nvoid main() { atomicCounterIncrement(n); c = vec4(1.0); }\n"
                               "[test]\natomic counter buffer 5 1\ndraw rect -1 -1 2 1\n"
                               "probe atomic counter buffer 5 0 == 128\n",
                           {});
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
}

// Uniform blocks: `uniform` of a member writes the block's buffer, bound
// to every stage that reads it.
TEST(DrawResources, UniformBlockInBothStages) {
  auto v = run_shader_test(
      "[require]\nGLSL >= 1.40\nSIZE 16 16\n"
      "[vertex shader]\n#version 140\nin vec4 piglit_vertex;\nuniform U { vec4 offset; vec4 colour; };\n"
      "void main() { gl_Position = piglit_vertex + offset; }\n"
      "[fragment shader]\n#version 140\nuniform U { vec4 offset; vec4 colour; };\nout vec4 c;\n"
      "void main() { c = colour; }\n"
      "[test]\nuniform vec4 offset 1.0 0.0 0.0 0.0\nuniform vec4 colour 1.0 0.0 1.0 1.0\ndraw rect -1 -1 1 2\n"
      "probe rect rgb (8, 0, 8, 16) (1.0, 0.0, 1.0)\nprobe rect rgb (0, 0, 8, 16) (0.0, 0.0, 0.0)\n",
      {});
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
}

// GL_ARB_texture_query_levels (core in the GLSL the lowering compiles):
// piglit's miptree has 4 levels.
TEST(DrawResources, TextureQueryLevels) {
  auto v = run_shader_test(
      "[require]\nGLSL >= 1.30\nGL_ARB_texture_query_levels\nSIZE 16 16\n[vertex shader passthrough]\n"
      "[fragment shader]\n#version 130\n#extension GL_ARB_texture_query_levels : require\nuniform sampler2D t;\n"
      "void main() { gl_FragColor = vec4(0.0, textureQueryLevels(t) == 4 ? 1.0 : 0.0, 0.0, 1.0); }\n"
      "[test]\ntexture miptree 2\nuniform int t 2\ndraw rect -1 -1 2 2\nprobe all rgb 0.0 1.0 0.0\n",
      {});
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
}

// An array of arrays of samplers: glslang loads it level by level, which
// the compiler does not take; the file SKIPs saying so.
TEST(DrawResources, ArraysOfArraysOfSamplersSkip) {
  auto v = run_shader_test(
      "[require]\nGLSL >= 1.30\nSIZE 16 16\n"
      "[vertex shader]\n#version 130\n#extension GL_ARB_arrays_of_arrays : require\nin vec4 piglit_vertex;\n"
      "uniform sampler2D t[2][2];\nout vec4 c;\n"
      "void main() {\n  gl_Position = piglit_vertex;\n  c = textureLod(t[1][0], vec2(0.5), 0.0);\n}\n"
      "[fragment shader]\n#version 130\nin vec4 c;\nvoid main() { gl_FragColor = c; }\n"
      "[test]\ntexture rgbw 0 (2, 2)\nuniform int t[1][0] 0\ndraw rect -1 -1 2 2\n",
      {});
  EXPECT_EQ(v.outcome, Outcome::skip) << v.detail;
  EXPECT_NE(v.detail.find("an array of samplers or images loaded whole"), std::string::npos) << v.detail;
}

}  // namespace AGX_UNITY_ID
}  // namespace agx::shadertest
