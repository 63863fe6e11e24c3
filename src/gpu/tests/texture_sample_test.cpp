// Filtering, wrapping, LOD, comparison, gather and cube vectors worked out
// by hand from the Vulkan specification's formulas ("Image Operations":
// wrapping, level selection, linear filtering with weights alpha, beta,
// depth comparison before filtering, gather's texel order, cube face
// selection). Coordinates are chosen so that 8-bit sub-texel weights are
// exact.
#include <gtest/gtest.h>

#include <cmath>

#include "texture_helpers.h"

namespace agx::gpu::test {
namespace AGX_UNITY_ID {

struct Fixture {
  usc::RegionMemory mem;
  TestImage img;
  std::unique_ptr<TextureUnit> unit;

  Fixture(const Fixture&) = delete;
  Fixture(const char* format, Dim dim, uint32_t w, uint32_t h, uint32_t depth = 1,
          uint32_t levels = 1, layout::Tiling tiling = layout::Tiling::twiddled) {
    img = make_test_image(mem, 0x100000, *format::find_format(format), tiling, dim, w, h, depth,
                          levels);
    unit = std::make_unique<TextureUnit>(mem, TextureState{});
  }
  // Writes one texel (4 components) through the PBE.
  void put(uint32_t x, uint32_t y, std::array<float, 4> v, uint32_t layer = 0,
           uint32_t level = 0) {
    PbeWrite w;
    for (int k = 0; k < 4; ++k) w.value[k] = f2u(v[k]);
    w.x = int32_t(x);
    w.y = int32_t(y);
    w.layer = layer;
    img.pbe.level = level;
    auto st = pbe_write(*unit, img.pbe, w);
    ASSERT_TRUE(st.ok()) << st.error().message();
  }
  void put_int(uint32_t x, uint32_t y, std::array<uint32_t, 4> v) {
    PbeWrite w;
    w.value = v;
    w.x = int32_t(x);
    w.y = int32_t(y);
    ASSERT_TRUE(pbe_write(*unit, img.pbe, w).ok());
  }
  Texel sample(const SamplerView& s, SampleRequest rq) {
    auto t = unit->sample(img.tex, s, rq);
    EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message());
    return t.ok() ? *t : Texel{};
  }
  float sample_r(const SamplerView& s, float u, float v, float lod = 0.0f) {
    SampleRequest rq;
    rq.coord = {u, v, 0};
    rq.lod = lod;
    return u2f(sample(s, rq).c[0]);
  }
};

float val(int x, int y) { return float(x + 10 * y); }

// A 4x4 R32_FLOAT image holding val(x, y).
struct Grid : Fixture {
  Grid() : Fixture("R32_FLOAT", Dim::d2, 4, 4) {
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < 4; ++x) put(x, y, {val(x, y), 0, 0, 1});
  }
};

// The unit keeps the view it last resolved (format, image): loads that
// alternate between more images than its image cache holds (16) read each
// image's own texel, also after the cache dropped the image of the kept
// view; a view changed in one field resolves again.
TEST(TextureLoad, ResolvedViewsFollowTheImageCache) {
  usc::RegionMemory mem;
  std::vector<TestImage> imgs;
  TextureUnit unit(mem, TextureState{});
  for (uint32_t i = 0; i < 20; ++i) {
    imgs.push_back(make_test_image(mem, 0x100000 + 0x10000 * i, *format::find_format("R32_UINT"),
                                   layout::Tiling::linear, Dim::d2, 2, 1, 1, 1));
    PbeWrite w;
    w.value = {100 + i, 0, 0, 1};
    w.x = 1;
    ASSERT_TRUE(pbe_write(unit, imgs.back().pbe, w).ok());
  }
  FetchCoord at;
  at.x = 1;
  for (int round = 0; round < 2; ++round)
    for (uint32_t i = 0; i < 20; ++i) {
      for (int again = 0; again < 2; ++again) {
        auto t = unit.load(imgs[i].tex, SamplerView{}, at);
        ASSERT_TRUE(t.ok()) << t.error().message();
        EXPECT_EQ(t->c[0], 100 + i) << i;
      }
    }
  TextureView other = imgs[0].tex;
  other.swizzle = {Swizzle::one, Swizzle::r, Swizzle::zero, Swizzle::a};
  auto t = unit.load(other, SamplerView{}, at);
  ASSERT_TRUE(t.ok()) << t.error().message();
  EXPECT_EQ(t->c[0], 1u);
  EXPECT_EQ(t->c[1], 100u);
}

TEST(TextureSample, NearestPicksTheTexelUnderTheCoordinate) {
  Grid f;
  SamplerView s;
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) {
      EXPECT_EQ(f.sample_r(s, (x + 0.5f) / 4, (y + 0.5f) / 4), val(x, y));
      EXPECT_EQ(f.sample_r(s, (x + 0.99f) / 4, (y + 0.01f) / 4), val(x, y));
    }
}

TEST(TextureSample, BilinearWeights) {
  Grid f;
  SamplerView s;
  s.magnify = s.minify = Filter::linear;
  // u = 1.75 -> i0 = 1, alpha = 0.25; v = 2.5 -> j0 = 2, beta = 0.
  EXPECT_FLOAT_EQ(f.sample_r(s, 1.75f / 4, 2.5f / 4), 0.75f * val(1, 2) + 0.25f * val(2, 2));
  // u = 2.0 -> i0 = 1, alpha 0.5; v = 1.125 -> j0 = 0, beta 0.625.
  const float want = 0.5f * 0.375f * (val(1, 0) + val(2, 0)) + 0.5f * 0.625f * (val(1, 1) + val(2, 1));
  EXPECT_FLOAT_EQ(f.sample_r(s, 2.0f / 4, 1.125f / 4), want);
  // Clamp to edge at the corner: all four texels are (0, 0).
  EXPECT_FLOAT_EQ(f.sample_r(s, 0.0f, 0.0f), val(0, 0));
}

TEST(TextureSample, WrapModes) {
  Grid f;
  struct Case {
    Wrap wrap;
    int i;     // texel coordinate asked for (row 0)
    int want;  // texel read, or -1 for the border
  };
  const Case cases[] = {
      {Wrap::repeat, -2, 2},          {Wrap::repeat, 5, 1},
      {Wrap::mirrored_repeat, -1, 0}, {Wrap::mirrored_repeat, -2, 1},
      {Wrap::mirrored_repeat, 4, 3},  {Wrap::mirrored_repeat, 5, 2},
      {Wrap::mirrored_repeat, 9, 1},  {Wrap::clamp_to_edge, -2, 0},
      {Wrap::clamp_to_edge, 5, 3},    {Wrap::mirrored_clamp_to_edge, -1, 0},
      {Wrap::mirrored_clamp_to_edge, -2, 1}, {Wrap::mirrored_clamp_to_edge, 6, 3},
      {Wrap::clamp_to_border, -1, -1}, {Wrap::clamp_to_border, 4, -1},
      {Wrap::clamp_to_border, 3, 3},
  };
  for (const Case& c : cases) {
    SamplerView s;
    s.wrap = {c.wrap, Wrap::clamp_to_edge, Wrap::clamp_to_edge};
    s.border = BorderColour::custom;
    s.border_words = {f2u(42.0f), 0, 0, 0};
    const float got = f.sample_r(s, (c.i + 0.5f) / 4, 0.5f / 4);
    EXPECT_EQ(got, c.want < 0 ? 42.0f : val(c.want, 0))
        << "wrap " << int(c.wrap) << " i " << c.i;
  }
}

TEST(TextureSample, BorderColoursAndBilinearBlendWithTheBorder) {
  Fixture f("R8G8B8A8_UNORM", Dim::d2, 2, 2);
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 2; ++x) f.put(x, y, {1, 1, 1, 1});
  SamplerView s;
  s.wrap = {Wrap::clamp_to_border, Wrap::clamp_to_border, Wrap::clamp_to_border};
  SampleRequest rq;
  rq.coord = {-1.0f, 0.25f, 0};
  s.border = BorderColour::opaque_black;
  Texel t = f.sample(s, rq);
  EXPECT_EQ(u2f(t.c[0]), 0.0f);
  EXPECT_EQ(u2f(t.c[3]), 1.0f);
  s.border = BorderColour::transparent_black;
  EXPECT_EQ(u2f(f.sample(s, rq).c[3]), 0.0f);
  s.border = BorderColour::opaque_white;
  EXPECT_EQ(u2f(f.sample(s, rq).c[1]), 1.0f);
  // Linear at u = 0: half the texel, half the transparent border.
  s.border = BorderColour::transparent_black;
  s.magnify = Filter::linear;
  rq.coord = {0.0f, 0.25f, 0};
  t = f.sample(s, rq);
  EXPECT_FLOAT_EQ(u2f(t.c[0]), 0.5f);
  EXPECT_FLOAT_EQ(u2f(t.c[3]), 0.5f);
  // Custom border of an 8-bit unorm format: channel words hold 8-bit values.
  s.magnify = Filter::nearest;
  s.border = BorderColour::custom;
  s.border_words = {255, 0, 51, 102};
  rq.coord = {2.0f, 0.25f, 0};
  t = f.sample(s, rq);
  EXPECT_FLOAT_EQ(u2f(t.c[0]), 1.0f);
  EXPECT_FLOAT_EQ(u2f(t.c[2]), 0.2f);
  EXPECT_FLOAT_EQ(u2f(t.c[3]), 0.4f);
}

TEST(TextureSample, LevelSelection) {
  Fixture f("R32_FLOAT", Dim::d2, 8, 8, 1, 4);
  for (uint32_t level = 0; level < 4; ++level)
    for (uint32_t y = 0; y < (8u >> level); ++y)
      for (uint32_t x = 0; x < (8u >> level); ++x) f.put(x, y, {level * 10.0f, 0, 0, 1}, 0, level);
  SamplerView s;
  s.mip = MipFilter::nearest;
  // Vulkan: d = level_base + (d' <= 0.5 ? 0 : ceil(d' + 0.5) - 1).
  EXPECT_EQ(f.sample_r(s, 0.3f, 0.3f, 0.4f), 0.0f);
  EXPECT_EQ(f.sample_r(s, 0.3f, 0.3f, 0.5f), 0.0f);
  EXPECT_EQ(f.sample_r(s, 0.3f, 0.3f, 0.6f), 10.0f);
  EXPECT_EQ(f.sample_r(s, 0.3f, 0.3f, 1.5f), 10.0f);
  EXPECT_EQ(f.sample_r(s, 0.3f, 0.3f, 2.51f), 30.0f);
  EXPECT_EQ(f.sample_r(s, 0.3f, 0.3f, 9.0f), 30.0f);  // clamped to q
  EXPECT_EQ(f.sample_r(s, 0.3f, 0.3f, -3.0f), 0.0f);
  s.mip = MipFilter::linear;
  EXPECT_FLOAT_EQ(f.sample_r(s, 0.3f, 0.3f, 1.25f), 12.5f);
  EXPECT_FLOAT_EQ(f.sample_r(s, 0.3f, 0.3f, 2.5f), 25.0f);
  s.mip = MipFilter::none;
  EXPECT_EQ(f.sample_r(s, 0.3f, 0.3f, 2.0f), 0.0f);
  // Sampler LOD clamps, then the view's level range.
  s.mip = MipFilter::nearest;
  s.min_lod = 2.0f;
  EXPECT_EQ(f.sample_r(s, 0.3f, 0.3f, 0.0f), 20.0f);
  s.min_lod = 0.0f;
  s.max_lod = 1.0f;
  EXPECT_EQ(f.sample_r(s, 0.3f, 0.3f, 3.0f), 10.0f);
  s.max_lod = 1000.0f;
  f.img.tex.first_level = 1;
  f.img.tex.last_level = 2;
  EXPECT_EQ(f.sample_r(s, 0.3f, 0.3f, 0.0f), 10.0f);
  EXPECT_EQ(f.sample_r(s, 0.3f, 0.3f, 5.0f), 20.0f);
  // A bias adds to the LOD; gradients give log2 of the scale factor.
  f.img.tex.first_level = 0;
  f.img.tex.last_level = 3;
  SampleRequest rq;
  rq.coord = {0.3f, 0.3f, 0};
  rq.explicit_lod = false;
  rq.ddx = {2.0f / 8, 0, 0};  // two texels per pixel: lambda = 1
  rq.ddy = {0, 1.0f / 8, 0};
  EXPECT_EQ(u2f(f.sample(s, rq).c[0]), 10.0f);
  rq.bias = 1.0f;
  EXPECT_EQ(u2f(f.sample(s, rq).c[0]), 20.0f);
}

TEST(TextureSample, DepthCompareBeforeFiltering) {
  Fixture f("Z32_FLOAT", Dim::d2, 2, 2);
  f.put(0, 0, {0.2f, 0, 0, 0});
  f.put(1, 0, {0.4f, 0, 0, 0});
  f.put(0, 1, {0.6f, 0, 0, 0});
  f.put(1, 1, {0.8f, 0, 0, 0});
  SamplerView s;
  s.compare_enable = true;
  s.compare_func = CompareFunc::lequal;  // passes when ref <= texel
  s.magnify = Filter::linear;
  SampleRequest rq;
  rq.coord = {0.5f, 0.5f, 0};  // the four texels, weights 1/4
  rq.compare = true;
  rq.reference = 0.5f;
  EXPECT_FLOAT_EQ(u2f(f.sample(s, rq).c[0]), 0.5f);
  rq.reference = 0.1f;
  EXPECT_FLOAT_EQ(u2f(f.sample(s, rq).c[0]), 1.0f);
  s.compare_func = CompareFunc::greater;
  rq.reference = 0.5f;
  EXPECT_FLOAT_EQ(u2f(f.sample(s, rq).c[0]), 0.5f);
  s.compare_func = CompareFunc::never;
  EXPECT_FLOAT_EQ(u2f(f.sample(s, rq).c[0]), 0.0f);
  // UNORM depth clamps the reference to [0, 1].
  Fixture g("Z16_UNORM", Dim::d2, 1, 1);
  g.put(0, 0, {1.0f, 0, 0, 0});
  s.compare_func = CompareFunc::lequal;
  rq.reference = 3.0f;
  EXPECT_FLOAT_EQ(u2f(g.sample(s, rq).c[0]), 1.0f);
}

TEST(TextureSample, GatherOrder) {
  Fixture f("R32G32_FLOAT", Dim::d2, 4, 4);
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) f.put(x, y, {val(x, y), 100 + val(x, y), 0, 0});
  SamplerView s;
  SampleRequest rq;
  rq.coord = {1.75f / 4, 2.25f / 4, 0};  // i0 = 1, j0 = 1
  rq.gather = 1;
  Texel t = f.sample(s, rq);
  // (i0, j1), (i1, j1), (i1, j0), (i0, j0)
  EXPECT_EQ(u2f(t.c[0]), 100 + val(1, 2));
  EXPECT_EQ(u2f(t.c[1]), 100 + val(2, 2));
  EXPECT_EQ(u2f(t.c[2]), 100 + val(2, 1));
  EXPECT_EQ(u2f(t.c[3]), 100 + val(1, 1));
  rq.gather = 0;
  rq.offset = {-1, 1, 0};
  t = f.sample(s, rq);
  EXPECT_EQ(u2f(t.c[3]), val(0, 2));
}

TEST(TextureSample, OffsetsAndIntegerTexturesAreNotFiltered) {
  Grid f;
  SamplerView s;
  SampleRequest rq;
  rq.coord = {1.5f / 4, 1.5f / 4, 0};
  rq.offset = {2, -1, 0};
  EXPECT_EQ(u2f(f.sample(s, rq).c[0]), val(3, 0));
  Fixture g("R32G32B32A32_UINT", Dim::d2, 2, 2);
  g.put_int(0, 0, {7, 0xFFFFFFFFu, 3, 4});
  g.put_int(1, 0, {9, 1, 1, 1});
  s.magnify = s.minify = Filter::linear;
  rq = {};
  rq.coord = {0.4f, 0.25f, 0};
  Texel t = g.sample(s, rq);
  EXPECT_EQ(t.c[0], 7u);
  EXPECT_EQ(t.c[1], 0xFFFFFFFFu);
}

TEST(TextureSample, SrgbDecodesBeforeFiltering) {
  Fixture f("R8G8B8A8_SRGB", Dim::d2, 2, 1);
  // 188 is the sRGB code of about 0.5 linear; write codes via linear values.
  const float l188 = float(std::pow((188 / 255.0 + 0.055) / 1.055, 2.4));
  f.put(0, 0, {l188, 0, 1, 0.2f});
  f.put(1, 0, {0, 0, 1, 0.6f});
  SamplerView s;
  s.magnify = Filter::linear;
  SampleRequest rq;
  rq.coord = {0.5f, 0.5f, 0};  // halfway: averages linear values
  Texel t = f.sample(s, rq);
  EXPECT_FLOAT_EQ(u2f(t.c[0]), l188 / 2);
  EXPECT_NEAR(u2f(t.c[3]), (51 + 153) / 2.0f / 255.0f, 1e-6);
}

TEST(TextureSample, CubeFaceSelectionAndSeams) {
  Fixture f("R32_FLOAT", Dim::cube, 2, 2, 1);
  for (uint32_t face = 0; face < 6; ++face)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 2; ++x) f.put(x, y, {face * 10.0f + y * 2 + x, 0, 0, 0}, face);
  SamplerView s;
  SampleRequest rq;
  const struct {
    std::array<float, 3> dir;
    float want;
  } faces[] = {
      {{1, -0.5f, -0.5f}, 3},    // +X: sc = -rz = .5, tc = -ry = .5 -> texel (1, 1)
      {{-1, 0.5f, -0.5f}, 10},   // -X: sc = rz = -.5, tc = -ry = -.5 -> (0, 0)
      {{0.5f, 1, 0.5f}, 23},     // +Y: sc = rx, tc = rz -> (1, 1)
      {{-0.5f, -1, 0.5f}, 30},   // -Y: sc = rx, tc = -rz -> (0, 0)
      {{0.5f, 0.5f, 1}, 41},     // +Z: sc = rx, tc = -ry -> (1, 0)
      {{0.5f, -0.5f, -1}, 52},   // -Z: sc = -rx, tc = -ry -> (0, 1)
  };
  for (const auto& c : faces) {
    rq.coord = c.dir;
    EXPECT_EQ(u2f(f.sample(s, rq).c[0]), c.want) << c.dir[0] << "," << c.dir[1] << "," << c.dir[2];
  }
  // Bilinear across the +X / -Z edge: s = 0.875, t = 0.5 on +X.
  s.magnify = Filter::linear;
  rq.coord = {1, 0, -0.75f};
  const float inside = 0.75f * 0.5f * (1 + 3);  // +X texels (1,0), (1,1)
  const float seamless = inside + 0.25f * 0.5f * (50 + 52);  // -Z texels (0,0), (0,1)
  EXPECT_FLOAT_EQ(u2f(f.sample(s, rq).c[0]), seamless);
  s.seamful_cube_maps = true;
  EXPECT_FLOAT_EQ(u2f(f.sample(s, rq).c[0]), 0.5f * (1 + 3));
  // A corner of +X (s = t = 0.875 -> texels i, j = 1, 2): texel (2, 2) is
  // outside on both axes and averages the three texels at the corner: +X
  // (1, 1) = 3, -Z (0, 1) = 52 (as above) and -Y below +X's corner.
  s.seamful_cube_maps = false;
  rq.coord = {1, -0.75f, -0.75f};
  Texel t = f.sample(s, rq);
  // -Y: +X texel (1, 2) re-projects to dir (1, -1.5, -0.5) -> -Y, sc = rx,
  // tc = -rz: s = 0.5 (1 / 1.5 + 1) = 0.833, t = 0.5 (0.5 / 1.5 + 1) = 0.667
  // -> texel (1, 1) = 33.
  const float corner = (3 + 52 + 33) / 3.0f;
  const float want = 0.75f * 0.75f * 3 + 0.25f * 0.75f * 52 + 0.75f * 0.25f * 33 +
                     0.25f * 0.25f * corner;
  EXPECT_NEAR(u2f(t.c[0]), want, 1e-4);
}

TEST(TextureSample, Trilinear3D) {
  Fixture f("R32_FLOAT", Dim::d3, 2, 2, 2);
  for (uint32_t z = 0; z < 2; ++z)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 2; ++x) f.put(x, y, {float(x + 2 * y + 4 * z), 0, 0, 0}, z);
  SamplerView s;
  s.magnify = Filter::linear;
  SampleRequest rq;
  rq.coord = {0.5f, 0.5f, 0.625f};  // u, v at the centre; w = 1.25 -> gamma 0.75
  EXPECT_FLOAT_EQ(u2f(f.sample(s, rq).c[0]), 1.5f + 4 * 0.75f);
}

TEST(TextureSample, NullAndUnsupportedTextures) {
  Grid f;
  TextureView null = f.img.tex;
  null.null = true;
  auto t = f.unit->sample(null, SamplerView{}, SampleRequest{});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->c[0], 0u);
  TextureView comp = f.img.tex;  // compressed without a metadata buffer
  comp.compressed = true;
  t = f.unit->sample(comp, SamplerView{}, SampleRequest{});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message().find("compress"), std::string::npos) << t.error().message();
  TextureView bc = f.img.tex;
  bc.channels = format::Channels::BC1;
  t = f.unit->sample(bc, SamplerView{}, SampleRequest{});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message().find("BC1"), std::string::npos) << t.error().message();
  TextureView bad = f.img.tex;
  bad.last_level = 5;
  t = f.unit->sample(bad, SamplerView{}, SampleRequest{});
  ASSERT_FALSE(t.ok());
}

// Bicubic: Catmull-Rom weights (Vulkan "Texel Cubic Filtering") on an 8x8
// R32_FLOAT image holding 1 at texel (3, 3), 0 elsewhere. Fraction 1/2:
// weights (-1/16, 9/16, 9/16, -1/16); fraction 1/4: (-0.0703125, 0.8671875,
// 0.2265625, -0.0234375), worked out by hand from the weight polynomials.
TEST(TextureSample, BicubicCatmullRomWeights) {
  Fixture f("R32_FLOAT", Dim::d2, 8, 8);
  f.put(3, 3, {1, 0, 0, 0});
  SamplerView s;
  s.magnify = s.minify = Filter::bicubic;
  auto at = [&](float u_texels, float v_texels) {
    return f.sample_r(s, u_texels / 8.0f, v_texels / 8.0f);
  };
  // v = 3.5 (texel 3's centre: fraction 0, weights (0, 1, 0, 0)).
  EXPECT_FLOAT_EQ(at(3.5f, 3.5f), 1.0f);
  EXPECT_FLOAT_EQ(at(4.0f, 3.5f), 0.5625f);    // texels 2..5, texel 3 second
  EXPECT_FLOAT_EQ(at(3.0f, 3.5f), 0.5625f);    // texels 1..4, texel 3 third
  EXPECT_FLOAT_EQ(at(5.0f, 3.5f), -0.0625f);   // texels 3..6, texel 3 first
  EXPECT_FLOAT_EQ(at(2.0f, 3.5f), -0.0625f);   // texels 0..3, texel 3 last
  EXPECT_FLOAT_EQ(at(3.75f, 3.5f), 0.8671875f);
  EXPECT_FLOAT_EQ(at(4.75f, 3.5f), -0.0703125f);
  EXPECT_FLOAT_EQ(at(2.75f, 3.5f), 0.2265625f);
  EXPECT_FLOAT_EQ(at(1.75f, 3.5f), -0.0234375f);
  // Separable in 2D.
  EXPECT_FLOAT_EQ(at(3.75f, 4.0f), 0.8671875f * 0.5625f);
  // A constant image stays constant (the weights sum to 1), wraps included.
  Fixture g("R32_FLOAT", Dim::d2, 4, 4);
  for (uint32_t y = 0; y < 4; ++y)
    for (uint32_t x = 0; x < 4; ++x) g.put(x, y, {0.25f, 0, 0, 0});
  s.wrap = {Wrap::repeat, Wrap::repeat, Wrap::repeat};
  EXPECT_FLOAT_EQ(g.sample_r(s, 0.1f, 0.95f), 0.25f);
  // 3D textures are refused (VK_EXT_filter_cubic filters 2D only).
  Fixture h("R32_FLOAT", Dim::d3, 4, 4, 4);
  auto t = h.unit->sample(h.img.tex, s, SampleRequest{});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message().find("bicubic"), std::string::npos);
}

TEST(TextureLoad, OutOfRangeReadsTheBorderAndLodClamps) {
  Fixture f("R32_FLOAT", Dim::d2_array, 4, 4, 2, 3);
  for (uint32_t layer = 0; layer < 2; ++layer)
    for (uint32_t level = 0; level < 3; ++level)
      for (uint32_t y = 0; y < (4u >> level); ++y)
        for (uint32_t x = 0; x < (4u >> level); ++x)
          f.put(x, y, {float(layer * 100 + level * 10 + x + y), 0, 0, 0}, layer, level);
  SamplerView txf;
  txf.wrap = {Wrap::clamp_to_border, Wrap::clamp_to_border, Wrap::clamp_to_border};
  auto load = [&](int x, int y, uint32_t layer, int lod) {
    FetchCoord at;
    at.x = x;
    at.y = y;
    at.layer = layer;
    at.lod = lod;
    auto t = f.unit->load(f.img.tex, txf, at);
    EXPECT_TRUE(t.ok());
    return t.ok() ? u2f(t->c[0]) : -1.0f;
  };
  EXPECT_EQ(load(3, 2, 1, 0), 105.0f);
  EXPECT_EQ(load(1, 1, 0, 1), 12.0f);
  EXPECT_EQ(load(4, 0, 0, 0), 0.0f);   // x out of range: border (transparent black)
  EXPECT_EQ(load(0, -1, 0, 0), 0.0f);
  EXPECT_EQ(load(2, 0, 0, 1), 0.0f);   // level 1 is 2x2
  EXPECT_EQ(load(0, 0, 1, 7), 120.0f); // the LOD clamps to the last level
  EXPECT_EQ(load(0, 0, 9, 0), 100.0f); // the layer clamps (Mesa lowers robustness)
  txf.wrap = {Wrap::repeat, Wrap::repeat, Wrap::repeat};
  EXPECT_EQ(load(5, 0, 0, 0), 1.0f);
}

// Buffer textures as Mesa binds them: a linear 2D image 1024 texels wide
// (AGX_TEXTURE_BUFFER_WIDTH), element i at (i % 1024, i / 1024), stride =
// row bytes (agx_nir_lower_texture.c coords_for_buffer_texture).
TEST(TextureLoad, BufferTexturesAsLinear2D) {
  usc::RegionMemory mem;
  TestImage img = make_test_image(mem, 0x100000, *format::find_format("R32G32_UINT"),
                                  layout::Tiling::linear, Dim::d2, 1024, 3, 1, 1);
  TextureUnit unit(mem, {});
  const uint32_t count = 2500;
  for (uint32_t i = 0; i < count; ++i) {
    PbeWrite w;
    w.value = {i * 7, ~i, 0, 0};
    w.x = int32_t(i % 1024);
    w.y = int32_t(i / 1024);
    ASSERT_TRUE(pbe_write(unit, img.pbe, w).ok());
  }
  SamplerView txf;
  txf.wrap = {Wrap::clamp_to_border, Wrap::clamp_to_border, Wrap::clamp_to_border};
  for (uint32_t i : {0u, 1u, 1023u, 1024u, 2047u, 2499u}) {
    FetchCoord at;
    at.x = int32_t(i % 1024);
    at.y = int32_t(i / 1024);
    auto t = unit.load(img.tex, txf, at);
    ASSERT_TRUE(t.ok()) << t.error().message();
    EXPECT_EQ(t->c[0], i * 7);
    EXPECT_EQ(t->c[1], ~i);
    EXPECT_EQ(t->c[3], 1u);  // a missing alpha reads 1
  }
  // Mesa maps out-of-range indices to -1: x = -1 % 1024 lands outside.
  FetchCoord oob;
  oob.x = -1;
  oob.y = 0;
  auto t = unit.load(img.tex, txf, oob);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->c[0], 0u);
}

}  // namespace
}  // namespace agx::gpu::test
