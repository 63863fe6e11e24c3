// Arrays of textures and storage images (`uniform sampler2D s[3]`,
// `image2D im[2]`) indexed by constants, dynamically uniform and
// nonuniformEXT values, and separate samplers (`sampler2D(t, s)`), run on
// the usc emulator with the gpu unit's texture unit and PBE. Every image
// is a 4x4 RGBA32F one whose texels say which image and texel they are;
// the expected values are worked out here from that pattern.
#include <gtest/gtest.h>

#include <cstring>

#include "cmdstream/cmdstream.h"
#include "gpu/texture/texture.h"
#include "layout/layout.h"
#include "compiler/tests/texture_dispatch.h"
#include "run_helpers.h"

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

namespace cs = agx::cmdstream;

constexpr uint32_t kSide = 4;

// Texel (x, y) of image k (in Abi::images order).
std::array<float, 4> texel(uint32_t k, uint32_t x, uint32_t y) {
  return {float(k * 100 + y * 10 + x), float(k), float(x), float(y)};
}

uint32_t size_x(uint32_t k) { return kSide + 10 * k; }
uint32_t size_y(uint32_t k) { return kSide + 100 * k; }


struct Result2 {
  std::vector<float> out;                        // the vec4 buffer
  std::vector<std::vector<float>> images;        // each image's texels afterwards, linear RGBA
};

// Runs `shader` with every Abi::images entry bound to its own image, the
// textures' own samplers nearest, separate samplers `separate`, and an
// output buffer of `vec4s` as resource 0.
Result2 run(const Shader& shader, uint32_t vec4s, const cs::Sampler& separate, std::vector<uint32_t> push = {}) {
  Result2 res;
  const Abi& abi = shader.abi;
  EXPECT_EQ(abi.resources.size(), 1u);
  if (abi.resources.size() != 1) return res;
  layout::Request r;
  r.format = format::Format::R32G32B32A32_FLOAT;
  r.width_px = r.height_px = kSide;
  r.tiling = layout::Tiling::gpu;
  r.writeable_image = true;
  auto l = layout::make_layout(r);
  EXPECT_TRUE(l.ok());
  if (!l.ok()) return res;
  TextureRun job(shader);
  std::vector<uint8_t> states(24 * abi.texture_state_count, 0);
  for (uint32_t k = 0; k < abi.images.size(); ++k) {
    std::vector<float> lin;
    for (uint32_t y = 0; y < kSide; ++y)
      for (uint32_t x = 0; x < kSide; ++x)
        for (float c : texel(k, x, y)) lin.push_back(c);
    std::vector<uint8_t> bytes(l->size_B, 0);
    EXPECT_TRUE(layout::tile(*l, 0, 0, bytes, {reinterpret_cast<const uint8_t*>(lin.data()), lin.size() * 4}, kSide * 16,
                             layout::level_rect(*l, 0))
                    .ok());
    const GpuVa va = job.add_image(bytes);
    auto t = image_fields<cs::Texture>(*l, cs::TextureDimension::k2D);
    t.address = va;
    t.depth = 1;
    auto tw = *cs::pack(t);
    std::memcpy(states.data() + 24 * abi.images[k].texture_state, tw.data(), 24);
    if (abi.images[k].pbe_state != UINT32_MAX) {
      auto p = image_fields<cs::Pbe>(*l, cs::TextureDimension::k2D);
      p.buffer = va;
      p.levels = 1;
      p.layers = 1;
      auto pw = *cs::pack(p);
      std::memcpy(states.data() + 24 * abi.images[k].pbe_state, pw.data(), 24);
    }
  }
  std::vector<uint8_t> samplers(8 * std::max(abi.sampler_state_count, 1u), 0);
  cs::Sampler own;
  own.wrap_s = own.wrap_t = own.wrap_r = cs::Wrap::kClampToEdge;
  own.minify = own.magnify = cs::Filter::kNearest;
  own.mip_filter = cs::MipFilter::kNone;
  for (const ImageBinding& b : abi.images)
    if (b.sampler_state != UINT32_MAX) std::memcpy(samplers.data() + 8 * b.sampler_state, cs::pack(own)->data(), 8);
  for (const SamplerBinding& b : abi.samplers) std::memcpy(samplers.data() + 8 * b.sampler_state, cs::pack(separate)->data(), 8);
  put_txf_sampler(abi, samplers);
  for (size_t i = 0; i < push.size(); ++i) job.uniform(abi.push_constants_uniform + uint32_t(i)) = push[i];
  // Size uniforms that tell the images apart (what a runtime writes is
  // up to it; only the selection is checked): image k says
  // (size_x(k), size_y(k)).
  for (uint32_t k = 0; k < abi.images.size(); ++k)
    if (abi.images[k].size_uniform != UINT32_MAX) {
      job.uniform(abi.images[k].size_uniform) = size_x(k);
      job.uniform(abi.images[k].size_uniform + 1) = size_y(k);
      job.uniform(abi.images[k].size_uniform + 3) = 1;
    }
  res.out = job.run(states, samplers, vec4s);
  if (res.out.empty()) return res;
  for (uint32_t k = 0; k < abi.images.size(); ++k) {
    const std::span<const uint8_t> bytes = job.image(k).first(l->size_B);
    std::vector<float> lin(kSide * kSide * 4);
    EXPECT_TRUE(layout::detile(*l, 0, 0, bytes, {reinterpret_cast<uint8_t*>(lin.data()), lin.size() * 4}, kSide * 16,
                               layout::level_rect(*l, 0))
                    .ok());
    res.images.push_back(std::move(lin));
  }
  return res;
}

void expect_texel(const std::vector<float>& out, uint32_t at, std::array<float, 4> want, const std::string& what) {
  for (int c = 0; c < 4; ++c) EXPECT_EQ(out[at * 4 + c], want[c]) << what << " component " << c;
}

TEST(ImageArray, TexturesAndStorageImagesByConstantUniformAndNonUniformIndices) {
  Shader s = must_compile(R"(#version 450
#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) uniform sampler2D s[3];
layout(set = 0, binding = 1, rgba32f) uniform image2D im[2];
layout(set = 0, binding = 2) buffer O { vec4 o[]; };
layout(push_constant) uniform P { int k; } pc;
void main() {
  uint i = gl_LocalInvocationIndex;
  ivec2 p = ivec2(i % 4u, i / 4u);
  vec2 uv = (vec2(p) + 0.5) / 4.0;
  o[i * 6u] = texture(s[1], uv);
  o[i * 6u + 1u] = texture(s[nonuniformEXT(i % 3u)], uv);
  o[i * 6u + 2u] = texelFetch(s[pc.k], p, 0);
  o[i * 6u + 3u] = imageLoad(im[0], p);
  o[i * 6u + 4u] = imageLoad(im[nonuniformEXT(i & 1u)], p);
  o[i * 6u + 5u] = vec4(textureSize(s[2], 0), imageSize(im[1]));
  o[96u + i] = vec4(textureSize(s[nonuniformEXT(i % 3u)], 0), imageSize(im[nonuniformEXT(i & 1u)]));
  imageStore(im[nonuniformEXT(1u - (i & 1u))], p, vec4(float(i), 7.0, 8.0, 9.0));
})");
  ASSERT_FALSE(s.code.empty());
  const Abi& abi = s.abi;
  ASSERT_EQ(abi.images.size(), 5u);
  for (uint32_t e = 0; e < 3; ++e) {
    EXPECT_EQ(abi.images[e].name, "s[" + std::to_string(e) + "]");
    EXPECT_EQ(abi.images[e].array_element, e);
    EXPECT_EQ(abi.images[e].array_size, 3u);
    EXPECT_EQ(abi.images[e].texture_state, e);
  }
  EXPECT_EQ(abi.images[3].name, "im[0]");
  EXPECT_EQ(abi.images[4].pbe_state, 3u + 2 * 1 + 1);
  auto r = run(s, 16 * 7, cs::Sampler{}, {2});
  ASSERT_EQ(r.out.size(), 16u * 7 * 4);
  // Images 0-2 are s[0..2], 3-4 im[0..1].
  for (uint32_t i = 0; i < 16; ++i) {
    const uint32_t x = i % 4, y = i / 4;
    expect_texel(r.out, i * 6, texel(1, x, y), "s[1] " + std::to_string(i));
    expect_texel(r.out, i * 6 + 1, texel(i % 3, x, y), "s[i % 3] " + std::to_string(i));
    expect_texel(r.out, i * 6 + 2, texel(2, x, y), "s[pc.k] " + std::to_string(i));
    expect_texel(r.out, i * 6 + 3, texel(3, x, y), "im[0] " + std::to_string(i));
    expect_texel(r.out, i * 6 + 4, texel(3 + (i & 1), x, y), "im[i & 1] " + std::to_string(i));
    expect_texel(r.out, i * 6 + 5, {float(size_x(2)), float(size_y(2)), float(size_x(4)), float(size_y(4))}, "sizes");
    expect_texel(r.out, 96 + i,
                 {float(size_x(i % 3)), float(size_y(i % 3)), float(size_x(3 + (i & 1))), float(size_y(3 + (i & 1)))},
                 "sizes at run-time indices " + std::to_string(i));
    // The store went to the other image.
    const auto& img = r.images[3 + (1 - (i & 1))];
    const std::array<float, 4> stored{float(i), 7, 8, 9};
    for (int c = 0; c < 4; ++c) EXPECT_EQ(img[(y * kSide + x) * 4 + c], stored[c]) << i;
  }
}

// OpenGL: the elements take consecutive units.
TEST(ImageArray, OpenGlUnitsAreConsecutive) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 4) in;
layout(binding = 2) uniform sampler2D s[2];
layout(std430, binding = 0) buffer O { vec4 o[]; };
void main() {
  uint i = gl_LocalInvocationIndex;
  o[i] = texelFetch(s[i / 2u], ivec2(i, 1), 0);
})", TargetEnv::opengl);
  ASSERT_FALSE(s.code.empty());
  ASSERT_EQ(s.abi.images.size(), 2u);
  EXPECT_EQ(s.abi.images[0].binding, 2u);
  EXPECT_EQ(s.abi.images[1].binding, 3u);
  EXPECT_EQ(s.abi.images[1].name, "s[1]");
  auto r = run(s, 4, cs::Sampler{});
  ASSERT_EQ(r.out.size(), 16u);
  for (uint32_t i = 0; i < 4; ++i) expect_texel(r.out, i, texel(i / 2, i, 1), std::to_string(i));
}

// Separate samplers: sampler2D(t, s) samples texture t with sampler s's
// state (ss after the textures'); one sampler serves an array of textures.
TEST(ImageArray, SeparateSamplers) {
  Shader s = must_compile(R"(#version 450
#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) uniform texture2D t[2];
layout(set = 0, binding = 1) uniform texture2D u;
layout(set = 0, binding = 2) uniform sampler lin;
layout(set = 0, binding = 3) buffer O { vec4 o[]; };
void main() {
  uint i = gl_LocalInvocationIndex;
  // Texel-space (i + 1, 1): halfway between texels i, i + 1 and rows 0, 1.
  vec2 uv = vec2(float(i) + 1.0, 1.0) / 4.0;
  o[i * 3u] = texture(sampler2D(t[1], lin), uv);
  o[i * 3u + 1u] = texture(sampler2D(t[nonuniformEXT(i & 1u)], lin), uv);
  o[i * 3u + 2u] = texture(sampler2D(u, lin), uv);
})");
  ASSERT_FALSE(s.code.empty());
  const Abi& abi = s.abi;
  ASSERT_EQ(abi.samplers.size(), 1u);
  EXPECT_EQ(abi.samplers[0].binding, 2u);
  EXPECT_EQ(abi.samplers[0].name, "lin");
  EXPECT_EQ(abi.samplers[0].sampler_state, 3u);  // after t[0], t[1], u
  cs::Sampler linear;
  linear.wrap_s = linear.wrap_t = linear.wrap_r = cs::Wrap::kClampToEdge;
  linear.minify = linear.magnify = cs::Filter::kLinear;
  linear.mip_filter = cs::MipFilter::kNone;
  auto r = run(s, 12, linear);
  ASSERT_EQ(r.out.size(), 48u);
  // Linear filtering: the four texels around (i + 1, 1) (clamped to the
  // edge at x = 4) weigh equally.
  auto want = [&](uint32_t k, uint32_t i) {
    std::array<float, 4> sum{};
    for (uint32_t dy = 0; dy < 2; ++dy)
      for (uint32_t dx = 0; dx < 2; ++dx) {
        auto t = texel(k, std::min(i + dx, kSide - 1), dy);
        for (int c = 0; c < 4; ++c) sum[c] += t[c] / 4;
      }
    return sum;
  };
  for (uint32_t i = 0; i < 4; ++i) {
    for (int c = 0; c < 4; ++c) {
      EXPECT_NEAR(r.out[(i * 3) * 4 + c], want(1, i)[c], 1e-3f) << i;
      EXPECT_NEAR(r.out[(i * 3 + 1) * 4 + c], want(i & 1, i)[c], 1e-3f) << i;
      EXPECT_NEAR(r.out[(i * 3 + 2) * 4 + c], want(2, i)[c], 1e-3f) << i;
    }
  }
}

TEST(ImageArray, RunTimeIndexWhereEachElementsUniformsAreNeededIsAnError) {
  auto s = compile(R"(#version 450
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) uniform sampler2D s[2];
layout(set = 0, binding = 1) buffer O { ivec2 o[]; };
void main() { o[gl_LocalInvocationIndex] = ivec2(textureQueryLevels(s[gl_LocalInvocationIndex & 1u])); }
)");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("textureQueryLevels of an image array element picked at run time"), std::string::npos)
      << s.error().message();
}

TEST(ImageArray, ArraysOfSeparateSamplersAreAnError) {
  auto s = compile(R"(#version 450
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) uniform texture2D t;
layout(set = 0, binding = 1) uniform sampler ss[2];
layout(set = 0, binding = 2) buffer O { vec4 o[]; };
void main() { o[gl_LocalInvocationIndex] = texture(sampler2D(t, ss[1]), vec2(0.5)); }
)");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("arrays of separate samplers"), std::string::npos) << s.error().message();
  EXPECT_NE(s.error().message().find("test.comp:6"), std::string::npos) << s.error().message();
}

}  // namespace
}  // namespace agx::compiler::test
