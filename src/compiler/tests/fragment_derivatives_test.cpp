// Fragment-shader derivatives and implicit-LOD sampling (docs/compiler.md,
// "Fragment shaders"): dFdx / dFdy / fwidth through the hardware's dfdx /
// dfdy, texture() through the automatic LOD modes; the emitted code, then
// values drawn on the software GPU's fragment half.
#include <gtest/gtest.h>

#include <string>

#include "fragment_render.h"

namespace agx::compiler {
namespace AGX_UNITY_ID {

namespace cs = agx::cmdstream;
using gpu::test::f2u;
using test::FragmentRender;

std::string frag_disasm(const std::string& src) {
  Options o;
  o.stage = Stage::fragment;
  o.file_name = "t.frag";
  auto s = compile_glsl(src, o);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message());
  return s.ok() ? disassemble(s->code) : "";
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(FragmentDerivatives, DerivativesAreDfdxAndDfdy) {
  const std::string d = frag_disasm(R"(#version 450
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 c;
void main() { c = vec4(dFdx(uv.x), dFdy(uv.y), fwidth(uv.x), dFdxCoarse(uv.y) + dFdyFine(uv.x)); })");
  // dFdx, fwidth's two, dFdxCoarse; dFdy, fwidth's, dFdyFine.
  EXPECT_EQ(count_of(d, " dfdx "), 3u) << d;
  EXPECT_EQ(count_of(d, " dfdy "), 3u) << d;
  EXPECT_NE(d.find(".abs, r"), std::string::npos) << d;  // fwidth = |dFdx| + |dFdy|
  EXPECT_EQ(d.find("simd_shuffle"), std::string::npos) << d;
}

TEST(FragmentDerivatives, ConstantsHaveZeroDerivatives) {
  const std::string d = frag_disasm(R"(#version 450
layout(location = 0) out vec4 c;
void main() { c = vec4(dFdx(2.0), dFdy(vec2(3.0, 1.0)), fwidthCoarse(0.5)); })");
  EXPECT_EQ(d.find("dfd"), std::string::npos) << d;
}

TEST(FragmentDerivatives, ImplicitLookupsUseTheAutomaticLod) {
  const std::string d = frag_disasm(R"(#version 450
layout(binding = 1) uniform sampler2D t;
layout(binding = 2) uniform sampler2DShadow s;
layout(binding = 3) uniform samplerCubeArray q;
layout(location = 0) in vec4 uv;
layout(location = 0) out vec4 c;
void main() {
  c = texture(t, uv.xy) + textureOffset(t, uv.xy, ivec2(1, -1)) + textureProj(t, uv.xyz) +
      texture(q, uv) + vec4(texture(s, uv.xyz)) + textureQueryLod(t, uv.xy).xyxy;
})");
  EXPECT_EQ(count_of(d, "auto_lod, 0"), 6u) << d;
  EXPECT_EQ(count_of(d, "query_lod"), 1u) << d;
  EXPECT_EQ(d.find("lod_min"), std::string::npos) << d;
}

TEST(FragmentDerivatives, BiasIsAutoLodBiasAndGradientsStayLodGrad) {
  Options o;
  o.stage = Stage::fragment;
  o.file_name = "t.frag";
  o.preamble = false;
  auto s = compile_glsl(R"(#version 450
layout(binding = 1) uniform sampler2D t;
layout(location = 0) in vec2 uv;
layout(location = 1) flat in float b;
layout(location = 0) out vec4 c;
void main() { c = texture(t, uv, b) + textureGrad(t, uv, vec2(b, 0), vec2(0, b)) + textureLod(t, uv, b); })", o);
  ASSERT_TRUE(s.ok()) << s.error().message();
  const std::string d = disassemble(s->code);
  EXPECT_EQ(count_of(d, "auto_lod_bias, r"), 1u) << d;
  EXPECT_EQ(count_of(d, "lod_grad, r"), 1u) << d;
  EXPECT_EQ(count_of(d, "lod_min, r"), 1u) << d;
}

// MinLod has no automatic form: the quad's gradients from dfdx / dfdy
// feed lod_grad_min.
TEST(FragmentDerivatives, MinLodTakesTheGradientsOfTheQuad) {
  const std::string d = frag_disasm(R"(#version 450
#extension GL_ARB_sparse_texture_clamp : require
layout(binding = 1) uniform sampler2D t;
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 c;
void main() { c = textureClampARB(t, uv, 1.0); })");
  EXPECT_NE(d.find("lod_grad_min"), std::string::npos) << d;
  EXPECT_EQ(count_of(d, " dfdx "), 2u) << d;
  EXPECT_EQ(count_of(d, " dfdy "), 2u) << d;
}

// Compute keeps GL_NV_compute_shader_derivatives: 0 without a group.
TEST(FragmentDerivatives, ComputeWithoutAGroupStillGivesZero) {
  Options o;
  o.file_name = "t.comp";
  auto s = compile_glsl(R"(#version 450
#extension GL_NV_compute_shader_derivatives : require
layout(local_size_x = 4) in;
layout(binding = 0) buffer B { float v[]; };
void main() { v[gl_LocalInvocationIndex] = dFdx(v[gl_LocalInvocationIndex]); })", o);
  ASSERT_TRUE(s.ok()) << s.error().message();
  EXPECT_EQ(disassemble(s->code).find("dfdx"), std::string::npos);
}

// The render tests: a 64x64 RGBA8 texture of 4 levels, level k a solid
// colour, sampled nearest with nearest mips (repeat).
class FragmentLod : public FragmentRender {
 public:
  static constexpr GpuVa kTexHeap = 0x7000'0000ull, kTexImage = 0x7100'0000ull;
  static constexpr std::array<std::array<uint8_t, 4>, 4> kLevelColours{
      {{255, 0, 0, 255}, {0, 255, 0, 255}, {0, 0, 255, 255}, {255, 255, 255, 255}}};

  // USC Texture / Sampler words binding the mipmapped texture at the
  // shader's ts / ss.
  std::vector<uint8_t> mip_texture(const Shader& s) {
    EXPECT_EQ(s.abi.images.size(), 1u);
    if (s.abi.images.empty()) return {};
    gpu::test::TestImage img = gpu::test::make_test_image(mem, kTexImage, *format::find_format("R8G8B8A8_UNORM"),
                                                          layout::Tiling::twiddled, gpu::Dim::d2, 64, 64, 1, 4);
    gpu::TextureUnit unit(mem, gpu::TextureState{});
    for (uint32_t k = 0; k < 4; ++k)
      for (uint32_t y = 0; y < (64u >> k); ++y)
        for (uint32_t x = 0; x < (64u >> k); ++x) {
          gpu::PbeWrite w;
          for (int c = 0; c < 4; ++c) w.value[c] = f2u(kLevelColours[k][c] / 255.0f);
          w.x = int32_t(x);
          w.y = int32_t(y);
          w.lod = k;
          EXPECT_TRUE(gpu::pbe_write(unit, img.pbe, w).ok());
        }
    std::vector<uint8_t> heap = gpu::test::texture_words(img, cs::TextureDimension::k2D, cs::Layout::kTwiddled);
    cs::Sampler smp{};
    smp.minify = smp.magnify = cs::Filter::kNearest;
    smp.mip_filter = cs::MipFilter::kNearest;
    smp.maximum_lod = 15.0f;
    const std::vector<uint8_t> sw = gpu::test::sampler_words(smp);
    heap.insert(heap.end(), sw.begin(), sw.end());
    EXPECT_TRUE(mem.map(kTexHeap, heap).ok());
    std::vector<uint8_t> state;
    cs::UscTexture t{};
    t.start = s.abi.images[0].texture_state;
    t.count = 1;
    t.buffer = kTexHeap;
    append(state, t);
    cs::UscSampler u{};
    u.start = s.abi.images[0].sampler_state;
    u.count = 1;
    u.buffer = kTexHeap + 24;
    append(state, u);
    return state;
  }
};

// A linear ramp: p = (x / 4, 3y / 8) has dFdx(p.x) = 0.25, dFdy(p.y) =
// 0.375 and fwidth(p.x + p.y) = 0.625 in every pixel; odd columns discard
// first, and still give their quad their values (even columns stay right).
TEST_F(FragmentLod, RampDerivativesWithDiscardedNeighbours) {
  target_of("R8G8B8A8_UNORM", 32, 32);
  clear_and_store(0, 0, 0, 0);
  const Shader s = linked(R"(#version 450
layout(location = 0) in vec2 p;
layout(location = 0) out vec4 o;
void main() {
  if (fract(gl_FragCoord.x * 0.5) > 0.5) discard;  // odd columns
  o = vec4(dFdx(p.x), dFdy(p.y), fwidth(p.x + p.y), dFdx(gl_FragCoord.x) * 0.75);
})");
  ASSERT_FALSE(s.code.empty());
  varyings::Interface iface;
  iface.varyings.push_back({"p", 2, 32, varyings::Interp::smooth});
  iface.fragcoord_z = true;  // gl_FragCoord is read
  const uint32_t st = draw_shader(s, iface);
  rect(st, 0, 0, 32, 32, 0.5, true, [](double x, double y) { return std::vector<float>{float(x / 4), float(3 * y / 8)}; });
  auto r = run();
  ASSERT_TRUE(r.ok()) << r.error().message();
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x) {
      const std::array<uint8_t, 4> want = x % 2 ? std::array<uint8_t, 4>{0, 0, 0, 0}
                                                : std::array<uint8_t, 4>{64, 96, 159, 191};
      ASSERT_EQ(pixel(x, y), want) << x << "," << y;
    }
}

// texture() at 1, 2 and 4 texels per pixel selects levels 0, 1 and 2; a
// bias of 1 (a flat input) moves 2 texels per pixel to level 2. Odd
// columns discard before the lookup and still give their quad their
// coordinates.
TEST_F(FragmentLod, ImplicitLodSelectsTheLevelAndBiasShiftsIt) {
  target_of("R8G8B8A8_UNORM", 32, 32);
  clear_and_store(0, 0, 0, 0);
  const Shader s = linked(R"(#version 450
layout(binding = 1) uniform sampler2D t;
layout(location = 0) in vec2 uv;
layout(location = 1) flat in float bias;
layout(location = 0) out vec4 o;
void main() {
  if (fract(gl_FragCoord.x * 0.5) > 0.5) discard;
  o = texture(t, uv, bias);
})", {}, false);
  ASSERT_FALSE(s.code.empty());
  varyings::Interface iface;
  iface.varyings.push_back({"uv", 2, 32, varyings::Interp::smooth});
  iface.varyings.push_back({"bias", 1, 32, varyings::Interp::flat});
  iface.fragcoord_z = true;
  gpu::PppWords w = open_words();  // one texture and one sampler register
  w.fragment_shader_0.texture_state_register_count = 8;
  w.fragment_shader_0.sampler_state_register_count = cs::SamplerStates::k4Compact;
  const uint32_t st = draw_shader(s, iface, w, {}, mip_texture(s));
  // Rows of 8: scale (texels per pixel) 1, 2, 4, then 2 with bias 1.
  const double scales[4] = {1, 2, 4, 2};
  for (int band = 0; band < 4; ++band) {
    const double k = scales[band] / 64;
    const float bias = band == 3 ? 1.0f : 0.0f;
    rect(st, 0, 8 * band, 32, 8 * band + 8, 0.5, true,
         [&](double x, double y) { return std::vector<float>{float(x * k), float(y * k), bias}; });
  }
  auto r = run();
  ASSERT_TRUE(r.ok()) << r.error().message();
  const int levels[4] = {0, 1, 2, 2};
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x) {
      const std::array<uint8_t, 4> want = x % 2 ? std::array<uint8_t, 4>{} : kLevelColours[levels[y / 8]];
      ASSERT_EQ(pixel(x, y), want) << x << "," << y;
    }
}

}  // namespace AGX_UNITY_ID
}  // namespace agx::compiler
