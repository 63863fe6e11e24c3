// Images end to end: GLSL through the compiler, descriptors in texture and
// sampler state registers (docs/compiler.md "Images and samplers"), the
// CDM executor's texture unit and PBE, and probes of what landed.
#include <gtest/gtest.h>

#include "compute_file.h"
#include "shadertest/session.h"

namespace agx::shadertest {
namespace AGX_UNITY_ID {

using test::compute_file;
using test::passes;

// Each invocation stores a colour made of its own coordinates; the probes
// read back exactly those texels (and a wrong expectation fails).
TEST(Images, StoreLandsOnEachTexel) {
  const std::string shader =
      "layout(local_size_x = 4, local_size_y = 2) in;\n"
      "writeonly uniform image2D img;\n"
      "void main() {\n"
      "  ivec2 p = ivec2(gl_GlobalInvocationID.xy);\n"
      "  imageStore(img, p, vec4(float(p.x) / 4.0, float(p.y) / 4.0, 0.5, 1.0));\n"
      "}\n";
  const std::string setup = "texture rgbw 0 (8, 4) GL_RGBA8\nuniform int img 0\nimage texture 0 GL_RGBA8\nfb tex 2d 0\n"
                            "compute 2 2 1\n";
  auto v = run_shader_test(compute_file(shader, setup + "probe rgba 0 0 0.0 0.0 0.5 1.0\nprobe rgba 7 3 1.75 0.75 0.5 1.0\n"
                                                        "probe rgba 5 2 1.25 0.5 0.5 1.0\n"));
  // 1.25 and 1.75 are clamped to 1.0 by the RGBA8 (unorm) PBE.
  EXPECT_EQ(v.outcome, Outcome::fail) << v.detail;
  EXPECT_TRUE(passes(compute_file(shader, setup + "probe rgba 0 0 0.0 0.0 0.5 1.0\nprobe rgba 3 1 0.75 0.25 0.5 1.0\n"
                                                  "probe rgba 7 3 1.0 0.75 0.5 1.0\nprobe rgba 2 2 0.5 0.5 0.5 1.0\n")));
  v = run_shader_test(compute_file(shader, setup + "probe rgba 3 1 0.75 0.5 0.5 1.0\n"));
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_NE(v.detail.find("Probe color at (3,1)"), std::string::npos) << v.detail;
}

// imageLoad of one RGBA8 image (the rgbw quadrants), imageStore of its
// swizzle into another.
TEST(Images, LoadThenStoreAnotherImage) {
  const std::string shader =
      "layout(local_size_x = 4, local_size_y = 4) in;\n"
      "layout(rgba8) readonly uniform image2D src;\n"
      "writeonly uniform image2D dst;\n"
      "void main() {\n"
      "  ivec2 p = ivec2(gl_GlobalInvocationID.xy);\n"
      "  imageStore(dst, p, imageLoad(src, p).gbra);\n"
      "}\n";
  const std::string commands =
      "texture rgbw 0 (4, 4) GL_RGBA8\nuniform int src 0\nimage texture 0 GL_RGBA8\n"
      "texture rgbw 1 (4, 4) GL_RGBA8\nuniform int dst 1\nimage texture 1 GL_RGBA8\nfb tex 2d 1\n"
      "compute 1 1 1\n"
      // red -> (0, 0, 1), green -> (1, 0, 0), blue -> (0, 1, 0), white stays
      "probe rgb 0 0 0.0 0.0 1.0\nprobe rgb 3 0 1.0 0.0 0.0\nprobe rgb 0 3 0.0 1.0 0.0\nprobe rgb 3 3 1.0 1.0 1.0\n";
  EXPECT_TRUE(passes(compute_file(shader, commands)));
}

// An R32I image from `texture integer` read with imageLoad into a buffer:
// texel (x, y) holds A + B * y + x.
TEST(Images, IntegerImageLoad) {
  const std::string shader =
      "layout(local_size_x = 3, local_size_y = 2) in;\n"
      "layout(r32i, binding = 1) readonly uniform highp iimage2D img;\n"
      "layout(binding = 0, std430) buffer B { int v[]; };\n"
      "void main() {\n"
      "  ivec2 p = ivec2(gl_GlobalInvocationID.xy);\n"
      "  v[p.y * 3 + p.x] = imageLoad(img, p).x;\n"
      "}\n";
  const std::string commands =
      "texture integer 1 (3, 2) (7, 100) GL_R32I\nimage texture 1 GL_R32I\nssbo 0 24\ncompute 1 1 1\n"
      "probe ssbo int 0 0 == 100\nprobe ssbo int 0 8 == 102\nprobe ssbo int 0 12 == 107\nprobe ssbo int 0 20 == 109\n";
  EXPECT_TRUE(passes(compute_file(shader, commands, "4.30")));
}

// texelFetch of a sampler2D goes through the texel-fetch sampler.
TEST(Images, TexelFetchOfASampledTexture) {
  const std::string shader =
      "layout(local_size_x = 1) in;\n"
      "uniform sampler2D tex;\n"
      "layout(binding = 0, std430) buffer B { vec4 v[]; };\n"
      "void main() {\n"
      "  v[0] = texelFetch(tex, ivec2(0, 0), 0);\n"
      "  v[1] = texelFetch(tex, ivec2(7, 7), 0);\n"
      "  v[2] = texture(tex, vec2(0.9, 0.1));\n"
      "}\n";
  const std::string commands =
      "texture rgbw 0 (8, 8) GL_RGBA8\nuniform int tex 0\nssbo 0 48\ncompute 1 1 1\n"
      "probe ssbo float 0 0 == 1.0\nprobe ssbo float 0 4 == 0.0\nprobe ssbo float 0 16 == 1.0\n"
      "probe ssbo float 0 20 == 1.0\nprobe ssbo float 0 32 == 0.0\nprobe ssbo float 0 36 == 1.0\n";
  EXPECT_TRUE(passes(compute_file(shader, commands)));
}

// imageSize and textureSize read the size uniforms the runtime fills.
TEST(Images, SizeQueries) {
  const std::string shader =
      "layout(local_size_x = 1) in;\n"
      "writeonly uniform image2D img;\n"
      "uniform sampler2D tex;\n"
      "layout(binding = 0, std430) buffer B { ivec2 v[]; };\n"
      "void main() { v[0] = imageSize(img); v[1] = textureSize(tex, 0); }\n";
  const std::string commands =
      "texture rgbw 0 (5, 3) GL_RGBA8\nuniform int img 0\nimage texture 0 GL_RGBA8\n"
      "texture rgbw 1 (16, 9) GL_RGBA8\nuniform int tex 1\nssbo 0 16\ncompute 1 1 1\n"
      "probe ssbo int 0 0 == 5\nprobe ssbo int 0 4 == 3\nprobe ssbo int 0 8 == 16\nprobe ssbo int 0 12 == 9\n";
  EXPECT_TRUE(passes(compute_file(shader, commands)));
}

// Image atomics address the texel in the GPU-tiled layout: over several
// 64x64 tiles every invocation adds to its own texel, gets the old value
// back, and imageLoad then sees the sum.
TEST(Images, AtomicsAcrossTiles) {
  const std::string shader =
      "layout(local_size_x = 8, local_size_y = 8) in;\n"
      "layout(r32i, binding = 1) uniform highp iimage2D img;\n"
      "layout(binding = 0, std430) buffer B { ivec2 v[]; };\n"
      "void main() {\n"
      "  ivec2 p = ivec2(gl_GlobalInvocationID.xy);\n"
      "  int old = imageAtomicAdd(img, p, 100000);\n"
      "  v[p.y * 96 + p.x] = ivec2(old, imageLoad(img, p).x);\n"
      "}\n";
  std::string commands = "texture integer 1 (96, 80) (100, 7) GL_R32I\nimage texture 1 GL_R32I\nssbo 0 61440\ncompute 12 10 1\n";
  for (auto [x, y] : {std::pair{0, 0}, {63, 63}, {64, 0}, {95, 79}, {70, 65}, {1, 64}}) {
    const int i = y * 96 + x, texel = 7 + 100 * y + x;
    commands += fmt::format("probe ssbo int 0 {} == {}\nprobe ssbo int 0 {} == {}\n", 8 * i, texel, 8 * i + 4, texel + 100000);
  }
  EXPECT_TRUE(passes(compute_file(shader, commands)));
}

// texparameter sets the active unit's sampler: repeat, linear filtering,
// a custom border colour (extended sampler states).
TEST(Images, TexParameterSamplers) {
  const std::string shader =
      "layout(local_size_x = 1) in;\n"
      "uniform sampler2D tex;\n"
      "layout(binding = 0, std430) buffer B { vec4 v[]; };\n"
      "void main() { v[0] = texture(tex, vec2(1.25, 0.25)); v[1] = texture(tex, vec2(0.5, 0.5)); v[2] = texture(tex, vec2(-1.0, 0.5)); }\n";
  auto run = [&](const std::string& params, const std::string& probes) {
    return run_shader_test(compute_file(shader, "texture rgbw 0 (2, 2) GL_RGBA8\n" + params + "uniform int tex 0\nssbo 0 48\ncompute 1 1 1\n" + probes));
  };
  // Defaults (nearest, clamp to edge): (1.25, 0.25) clamps into green.
  auto v = run("", "probe ssbo float 0 0 == 0.0\nprobe ssbo float 0 4 == 1.0\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  // Repeat wraps to (0.25, 0.25): red; linear at the centre averages all four.
  v = run("texparameter 2D wrap_s repeat\ntexparameter 2D mag linear\n",
          "probe ssbo float 0 0 == 1.0\nprobe ssbo float 0 4 == 0.0\n"
          "probe ssbo float 0 16 == 0.5\nprobe ssbo float 0 20 == 0.5\nprobe ssbo float 0 24 == 0.5\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  // Clamp to a custom border: 0.2 is 51/255 in an RGBA8 border.
  v = run("texparameter 2D wrap_s clamp_to_border\ntexparameter 2D border_color 0.2 0.4 0.6 1.0\n",
          "probe ssbo float 0 32 == 0.2\nprobe ssbo float 0 36 == 0.4\nprobe ssbo float 0 44 == 1.0\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  // GL_DEPTH_TEXTURE_MODE: GL_LUMINANCE (the default) is what the shadow*
  // functions return; the other modes are refused.
  v = run("texparameter 2D depth_mode luminance\n", "probe ssbo float 0 0 == 0.0\n");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.detail;
  v = run("texparameter 2D depth_mode intensity\n", "");
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_NE(v.detail.find("texparameter depth_mode intensity: the shadow* functions return GL_LUMINANCE's"),
            std::string::npos) << v.detail;
  v = run("texparameter 2D compare_func sometimes\n", "");
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_NE(v.detail.find("texparameter compare_func sometimes is not supported"), std::string::npos) << v.detail;
}

TEST(Images, MissingBindingsNameTheImage) {
  const std::string shader =
      "layout(local_size_x = 1) in;\nwriteonly uniform image2D out_img;\n"
      "void main() { imageStore(out_img, ivec2(0), vec4(1.0)); }\n";
  auto v = run_shader_test(compute_file(shader, "texture rgbw 3 (2, 2) GL_RGBA8\nuniform int out_img 3\ncompute 1 1 1\n"));
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_NE(v.detail.find("image 'out_img': no image bound to unit 3"), std::string::npos) << v.detail;
  v = run_shader_test(compute_file(shader, "texture rgbw 3 (2, 2) GL_RGBA8\nimage texture 3 GL_R32I\n"));
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_NE(v.detail.find("GL_R32I"), std::string::npos) << v.detail;
}

TEST(Images, IntegerTexels) {
  EXPECT_EQ(integer_texels(2, 2, 3, 10, 1), (std::vector<int32_t>{10, 11, 13, 14}));
  EXPECT_EQ(integer_texels(2, 1, 3, 10, 4), (std::vector<int32_t>{0, 0, 3, 10, 1, 0, 3, 10}));
  EXPECT_FALSE(integer_texture_format("GL_RG8I").ok());
}

}  // namespace
}  // namespace agx::shadertest
