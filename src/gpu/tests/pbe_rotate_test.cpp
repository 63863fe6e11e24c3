// "Rotate 90" of the PBE descriptor (our choice, docs/texture.md): the image
// written is the source turned 90 degrees clockwise; source pixel (x, y) of a
// source height wide and width high lands at (width - 1 - y, x). Read back
// through texture_load with a Texture view that has no rotation, at
// positions worked out by hand.
#include <gtest/gtest.h>

#include <algorithm>

#include "texture_helpers.h"

namespace agx::gpu::test {
namespace AGX_UNITY_ID {

uint32_t load_r(TextureUnit& unit, const TestImage& img, int32_t x, int32_t y) {
  FetchCoord at;
  at.x = x;
  at.y = y;
  auto t = unit.load(img.tex, SamplerView{}, at);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message());
  return t.ok() ? t->c[0] : 0xdeadu;
}

Status write_r(TextureUnit& unit, const PbeView& pbe, int32_t x, int32_t y, uint32_t v) {
  PbeWrite wr;
  wr.value = {v, 0, 0, 0};
  wr.x = x;
  wr.y = y;
  return pbe_write(unit, pbe, wr);
}

class PbeRotate : public ::testing::TestWithParam<layout::Tiling> {};

// A 5x3 image (width 5, height 3): the source is 3 wide and 5 high.
TEST_P(PbeRotate, EverySourcePixelLandsTurnedClockwise) {
  usc::RegionMemory mem;
  TestImage img = make_test_image(mem, 0x10000, *format::find_format("R32_UINT"), GetParam(),
                                  Dim::d2, 5, 3, 1, 1);
  img.pbe.rotate_90 = true;
  TextureUnit unit(mem, {});
  for (int32_t y = 0; y < 5; ++y)
    for (int32_t x = 0; x < 3; ++x) ASSERT_TRUE(write_r(unit, img.pbe, x, y, 100 + x + 10 * y).ok());
  // Corners by hand: the source's top-left (0,0) goes to the top-right,
  // its top-right (2,0) to the bottom-right, its bottom-left (0,4) to the
  // top-left, its bottom-right (2,4) to the bottom-left.
  EXPECT_EQ(load_r(unit, img, 4, 0), 100u);
  EXPECT_EQ(load_r(unit, img, 4, 2), 102u);
  EXPECT_EQ(load_r(unit, img, 0, 0), 140u);
  EXPECT_EQ(load_r(unit, img, 0, 2), 142u);
  EXPECT_EQ(load_r(unit, img, 3, 1), 111u);  // source (1, 1)
  EXPECT_EQ(load_r(unit, img, 1, 0), 130u);  // source (0, 3)
  // Every pixel: destination (X, Y) holds source (Y, 4 - X).
  for (int32_t Y = 0; Y < 3; ++Y)
    for (int32_t X = 0; X < 5; ++X)
      EXPECT_EQ(load_r(unit, img, X, Y), uint32_t(100 + Y + 10 * (4 - X))) << X << "," << Y;
}

// Bounds are the source's: x < height, y < width. A write outside them is
// dropped as an out-of-range write without rotation is; one inside them
// lands even where (x, y) itself is outside the image.
TEST_P(PbeRotate, BoundsAreTheTurnedSourcesAndOutsideWritesAreDropped) {
  usc::RegionMemory mem;
  TestImage img = make_test_image(mem, 0x10000, *format::find_format("R32_UINT"), GetParam(),
                                  Dim::d2, 5, 3, 1, 1);
  img.pbe.rotate_90 = true;
  TextureUnit unit(mem, {});
  const std::vector<uint8_t> before(region(mem, 0x10000), region(mem, 0x10000) + img.layout.size_B);
  for (auto [x, y] : {std::pair{3, 0}, {4, 1}, {0, 5}, {-1, 0}, {0, -1}, {2, 7}})
    ASSERT_TRUE(write_r(unit, img.pbe, x, y, 9).ok());
  EXPECT_TRUE(std::equal(before.begin(), before.end(), region(mem, 0x10000)));
  // (1, 4): y = 4 is past the image's height 3 but inside the source.
  ASSERT_TRUE(write_r(unit, img.pbe, 1, 4, 55).ok());
  EXPECT_EQ(load_r(unit, img, 0, 1), 55u);
}

// Flip vertical applies first, in the source: with both, (x, y) lands at
// (y, x).
TEST_P(PbeRotate, FlipThenRotateTransposes) {
  usc::RegionMemory mem;
  TestImage img = make_test_image(mem, 0x10000, *format::find_format("R32_UINT"), GetParam(),
                                  Dim::d2, 5, 3, 1, 1);
  img.pbe.rotate_90 = true;
  img.pbe.flip_vertical = true;
  TextureUnit unit(mem, {});
  ASSERT_TRUE(write_r(unit, img.pbe, 1, 0, 7).ok());
  ASSERT_TRUE(write_r(unit, img.pbe, 2, 4, 8).ok());
  EXPECT_EQ(load_r(unit, img, 0, 1), 7u);
  EXPECT_EQ(load_r(unit, img, 4, 2), 8u);
}

INSTANTIATE_TEST_SUITE_P(Layouts, PbeRotate,
                         ::testing::Values(layout::Tiling::linear, layout::Tiling::twiddled,
                                           layout::Tiling::gpu));

// The one function, directly: a 4 wide, 2 high level.
TEST(PbeDestination, ClockwiseWithTheDescriptorsSizeAsTheImages) {
  PbeView p;
  p.rotate_90 = true;
  EXPECT_EQ(pbe_destination(p, 4, 2, 0, 0), (std::array<uint32_t, 2>{3, 0}));
  EXPECT_EQ(pbe_destination(p, 4, 2, 1, 0), (std::array<uint32_t, 2>{3, 1}));
  EXPECT_EQ(pbe_destination(p, 4, 2, 0, 3), (std::array<uint32_t, 2>{0, 0}));
  EXPECT_EQ(pbe_destination(p, 4, 2, 2, 0), std::nullopt);
  EXPECT_EQ(pbe_destination(p, 4, 2, 0, 4), std::nullopt);
  p.rotate_90 = false;
  EXPECT_EQ(pbe_destination(p, 4, 2, 3, 1), (std::array<uint32_t, 2>{3, 1}));
  EXPECT_EQ(pbe_destination(p, 4, 2, 0, 3), std::nullopt);
  p.flip_vertical = true;
  EXPECT_EQ(pbe_destination(p, 4, 2, 3, 0), (std::array<uint32_t, 2>{3, 1}));
}

}  // namespace
}  // namespace agx::gpu::test
