// The fragment half with points, lines, flat varyings and the provoking
// vertex, centroid interpolation under 4x MSAA, ldcf's raw coefficients
// per tile, and layered rendering (primitives binned only to their
// layer's tiles; the end-of-tile program writes the tile's layer).
#include <cmath>

#include "pdm_fixture.h"

namespace agx::gpu::test {
namespace AGX_UNITY_ID {

using Rgba = std::array<uint8_t, 4>;

// iter of cf1..cf4 (plain iter: flat and linear bindings) to the tile.
constexpr const char* kIterColour =
    "iter r0_r1_r2_r3, cf1, center, 0b0, 0, 0, 0, 0, 0\n"
    "st_tile r0_r1_r2_r3, u8norm, 0, xyzw, 0, 255, 0\n";

varyings::Interface colour_iface(varyings::Interp interp) {
  varyings::Interface i;
  i.varyings.push_back({"color", 4, 32, interp});
  return i;
}

// A colour varying whose red is x / 32.
std::vector<float> x_over_32(double x, double) { return {float(x / 32), 0, 0, 1}; }

class PdmPrimitives : public RenderTest {};

TEST_F(PdmPrimitives, PointsLinesAndFlatColoursFromTheProvokingVertex) {
  target_of("R8G8B8A8_UNORM", 32, 32);
  clear_and_store(0, 0, 0, 1);
  const uint32_t s = draw(kIterColour, colour_iface(varyings::Interp::flat));
  const std::vector<float> red{1, 0, 0, 1}, green{0, 1, 0, 1}, blue{0, 0, 1, 1};
  point_or_line(s, PrimitiveKind::point, vertex(8, 8, 0, red), 0, 4.0f);
  point_or_line(s, PrimitiveKind::line, vertex(16, 20, 0, green), vertex(28, 20, 0, green), 2.0f);
  // A triangle whose vertices disagree: the provoking vertex (2) wins.
  triangle(s, vertex(20, 2, 0, red), vertex(30, 2, 0, green), vertex(20, 12, 0, blue));
  scene.primitives.back().provoking = 2;
  auto st = run();
  ASSERT_TRUE(st.ok()) << st.error().message();
  const Rgba kRed{255, 0, 0, 255}, kGreen{0, 255, 0, 255}, kBlue{0, 0, 255, 255}, kBlack{0, 0, 0, 255};
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x) {
      Rgba want = kBlack;
      if (x >= 6 && x < 10 && y >= 6 && y < 10) want = kRed;                        // the point's square
      if (x >= 16 && x < 28 && (y == 19 || y == 20)) want = kGreen;                  // the line's rectangle
      if (x >= 20 && y >= 2 && (x + 0.5 - 20) + (y + 0.5 - 2) < 10) want = kBlue;  // the triangle
      ASSERT_EQ(pixel(x, y), want) << x << "," << y;
    }
}

// 4x MSAA, a varying equal to x / 32: the fully covered pixel 4 iterates at
// its centre, pixel 5 (samples 0 and 2 covered) at sample 0, x = 5 + 6/16.
TEST_F(PdmPrimitives, CentroidIteratesAtTheFirstCoveredSample) {
  target_of("R8G8B8A8_UNORM", 32, 32, 4);
  clear_and_store(0, 0, 0, 1);
  const uint32_t s = draw("iter r0_r1_r2_r3, cf1, centroid, 0b0, 0, 0, 0, 0, 0\n"
                          "st_tile r0_r1_r2_r3, u8norm, 0, xyzw, 0, 255, 0\n",
                          colour_iface(varyings::Interp::linear));
  rect(s, 0, 0, 5.5, 32, 0, true, x_over_32);
  auto st = run();
  ASSERT_TRUE(st.ok()) << st.error().message();
  EXPECT_EQ(pixel(4, 9, 0)[0], uint8_t(std::lround(4.5 / 32 * 255)));
  EXPECT_EQ(pixel(5, 9, 0)[0], uint8_t(std::lround(5.375 / 32 * 255)));
  EXPECT_EQ(pixel(5, 9, 2)[0], uint8_t(std::lround(5.375 / 32 * 255)));
  EXPECT_EQ(pixel(5, 9, 1)[0], 0);  // not covered
}

// ldcf: A, B, C of a linear varying x / 32 are 1/32, 0 and the value at the
// corner of the tile's 32x32 block (0 in the first tile, 1 in the second).
TEST_F(PdmPrimitives, LdcfLoadsTheCoefficientsOfTheTile) {
  target_of("R8G8B8A8_UNORM", 64, 32);
  clear_and_store(0, 0, 0, 1);
  const uint32_t s = draw("ldcf r0_r1_r2, cf1\n"
                          "mov_imm r7, " + std::to_string(f2u(32.0f)) + ", 0b0\n"
                          "fmul32 r0, r0, r7\n"
                          "mov_imm r3, 1065353216, 0b0\n"
                          "st_tile r0_r1_r2_r3, u8norm, 0, xyzw, 0, 255, 0\n",
                          colour_iface(varyings::Interp::linear));
  rect(s, 0, 0, 64, 32, 0, true, x_over_32);
  auto st = run();
  ASSERT_TRUE(st.ok()) << st.error().message();
  EXPECT_EQ(pixel(3, 3), (Rgba{255, 0, 0, 255}));
  EXPECT_EQ(pixel(40, 3), (Rgba{255, 0, 255, 255}));
}

// A fragment shader over W in cf0 and the non-varying sources `entries`
// (separable bindings, as a linked program binds them).
class PdmSources : public RenderTest {
 public:
  uint32_t draw_sources(const std::string& fs, std::span<const varyings::SeparableEntry> entries,
                        cs::ObjectType object) {
    varyings::Interface none;
    auto report = varyings::make_report(none);
    EXPECT_TRUE(report.ok());
    auto b = varyings::separable_bindings(report->slots, none, entries, 0, 0);
    EXPECT_TRUE(b.ok()) << (b.ok() ? "" : b.error().message());
    auto packed = varyings::pack_bindings(*b);
    EXPECT_TRUE(packed.ok());
    PppWords w = open_words();
    w.front_2.object_type = w.back_2.object_type = object;
    set_fragment_shader(w, words(code(fs)), *packed, b->bindings.size());
    DrawState ds;
    ds.ppp = w;
    ds.slots = report->slots;
    ds.output_count = report->layout.output_count;
    scene.states.push_back(ds);
    return uint32_t(scene.states.size() - 1);
  }
};

// gl_PointCoord: an 8-pixel point at (12, 12) covers pixels 8..15; pixel
// (8 + i, 8 + j) has s = (i + 0.5) / 8 and t = (j + 0.5) / 8 with t = 0 at
// the top (Point sprite UV=01), t = 1 - (j + 0.5) / 8 with UV=10.
void check_point_coordinates(PdmSources& f, cs::ObjectType object) {
  f.target_of("R8G8B8A8_UNORM", 32, 32);
  f.clear_and_store(0, 0, 0, 1);
  const varyings::SeparableEntry entries[] = {{-1, varyings::CoefficientSource::kPointCoord, 1, 2}};
  const uint32_t s = f.draw_sources("iter r0_r1, cf1, center, 0b0, 0, 0, 0, 0, 0\n"
                                    "mov_imm r2, 0, 0b0\n"
                                    "mov_imm r3, 1065353216, 0b0\n"
                                    "st_tile r0_r1_r2_r3, u8norm, 0, xyzw, 0, 255, 0\n",
                                    entries, object);
  f.point_or_line(s, PrimitiveKind::point, f.vertex(12, 12, 0), 0, 8.0f);
  auto st = f.run();
  ASSERT_TRUE(st.ok()) << st.error().message();
  auto u8 = [](double v) { return uint8_t(std::lround(v * 255)); };
  for (int j = 0; j < 8; ++j)
    for (int i = 0; i < 8; ++i) {
      const double t = (j + 0.5) / 8;
      const Rgba want{u8((i + 0.5) / 8), u8(object == cs::ObjectType::kPointSpriteUv01 ? t : 1 - t), 0, 255};
      ASSERT_EQ(f.pixel(8 + i, 8 + j), want) << i << "," << j;
    }
  EXPECT_EQ(f.pixel(7, 8), (Rgba{0, 0, 0, 255}));
}

TEST_F(PdmSources, PointCoordinatesFromTheTop) { check_point_coordinates(*this, cs::ObjectType::kPointSpriteUv01); }
TEST_F(PdmSources, PointCoordinatesFromTheBottom) { check_point_coordinates(*this, cs::ObjectType::kPointSpriteUv10); }

// gl_PrimitiveID: ldcf's C holds the ID's bits; three points (IDs 0, 1, 2)
// write red = ID / 255.
TEST_F(PdmSources, PrimitiveIdIsTheFlatC) {
  target_of("R8G8B8A8_UNORM", 32, 32);
  clear_and_store(0, 0, 0, 1);
  const varyings::SeparableEntry entries[] = {{-1, varyings::CoefficientSource::kPrimitiveId, 1, 0}};
  const uint32_t s = draw_sources("ldcf r4_r5_r6, cf1\n"
                                  "convert u32_to_f, r0, r6, rte\n"
                                  "mov_imm r7, " + std::to_string(f2u(1.0f / 255)) + ", 0b0\n"
                                  "fmul32 r0, r0, r7\n"
                                  "mov_imm r1, 0, 0b0\n"
                                  "mov_imm r2, 0, 0b0\n"
                                  "mov_imm r3, 1065353216, 0b0\n"
                                  "st_tile r0_r1_r2_r3, u8norm, 0, xyzw, 0, 255, 0\n",
                                  entries, cs::ObjectType::kPointSpriteUv01);
  for (int k = 0; k < 3; ++k) point_or_line(s, PrimitiveKind::point, vertex(4 + 8 * k, 4, 0), 0, 2.0f);
  auto st = run();
  ASSERT_TRUE(st.ok()) << st.error().message();
  for (int k = 0; k < 3; ++k) EXPECT_EQ(pixel(4 + 8 * k, 4)[0], k) << k;
}

TEST_F(PdmPrimitives, LayersBinTheirOwnPrimitives) {
  target_of("R8G8B8A8_UNORM", 32, 32, 1, 2);
  clear_and_store(0, 0, 0, 1);
  const uint32_t s = draw(colour(0, 1, 0, 1), {});
  triangle(s, vertex(0, 0, 0), vertex(32, 0, 0), vertex(0, 32, 0), true, /*layer=*/1);
  auto st = run();
  ASSERT_TRUE(st.ok()) << st.error().message();
  EXPECT_EQ(last_stats.tiles, 2u);
  EXPECT_EQ(last_stats.primitives_binned, 1u);
  EXPECT_EQ(pixel(2, 2, 0, 0), (Rgba{0, 0, 0, 255}));
  EXPECT_EQ(pixel(2, 2, 0, 1), (Rgba{0, 255, 0, 255}));
  EXPECT_EQ(pixel(30, 30, 0, 1), (Rgba{0, 0, 0, 255}));
}

}  // namespace
}  // namespace agx::gpu::test
