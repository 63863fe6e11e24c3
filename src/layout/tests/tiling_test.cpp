// Tile/detile against a plain per-element reference (the cases of Mesa
// src/asahi/layout/tests/test-twiddling.cpp, listed in layout-facts.md §13,
// plus mip levels, twiddled levels and MSAA element sizes).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "layout/layout.h"

namespace agx::layout {
namespace AGX_UNITY_ID {

using format::Format;

// Reference address: tile row/column, then x and y bits interleaved one at a
// time (x first), the longer axis's leftover bits on top.
uint64_t reference_offset_B(const Layout& l, uint32_t level, uint32_t layer, uint32_t x,
                            uint32_t y) {
  const Tile t = l.tile_el[level];
  const uint64_t tiles_per_row = (l.stride_el[level] + t.width_el - 1) / t.width_el;
  const uint64_t tile = (y / t.height_el) * tiles_per_row + x / t.width_el;
  uint32_t tx = x % t.width_el, ty = y % t.height_el;
  uint64_t inside = 0;
  unsigned bit = 0;
  for (uint32_t w = t.width_el, h = t.height_el; w > 1 || h > 1; w >>= 1, h >>= 1) {
    if (w > 1) inside |= uint64_t{tx & 1} << bit++, tx >>= 1;
    if (h > 1) inside |= uint64_t{ty & 1} << bit++, ty >>= 1;
  }
  const uint64_t E = l.bytes_per_element_B;
  return layer * l.layer_stride_B + l.level_offsets_B[level] +
         (tile * t.width_el * t.height_el + inside) * E;
}

std::vector<uint8_t> random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

// Runs both directions over `rect` and compares with the reference.
void check(const Layout& l, uint32_t level, uint32_t layer, Rect rect, uint64_t pitch_B) {
  const auto& f = l.format();
  const uint32_t E = l.bytes_per_element_B;
  const uint32_t x0 = rect.x_px / f.block_width_px, y0 = rect.y_px / f.block_height_px;
  const uint32_t w = (rect.x_px + rect.width_px + f.block_width_px - 1) / f.block_width_px - x0;
  const uint32_t h = (rect.y_px + rect.height_px + f.block_height_px - 1) / f.block_height_px - y0;
  SCOPED_TRACE(testing::Message() << f.name << " " << l.request.width_px << "x"
                                  << l.request.height_px << " level " << level << " rect "
                                  << rect.width_px << "x" << rect.height_px << "@" << rect.x_px
                                  << "," << rect.y_px << " pitch " << pitch_B);
  const size_t linear_B = (h - 1) * pitch_B + uint64_t{w} * E;
  // Store: linear -> tiled; untouched bytes stay as they were.
  auto linear = random_bytes(linear_B, 1);
  auto image = random_bytes(l.size_B, 2);
  auto expected = image;
  for (uint32_t j = 0; j < h; ++j)
    for (uint32_t i = 0; i < w; ++i)
      std::memcpy(&expected[reference_offset_B(l, level, layer, x0 + i, y0 + j)],
                  &linear[j * pitch_B + uint64_t{i} * E], E);
  ASSERT_TRUE(tile(l, level, layer, image, linear, pitch_B, rect).ok());
  ASSERT_TRUE(image == expected) << "tile differs from the reference";
  // Load: tiled -> linear; padding between rows stays as it was.
  auto out = random_bytes(linear_B, 3);
  auto want = out;
  for (uint32_t j = 0; j < h; ++j)
    for (uint32_t i = 0; i < w; ++i)
      std::memcpy(&want[j * pitch_B + uint64_t{i} * E],
                  &image[reference_offset_B(l, level, layer, x0 + i, y0 + j)], E);
  ASSERT_TRUE(detile(l, level, layer, image, out, pitch_B, rect).ok());
  ASSERT_TRUE(out == want) << "detile differs from the reference";
}

Layout make(Format f, uint32_t w, uint32_t h, uint32_t levels = 1, Tiling t = Tiling::gpu,
            uint32_t samples = 1, uint32_t depth = 1) {
  auto l = make_layout({.format = f,
                        .width_px = w,
                        .height_px = h,
                        .depth_px = depth,
                        .levels = levels,
                        .sample_count_sa = samples,
                        .tiling = t});
  EXPECT_TRUE(l.ok()) << l.error().message();
  return *l;
}

void check_whole(const Layout& l, uint32_t level = 0) {
  Rect r = level_rect(l, level);
  const auto& f = l.format();
  uint64_t row = (r.width_px + f.block_width_px - 1) / f.block_width_px * l.bytes_per_element_B;
  check(l, level, 0, r, row);
}

constexpr Format kBySize[] = {Format::R8_UINT, Format::R16_UINT, Format::R32_UINT,
                              Format::R32G32_UINT, Format::R32G32B32A32_UINT};

TEST(Tiling, WholeImages) {
  for (int i = 0; i < 3; ++i) check_whole(make(kBySize[i], 233, 173));
  check_whole(make(kBySize[3], 173, 143));
  check_whole(make(kBySize[4], 133, 143));
}

TEST(Tiling, LoosePitch) {
  for (Format f : kBySize) {
    Layout l = make(f, 213, 17);
    check(l, 0, 0, level_rect(l, 0), 369ull * l.bytes_per_element_B);
  }
}

TEST(Tiling, PartialRectangle) {
  for (Format f : kBySize) {
    Layout l = make(f, 283, 171);
    check(l, 0, 0, Rect{3, 1, 131, 7}, 369ull * l.bytes_per_element_B);
    check(l, 0, 0, Rect{64, 60, 130, 70}, 369ull * l.bytes_per_element_B);
  }
}

TEST(Tiling, EtcAndDxtBlocks) {
  for (Format f : {Format::ETC1_RGB8, Format::ETC2_RGB8A1, Format::ETC2_RG11_SNORM,
                   Format::DXT1_RGB, Format::DXT3_RGBA, Format::DXT5_RGBA}) {
    for (uint32_t h : {32u, 256u, 512u}) {
      Layout l = make(f, 32, h);
      check(l, 0, 0, level_rect(l, 0), 512);
      check(l, 0, 0, Rect{4, 8, 16, 12}, 512);
    }
  }
}

TEST(Tiling, AstcBlocks) {
  struct Case {
    Format f;
    uint32_t w, h;
    Rect sub;
  };
  for (Case c : {Case{Format::ASTC_4x4, 40, 40, Rect{4, 8, 16, 12}},
                 Case{Format::ASTC_5x4, 50, 40, Rect{5, 4, 20, 16}},
                 Case{Format::ASTC_5x5, 50, 50, Rect{10, 5, 25, 40}}}) {
    Layout l = make(c.f, c.w, c.h);
    check(l, 0, 0, level_rect(l, 0), 512);
    check(l, 0, 0, c.sub, 512);
  }
}

TEST(Tiling, EveryLevelOfMipChains) {
  for (Format f : {Format::R8_UNORM, Format::R8G8B8A8_UNORM, Format::R32G32B32A32_FLOAT,
                   Format::ETC2_RGB8, Format::ASTC_6x6}) {
    for (Tiling t : {Tiling::gpu, Tiling::twiddled}) {
      Layout l = make(f, 300, 197, 9, t);
      for (uint32_t level = 0; level < l.levels; ++level) check_whole(l, level);
    }
  }
}

TEST(Tiling, MsaaElementsAndLayers) {
  Layout l = make(Format::R32G32B32A32_FLOAT, 37, 45, 1, Tiling::gpu, 4, 3);  // 64 B elements
  check(l, 0, 2, level_rect(l, 0), 37 * 64);
  Layout m = make(Format::R16G16B16A16_FLOAT, 70, 33, 1, Tiling::gpu, 4);  // 32 B elements
  check(m, 0, 0, Rect{5, 3, 60, 29}, 70 * 32);
}

TEST(Tiling, LinearLayoutCopiesRows) {
  auto l = make_layout(
      {.format = Format::R16_UINT, .width_px = 50, .height_px = 9, .tiling = Tiling::linear});
  ASSERT_TRUE(l.ok());
  auto src = random_bytes(100 * 9, 4);
  std::vector<uint8_t> image(l->size_B), back(100 * 9);
  ASSERT_TRUE(tile(*l, 0, 0, image, src, 100, level_rect(*l, 0)).ok());
  EXPECT_EQ(0, std::memcmp(&image[3 * l->linear_stride_B], &src[300], 100));
  ASSERT_TRUE(detile(*l, 0, 0, image, back, 100, level_rect(*l, 0)).ok());
  EXPECT_EQ(src, back);
}

TEST(Tiling, BadRequestsAreErrors) {
  Layout l = make(Format::R8G8B8A8_UNORM, 64, 64, 7);
  std::vector<uint8_t> image(l.size_B), lin(64 * 64 * 4);
  EXPECT_FALSE(tile(l, 7, 0, image, lin, 256, Rect{0, 0, 1, 1}).ok());
  EXPECT_FALSE(tile(l, 0, 1, image, lin, 256, Rect{0, 0, 1, 1}).ok());
  EXPECT_FALSE(tile(l, 0, 0, image, lin, 256, Rect{60, 0, 8, 1}).ok());
  EXPECT_FALSE(tile(l, 0, 0, image, lin, 100, Rect{0, 0, 64, 1}).ok());
  EXPECT_FALSE(tile(l, 0, 0, image, lin, 256, Rect{0, 0, 0, 4}).ok());
  EXPECT_FALSE(
      detile(l, 0, 0, std::span<const uint8_t>(image).first(100), lin, 256, Rect{0, 0, 64, 64})
          .ok());
  EXPECT_FALSE(
      detile(l, 0, 0, image, std::span<uint8_t>(lin).first(1000), 256, Rect{0, 0, 64, 64}).ok());
  Layout etc = make(Format::ETC2_RGB8, 32, 32);
  std::vector<uint8_t> etc_image(etc.size_B);
  EXPECT_FALSE(tile(etc, 0, 0, etc_image, lin, 512, Rect{2, 0, 8, 8}).ok());
  auto comp = make_layout({.format = Format::R8G8B8A8_UNORM,
                           .width_px = 64,
                           .height_px = 64,
                           .levels = 7,
                           .compressed = true});
  ASSERT_TRUE(comp.ok());
  std::vector<uint8_t> comp_image(comp->size_B);
  auto st = tile(*comp, 0, 0, comp_image, lin, 256, Rect{0, 0, 64, 64});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message().find("compressed"), std::string::npos);
  // Levels below 16 samples are plain tiled data and may be tiled.
  EXPECT_TRUE(tile(*comp, 3, 0, comp_image, lin, 32, level_rect(*comp, 3)).ok());
}

}  // namespace
}  // namespace agx::layout
