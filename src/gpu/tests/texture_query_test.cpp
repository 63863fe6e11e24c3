// query_lod (texture_sample mode 2), gather_depth (q6 = 3) and the cube
// derivative transformation, with values worked out by hand from the
// Vulkan "LOD Operation" / "Cube Map Derivative Transformation" formulas
// and GL 4.6's textureQueryLod definition; then both through the USC hook.
#include <gtest/gtest.h>

#include <memory>

#include "gpu/texture/texture.h"
#include "texture_helpers.h"

namespace agx::gpu::test {
namespace AGX_UNITY_ID {

struct Image {
  usc::RegionMemory mem;
  TestImage img;
  std::unique_ptr<TextureUnit> unit;
  Image(const char* format, Dim dim, uint32_t w, uint32_t h, uint32_t depth, uint32_t levels) {
    img = make_test_image(mem, 0x100000, *format::find_format(format), layout::Tiling::twiddled,
                          dim, w, h, depth, levels);
    unit = std::make_unique<TextureUnit>(mem, TextureState{});
  }
  void put(uint32_t x, uint32_t y, float v, uint32_t layer = 0, uint32_t level = 0) {
    PbeWrite w;
    w.value = {f2u(v), 0, 0, f2u(1.0f)};
    w.x = int32_t(x);
    w.y = int32_t(y);
    w.layer = layer;
    img.pbe.level = level;
    ASSERT_TRUE(pbe_write(*unit, img.pbe, w).ok());
  }
  LodQuery query(const SamplerView& s, const SampleRequest& rq) {
    auto q = unit->query_lod(img.tex, s, rq);
    EXPECT_TRUE(q.ok()) << (q.ok() ? "" : q.error().message());
    return q.ok() ? *q : LodQuery{};
  }
};

SampleRequest gradients(std::array<float, 3> ddx, std::array<float, 3> ddy) {
  SampleRequest rq;
  rq.coord = {0.3f, 0.3f, 0.0f};
  rq.explicit_lod = false;
  rq.ddx = ddx;
  rq.ddy = ddy;
  return rq;
}

TEST(TextureQueryLod, LevelAndLodFromGradients) {
  Image f("R32_FLOAT", Dim::d2, 16, 16, 1, 5);
  SamplerView s;
  s.mip = MipFilter::linear;
  // rho = max(|ddx| * 16, |ddy| * 16) = 16 * 0.1875 = 3: lambda = log2 3.
  SampleRequest rq = gradients({0.1875f, 0, 0}, {0, 0.0625f, 0});
  LodQuery q = f.query(s, rq);
  EXPECT_FLOAT_EQ(q.lambda, std::log2(3.0f));
  EXPECT_FLOAT_EQ(q.level, std::log2(3.0f));
  // Nearest mip filtering reports the level chosen: d' = 1.585 -> ceil(2.085) - 1 = 2.
  s.mip = MipFilter::nearest;
  EXPECT_FLOAT_EQ(f.query(s, rq).level, 2.0f);
  // No mipmapping: the base level.
  s.mip = MipFilter::none;
  EXPECT_FLOAT_EQ(f.query(s, rq).level, 0.0f);
  // The sampler's min / max LOD clamp the level, not the computed LOD.
  s.mip = MipFilter::linear;
  s.max_lod = 1.0f;
  q = f.query(s, rq);
  EXPECT_FLOAT_EQ(q.level, 1.0f);
  EXPECT_FLOAT_EQ(q.lambda, std::log2(3.0f));
  s.max_lod = 1000.0f;
  s.min_lod = 2.5f;
  EXPECT_FLOAT_EQ(f.query(s, rq).level, 2.5f);
  s.min_lod = 0.0f;
  // Magnification: a negative LOD, level 0; past the last level, q = 4.
  rq = gradients({0.25f / 16, 0, 0}, {0, 0.25f / 16, 0});
  q = f.query(s, rq);
  EXPECT_FLOAT_EQ(q.lambda, -2.0f);
  EXPECT_FLOAT_EQ(q.level, 0.0f);
  rq = gradients({64.0f / 16, 0, 0}, {0, 0, 0});
  q = f.query(s, rq);
  EXPECT_FLOAT_EQ(q.lambda, 6.0f);
  EXPECT_FLOAT_EQ(q.level, 4.0f);
  // A bias adds to both; the view's first level is the base.
  rq = gradients({0.125f, 0, 0}, {0, 0.125f, 0});  // rho 2: lambda 1
  rq.bias = 0.5f;
  EXPECT_FLOAT_EQ(f.query(s, rq).lambda, 1.5f);
  f.img.tex.first_level = 1;  // base 8x8: rho 1, lambda 0 + 0.5
  q = f.query(s, rq);
  EXPECT_FLOAT_EQ(q.lambda, 0.5f);
  EXPECT_FLOAT_EQ(q.level, 0.5f);
}

TEST(TextureQueryLod, CubeDerivativesAreFaceDerivatives) {
  // Vulkan: s_face = 1/2 (sc / |ma| + 1). At direction (1, 0, 0) (+X:
  // sc = -z, tc = -y, ma = x), a step of dz = -0.25 moves sc by 0.25, so
  // ds = 0.125: 16 px faces give rho = 2, lambda = 1.
  Image f("R32_FLOAT", Dim::cube, 16, 16, 1, 5);
  SamplerView s;
  s.mip = MipFilter::linear;
  SampleRequest rq;
  rq.coord = {1, 0, 0};
  rq.explicit_lod = false;
  rq.ddx = {0, 0, -0.25f};
  rq.ddy = {0, 0.25f, 0};
  EXPECT_FLOAT_EQ(f.query(s, rq).lambda, 1.0f);
  // Moving along the major axis alone does not change s at the face
  // centre (sc = 0): only the other derivative counts.
  rq.ddx = {0.5f, 0, 0};
  rq.ddy = {0, 0.125f, 0};  // dt = 1/16: rho 1
  EXPECT_FLOAT_EQ(f.query(s, rq).lambda, 0.0f);
  // Off centre: at (2, -1, 0) on +X, sc = 0, tc = 1, ma = 2; dma = 2 gives
  // dt = 1/2 (0 * 2 - 1 * 2) / 4 = -1/4: rho 4, lambda 2.
  rq.coord = {2, -1, 0};
  rq.ddx = {2, 0, 0};
  rq.ddy = {0, 0, 0};
  EXPECT_FLOAT_EQ(f.query(s, rq).lambda, 2.0f);
}

TEST(TextureGatherDepth, GathersTheComparedDepthUnswizzled) {
  Image f("Z32_FLOAT", Dim::d2, 4, 4, 1, 1);
  for (uint32_t y = 0; y < 4; ++y)
    for (uint32_t x = 0; x < 4; ++x) f.put(x, y, 0.1f * float(x + 4 * y) / 2);
  SamplerView s;
  SampleRequest rq;
  rq.coord = {1.75f / 4, 2.25f / 4, 0};  // i0 = 1, j0 = 1
  rq.gather = 0;
  rq.gather_depth = true;
  // A swizzle that does not name R: gather_depth still reads the depth.
  f.img.tex.swizzle = {Swizzle::zero, Swizzle::zero, Swizzle::zero, Swizzle::one};
  auto t = f.unit->sample(f.img.tex, s, rq);
  ASSERT_TRUE(t.ok()) << t.error().message();
  auto depth = [](int x, int y) { return 0.1f * float(x + 4 * y) / 2; };
  const int want[4][2] = {{1, 2}, {2, 2}, {2, 1}, {1, 1}};  // (i0,j1) (i1,j1) (i1,j0) (i0,j0)
  for (int k = 0; k < 4; ++k) EXPECT_FLOAT_EQ(u2f(t->c[k]), depth(want[k][0], want[k][1])) << k;
  // With comparison (ref 0.4, less: passes when ref < texel): depths
  // 0.45, 0.5, 0.3, 0.25 -> 1, 1, 0, 0.
  rq.compare = true;
  rq.reference = 0.4f;
  s.compare_func = CompareFunc::less;
  t = f.unit->sample(f.img.tex, s, rq);
  ASSERT_TRUE(t.ok()) << t.error().message();
  const float cmp[4] = {1.0f, 1.0f, 0.0f, 0.0f};
  for (int k = 0; k < 4; ++k) EXPECT_EQ(u2f(t->c[k]), cmp[k]) << k;
}

}  // namespace
}  // namespace agx::gpu::test
