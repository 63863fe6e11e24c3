// Binning: each primitive is put once into the tiles its bounding box
// touches; a tile shades only its own list, in submission order. Many
// small triangles of two colours over a 100x70 target (4x3 tiles of
// 32x32): FragmentStats::primitives_binned must be the sum of the tiles
// each touches, and every pixel the colour of the last triangle (in
// submission order) whose centre test passes there.
#include "pdm_fixture.h"

namespace agx::gpu::test {
namespace AGX_UNITY_ID {

constexpr const char* kRed =
    "mov_imm r0, 1065353216, 0b0\nmov_imm r1, 0, 0b0\nmov_imm r2, 0, 0b0\nmov_imm r3, 1065353216, 0b0\n"
    "st_tile r0_r1_r2_r3, u8norm, 0, xyzw, 0, 255, 0\n";
constexpr const char* kBlue =
    "mov_imm r0, 0, 0b0\nmov_imm r1, 0, 0b0\nmov_imm r2, 1065353216, 0b0\nmov_imm r3, 1065353216, 0b0\n"
    "st_tile r0_r1_r2_r3, u8norm, 0, xyzw, 0, 255, 0\n";

struct Tri {
  double x[3], y[3];
  bool red;
};

// Tiles of 32 pixels touched along one axis by [lo, hi], of the tiles
// covering [0, size) (the last one may reach past the target).
uint32_t tiles_along(double lo, double hi, int size) {
  const int tiles = (size + 31) / 32;
  if (hi < 0 || lo >= tiles * 32) return 0;
  const int a = std::max(0, int(std::floor(lo)) / 32), b = std::min(tiles - 1, int(std::floor(hi)) / 32);
  return uint32_t(b - a + 1);
}

// Whether v is at least 2 pixels from every tile edge (so the bounding
// box's rounding cannot move it into another tile) and from the target's
// edge `size`.
bool clear_of_edges(double v, int size) {
  const double m = std::fmod(v + 320.0, 32.0);
  return m > 2 && m < 30 && std::abs(v - size) > 2;
}

class PdmBinning : public RenderTest {};

TEST_F(PdmBinning, ManySmallTrianglesAreBinnedOncePerTileTheyTouch) {
  constexpr int kW = 100, kH = 70;
  target_of("R8G8B8A8_UNORM", kW, kH);
  clear_and_store(0, 0, 0, 1);
  const uint32_t red = draw(kRed, {}), blue = draw(kBlue, {});
  uint32_t seed = 12345;
  auto next = [&](int n) {
    seed = seed * 1103515245u + 12345u;
    return int((seed >> 8) % uint32_t(n));
  };
  std::vector<Tri> tris;
  uint64_t want_binned = 0;
  while (tris.size() < 300) {
    // Vertices on 1/8 pixel (exact in the rasterizer's 1/256 fixed point).
    const double x0 = next(kW + 20) - 10 + 0.375, y0 = next(kH + 20) - 10 + 0.125;
    const double s = 2 + next(12);
    Tri t{{x0, x0 + s + 0.25, x0 + 0.5}, {y0, y0 + 1.25, y0 + s}, next(2) == 0};
    const double lx = x0, hx = x0 + s + 0.25, ly = y0, hy = y0 + s;
    if (!clear_of_edges(lx, kW) || !clear_of_edges(hx, kW) || !clear_of_edges(ly, kH) || !clear_of_edges(hy, kH))
      continue;
    want_binned += uint64_t(tiles_along(lx, hx, kW)) * tiles_along(ly, hy, kH);
    triangle(t.red ? red : blue, vertex(t.x[0], t.y[0], 0.5), vertex(t.x[1], t.y[1], 0.5),
             vertex(t.x[2], t.y[2], 0.5));
    tris.push_back(t);
  }
  ASSERT_GT(want_binned, tris.size());  // some cross tile edges
  for (unsigned threads : {1u, 2u}) {
    FragmentOptions o;
    o.threads = threads;
    auto st = run(o);
    ASSERT_TRUE(st.ok()) << st.error().message();
    EXPECT_EQ(last_stats.tiles, 12u);
    EXPECT_EQ(last_stats.primitives_binned, want_binned) << threads << " threads";
    int drawn = 0;
    for (int y = 0; y < kH; ++y)
      for (int x = 0; x < kW; ++x) {
        std::array<uint8_t, 4> want{0, 0, 0, 255};
        for (const Tri& t : tris)
          if (centre_inside(t.x[0], t.y[0], t.x[1], t.y[1], t.x[2], t.y[2], x, y))
            want = t.red ? std::array<uint8_t, 4>{255, 0, 0, 255} : std::array<uint8_t, 4>{0, 0, 255, 255};
        drawn += want[3] == 255 && (want[0] | want[2]);
        ASSERT_EQ(pixel(x, y), want) << x << "," << y << " with " << threads << " threads";
      }
    EXPECT_GT(drawn, 1000);
  }
}

// A triangle on a layer the command does not render (layer 1 of 1) and
// one wholly outside the target are binned nowhere.
TEST_F(PdmBinning, PrimitivesOutsideTheTargetOrItsLayersAreNotBinned) {
  target_of("R8G8B8A8_UNORM", 64, 64);
  clear_and_store(0, 0, 0, 1);
  const uint32_t red = draw(kRed, {});
  triangle(red, vertex(1, 1, 0.5), vertex(20, 1, 0.5), vertex(1, 20, 0.5), true, 1);
  triangle(red, vertex(70, 70, 0.5), vertex(90, 70, 0.5), vertex(70, 90, 0.5));
  triangle(red, vertex(-40, 10, 0.5), vertex(-5, 10, 0.5), vertex(-20, 30, 0.5));
  triangle(red, vertex(10, 10, 0.5), vertex(50, 10, 0.5), vertex(10, 50, 0.5));  // its box: all 4 tiles
  auto st = run();
  ASSERT_TRUE(st.ok()) << st.error().message();
  EXPECT_EQ(last_stats.primitives_binned, 4u);
  EXPECT_EQ(pixel(2, 2), (std::array<uint8_t, 4>{0, 0, 0, 255}));
  EXPECT_EQ(pixel(12, 12), (std::array<uint8_t, 4>{255, 0, 0, 255}));
}

}  // namespace
}  // namespace agx::gpu::test
