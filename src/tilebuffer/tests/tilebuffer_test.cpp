// Tilebuffer layouts against the vectors of bminor/mesa-mesa
// src/asahi/lib/tests/test-tilebuffer.cpp (offsets, record size, tile size,
// total bytes), and USC Shared words packed by hand from the field positions
// of src/asahi/genxml/cmdbuf.xml ("USC Shared").
#include <gtest/gtest.h>

#include "cmdstream/typed.h"
#include "tilebuffer/tilebuffer.h"

namespace agx::tilebuffer {
namespace AGX_UNITY_ID {

using format::Format;

struct Case {
  const char* name;
  uint32_t samples;
  std::vector<Format> formats;
  std::array<uint32_t, kMaxRenderTargets> offset_B;
  std::array<bool, kMaxRenderTargets> spilled;
  uint32_t sample_size_B;
  TileSize tile;
  uint32_t total_B;
};

RenderTargets targets(const std::vector<Format>& formats) {
  RenderTargets t{};
  for (size_t i = 0; i < formats.size(); ++i) t[i] = formats[i];
  return t;
}

const std::vector<Format> kMrt = {Format::R16_SINT, Format::R32G32_FLOAT, Format::R8_SINT,
                                  Format::R32G32_SINT};

const Case kCases[] = {
    {"one RGBA8 target", 1, {Format::R8G8B8A8_UNORM}, {}, {}, 8, {32, 32}, 8192},
    {"MSAA 2x", 2, {Format::R8G8B8A8_UNORM}, {}, {}, 8, {32, 32}, 16384},
    {"MSAA 4x", 4, {Format::R8G8B8A8_UNORM}, {}, {}, 8, {32, 16}, 16384},
    {"MRT", 1, kMrt, {16, 0, 18, 8}, {}, 24, {32, 32}, 24576},
    {"MRT, MSAA 2x", 2, kMrt, {16, 0, 18, 8}, {}, 24, {32, 16}, 24576},
    {"MRT, MSAA 4x", 4, kMrt, {16, 0, 18, 8}, {}, 24, {16, 16}, 24576},
    {"second target aligned to 2", 1, {Format::R8_UNORM, Format::R16G16_SNORM}, {4, 0}, {}, 8, {32, 32}, 8192},
    {"second target aligned to 4", 1, {Format::R8_UNORM, Format::R10G10B10A2_UNORM}, {4, 0}, {}, 8, {32, 32},
     8192},
    {"spilling counts the alignment", 4, std::vector<Format>(8, Format::R32_FLOAT), {0, 4, 8, 12, 16, 20, 0, 0},
     {false, false, false, false, false, false, true, true}, 24, {16, 16}, 24576},
};

TEST(Tilebuffer, MesaLayouts) {
  for (const Case& c : kCases) {
    auto l = build_layout(targets(c.formats), c.samples);
    ASSERT_TRUE(l.ok()) << c.name << ": " << l.error().message();
    EXPECT_EQ(l->sample_size_B, c.sample_size_B) << c.name;
    EXPECT_EQ(l->samples, c.samples) << c.name;
    EXPECT_EQ(l->tile, c.tile) << c.name;
    EXPECT_EQ(l->total_B(), c.total_B) << c.name;
    for (uint32_t rt = 0; rt < kMaxRenderTargets; ++rt) {
      EXPECT_EQ(l->offset_B[rt], c.offset_B[rt]) << c.name << ", render target " << rt;
      EXPECT_EQ(l->spilled[rt], c.spilled[rt]) << c.name << ", render target " << rt;
    }
  }
}

TEST(Tilebuffer, PixelSizesFollowTheIsaFormat) {
  auto l = build_layout(targets({Format::R8G8B8A8_UNORM, Format::B5G6R5_UNORM, Format::R8G8B8A8_SRGB,
                                 Format::R11G11B10_FLOAT, Format::R16G16B16A16_FLOAT}),
                        1);
  ASSERT_TRUE(l.ok()) << l.error().message();
  EXPECT_EQ(l->size_B(0), 4u);   // u8norm x 4 components
  EXPECT_EQ(l->size_B(1), 6u);   // f16 x 3 components
  EXPECT_EQ(l->size_B(2), 4u);   // srgba8: one packed word
  EXPECT_EQ(l->size_B(3), 4u);   // rg11b10f: one packed word
  EXPECT_EQ(l->size_B(4), 8u);   // f16 x 4
  EXPECT_EQ(l->size_B(5), 0u);   // empty slot
  // Order: the 4-aligned srgba8 and rg11b10f first, then the f16 targets
  // (slot order), then u8norm.
  EXPECT_EQ(l->offset_B[2], 0u);
  EXPECT_EQ(l->offset_B[3], 4u);
  EXPECT_EQ(l->offset_B[1], 8u);
  EXPECT_EQ(l->offset_B[4], 14u);
  EXPECT_EQ(l->offset_B[0], 22u);
  EXPECT_EQ(l->sample_size_B, 32u);
  EXPECT_TRUE(l->supports_mask(0));
  EXPECT_TRUE(l->supports_mask(2));
  EXPECT_FALSE(l->supports_mask(3));  // packed
  EXPECT_FALSE(l->supports_mask(5));  // unused
}

TEST(Tilebuffer, EmptyPassesAndMsaaRecords) {
  auto none = build_layout(RenderTargets{}, 1);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->sample_size_B, 0u);
  EXPECT_EQ(none->tile, (TileSize{32, 32}));
  auto msaa = build_layout(RenderTargets{}, 4);
  ASSERT_TRUE(msaa.ok());
  EXPECT_EQ(msaa->sample_size_B, 8u);  // MSAA needs a nonempty record
}

TEST(Tilebuffer, BadInputIsNamed) {
  auto three = build_layout(targets({Format::R8G8B8A8_UNORM}), 3);
  ASSERT_FALSE(three.ok());
  EXPECT_NE(three.error().message().find("3 samples"), std::string::npos) << three.error().message();
  auto bc1 = build_layout(targets({Format::R8G8B8A8_UNORM, Format::DXT1_RGB}), 1);
  ASSERT_FALSE(bc1.ok());
  EXPECT_NE(bc1.error().message().find("render target 1"), std::string::npos) << bc1.error().message();
  EXPECT_NE(bc1.error().message().find("DXT1_RGB"), std::string::npos) << bc1.error().message();
}

TEST(Tilebuffer, TileSizeLimits) {
  EXPECT_EQ(select_tile_size(31), (TileSize{32, 32}));  // 31744 bytes
  EXPECT_EQ(select_tile_size(32), (TileSize{32, 16}));  // 32768 > 32767
  EXPECT_EQ(select_tile_size(63), (TileSize{32, 16}));
  EXPECT_EQ(select_tile_size(64), (TileSize{16, 16}));
}

std::vector<uint8_t> packed(const cmdstream::UscShared& w) {
  auto bytes = cmdstream::pack(w);
  EXPECT_TRUE(bytes.ok());
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

TEST(Tilebuffer, UscSharedWords) {
  // Tag 0x4d, uses shared memory (bit 8), layout 32x32 = 0x2f (bits 10-15),
  // 1 sample (log2 0), stride 1 (bits 20-23), 8192 bytes = 32 groups of 256.
  auto simple = build_layout(targets({Format::R8G8B8A8_UNORM}), 1);
  ASSERT_TRUE(simple.ok());
  EXPECT_EQ(packed(usc_shared(*simple)), (std::vector<uint8_t>{0x4d, 0xbd, 0x10, 0x20}));
  // 16x16 = 0x36, 4 samples (log2 2), stride 3, 24576 bytes = 96 groups.
  auto mrt = build_layout(targets(kMrt), 4);
  ASSERT_TRUE(mrt.ok());
  EXPECT_EQ(packed(usc_shared(*mrt)), (std::vector<uint8_t>{0x4d, 0xd9, 0x32, 0x60}));
  // Vertex/compute = 0x24, no shared memory, 65536 bytes (256 groups: 0).
  EXPECT_EQ(packed(usc_shared_without_tilebuffer()), (std::vector<uint8_t>{0x4d, 0x90, 0x00, 0x00}));
}

}  // namespace
}  // namespace agx::tilebuffer
