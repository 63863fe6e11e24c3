// Layout rules: the cases of Mesa src/asahi/layout/tests/test-layout.cpp and
// the worked examples of the shared layout facts (from Mesa's vectors).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "layout/layout.h"

namespace agx::layout {
namespace AGX_UNITY_ID {

using format::Format;

Layout make(Request r) {
  auto l = make_layout(r);
  EXPECT_TRUE(l.ok()) << l.error().message();
  return l.ok() ? *l : Layout{};
}

TEST(Miptree, CubeOneLevelIsPageMultiple) {
  Layout l = make({.format = Format::R8G8B8A8_UNORM,
                   .width_px = 512,
                   .height_px = 512,
                   .depth_px = 6,
                   .levels = 1});
  EXPECT_EQ(l.layer_stride_B, 1u << 20);
  EXPECT_EQ(l.size_B, 6u << 20);
}

TEST(Miptree, CubeRoundsLayerToPage) {
  Layout l = make(
      {.format = Format::R32_FLOAT, .width_px = 63, .height_px = 63, .depth_px = 6, .levels = 6});
  EXPECT_EQ(l.level_offsets_B[0], 0u);
  EXPECT_EQ(l.level_offsets_B[1], 0x4000u);
  EXPECT_EQ(l.level_offsets_B[2], 0x5000u);
  EXPECT_EQ(l.level_offsets_B[3], 0x5400u);
  EXPECT_EQ(l.level_offsets_B[4], 0x5500u);
  EXPECT_TRUE(l.page_aligned_layers);
  EXPECT_EQ(l.layer_stride_B, 0x8000u);
  EXPECT_EQ(l.size_B, 0x30000u);
}

TEST(Miptree, LinearWideBufferRoundsTo128) {
  Layout l = make(
      {.format = Format::R8_UNORM, .width_px = 81946, .height_px = 1, .tiling = Tiling::linear});
  EXPECT_EQ(l.size_B, 81920u + 128u);
  EXPECT_EQ(l.linear_stride_B, 82048u);
}

TEST(Miptree, AnyLevelCountAllocatesFullChain) {
  for (uint32_t levels : {11u, 4u}) {
    Layout l = make(
        {.format = Format::R8G8B8A8_UNORM, .width_px = 1024, .height_px = 1024, .levels = levels});
    EXPECT_EQ(l.levels, 11u);
    EXPECT_EQ(l.size_B, 0x555680u);
    EXPECT_EQ(l.sparse_folios_per_layer, 2u);
    EXPECT_EQ(l.sparse_table_size_B, 0x1000u);
  }
}

TEST(Miptree, MipmappedZCountsDepth) {
  Request r{
      .format = Format::R32_FLOAT, .width_px = 32, .height_px = 16, .depth_px = 64, .levels = 4};
  Layout array = make(r);
  EXPECT_EQ(array.levels, 6u);
  EXPECT_EQ(array.layer_stride_B, 0xC00u);
  EXPECT_EQ(array.size_B, 0x30000u);
  EXPECT_EQ(array.sparse_folios_per_layer, 1u);
  EXPECT_EQ(array.sparse_table_size_B, 0x20000u);
  r.mipmapped_z = true;
  Layout volume = make(r);
  EXPECT_EQ(volume.levels, 7u);
  EXPECT_EQ(volume.layer_stride_B, 0xC80u);
  EXPECT_EQ(volume.size_B, 0x32000u);
  EXPECT_EQ(volume.sparse_table_size_B, 0x20000u);
}

TEST(Miptree, NonPowerOfTwoExtraTiles) {
  // RGBA8 644x3995: stx 11, sty 63; level 1 has 173 + 31 + 5 + 1 tiles.
  Layout l =
      make({.format = Format::R8G8B8A8_UNORM, .width_px = 644, .height_px = 3995, .levels = 12});
  EXPECT_EQ(l.level_offsets_B[1], 0xAD4000u);
  EXPECT_EQ(l.level_offsets_B[2], 0xE1C000u);
}

TEST(Miptree, SingleLayerColourIsNotPageRounded) {
  EXPECT_EQ(make({.format = Format::R8_UNORM}).size_B, 128u);
  EXPECT_EQ(make({.format = Format::R8_UNORM, .depth_px = 2}).size_B, 256u);
  EXPECT_EQ(
      make({.format = Format::R8_UNORM, .width_px = 1, .height_px = 4097, .levels = 13}).size_B,
      17024u);
  EXPECT_EQ(
      make({.format = Format::S8_UINT, .width_px = 1, .height_px = 4097, .levels = 13}).size_B,
      32768u);
  EXPECT_EQ(
      make({.format = Format::R8_UNORM, .width_px = 15, .height_px = 4097, .levels = 13}).size_B,
      175744u);
  EXPECT_EQ(
      make({.format = Format::S8_UINT, .width_px = 15, .height_px = 4097, .levels = 13}).size_B,
      180224u);
  EXPECT_EQ(make({.format = Format::R8_UNORM,
                  .width_px = 15,
                  .height_px = 4097,
                  .depth_px = 2,
                  .levels = 13})
                .size_B,
            360448u);
}

TEST(Miptree, WriteableAndLayeredRenderTargetsArePageAligned) {
  Request r{.format = Format::R8G8B8A8_UNORM, .width_px = 8, .height_px = 8};
  EXPECT_FALSE(make(r).page_aligned_layers);
  r.writeable_image = true;
  EXPECT_TRUE(make(r).page_aligned_layers);
  EXPECT_EQ(make(r).layer_stride_B, 0x4000u);
  r.writeable_image = false;
  r.renderable = true;
  EXPECT_FALSE(make(r).page_aligned_layers);
  r.depth_px = 2;
  EXPECT_TRUE(make(r).page_aligned_layers);
}

TEST(Compression, WorkedExamples) {
  Layout one = make(
      {.format = Format::R8G8B8A8_UNORM, .width_px = 256, .height_px = 256, .compressed = true});
  EXPECT_EQ(one.metadata_offset_B, 262144u);
  EXPECT_EQ(one.size_B, 264192u);
  Layout nine = make({.format = Format::R8G8B8A8_UNORM,
                      .width_px = 256,
                      .height_px = 256,
                      .levels = 9,
                      .compressed = true});
  EXPECT_EQ(nine.metadata_offset_B, 349824u);
  EXPECT_EQ(nine.metadata_layer_stride_B, 2944u);
  EXPECT_EQ(nine.metadata_levels, 5u);
  EXPECT_EQ(nine.metadata_level_offsets_B[1], 2048u);
  EXPECT_EQ(nine.size_B, 352768u);
  Layout msaa = make({.format = Format::R8G8B8A8_UNORM,
                      .width_px = 64,
                      .height_px = 64,
                      .sample_count_sa = 4,
                      .compressed = true});
  EXPECT_EQ(msaa.metadata_offset_B, 65536u);
  EXPECT_EQ(msaa.size_B, 66048u);
  Layout depth = make({.format = Format::Z32_FLOAT,
                       .width_px = 64,
                       .height_px = 64,
                       .levels = 7,
                       .compressed = true});
  EXPECT_EQ(depth.layer_stride_B, 0x8000u);
  EXPECT_EQ(depth.size_B, 33152u);
}

TEST(Compression, LogicalVersusAllocatedLevels) {
  Layout l = make({.format = Format::R8G8B8A8_UNORM,
                   .width_px = 256,
                   .height_px = 32,
                   .levels = 9,
                   .compressed = true});
  EXPECT_TRUE(l.level_logically_compressed(1));   // 128x16
  EXPECT_FALSE(l.level_logically_compressed(2));  // 64x8
  EXPECT_TRUE(l.level_allocated_compressed(4));   // max(16, 2) >= 16
  EXPECT_FALSE(l.level_allocated_compressed(5));
}

TEST(Twiddled, PowerOfTwoLevelsAndPageAlignedLayers) {
  Layout l = make({.format = Format::R8G8B8A8_UNORM,
                   .width_px = 100,
                   .height_px = 20,
                   .levels = 7,
                   .tiling = Tiling::twiddled});
  EXPECT_EQ(l.level_offsets_B[1], 128u * 32 * 4);
  EXPECT_EQ(l.tile_el[0].width_el, 32u);
  EXPECT_EQ(l.stride_el[0], 128u);
  EXPECT_TRUE(l.page_aligned_layers);
  EXPECT_EQ(l.layer_stride_B % kPage_B, 0u);
  EXPECT_EQ(l.mip_tail_first_level, 0u);
}

TEST(Miptree, MsaaMultipliesElementSize) {
  Layout l = make({.format = Format::R32G32B32A32_FLOAT,
                   .width_px = 16,
                   .height_px = 16,
                   .sample_count_sa = 4});
  EXPECT_EQ(l.bytes_per_element_B, 64u);
  EXPECT_EQ(l.size_B, 16u * 16 * 64);
}

void expect_error(Request r, const char* text) {
  auto l = make_layout(r);
  ASSERT_FALSE(l.ok()) << text;
  EXPECT_THAT(l.error().message(), testing::HasSubstr(text));
}

TEST(Miptree, InvalidRequestsAreClearErrors) {
  Request base{.format = Format::R8G8B8A8_UNORM, .width_px = 64, .height_px = 64};
  Request r = base;
  r.tiling = Tiling::linear;
  r.levels = 2;
  expect_error(r, "linear images cannot be mipmapped");
  r = base;
  r.tiling = Tiling::linear;
  r.depth_px = 4;
  r.mipmapped_z = true;
  expect_error(r, "3D images cannot be linear");
  r = base;
  r.format = Format::ETC2_RGB8;
  r.compressed = true;
  expect_error(r, "block-compressed");
  r = base;
  r.width_px = 0;
  expect_error(r, "zero size");
  r = base;
  r.levels = 8;
  expect_error(r, "at most 7");
  r = base;
  r.format = Format::ASTC_4x4;
  r.sample_count_sa = 4;
  expect_error(r, "cannot be multisampled");
  r = base;
  r.sample_count_sa = 3;
  expect_error(r, "unsupported sample count 3");
  r = base;
  r.sample_count_sa = 8;
  expect_error(r, "unsupported sample count 8");
  r = base;
  r.width_px = 16385;
  expect_error(r, "exceeds the maximum");
  r = base;
  r.compressed = true;
  r.width_px = 8;
  expect_error(r, "at least 16x16 samples");
  r = base;
  r.compressed = true;
  r.writeable_image = true;
  expect_error(r, "writeable images cannot be compressed");
  r = base;
  r.format = Format::Z24_UNORM_S8_UINT;
  expect_error(r, "must be lowered");
  r = base;
  r.tiling = Tiling::linear;
  r.linear_stride_B = 100;
  expect_error(r, "multiple of 16");
  r = base;
  r.tiling = Tiling::linear;
  r.linear_stride_B = 128;
  expect_error(r, "less than a row");
  r = base;
  r.tiling = Tiling::linear;
  r.sample_count_sa = 2;
  expect_error(r, "cannot be multisampled");
  r = base;
  r.sample_count_sa = 2;
  r.levels = 2;
  expect_error(r, "single level");
  r = base;
  r.format = Format::L8_UNORM;
  r.compressed = true;
  expect_error(r, "PBE can write");
}

TEST(Address, GpuTiledMortonInsideTiles) {
  Layout l = make({.format = Format::R8G8B8A8_UNORM, .width_px = 256, .height_px = 256});
  EXPECT_EQ(*element_address_B(l, 0, 0, 0, 0), 0u);
  EXPECT_EQ(*element_address_B(l, 1, 0, 0, 0), 4u);
  EXPECT_EQ(*element_address_B(l, 0, 1, 0, 0), 8u);
  EXPECT_EQ(*element_address_B(l, 2, 0, 0, 0), 16u);
  EXPECT_EQ(*element_address_B(l, 63, 63, 0, 0), 0x4000u - 4);
  EXPECT_EQ(*element_address_B(l, 64, 0, 0, 0), 0x4000u);  // next tile in the row
  EXPECT_EQ(*element_address_B(l, 0, 64, 0, 0), 4u * 0x4000);
  EXPECT_FALSE(element_address_B(l, 256, 0, 0, 0).ok());
  EXPECT_FALSE(element_address_B(l, 0, 0, 1, 0).ok());
  EXPECT_FALSE(element_address_B(l, 0, 0, 0, 1).ok());
}

TEST(Address, RectangularTileTopBitIsX) {
  // 2-byte elements use 128x64 tiles: x bit 6 sits above the interleaved bits.
  Layout l = make({.format = Format::R8G8_UNORM, .width_px = 256, .height_px = 64});
  EXPECT_EQ(*element_address_B(l, 64, 0, 0, 0), 2u * (1u << 12));
  EXPECT_EQ(*element_address_B(l, 128, 0, 0, 0), 0x4000u);
}

TEST(Address, SamplesAndLayersAndLinear) {
  Layout l = make({.format = Format::R8G8B8A8_UNORM,
                   .width_px = 64,
                   .height_px = 64,
                   .depth_px = 3,
                   .sample_count_sa = 4});
  EXPECT_EQ(*element_address_B(l, 1, 0, 0, 0, 3), 16u + 12u);
  EXPECT_EQ(*element_address_B(l, 0, 0, 2, 0, 0), 2 * l.layer_stride_B);
  EXPECT_FALSE(element_address_B(l, 0, 0, 0, 0, 4).ok());
  Layout lin = make({.format = Format::R16_UINT,
                     .width_px = 10,
                     .height_px = 4,
                     .depth_px = 2,
                     .tiling = Tiling::linear});
  EXPECT_EQ(*element_address_B(lin, 3, 2, 1, 0), lin.layer_stride_B + 2 * 128 + 6);
}

TEST(Address, BlockFormatsAddressBlocks) {
  Layout l = make({.format = Format::ETC2_RGB8, .width_px = 64, .height_px = 32, .levels = 6});
  EXPECT_EQ(*element_address_B(l, 5, 1, 0, 0), 8u);   // block (1, 0)
  EXPECT_EQ(*element_address_B(l, 0, 4, 0, 0), 16u);  // block (0, 1)
}

TEST(Report, JsonAndTextCarryTheNumbers) {
  Layout l = make({.format = Format::R8G8B8A8_UNORM, .width_px = 8, .height_px = 7, .levels = 4});
  std::string j = to_json(l, -1);
  EXPECT_THAT(j, testing::HasSubstr("\"size_B\":640"));
  EXPECT_THAT(j, testing::HasSubstr("\"offset_B\":384"));
  std::string t = describe(l);
  EXPECT_THAT(t, testing::HasSubstr("total: 640 B"));
  EXPECT_THAT(t, testing::HasSubstr("R8G8B8A8_UNORM 8x7x1, 4 levels"));
}

}  // namespace
}  // namespace agx::layout
