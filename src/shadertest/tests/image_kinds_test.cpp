// Every image dimension end to end through `agx shader-test` commands: a
// first dispatch writes each texel with imageStore, a second reads the
// mirrored texel back with imageLoad, texelFetch and (where the compiler
// samples that dimension) texture(), and the probes compare with the
// values computed here from the texel's coordinates.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "runtime/encoder.h"
#include "runtime/glsl_frontend.h"
#include "runtime/image_binding.h"
#include "compute_file.h"
#include "shadertest/runner.h"

namespace agx::shadertest {
namespace AGX_UNITY_ID {

using test::compute_file;
using test::passes;

struct Kind {
  const char* name;
  const char* image;      // GLSL image type
  const char* sampler;    // GLSL sampler type, or nullptr (no texelFetch)
  const char* storage;    // `texture storage` target and sizes
  uint32_t w, h, d;       // the invocation grid: one invocation per texel
  const char* coord;      // the texel of ivec3 q, as the GLSL type wants it
  const char* normalized; // texture()'s coordinates of q, or nullptr
  const char* size;       // imageSize as a vec4
  std::array<int, 3> size_expected;
};

const Kind kKinds[] = {
    {"1D", "image1D", "sampler1D", "1D GL_RGBA32F (1 16)", 16, 1, 1, "q.x", "(float(q.x) + 0.5) / 16.0",
     "vec4(imageSize(img), 0, 0, 0)", {16, 0, 0}},
    {"1DArray", "image1DArray", "sampler1DArray", "1DArray GL_RGBA32F (1 8 3)", 8, 1, 3, "ivec2(q.x, q.z)", nullptr,
     "vec4(imageSize(img), 0, 0)", {8, 3, 0}},
    {"2DArray", "image2DArray", "sampler2DArray", "2DArray GL_RGBA32F (1 4 4 3)", 4, 4, 3, "q", nullptr,
     "vec4(imageSize(img), 0)", {4, 4, 3}},
    {"3D", "image3D", "sampler3D", "3D GL_RGBA32F (1 4 2 4)", 4, 2, 4, "q", "(vec3(q) + 0.5) / vec3(4.0, 2.0, 4.0)",
     "vec4(imageSize(img), 0)", {4, 2, 4}},
    {"Cube", "imageCube", nullptr, "Cube GL_RGBA32F (1 4 4)", 4, 4, 6, "q", nullptr, "vec4(imageSize(img), 0, 0)",
     {4, 4, 0}},
    {"CubeArray", "imageCubeArray", nullptr, "CubeArray GL_RGBA32F (1 2 2 12)", 2, 2, 12, "q", nullptr,
     "vec4(imageSize(img), 0)", {2, 2, 2}},
};

std::string shader_test(const Kind& k) {
  const uint32_t n = k.w * k.h * k.d;
  std::string glsl = fmt::format(
      "#version 430\n"
      "layout(local_size_x = {}, local_size_y = {}, local_size_z = {}) in;\n"
      "layout(rgba32f) uniform {} img;\n"
      "{}"
      "uniform int pass;\n"
      "layout(std430, binding = 0) buffer B {{ vec4 v[]; }};\n"
      "void main() {{\n"
      "  ivec3 p = ivec3(gl_GlobalInvocationID);\n"
      "  int i = (p.z * {} + p.y) * {} + p.x;\n"
      "  if (pass == 0) {{\n"
      "    ivec3 q = p;\n"
      "    imageStore(img, {}, vec4(vec3(p) + 1.0, 0.5));\n"
      "    return;\n"
      "  }}\n"
      "  ivec3 q = ivec3({}, {}, {}) - p;\n"
      "  v[4 * i] = imageLoad(img, {});\n"
      "{}{}"
      "  if (i == 0) v[4 * {}] = {};\n"
      "}}\n",
      k.w, k.h, k.d, k.image, k.sampler ? fmt::format("uniform {} tex;\n", k.sampler) : "", k.h, k.w, k.coord,
      k.w - 1, k.h - 1, k.d - 1, k.coord,
      k.sampler ? fmt::format("  v[4 * i + 1] = texelFetch(tex, {}, 0);\n", k.coord) : "",
      k.normalized ? fmt::format("  v[4 * i + 2] = texture(tex, {});\n", k.normalized) : "", n, k.size);
  std::string cmds = fmt::format(
      "texture storage 0 {}\ntexparameter 2D min nearest\ntexparameter 2D mag nearest\n"
      "uniform int img 0\n{}image texture 0 GL_RGBA32F\nssbo 0 {}\n"
      "uniform int pass 0\ncompute 1 1 1\nuniform int pass 1\ncompute 1 1 1\n",
      k.storage, k.sampler ? "uniform int tex 0\n" : "", (4 * n + 1) * 16);
  // What texel q = mirror(p) holds: (q + 1, 0.5).
  for (uint32_t z = 0; z < k.d; ++z)
    for (uint32_t y = 0; y < k.h; ++y)
      for (uint32_t x = 0; x < k.w; ++x) {
        const uint32_t i = (z * k.h + y) * k.w + x;
        const float want[4] = {float(k.w - x), float(k.h - y), float(k.d - z), 0.5f};
        for (int slot = 0; slot < 3; ++slot) {
          if ((slot == 1 && !k.sampler) || (slot == 2 && !k.normalized)) continue;
          for (int c = 0; c < 4; ++c)
            cmds += fmt::format("probe ssbo float 0 {} == {}\n", (4 * i + slot) * 16 + 4 * c, want[c]);
        }
      }
  for (int c = 0; c < 3; ++c) cmds += fmt::format("probe ssbo float 0 {} == {}\n", 4 * n * 16 + 4 * c, k.size_expected[c]);
  return compute_file(glsl, cmds);
}

TEST(ImageKinds, StoreThenLoadFetchAndSampleEachDimension) {
  for (const Kind& k : kKinds) {
    SCOPED_TRACE(k.name);
    EXPECT_TRUE(passes(shader_test(k)));
  }
}

// A wrong expectation fails: the probes above can fail.
TEST(ImageKinds, AWrongTexelFails) {
  std::string file = shader_test(kKinds[2]);
  const std::string probe = "probe ssbo float 0 0 == 4\n";  // v[0] = texel (3, 3, 2): x + 1 = 4
  const size_t at = file.find(probe);
  ASSERT_NE(at, std::string::npos);
  file.replace(at, probe.size(), "probe ssbo float 0 0 == 3\n");
  auto v = run_shader_test(file);
  EXPECT_EQ(v.outcome, Outcome::fail);
}

// texture() of a cube: a direction along each major axis reaches the
// centre of that face (GL 4.6 section 8.13: s = t = 0.5 -> texel (2, 2) of
// a 4x4 face, nearest).
TEST(ImageKinds, CubeSamplingPicksTheFaceOfTheMajorAxis) {
  const std::string glsl =
      "#version 430\nlayout(local_size_x = 6) in;\n"
      "layout(rgba32f) uniform imageCube img;\nuniform samplerCube tex;\nuniform int pass;\n"
      "layout(std430, binding = 0) buffer B { vec4 v[]; };\n"
      "void main() {\n"
      "  int f = int(gl_LocalInvocationID.x);\n"
      "  if (pass == 0) {\n"
      "    for (int y = 0; y < 4; ++y) for (int x = 0; x < 4; ++x)\n"
      "      imageStore(img, ivec3(x, y, f), vec4(f, x, y, 1.0));\n"
      "    return;\n"
      "  }\n"
      "  vec3 axis = f < 2 ? vec3(1, 0, 0) : f < 4 ? vec3(0, 1, 0) : vec3(0, 0, 1);\n"
      "  v[f] = texture(tex, (f % 2 == 0 ? 1.0 : -1.0) * axis);\n"
      "}\n";
  std::string cmds =
      "texture storage 0 Cube GL_RGBA32F (1 4 4)\ntexparameter Cube min nearest\ntexparameter Cube mag nearest\n"
      "uniform int img 0\nuniform int tex 0\nimage texture 0 GL_RGBA32F\nssbo 0 96\n"
      "uniform int pass 0\ncompute 1 1 1\nuniform int pass 1\ncompute 1 1 1\n";
  for (int f = 0; f < 6; ++f)
    cmds += fmt::format("probe ssbo float 0 {} == {}\nprobe ssbo float 0 {} == 2\nprobe ssbo float 0 {} == 2\n", 16 * f,
                        f, 16 * f + 4, 16 * f + 8);
  EXPECT_TRUE(passes(compute_file(glsl, cmds)));
}

// piglit's shaped textures: rgbw 1D (red, green, blue, white), rgbw 3D
// (2x2x2: red, green, blue, white / yellow, magenta, cyan, black) and
// rgbw 2DArray (layer L: red, green, blue, white in turn), read with
// texelFetch.
TEST(ImageKinds, PiglitShapedTextures) {
  const std::string glsl =
      "#version 430\nlayout(local_size_x = 1) in;\n"
      "uniform sampler1D t1;\nuniform sampler3D t3;\nuniform sampler2DArray ta;\n"
      "layout(std430, binding = 0) buffer B { vec4 v[]; };\n"
      "void main() {\n"
      "  for (int i = 0; i < 4; ++i) v[i] = texelFetch(t1, i, 0);\n"
      "  for (int i = 0; i < 8; ++i) v[4 + i] = texelFetch(t3, ivec3(i & 1, (i >> 1) & 1, i >> 2), 0);\n"
      "  for (int i = 0; i < 5; ++i) v[12 + i] = texelFetch(ta, ivec3(1, 2, i), 0);\n"
      "}\n";
  std::string cmds =
      "texture rgbw 1D 0\ntexture rgbw 3D 1\ntexture rgbw 2DArray 2 (4, 4, 5)\n"
      "uniform int t1 0\nuniform int t3 1\nuniform int ta 2\nssbo 0 272\ncompute 1 1 1\n";
  const float colours[][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}, {1, 1, 0}, {1, 0, 1}, {0, 1, 1}, {0, 0, 0}};
  auto expect = [&](int slot, const float (&c)[3]) {
    for (int ch = 0; ch < 3; ++ch) cmds += fmt::format("probe ssbo float 0 {} == {}\n", slot * 16 + 4 * ch, c[ch]);
    cmds += fmt::format("probe ssbo float 0 {} == 1\n", slot * 16 + 12);
  };
  for (int i = 0; i < 4; ++i) expect(i, colours[i]);
  for (int i = 0; i < 8; ++i) expect(4 + i, colours[i]);
  for (int i = 0; i < 5; ++i) expect(12 + i, colours[i % 4]);
  EXPECT_TRUE(passes(compute_file(glsl, cmds)));
}

// piglit's depth textures (`texture shadow2D`, `shadow1DArray`): x / (w - 1)
// in every row and layer, read with texelFetch (the texel-fetch sampler
// does not compare).
TEST(ImageKinds, PiglitDepthTextures) {
  const std::string glsl =
      "#version 430\nlayout(local_size_x = 1) in;\n"
      "uniform sampler2D d2;\nuniform sampler1DArray d1a;\n"
      "layout(std430, binding = 0) buffer B { float v[]; };\n"
      "void main() {\n"
      "  for (int x = 0; x < 5; ++x) v[x] = texelFetch(d2, ivec2(x, 1), 0).x;\n"
      "  for (int x = 0; x < 3; ++x) v[5 + x] = texelFetch(d1a, ivec2(x, 1), 0).x;\n"
      "}\n";
  std::string cmds = "texture shadow2D 0 (5, 2)\ntexture shadow1DArray 1 (3, 2)\nuniform int d2 0\nuniform int d1a 1\n"
                     "ssbo 0 32\ncompute 1 1 1\n";
  for (int x = 0; x < 5; ++x) cmds += fmt::format("probe ssbo float 0 {} == {}\n", 4 * x, float(x) / 4.0f);
  for (int x = 0; x < 3; ++x) cmds += fmt::format("probe ssbo float 0 {} == {}\n", 20 + 4 * x, float(x) / 2.0f);
  EXPECT_TRUE(passes(compute_file(glsl, cmds)));
}

// The same depth textures through shadow samplers: the runtime's sampler
// compares (GREATER, then texparameter compare_func), the compiler passes
// the reference; textureQueryLevels and textureSize(t, lod) of piglit's
// miptree (8x8, 4 levels).
TEST(ImageKinds, ShadowSamplersAndLevelQueries) {
  const std::string glsl =
      "#version 430\nlayout(local_size_x = 1) in;\n"
      "uniform sampler2DShadow d2;\nuniform sampler1DArrayShadow d1a;\nuniform sampler2D m;\n"
      "layout(std430, binding = 0) buffer B { float v[]; };\n"
      "void main() {\n"
      "  for (int x = 0; x < 5; ++x) v[x] = texture(d2, vec3((float(x) + 0.5) / 5.0, 0.25, 0.6));\n"
      "  for (int x = 0; x < 3; ++x) v[5 + x] = texture(d1a, vec3((float(x) + 0.5) / 3.0, 1.0, 0.4));\n"
      "  v[8] = float(textureQueryLevels(m));\n"
      "  for (int l = 0; l < 4; ++l) v[9 + l] = float(textureSize(m, l).x);\n"
      "}\n";
  auto file = [&](const std::string& func) {
    std::string cmds = "texture shadow2D 0 (5, 2)\n" + (func.empty() ? "" : "texparameter 2D compare_func " + func + "\n") +
                       "texture shadow1DArray 1 (3, 2)\ntexture miptree 2\nuniform int d2 0\nuniform int d1a 1\n"
                       "uniform int m 2\nssbo 0 64\ncompute 1 1 1\n";
    return cmds;
  };
  // GREATER: passes when the reference exceeds the texel (x / (w - 1)).
  std::string cmds = file("");
  for (int x = 0; x < 5; ++x) cmds += fmt::format("probe ssbo float 0 {} == {}\n", 4 * x, 0.6f > float(x) / 4.0f ? 1 : 0);
  for (int x = 0; x < 3; ++x) cmds += fmt::format("probe ssbo float 0 {} == {}\n", 20 + 4 * x, 0.4f > float(x) / 2.0f ? 1 : 0);
  cmds += "probe ssbo float 0 32 == 4\n";
  for (int l = 0; l < 4; ++l) cmds += fmt::format("probe ssbo float 0 {} == {}\n", 36 + 4 * l, 8 >> l);
  EXPECT_TRUE(passes(compute_file(glsl, cmds)));
  // compare_func less on the 2D texture: the reference below the texel.
  cmds = file("less");
  for (int x = 0; x < 5; ++x) cmds += fmt::format("probe ssbo float 0 {} == {}\n", 4 * x, 0.6f < float(x) / 4.0f ? 1 : 0);
  EXPECT_TRUE(passes(compute_file(glsl, cmds)));
  cmds = file("always");
  for (int x = 0; x < 5; ++x) cmds += fmt::format("probe ssbo float 0 {} == 1\n", 4 * x);
  EXPECT_TRUE(passes(compute_file(glsl, cmds)));
}

// sampler2DRect: texel coordinates (the compiler divides by the size).
// glslang turns an implicit-LOD texture() of a Rect sampler outside the
// fragment stage into an explicit LOD, which SPIR-V forbids for Rect (the
// validator refuses it), so these use textureGrad.
TEST(ImageKinds, RectanglesSampleInTexels) {
  const std::string glsl =
      "#version 430\nlayout(local_size_x = 1) in;\n"
      "uniform sampler2DRectShadow d;\n"
      "layout(std430, binding = 0) buffer B { float v[]; };\n"
      "void main() {\n"
      "  for (int x = 0; x < 5; ++x) v[x] = textureGrad(d, vec3(float(x) + 0.5, 1.5, 0.6), vec2(0.0), vec2(0.0));\n"
      "  v[5] = textureGradOffset(d, vec3(0.5, 0.5, 0.3), vec2(0.0), vec2(0.0), ivec2(1, 0));\n"
      // texture(): glslang's explicit Lod, rewritten to zero gradients
      // (the compiler's spirv_rect_lod.cpp).
      "  v[6] = texture(d, vec3(2.5, 1.5, 0.6));\n"
      "  v[7] = texture(d, vec3(3.5, 0.5, 0.6));\n"
      "}\n";
  std::string cmds = "texture shadowRect 0 (5, 2)\nuniform int d 0\nssbo 0 32\ncompute 1 1 1\n";
  // GREATER: the reference above the texel x / 4.
  for (int x = 0; x < 5; ++x) cmds += fmt::format("probe ssbo float 0 {} == {}\n", 4 * x, 0.6f > float(x) / 4.0f ? 1 : 0);
  cmds += "probe ssbo float 0 20 == 1\n";  // 0.3 > 0.25
  cmds += "probe ssbo float 0 24 == 1\nprobe ssbo float 0 28 == 0\n";  // 0.6 > 2 / 4, not > 3 / 4
  EXPECT_TRUE(passes(compute_file(glsl, cmds)));
}

TEST(ImageKinds, ADimensionMismatchIsNamed) {
  const std::string glsl =
      "#version 430\nlayout(local_size_x = 1) in;\nlayout(rgba32f) uniform image3D img;\n"
      "void main() { imageStore(img, ivec3(0), vec4(1.0)); }\n";
  auto v = run_shader_test(fmt::format(
      "[require]\nGLSL >= 4.30\n[compute shader]\n{}\n[test]\ntexture storage 0 2DArray GL_RGBA32F (1 2 2 2)\n"
      "uniform int img 0\nimage texture 0 GL_RGBA32F\ncompute 1 1 1\n",
      glsl));
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_NE(v.detail.find("a 3d uniform bound to a 2d_array image"), std::string::npos) << v.detail;
}

// A GPU-tiled image request for image stores and atomics.
layout::Request storage_request(format::Format f, uint32_t w, uint32_t h, uint32_t depth = 1, uint32_t samples = 1) {
  layout::Request r;
  r.format = f;
  r.width_px = w;
  r.height_px = h;
  r.depth_px = depth;
  r.sample_count_sa = samples;
  r.tiling = layout::Tiling::gpu;
  r.writeable_image = true;
  return r;
}

// The runtime API without shader_runner (piglit has no command for texel
// buffers or multisampled images): compile, bind the images by name, one
// storage buffer at binding 0, dispatch one threadgroup.
Status dispatch_with_images(runtime::Device& dev, const std::string& glsl, const std::map<std::string, const runtime::Image*>& images,
                            runtime::Buffer& out) {
  const std::string sources[] = {glsl};
  AGX_TRY(auto spirv, runtime::glsl_to_opengl_spirv(sources, "kernel"));
  compiler::Options options;
  options.env = compiler::TargetEnv::opengl;
  AGX_TRY(compiler::Shader shader, compiler::compile_spirv(spirv, options));
  auto lookup = [&](const compiler::ImageBinding& b) -> Result<runtime::BoundImage> {
    auto it = images.find(b.name);
    if (it == images.end()) return Error::not_found("no image '{}'", b.name);
    return runtime::BoundImage{it->second, {}};
  };
  AGX_TRY(runtime::StateDescriptors states, runtime::bind_images(shader.abi, lookup));
  std::vector<uint32_t> u(shader.abi.uniform_count, 0);
  for (const auto& r : shader.abi.resources) {
    u[r.uniform] = uint32_t(out.gpu_va());
    u[r.uniform + 1] = uint32_t(out.gpu_va() >> 32);
  }
  for (const auto& [first, words] : states.uniforms) std::copy(words.begin(), words.end(), u.begin() + first);
  runtime::LaunchDesc l;
  l.code = shader.code;
  l.register_halves = shader.stats.gprs;
  l.preamble = shader.preamble;
  l.preamble_register_halves = shader.stats.preamble_gprs;
  l.uniforms = u;
  l.local = shader.abi.workgroup_size;
  l.threadgroup_memory_B = shader.abi.threadgroup_memory_B;
  l.texture_states = states.textures;
  l.sampler_states = states.samplers;
  AGX_TRY(runtime::EncodedLaunch e, runtime::encode_launch(dev, l));
  return dev.submit_compute(e.command, "images");
}

// Float atomics on an r32f image (GL_EXT_shader_atomic_float's
// imageAtomicAdd, imageAtomicExchange): 64 invocations add integer-valued
// floats to 4 texels in four 64x64 tiles, so the sums are exact; every old
// value is a distinct partial sum.
TEST(ImageKinds, FloatAtomicsOnR32fTexels) {
  auto dev = runtime::Device::open_in_process();
  ASSERT_TRUE(dev.ok());
  auto img = runtime::Image::create(**dev, runtime::ImageDim::d2, storage_request(format::Format::R32_FLOAT, 128, 80), "r32f");
  ASSERT_TRUE(img.ok()) << img.error().message();
  auto out = (*dev)->create_buffer(65 * 4, "out");
  ASSERT_TRUE(out.ok());
  const std::string glsl =
      "#version 450\n#extension GL_EXT_shader_atomic_float : require\n"
      "layout(local_size_x = 64) in;\n"
      "layout(r32f) uniform image2D img;\n"
      "layout(std430, binding = 0) buffer B { float v[]; };\n"
      "void main() {\n"
      "  int i = int(gl_LocalInvocationID.x);\n"
      "  ivec2 t = ivec2(i % 2 == 0 ? 3 : 70, i % 4 < 2 ? 5 : 66);\n"
      "  v[i] = imageAtomicAdd(img, t, float(i + 1));\n"
      "  if (i == 0) v[64] = imageAtomicExchange(img, ivec2(100, 1), 2.5);\n"
      "}\n";
  auto st = dispatch_with_images(**dev, glsl, {{"img", img->get()}}, **out);
  ASSERT_TRUE(st.ok()) << st.error().message();
  std::vector<float> texels(128 * 80);
  ASSERT_TRUE((*img)->download({reinterpret_cast<uint8_t*>(texels.data()), texels.size() * 4}, 128 * 4).ok());
  const float* v = reinterpret_cast<const float*>((*out)->host().data());
  const int xs[4] = {3, 70, 3, 70}, ys[4] = {5, 5, 66, 66};
  for (int k = 0; k < 4; ++k) {
    float sum = 0;
    std::vector<float> old;
    for (int i = k; i < 64; i += 4) sum += float(i + 1), old.push_back(v[i]);
    EXPECT_EQ(texels[ys[k] * 128 + xs[k]], sum) << k;
    std::sort(old.begin(), old.end());
    EXPECT_EQ(std::adjacent_find(old.begin(), old.end()), old.end()) << k;  // distinct
    EXPECT_GE(old.front(), 0.0f);
    EXPECT_LT(old.back(), sum);
  }
  EXPECT_EQ(v[64], 0.0f);
  EXPECT_EQ(texels[1 * 128 + 100], 2.5f);
}

// Image atomics on every layered dimension: each texel gets two adds from
// two invocations; the download of each layer (through the layout's own
// addressing) shows both, so the shader's layer stride and tile walk agree
// with the layout.
TEST(ImageKinds, AtomicsOnLayersSlicesAndFaces) {
  auto dev = runtime::Device::open_in_process();
  ASSERT_TRUE(dev.ok());
  struct Case {
    runtime::ImageDim dim;
    const char* type;
    uint32_t w, h, d;
    const char* coord;  // of texel (x, y, z)
  };
  const Case cases[] = {
      {runtime::ImageDim::d1, "uimage1D", 100, 1, 1, "x"},
      {runtime::ImageDim::d1_array, "uimage1DArray", 100, 1, 3, "ivec2(x, z)"},
      {runtime::ImageDim::d2_array, "uimage2DArray", 70, 40, 3, "ivec3(x, y, z)"},
      {runtime::ImageDim::d3, "uimage3D", 16, 16, 4, "ivec3(x, y, z)"},
      {runtime::ImageDim::cube, "uimageCube", 8, 8, 6, "ivec3(x, y, z)"},
      {runtime::ImageDim::cube_array, "uimageCubeArray", 4, 4, 12, "ivec3(x, y, z)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(compiler::image_dim_name(c.dim));
    auto img = runtime::Image::create(**dev, c.dim, storage_request(format::Format::R32_UINT, c.w, c.h, c.d), "atomics");
    ASSERT_TRUE(img.ok()) << img.error().message();
    auto out = (*dev)->create_buffer(16, "out");
    ASSERT_TRUE(out.ok());
    const uint32_t total = c.w * c.h * c.d;
    const std::string glsl = fmt::format(
        "#version 450\nlayout(local_size_x = 1024) in;\nlayout(r32ui) uniform {} img;\n"
        "layout(std430, binding = 0) buffer B {{ uint v[]; }};\n"
        "void main() {{\n"
        "  for (int t = int(gl_LocalInvocationID.x); t < {}; t += 1024) {{\n"
        "    int x = t % {}, y = (t / {}) % {}, z = t / {};\n"
        "    imageAtomicAdd(img, {}, uint(t + 1));\n"
        "  }}\n"
        "  for (int t = {} - 1 - int(gl_LocalInvocationID.x); t >= 0; t -= 1024) {{\n"
        "    int x = t % {}, y = (t / {}) % {}, z = t / {};\n"
        "    imageAtomicAdd(img, {}, 1000000u);\n"
        "  }}\n"
        "}}\n",
        c.type, total, c.w, c.w, c.h, c.w * c.h, c.coord, total, c.w, c.w, c.h, c.w * c.h, c.coord);
    auto st = dispatch_with_images(**dev, glsl, {{"img", img->get()}}, **out);
    ASSERT_TRUE(st.ok()) << st.error().message();
    std::vector<uint32_t> layer(size_t(c.w) * c.h);
    for (uint32_t z = 0; z < c.d; ++z) {
      ASSERT_TRUE((*img)->download({reinterpret_cast<uint8_t*>(layer.data()), layer.size() * 4}, c.w * 4, 0, z).ok());
      for (uint32_t i = 0; i < c.w * c.h; ++i)
        ASSERT_EQ(layer[i], z * c.w * c.h + i + 1 + 1000000u) << "layer " << z << " texel " << i;
    }
  }
}

// A texel buffer: imageStore through imageBuffer, then texelFetch of a
// samplerBuffer and imageLoad; the bytes land linearly (texel i at 4 i).
TEST(ImageKinds, TexelBuffers) {
  auto dev = runtime::Device::open_in_process();
  ASSERT_TRUE(dev.ok());
  constexpr uint32_t kTexels = 2100;  // three 1024-texel rows, the last partial
  auto img = runtime::Image::create_texel_buffer(**dev, format::Format::R32_FLOAT, kTexels, "texels");
  ASSERT_TRUE(img.ok()) << img.error().message();
  auto out = (*dev)->create_buffer(64 * 8, "out");
  ASSERT_TRUE(out.ok());
  const std::string store =
      "#version 430\nlayout(local_size_x = 64) in;\nlayout(r32f) uniform imageBuffer img;\n"
      "layout(std430, binding = 0) buffer B { float v[]; };\n"
      "void main() { int i = int(gl_LocalInvocationID.x) * 33; imageStore(img, i, vec4(i * 0.5 + 1.0)); "
      "if (gl_LocalInvocationID.x == 0) v[0] = float(imageSize(img)); }\n";
  auto st = dispatch_with_images(**dev, store, {{"img", img->get()}}, **out);
  ASSERT_TRUE(st.ok()) << st.error().message();
  float size;
  std::memcpy(&size, (*out)->host().data(), 4);
  EXPECT_EQ(size, float(kTexels));
  const float* texels = reinterpret_cast<const float*>((*img)->buffer().host().data());
  for (uint32_t t = 0; t < 64; ++t) EXPECT_EQ(texels[33 * t], 33 * t * 0.5f + 1.0f) << t;
  EXPECT_EQ(texels[1], 0.0f);
  const std::string load =
      "#version 430\nlayout(local_size_x = 64) in;\nuniform samplerBuffer tex;\n"
      "layout(r32f) readonly uniform imageBuffer img;\n"
      "layout(std430, binding = 0) buffer B { vec2 v[]; };\n"
      "void main() { int i = 2079 - int(gl_LocalInvocationID.x) * 33;\n"
      "  v[gl_LocalInvocationID.x] = vec2(texelFetch(tex, i).x, imageLoad(img, i).x); }\n";
  st = dispatch_with_images(**dev, load, {{"tex", img->get()}, {"img", img->get()}}, **out);
  ASSERT_TRUE(st.ok()) << st.error().message();
  const float* v = reinterpret_cast<const float*>((*out)->host().data());
  for (uint32_t t = 0; t < 64; ++t) {
    const uint32_t i = 2079 - 33 * t;
    const float want = i % 33 == 0 ? i * 0.5f + 1.0f : 0.0f;
    EXPECT_EQ(v[2 * t], want) << i;
    EXPECT_EQ(v[2 * t + 1], want) << i;
  }
}

// A multisampled image: each invocation stores one sample of one texel;
// every sample lands in its own bytes of the texel's element (the layout's
// samples are consecutive in an element), imageSamples reads the count.
TEST(ImageKinds, MultisampledStores) {
  auto dev = runtime::Device::open_in_process();
  ASSERT_TRUE(dev.ok());
  auto img = runtime::Image::create(**dev, runtime::ImageDim::d2_ms, storage_request(format::Format::R32_UINT, 4, 2, 1, 4), "ms");
  ASSERT_TRUE(img.ok()) << img.error().message();
  auto out = (*dev)->create_buffer(16, "out");
  ASSERT_TRUE(out.ok());
  const std::string store =
      "#version 450\nlayout(local_size_x = 4, local_size_y = 2, local_size_z = 4) in;\n"
      "layout(r32ui) uniform uimage2DMS img;\nlayout(std430, binding = 0) buffer B { int v[]; };\n"
      "void main() { ivec3 p = ivec3(gl_LocalInvocationID);\n"
      "  imageStore(img, p.xy, p.z, uvec4(1000 * p.z + 10 * p.y + p.x));\n"
      "  if (p == ivec3(0)) v[0] = imageSamples(img); }\n";
  auto st = dispatch_with_images(**dev, store, {{"img", img->get()}}, **out);
  ASSERT_TRUE(st.ok()) << st.error().message();
  int32_t samples;
  std::memcpy(&samples, (*out)->host().data(), 4);
  EXPECT_EQ(samples, 4);
  std::vector<uint32_t> texels(4 * 2 * 4);  // 16-byte elements: 4 samples of 4 bytes
  ASSERT_TRUE((*img)->download({reinterpret_cast<uint8_t*>(texels.data()), texels.size() * 4}, 4 * 16).ok());
  for (uint32_t y = 0; y < 2; ++y)
    for (uint32_t x = 0; x < 4; ++x)
      for (uint32_t s = 0; s < 4; ++s) EXPECT_EQ(texels[(y * 4 + x) * 4 + s], 1000 * s + 10 * y + x) << x << y << s;
}

}  // namespace
}  // namespace agx::shadertest
