// The GLSL sampling functions compiled and run on the usc emulator with the
// gpu unit's texture unit: one sampled texture (R32_FLOAT texels holding
// value(x, y, layer, level), uploaded with the layout unit's tiling) and
// its sampler in the state registers the ABI names. Expected values are
// worked out here from the Vulkan "Image Operations" formulas (texel
// selection, layer rounding and clamping, LOD selection, depth compare,
// gather order, offsets, cube faces), not from the texture unit.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <functional>

#include "cmdstream/cmdstream.h"
#include "gpu/texture/texture.h"
#include "layout/layout.h"
#include "compiler/tests/texture_dispatch.h"
#include "run_helpers.h"

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

namespace cs = agx::cmdstream;


// Texel value: level * 1000 + layer * 100 + y * 10 + x (cube layers are
// cube * 6 + face; 3D slices are layers).
float value(uint32_t x, uint32_t y, uint32_t layer, uint32_t level) {
  return float(level * 1000 + layer * 100 + y * 10 + x);
}

struct Tex {
  cs::TextureDimension dim = cs::TextureDimension::k2D;
  format::Format format = format::Format::R32_FLOAT;
  uint32_t w = 4, h = 4, layers = 1, levels = 1;  // layers: array layers, cubes or 3D slices
  std::function<float(uint32_t, uint32_t, uint32_t, uint32_t)> texel = value;
  cs::Sampler sampler;
};

bool is_cube(cs::TextureDimension d) { return d == cs::TextureDimension::kCube || d == cs::TextureDimension::kCubeArray; }

// Runs `glsl` (one threadgroup writing vec4 o[lanes] to buffer 0) with `t`
// bound as its only sampled texture; returns the buffer.
std::vector<float> run(const std::string& glsl, const Tex& t, uint32_t lanes, TargetEnv env = TargetEnv::vulkan) {
  auto shader = compile(glsl, env);
  EXPECT_TRUE(shader.ok()) << (shader.ok() ? "" : shader.error().message());
  if (!shader.ok()) return {};
  const Abi& abi = shader->abi;
  EXPECT_EQ(abi.images.size(), 1u);
  EXPECT_EQ(abi.resources.size(), 1u);
  if (abi.images.size() != 1 || abi.resources.size() != 1) return {};
  const bool cube = is_cube(t.dim), d3 = t.dim == cs::TextureDimension::k3D;
  layout::Request r;
  r.format = t.format;
  r.width_px = t.w;
  r.height_px = t.h;
  r.depth_px = cube ? t.layers * 6 : t.layers;
  r.levels = t.levels;
  r.tiling = layout::Tiling::gpu;
  r.mipmapped_z = d3;
  auto l = layout::make_layout(r);
  EXPECT_TRUE(l.ok());
  if (!l.ok()) return {};
  std::vector<uint8_t> bytes(l->size_B, 0);
  const uint32_t texel_B = format::info(t.format).bytes_per_block_B;
  for (uint32_t level = 0; level < l->levels; ++level) {
    const uint32_t lw = std::max(1u, t.w >> level), lh = std::max(1u, t.h >> level);
    const uint32_t ll = d3 ? std::max(1u, t.layers >> level) : r.depth_px;
    for (uint32_t layer = 0; layer < ll; ++layer) {
      std::vector<uint8_t> lin(size_t(lw) * lh * texel_B);
      for (uint32_t y = 0; y < lh; ++y)
        for (uint32_t x = 0; x < lw; ++x) {
          const float v = t.texel(x, y, layer, level);
          if (texel_B == 4) std::memcpy(&lin[(size_t(y) * lw + x) * 4], &v, 4);
          else {
            const uint16_t u = uint16_t(std::lround(v * 65535.0f));
            std::memcpy(&lin[(size_t(y) * lw + x) * 2], &u, 2);
          }
        }
      EXPECT_TRUE(layout::tile(*l, level, layer, bytes, lin, uint64_t(lw) * texel_B, layout::level_rect(*l, level)).ok());
    }
  }
  TextureRun job(*shader);
  const GpuVa image = job.add_image(bytes);
  auto d = image_fields<cs::Texture>(*l, t.dim);
  d.depth = t.layers;
  d.first_level = 0;
  d.last_level = l->levels - 1;
  d.unk_mipmapped = l->levels > 1;
  d.address = image;
  std::vector<uint8_t> states(24 * abi.texture_state_count, 0);
  auto words = *cs::pack(d);
  std::memcpy(states.data() + 24 * abi.images[0].texture_state, words.data(), 24);
  std::vector<uint8_t> samplers(8 * abi.sampler_state_count, 0);
  auto sw = *cs::pack(t.sampler);
  std::memcpy(samplers.data() + 8 * abi.images[0].sampler_state, sw.data(), 8);
  put_txf_sampler(abi, samplers);
  const ImageBinding& b = abi.images[0];
  if (b.size_uniform != UINT32_MAX) {
    // What the runtime's size query gives: extents, then layers (cubes).
    std::array<uint32_t, 4> size{t.w, t.h, 0, 1};
    switch (t.dim) {
      case cs::TextureDimension::k1D: size = {t.w, 0, 0, 1}; break;
      case cs::TextureDimension::k1DArray: size = {t.w, t.layers, 0, 1}; break;
      case cs::TextureDimension::k2DArray: case cs::TextureDimension::k3D: case cs::TextureDimension::kCubeArray:
        size = {t.w, t.h, t.layers, 1};
        break;
      default: break;
    }
    for (uint32_t i = 0; i < 4; ++i) job.uniform(b.size_uniform + i) = size[i];
  }
  if (b.levels_uniform != UINT32_MAX) job.uniform(b.levels_uniform) = l->levels;
  if (getenv("AGX_COMPILER_DUMP")) fprintf(stderr, "%s\n%s", shader->ir_text.c_str(), disassemble(shader->code).c_str());
  return job.run(states, samplers, lanes);
}

// A kernel of `lanes` invocations: `decls` after the texture, `body`
// computes vec4 r for invocation i.
std::string kernel(const std::string& sampler, uint32_t lanes, const std::string& body, const std::string& decls = "",
                   const std::string& ext = "") {
  return "#version 450\n" + ext + "layout(local_size_x = " + std::to_string(lanes) + ") in;\n" +
         "layout(set = 0, binding = 0) uniform " + sampler + " t;\n" +
         "layout(set = 0, binding = 1) buffer O { vec4 o[]; };\n" + decls +
         "void main() {\n  uint i = gl_LocalInvocationIndex;\n  vec4 r = vec4(0.0);\n" + body + "\n  o[i] = r;\n}\n";
}

cs::Sampler nearest() {
  cs::Sampler s;
  s.wrap_s = s.wrap_t = s.wrap_r = cs::Wrap::kClampToEdge;
  s.minify = s.magnify = cs::Filter::kNearest;
  s.mip_filter = cs::MipFilter::kNone;
  s.maximum_lod = 15.0f;
  return s;
}

// Vulkan: the layer is round-to-nearest-even of the coordinate, clamped
// to [0, layers - 1].
uint32_t vk_layer(float a, uint32_t layers) {
  float r = std::nearbyint(a);
  return uint32_t(std::clamp(r, 0.0f, float(layers - 1)));
}

TEST(TextureFunctions, ArrayLayersRoundToEvenAndClamp) {
  const float layers_in[8] = {-0.7f, 0.4f, 0.5f, 1.5f, 2.5f, 7.3f, 1.49f, 0.51f};
  const std::string decl = "const float L[8] = float[8](-0.7, 0.4, 0.5, 1.5, 2.5, 7.3, 1.49, 0.51);\n";
  Tex t;
  t.dim = cs::TextureDimension::k2DArray;
  t.layers = 3;
  t.sampler = nearest();
  auto v = run(kernel("sampler2DArray", 8, "  r = texture(t, vec3(0.375, 0.625, L[i]));", decl), t, 8);
  ASSERT_EQ(v.size(), 32u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(v[i * 4], value(1, 2, vk_layer(layers_in[i], 3), 0)) << i;
  // 1D arrays: (x, layer).
  t.dim = cs::TextureDimension::k1DArray;
  t.h = 1;
  v = run(kernel("sampler1DArray", 8, "  r = textureLod(t, vec2(0.625, L[i]), 0.0);", decl), t, 8);
  ASSERT_EQ(v.size(), 32u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(v[i * 4], value(2, 0, vk_layer(layers_in[i], 3), 0)) << i;
}

// Vulkan's nearest mip level for a clamped LOD d' (q the last level).
uint32_t vk_nearest_level(float lod, uint32_t q) {
  const float d = std::clamp(lod, 0.0f, float(q));
  return d <= 0.5f ? 0u : std::min(q, uint32_t(std::ceil(d + 0.5f)) - 1);
}

TEST(TextureFunctions, ExplicitLodGradientsAndSamplerClamps) {
  const float lods[8] = {0.0f, 1.0f, 2.0f, 3.0f, 5.0f, 0.4f, 0.6f, -1.0f};
  const std::string decl = "const float L[8] = float[8](0.0, 1.0, 2.0, 3.0, 5.0, 0.4, 0.6, -1.0);\n";
  Tex t;
  t.w = t.h = 8;
  t.levels = 4;
  t.sampler = nearest();
  t.sampler.mip_filter = cs::MipFilter::kNearest;
  auto texel_at = [&](float lod) {
    const uint32_t level = vk_nearest_level(lod, 3), size = 8u >> level;
    const uint32_t x = uint32_t(std::floor(0.3f * float(size))), y = uint32_t(std::floor(0.55f * float(size)));
    return value(x, y, 0, level);
  };
  auto v = run(kernel("sampler2D", 8, "  r = textureLod(t, vec2(0.3, 0.55), L[i]);", decl), t, 8);
  ASSERT_EQ(v.size(), 32u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(v[i * 4], texel_at(lods[i])) << i;
  // textureGrad: rho = 8 * |d| per pixel; lambda = log2(rho).
  v = run(kernel("sampler2D", 8, "  float d = exp2(L[i]) / 8.0;\n  r = textureGrad(t, vec2(0.3, 0.55), vec2(d, 0.0), vec2(0.0, d));",
                 decl),
          t, 8);
  ASSERT_EQ(v.size(), 32u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(v[i * 4], texel_at(lods[i])) << i;
  // The sampler's minimum and maximum LOD clamp lambda.
  t.sampler.minimum_lod = 1.0f;
  t.sampler.maximum_lod = 2.0f;
  v = run(kernel("sampler2D", 8, "  r = textureLod(t, vec2(0.3, 0.55), L[i]);", decl), t, 8);
  ASSERT_EQ(v.size(), 32u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(v[i * 4], texel_at(std::clamp(lods[i], 1.0f, 2.0f))) << i;
  // texture() outside a derivative group: the base level (plus the sampler clamp).
  t.sampler.minimum_lod = 0.0f;
  v = run(kernel("sampler2D", 1, "  r = texture(t, vec2(0.3, 0.55));"), t, 1);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0], texel_at(0.0f));
  // textureSize of each level and textureQueryLevels.
  v = run(kernel("sampler2D", 5, "  r = vec4(textureSize(t, int(i)), textureQueryLevels(t), 0);"), t, 5);
  ASSERT_EQ(v.size(), 20u);
  for (uint32_t i = 0; i < 5; ++i) {
    EXPECT_EQ(v[i * 4], float(std::max(1u, 8u >> i))) << i;
    EXPECT_EQ(v[i * 4 + 1], float(std::max(1u, 8u >> i))) << i;
    EXPECT_EQ(v[i * 4 + 2], 4.0f) << i;
  }
}

TEST(TextureFunctions, OffsetsAndProjection) {
  Tex t;
  t.sampler = nearest();
  // Texel (1, 2) plus the offset; clamp to edge keeps it inside.
  auto v = run(kernel("sampler2D", 4,
                      "  if (i == 0u) r = textureOffset(t, vec2(0.375, 0.625), ivec2(1, -1));\n"
                      "  if (i == 1u) r = textureLodOffset(t, vec2(0.375, 0.625), 0.0, ivec2(-1, 1));\n"
                      "  if (i == 2u) r = textureGradOffset(t, vec2(0.375, 0.625), vec2(0.0), vec2(0.0), ivec2(2, 5));\n"
                      "  if (i == 3u) r = texelFetchOffset(t, ivec2(1, 2), 0, ivec2(-1, 1));"),
               t, 4);
  ASSERT_EQ(v.size(), 16u);
  EXPECT_EQ(v[0], value(2, 1, 0, 0));
  EXPECT_EQ(v[4], value(0, 3, 0, 0));
  EXPECT_EQ(v[8], value(3, 3, 0, 0));  // (3, 7) clamped to the edge
  EXPECT_EQ(v[12], value(0, 3, 0, 0));
  // textureProj: (s, t) / q, from a vec3 and from a vec4's w.
  v = run(kernel("sampler2D", 2,
                 "  if (i == 0u) r = textureProj(t, vec3(0.75, 1.25, 2.0));\n"
                 "  if (i == 1u) r = textureProjLod(t, vec4(0.375, 0.125, 9.0, 0.5), 0.0);"),
          t, 2);
  ASSERT_EQ(v.size(), 8u);
  EXPECT_EQ(v[0], value(1, 2, 0, 0));   // (0.375, 0.625)
  EXPECT_EQ(v[4], value(3, 1, 0, 0));   // (0.75, 0.25)
}

TEST(TextureFunctions, LinearFilteringWeights) {
  Tex t;
  t.sampler = nearest();
  t.sampler.minify = t.sampler.magnify = cs::Filter::kLinear;
  // u = 0.375 * 4 - 0.5 = 1.0 + 0: i0 = 1, alpha = 0; v = 0.5625 * 4 - 0.5
  // = 1.75: j0 = 1, beta = 0.75.
  auto v = run(kernel("sampler2D", 1, "  r = texture(t, vec2(0.375, 0.5625));"), t, 1);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_FLOAT_EQ(v[0], 0.25f * value(1, 1, 0, 0) + 0.75f * value(1, 2, 0, 0));
}

// Vulkan's compare: the texel passes (1.0) when ref OP texel.
float vk_compare(cs::CompareFunc f, float ref, float d) {
  switch (f) {
    case cs::CompareFunc::kLequal: return ref <= d;
    case cs::CompareFunc::kGequal: return ref >= d;
    case cs::CompareFunc::kLess: return ref < d;
    case cs::CompareFunc::kGreater: return ref > d;
    case cs::CompareFunc::kEqual: return ref == d;
    case cs::CompareFunc::kNotEqual: return ref != d;
    case cs::CompareFunc::kAlways: return 1;
    case cs::CompareFunc::kNever: return 0;
  }
  return 0;
}

float depth(uint32_t x, uint32_t y, uint32_t layer, uint32_t) { return float(x + 4 * y + 16 * layer) / 64.0f; }

TEST(TextureFunctions, ShadowLookupsCompareEveryFunction) {
  Tex t;
  t.format = format::Format::Z32_FLOAT;
  t.texel = depth;
  t.sampler = nearest();
  t.sampler.compare_enable = true;
  const float refs[8] = {0.0f, 0.1f, 9.0f / 64, 0.15f, 0.2f, 0.5f, 1.0f, -1.0f};
  const std::string decl = "const float R[8] = float[8](0.0, 0.1, 9.0 / 64.0, 0.15, 0.2, 0.5, 1.0, -1.0);\n";
  for (cs::CompareFunc f : {cs::CompareFunc::kLequal, cs::CompareFunc::kGequal, cs::CompareFunc::kLess,
                            cs::CompareFunc::kGreater, cs::CompareFunc::kEqual, cs::CompareFunc::kNotEqual,
                            cs::CompareFunc::kAlways, cs::CompareFunc::kNever}) {
    t.sampler.compare_func = f;
    t.dim = cs::TextureDimension::k2D;
    t.layers = 1;
    // Texel (1, 2): depth 9/64.
    auto v = run(kernel("sampler2DShadow", 8, "  r.x = texture(t, vec3(0.375, 0.625, R[i]));\n"
                                               "  r.y = textureProj(t, vec4(0.75, 1.25, 2.0 * R[i], 2.0));", decl),
                 t, 8);
    ASSERT_EQ(v.size(), 32u);
    for (int i = 0; i < 8; ++i) {
      const float want = vk_compare(f, refs[i], 9.0f / 64);
      EXPECT_EQ(v[i * 4], want) << i << " func " << int(f);
      EXPECT_EQ(v[i * 4 + 1], want) << i << " proj func " << int(f);
    }
    // 2D array: layer 1, texel (1, 2): depth 25/64.
    t.dim = cs::TextureDimension::k2DArray;
    t.layers = 2;
    v = run(kernel("sampler2DArrayShadow", 8, "  r.x = texture(t, vec4(0.375, 0.625, 1.2, R[i] + 0.25));", decl), t, 8);
    ASSERT_EQ(v.size(), 32u);
    for (int i = 0; i < 8; ++i) EXPECT_EQ(v[i * 4], vk_compare(f, refs[i] + 0.25f, 25.0f / 64)) << i << " func " << int(f);
  }
  // 1D: texel 2 of row 0 (depth 2/64).
  t.sampler.compare_func = cs::CompareFunc::kLess;
  t.dim = cs::TextureDimension::k1D;
  t.h = 1;
  t.layers = 1;
  auto v = run(kernel("sampler1DShadow", 2, "  r.x = textureLod(t, vec3(0.625, 0.0, i == 0u ? 0.01 : 0.5), 0.0);"), t, 2);
  ASSERT_EQ(v.size(), 8u);
  EXPECT_EQ(v[0], 1.0f);
  EXPECT_EQ(v[4], 0.0f);
}

TEST(TextureFunctions, CubeFacesAndCubeArrays) {
  // Direction -> face and (s, t) per Vulkan's table; 2x2 faces, nearest.
  Tex t;
  t.dim = cs::TextureDimension::kCube;
  t.w = t.h = 2;
  t.sampler = nearest();
  const std::string decl =
      "const vec3 D[6] = vec3[6](vec3(1, -0.5, -0.5), vec3(-1, 0.5, -0.5), vec3(0.5, 1, 0.5), vec3(-0.5, -1, 0.5),"
      " vec3(0.5, 0.5, 1), vec3(0.5, -0.5, -1));\n";
  // +X: sc = -z, tc = -y -> (1, 1); -X: sc = z, tc = -y -> (0, 0); +Y: sc =
  // x, tc = z -> (1, 1); -Y: sc = x, tc = -z -> (0, 0); +Z: sc = x, tc = -y
  // -> (1, 0); -Z: sc = -x, tc = -y -> (0, 1).
  const uint32_t want[6][2] = {{1, 1}, {0, 0}, {1, 1}, {0, 0}, {1, 0}, {0, 1}};
  auto v = run(kernel("samplerCube", 6, "  r = texture(t, D[i]);", decl), t, 6);
  ASSERT_EQ(v.size(), 24u);
  for (uint32_t f = 0; f < 6; ++f) EXPECT_EQ(v[f * 4], value(want[f][0], want[f][1], f, 0)) << f;
  // Cube arrays: cube 1 is storage layers 6..11; the cube index rounds.
  t.dim = cs::TextureDimension::kCubeArray;
  t.layers = 2;
  v = run(kernel("samplerCubeArray", 6, "  r = textureLod(t, vec4(D[i], 0.6), 0.0);", decl), t, 6);
  ASSERT_EQ(v.size(), 24u);
  for (uint32_t f = 0; f < 6; ++f) EXPECT_EQ(v[f * 4], value(want[f][0], want[f][1], 6 + f, 0)) << f;
  // Shadow cubes (the reference against the texel's value / 64).
  t.texel = [](uint32_t x, uint32_t y, uint32_t layer, uint32_t) { return float(x + 2 * y + 4 * layer) / 64.0f; };
  t.format = format::Format::Z32_FLOAT;
  t.sampler.compare_enable = true;
  t.sampler.compare_func = cs::CompareFunc::kLequal;
  v = run(kernel("samplerCubeArrayShadow", 6, "  r.x = texture(t, vec4(D[i], 1.0), float(4 * (6 + i) + 2) / 64.0);", decl), t, 6);
  ASSERT_EQ(v.size(), 24u);
  for (uint32_t f = 0; f < 6; ++f) {
    const float d = float(want[f][0] + 2 * want[f][1] + 4 * (6 + f)) / 64.0f;
    EXPECT_EQ(v[f * 4], vk_compare(cs::CompareFunc::kLequal, float(4 * (6 + f) + 2) / 64.0f, d)) << f;
  }
  t.dim = cs::TextureDimension::kCube;
  t.layers = 1;
  v = run(kernel("samplerCubeShadow", 6, "  r.x = texture(t, vec4(D[i], float(4 * i + 1) / 64.0));", decl), t, 6);
  ASSERT_EQ(v.size(), 24u);
  for (uint32_t f = 0; f < 6; ++f) {
    const float d = float(want[f][0] + 2 * want[f][1] + 4 * f) / 64.0f;
    EXPECT_EQ(v[f * 4], vk_compare(cs::CompareFunc::kLequal, float(4 * f + 1) / 64.0f, d)) << f;
  }
}

TEST(TextureFunctions, VolumeAnd1D) {
  Tex t;
  t.dim = cs::TextureDimension::k3D;
  t.layers = 4;
  t.sampler = nearest();
  auto v = run(kernel("sampler3D", 4, "  r = textureOffset(t, vec3(0.375, 0.625, 0.125 + 0.25 * float(i)), ivec3(0, 0, -1));"), t, 4);
  ASSERT_EQ(v.size(), 16u);
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(v[i * 4], value(1, 2, i == 0 ? 0 : i - 1, 0)) << i;
  t.dim = cs::TextureDimension::k1D;
  t.h = 1;
  t.layers = 1;
  t.levels = 3;
  t.sampler.mip_filter = cs::MipFilter::kNearest;
  v = run(kernel("sampler1D", 3, "  r = textureLod(t, 0.8, float(i));"), t, 3);
  ASSERT_EQ(v.size(), 12u);
  for (uint32_t i = 0; i < 3; ++i) EXPECT_EQ(v[i * 4], value(uint32_t(std::floor(0.8f * float(4u >> i))), 0, 0, i)) << i;
}

TEST(TextureFunctions, GatherOrderOffsetsAndShadowGather) {
  Tex t;
  t.sampler = nearest();
  // u = 1.75 - 0.5: i0 = 1; v = 2.25 - 0.5: j0 = 1. Order (i0, j1), (i1, j1), (i1, j0), (i0, j0).
  auto v = run(kernel("sampler2D", 4,
                      "  if (i == 0u) r = textureGather(t, vec2(1.75, 2.25) / 4.0);\n"
                      "  if (i == 1u) r = textureGatherOffset(t, vec2(1.75, 2.25) / 4.0, ivec2(-1, 1));\n"
                      "  if (i == 2u) r = textureGatherOffsets(t, vec2(1.75, 2.25) / 4.0,"
                      " ivec2[4](ivec2(0, 0), ivec2(1, 0), ivec2(0, 1), ivec2(-1, -1)));\n"
                      "  if (i == 3u) r = textureGather(t, vec2(1.75, 2.25) / 4.0, 3);"),
               t, 4);
  ASSERT_EQ(v.size(), 16u);
  const float g[4] = {value(1, 2, 0, 0), value(2, 2, 0, 0), value(2, 1, 0, 0), value(1, 1, 0, 0)};
  for (int k = 0; k < 4; ++k) EXPECT_EQ(v[k], g[k]) << k;
  const float go[4] = {value(0, 3, 0, 0), value(1, 3, 0, 0), value(1, 2, 0, 0), value(0, 2, 0, 0)};
  for (int k = 0; k < 4; ++k) EXPECT_EQ(v[4 + k], go[k]) << k;
  // Offsets: component i is the (i0, j0) texel at offsets[i].
  const float gos[4] = {value(1, 1, 0, 0), value(2, 1, 0, 0), value(1, 2, 0, 0), value(0, 0, 0, 0)};
  for (int k = 0; k < 4; ++k) EXPECT_EQ(v[8 + k], gos[k]) << k;
  for (int k = 0; k < 4; ++k) EXPECT_EQ(v[12 + k], 1.0f) << k;  // alpha of R32: 1
  // Shadow gather: the four depths compared with the reference.
  t.format = format::Format::Z32_FLOAT;
  t.texel = depth;
  t.sampler.compare_enable = true;
  t.sampler.compare_func = cs::CompareFunc::kLess;
  v = run(kernel("sampler2DShadow", 1, "  r = textureGather(t, vec2(1.75, 2.25) / 4.0, 8.5 / 64.0);"), t, 1);
  ASSERT_EQ(v.size(), 4u);
  const float d[4] = {depth(1, 2, 0, 0), depth(2, 2, 0, 0), depth(2, 1, 0, 0), depth(1, 1, 0, 0)};
  for (int k = 0; k < 4; ++k) EXPECT_EQ(v[k], vk_compare(cs::CompareFunc::kLess, 8.5f / 64, d[k])) << k;
}

TEST(TextureFunctions, IntegerTexturesAreNotFiltered) {
  Tex t;
  t.format = format::Format::R32_UINT;
  t.sampler = nearest();
  t.sampler.minify = t.sampler.magnify = cs::Filter::kLinear;
  t.texel = [](uint32_t x, uint32_t y, uint32_t, uint32_t) { return std::bit_cast<float>(x + 10 * y + 7); };
  auto v = run(kernel("usampler2D", 1, "  r = vec4(texture(t, vec2(0.375, 0.625)));"), t, 1);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0], float(1 + 20 + 7));  // the nearest texel, never blended
  t.format = format::Format::R32_SINT;
  t.texel = [](uint32_t x, uint32_t y, uint32_t, uint32_t) { return std::bit_cast<float>(-int32_t(x + 10 * y)); };
  v = run(kernel("isampler2D", 1, "  r = vec4(textureLod(t, vec2(0.875, 0.125), 0.0));"), t, 1);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0], -3.0f);
}

TEST(TextureFunctions, QueryLodInADerivativeGroup) {
  // Quads of a 4x2 group: invocation (x, y) samples at (x, y) * step, so
  // ddx = (step, 0), ddy = (0, step): rho = 16 * step, lambda = log2 rho.
  Tex t;
  t.w = t.h = 16;
  t.levels = 5;
  t.sampler = nearest();
  t.sampler.mip_filter = cs::MipFilter::kLinear;
  t.sampler.maximum_lod = 2.5f;
  auto v = run("#version 450\n#extension GL_NV_compute_shader_derivatives : require\n"
               "layout(local_size_x = 4, local_size_y = 2, derivative_group_quadsNV) in;\n"
               "layout(set = 0, binding = 0) uniform sampler2D t;\n"
               "layout(set = 0, binding = 1) buffer O { vec4 o[]; };\n"
               "void main() {\n  uvec2 p = gl_LocalInvocationID.xy;\n"
               "  float step = p.x < 2u ? 0.5 / 16.0 : 8.0 / 16.0;\n"
               "  vec2 c = vec2(p % 2u) * step + vec2(0.1);\n"
               "  o[gl_LocalInvocationIndex] = vec4(textureQueryLod(t, c), 0, 0);\n}\n",
               t, 8);
  ASSERT_EQ(v.size(), 32u);
  for (uint32_t i = 0; i < 8; ++i) {
    const bool small = (i % 4) < 2;
    const float lambda = small ? -1.0f : 3.0f;
    EXPECT_FLOAT_EQ(v[i * 4 + 1], lambda) << i;                        // before the sampler's clamp
    EXPECT_FLOAT_EQ(v[i * 4], std::clamp(lambda, 0.0f, 2.5f)) << i;    // clamped by max LOD, then [0, q]
  }
}

// sampler2DRect (OpenGL SPIR-V only): texture() of it comes from glslang
// as an explicit Lod the front end rewrites to zero gradients
// (spirv_rect_lod.cpp); coordinates are in texels, not normalized.
TEST(TextureFunctions, RectangleTexturesSampleInTexels) {
  Tex t;
  t.w = 5;
  t.h = 3;
  t.sampler = nearest();
  const std::string glsl = R"(#version 450
layout(local_size_x = 15) in;
layout(binding = 0) uniform sampler2DRect t;
layout(std430, binding = 1) buffer O { vec4 o[]; };
void main() {
  uint i = gl_LocalInvocationIndex;
  ivec2 p = ivec2(int(i % 5u), int(i / 5u));
  o[i] = vec4(texture(t, vec2(p) + vec2(0.5)).x, texelFetch(t, p).x, vec2(textureSize(t)));
})";
  auto v = run(glsl, t, 15, TargetEnv::opengl);
  ASSERT_EQ(v.size(), 60u);
  for (uint32_t i = 0; i < 15; ++i) {
    const uint32_t x = i % 5, y = i / 5;
    EXPECT_EQ(v[i * 4 + 0], value(x, y, 0, 0)) << i;
    EXPECT_EQ(v[i * 4 + 1], value(x, y, 0, 0)) << i;
    EXPECT_EQ(v[i * 4 + 2], 5.0f) << i;
    EXPECT_EQ(v[i * 4 + 3], 3.0f) << i;
  }
  // Linear filtering at texel-space (x + 1, 1): the 2 x 2 texels around it
  // weigh equally (Vulkan "Texel Filtering", unnormalized u = x + 1 - 0.5).
  t.sampler.minify = t.sampler.magnify = cs::Filter::kLinear;
  const std::string linear = R"(#version 450
layout(local_size_x = 4) in;
layout(binding = 0) uniform sampler2DRect t;
layout(std430, binding = 1) buffer O { vec4 o[]; };
void main() {
  uint i = gl_LocalInvocationIndex;
  o[i] = texture(t, vec2(float(i) + 1.0, 1.0));
})";
  v = run(linear, t, 4, TargetEnv::opengl);
  ASSERT_EQ(v.size(), 16u);
  for (uint32_t i = 0; i < 4; ++i) {
    const float want = (value(i, 0, 0, 0) + value(i + 1, 0, 0, 0) + value(i, 1, 0, 0) + value(i + 1, 1, 0, 0)) / 4;
    EXPECT_NEAR(v[i * 4], want, 1e-3f) << i;
  }
}

}  // namespace
}  // namespace agx::compiler::test
