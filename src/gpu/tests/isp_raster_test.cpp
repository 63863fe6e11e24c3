// The ISP's coverage rules (docs/gpu.md, "The ISP"): sample positions from
// ppp_multisamplectl, the top-left fill convention at 1/256 pixel, lines
// as rectangles, points as squares, and the depth plane.
#include <gtest/gtest.h>

#include "gpu/isp/isp.h"

namespace agx::gpu {
namespace AGX_UNITY_ID {

Scene scene_of(const std::vector<std::array<double, 3>>& v) {
  Scene s;
  for (const auto& p : v) s.vertices.push_back({{p[0], p[1], p[2], 1.0}, 0});
  return s;
}

RasterPrimitive setup(const Scene& s, PrimitiveKind kind, std::array<uint32_t, 3> v, float size = 1) {
  ScenePrimitive p;
  p.kind = kind;
  p.vertices = v;
  p.point_size_px = p.line_width_px = size;
  auto r = setup_primitive(s, p);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message());
  return r.ok() ? *r : RasterPrimitive{};
}

TEST(IspSamples, MesaDefaultPositionsDecode) {
  auto one = decode_sample_positions(default_multisamplectl(1), 1);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->at[0], (std::array<float, 2>{0.5f, 0.5f}));
  auto four = decode_sample_positions(default_multisamplectl(4), 4);
  ASSERT_TRUE(four.ok());
  // hk_default_sample_positions: (6,2), (14,6), (2,10), (10,14) sixteenths.
  EXPECT_EQ(four->at[0], (std::array<float, 2>{6 / 16.0f, 2 / 16.0f}));
  EXPECT_EQ(four->at[1], (std::array<float, 2>{14 / 16.0f, 6 / 16.0f}));
  EXPECT_EQ(four->at[2], (std::array<float, 2>{2 / 16.0f, 10 / 16.0f}));
  EXPECT_EQ(four->at[3], (std::array<float, 2>{10 / 16.0f, 14 / 16.0f}));
  auto two = decode_sample_positions(default_multisamplectl(2), 2);
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two->at[0], (std::array<float, 2>{12 / 16.0f, 12 / 16.0f}));
  EXPECT_EQ(two->at[1], (std::array<float, 2>{4 / 16.0f, 4 / 16.0f}));
  auto bad = decode_sample_positions(0x88, 8);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("8 samples"), std::string::npos);
}

// Two triangles sharing a diagonal and the edges of a square through pixel
// centres: every centre of the square is covered exactly once, and only
// the centres on its top and left sides are in.
TEST(IspRaster, TopLeftRuleCoversSharedEdgesOnce) {
  const Scene s = scene_of({{0.5, 0.5, 0}, {8.5, 0.5, 0}, {0.5, 8.5, 0}, {8.5, 8.5, 0}});
  const RasterPrimitive a = setup(s, PrimitiveKind::triangle, {0, 1, 2});
  const RasterPrimitive b = setup(s, PrimitiveKind::triangle, {1, 3, 2});
  auto pos = decode_sample_positions(0x88, 1);
  ASSERT_TRUE(pos.ok());
  for (int y = -1; y < 10; ++y)
    for (int x = -1; x < 10; ++x) {
      const unsigned n = coverage(a, x, y, *pos) + coverage(b, x, y, *pos);
      const bool inside = x >= 0 && x < 8 && y >= 0 && y < 8;  // centres (0.5..7.5): top/left sides in
      EXPECT_EQ(n, inside ? 1u : 0u) << x << "," << y;
    }
  // Either winding covers the same samples.
  const RasterPrimitive ccw = setup(s, PrimitiveKind::triangle, {0, 2, 1});
  for (int y = 0; y < 9; ++y)
    for (int x = 0; x < 9; ++x) EXPECT_EQ(coverage(ccw, x, y, *pos), coverage(a, x, y, *pos)) << x << "," << y;
}

TEST(IspRaster, SubpixelPrecisionIsAFixedGrid) {
  // Vertices 1/1024 px right of a column of centres snap onto it (1/256
  // grid): the right edge through them then excludes those centres, which
  // the unsnapped edge would include.
  const double eps = 1.0 / 1024;
  const Scene s = scene_of({{0, 0, 0}, {2.5 + eps, 0, 0}, {2.5 + eps, 4, 0}, {0, 4, 0}});
  const RasterPrimitive t = setup(s, PrimitiveKind::triangle, {0, 1, 2});
  auto pos = decode_sample_positions(0x88, 1);
  ASSERT_TRUE(pos.ok());
  EXPECT_EQ(coverage(t, 2, 3, *pos), 0u);  // (2.5, 3.5) on the snapped right edge: out
  EXPECT_EQ(coverage(t, 1, 0, *pos), 1u);
  EXPECT_EQ(kSubpixelBits, 8u);
}

TEST(IspRaster, FourSampleCoverageFollowsThePositions) {
  // The vertical edge x = 5.5 through pixel 5: samples at x 6/16 and 2/16
  // are left of it, 14/16 and 10/16 right.
  const Scene s = scene_of({{0, 0, 0}, {5.5, 0, 0}, {5.5, 16, 0}, {0, 16, 0}});
  const RasterPrimitive t = setup(s, PrimitiveKind::triangle, {0, 1, 2});
  auto pos = decode_sample_positions(default_multisamplectl(4), 4);
  ASSERT_TRUE(pos.ok());
  // Pixel (5, 1): x + 6/16, 14/16, 2/16, 10/16; the triangle is x <= 5.5
  // and y <= x * 16 / 5.5 there (all of pixel 5's samples at row 1 under it).
  EXPECT_EQ(coverage(t, 5, 1, *pos), 0b0101u);
  EXPECT_EQ(coverage(t, 4, 1, *pos), 0b1111u);
  EXPECT_EQ(coverage(t, 6, 1, *pos), 0u);
}

TEST(IspRaster, DepthPlaneThroughTheVertices) {
  const Scene s = scene_of({{0, 0, 0.0}, {10, 0, 0.5}, {0, 10, 1.0}});
  const RasterPrimitive t = setup(s, PrimitiveKind::triangle, {0, 1, 2});
  EXPECT_DOUBLE_EQ(depth_at(t, 2, 4), 0.05 * 2 + 0.1 * 4);
  EXPECT_DOUBLE_EQ(max_depth_slope(t), 0.1);
}

TEST(IspRaster, PointsAreHalfOpenSquares) {
  const Scene s = scene_of({{4.0, 4.0, 0.25}});
  const RasterPrimitive p = setup(s, PrimitiveKind::point, {0, 0, 0}, 2.0f);
  auto pos = decode_sample_positions(0x88, 1);
  ASSERT_TRUE(pos.ok());
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 8; ++x)
      EXPECT_EQ(coverage(p, x, y, *pos), (x == 3 || x == 4) && (y == 3 || y == 4) ? 1u : 0u) << x << "," << y;
  EXPECT_EQ(depth_at(p, 3.5, 4.5), 0.25);
}

TEST(IspRaster, LinesAreRectanglesAlongTheSegment) {
  const Scene s = scene_of({{1.0, 4.0, 0.0}, {9.0, 4.0, 1.0}});
  const RasterPrimitive l = setup(s, PrimitiveKind::line, {0, 1, 0}, 1.0f);
  auto pos = decode_sample_positions(0x88, 1);
  ASSERT_TRUE(pos.ok());
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 12; ++x) {
      // Centres with 1 <= x + 0.5 < 9 and -0.5 <= y + 0.5 - 4 < 0.5: row 3
      // is at -0.5 (in), row 4 at +0.5 (out).
      const bool in = x >= 1 && x <= 8 && y == 3;
      EXPECT_EQ(coverage(l, x, y, *pos), in ? 1u : 0u) << x << "," << y;
    }
  EXPECT_DOUBLE_EQ(depth_at(l, 5.0, 3.5), 0.5);
}

TEST(IspRaster, DegenerateAndBadPrimitives) {
  const Scene s = scene_of({{1, 1, 0}, {5, 5, 0}, {9, 9, 0}});
  const RasterPrimitive t = setup(s, PrimitiveKind::triangle, {0, 1, 2});
  EXPECT_TRUE(t.degenerate);
  ScenePrimitive p;
  p.vertices = {0, 1, 7};
  auto r = setup_primitive(s, p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("vertex 7 of 3"), std::string::npos) << r.error().message();
}

}  // namespace
}  // namespace agx::gpu
