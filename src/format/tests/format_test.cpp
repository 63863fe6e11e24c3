// Format table facts: layout-facts.md §11 (bytes and blocks, from Mesa
// src/asahi/layout), Channels/Texture Type codes from Mesa
// src/asahi/genxml/cmdbuf.xml.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "format/compression.h"
#include "format/format.h"

namespace agx::format {
namespace AGX_UNITY_ID {

const FormatInfo& by_name(const char* n) {
  auto f = find_format(n);
  EXPECT_TRUE(f.ok()) << n;
  return info(f.ok() ? *f : Format::R8_UNORM);
}

TEST(Format, VectorFormatsHaveKnownBlockSizes) {
  struct Row {
    const char* name;
    unsigned bytes, bw, bh;
  };
  for (Row r :
       {Row{"R8_UNORM", 1, 1, 1}, Row{"R8G8_UNORM", 2, 1, 1}, Row{"R8G8B8A8_UNORM", 4, 1, 1},
        Row{"R16G16B16A16_UNORM", 8, 1, 1}, Row{"R32G32B32A32_FLOAT", 16, 1, 1},
        Row{"Z32_FLOAT", 4, 1, 1}, Row{"S8_UINT", 1, 1, 1}, Row{"ETC2_RGB8", 8, 4, 4}}) {
    const auto& f = by_name(r.name);
    EXPECT_EQ(f.bytes_per_block_B, r.bytes) << r.name;
    EXPECT_EQ(f.block_width_px, r.bw) << r.name;
    EXPECT_EQ(f.block_height_px, r.bh) << r.name;
  }
}

TEST(Format, BlockCompressedFamilies) {
  for (const char* n : {"ETC1_RGB8", "ETC2_RGB8", "ETC2_SRGB8", "ETC2_RGB8A1", "ETC2_R11_UNORM",
                        "ETC2_R11_SNORM", "DXT1_RGB", "DXT1_SRGBA", "RGTC1_UNORM"})
    EXPECT_EQ(by_name(n).bytes_per_block_B, 8) << n;
  for (const char* n : {"ETC2_RGBA8", "ETC2_RG11_SNORM", "DXT3_RGBA", "DXT5_RGBA", "RGTC2_UNORM",
                        "BPTC_RGB_FLOAT", "BPTC_SRGBA", "ASTC_12x12_FLOAT"})
    EXPECT_EQ(by_name(n).bytes_per_block_B, 16) << n;
  EXPECT_EQ(by_name("ASTC_10x8").block_width_px, 10);
  EXPECT_EQ(by_name("ASTC_10x8").block_height_px, 8);
  EXPECT_EQ(by_name("ASTC_5x4_SRGB").block_width_px, 5);
  for (const auto& f : all_formats())
    EXPECT_EQ(f.block_compressed, f.block_width_px > 1 || f.block_height_px > 1) << f.name;
}

// The decoder family is a typed column of the Channels table: callers pick
// a decoder by it, never by the class name.
TEST(Format, CompressionFamilyOfEveryChannelsClass) {
  const std::pair<const char*, Compression> prefixes[] = {{"PVRTC", Compression::pvrtc}, {"ETC2", Compression::etc2},
                                                          {"EAC", Compression::eac},     {"ASTC", Compression::astc},
                                                          {"BC", Compression::bc}};
  unsigned astc = 0;
  for (const ChannelsInfo& c : all_channels()) {
    Compression expected = Compression::none;
    for (const auto& [prefix, family] : prefixes)
      if (std::string(c.name).rfind(prefix, 0) == 0) expected = family;
    EXPECT_EQ(compression(c.code), expected) << c.name;
    EXPECT_EQ(c.block_compressed, compression(c.code) != Compression::none) << c.name;
    astc += compression(c.code) == Compression::astc;
  }
  EXPECT_EQ(astc, 14u);  // 4x4 .. 12x12
  EXPECT_EQ(compression(Channels::ASTC_10X8), Compression::astc);
  EXPECT_EQ(compression(Channels::GBGR_422), Compression::none);
}

TEST(Format, HardwareCodesFromCmdbufXml) {
  EXPECT_EQ(static_cast<int>(by_name("R8G8B8A8_UNORM").channels), 0x28);
  EXPECT_EQ(static_cast<int>(by_name("R32G32B32A32_FLOAT").channels), 0x38);
  EXPECT_EQ(static_cast<int>(by_name("R16G16B16A16_UNORM").channels), 0x32);
  EXPECT_EQ(static_cast<int>(by_name("ETC2_RGB8").channels), 0x58);
  EXPECT_EQ(static_cast<int>(by_name("ASTC_12x12").channels), 0x6D);
  EXPECT_EQ(static_cast<int>(by_name("BPTC_RGBA_UNORM").channels), 0x7B);
  EXPECT_EQ(static_cast<int>(by_name("Z32_FLOAT").channels), 0x21);
  EXPECT_EQ(by_name("Z32_FLOAT").type, TextureType::Float);
  EXPECT_EQ(by_name("R8_SNORM").type, TextureType::Snorm);
  EXPECT_EQ(by_name("R16G16_SINT").type, TextureType::Sint);
  auto c = channels_from_code(0x5C);
  ASSERT_TRUE(c.ok());
  EXPECT_STREQ(c->name, "EAC_RG11");
  EXPECT_FALSE(channels_from_code(0x01).ok());
}

TEST(Format, DepthStencilAndRenderable) {
  EXPECT_TRUE(by_name("Z32_FLOAT").depth);
  EXPECT_FALSE(by_name("Z32_FLOAT").renderable);
  EXPECT_TRUE(by_name("Z32_FLOAT").compressible());
  EXPECT_TRUE(by_name("S8_UINT").stencil);
  EXPECT_TRUE(by_name("Z16_UNORM").depth);
  EXPECT_EQ(by_name("Z16_UNORM").bytes_per_block_B, 2);
  const auto& zs = by_name("Z32_FLOAT_S8X24_UINT");
  EXPECT_TRUE(zs.depth && zs.stencil && zs.separate_stencil);
  EXPECT_EQ(by_name("X32_S8X24_UINT").channels, Channels::R8);
  EXPECT_TRUE(by_name("Z24_UNORM_S8_UINT").lowered);
  EXPECT_TRUE(by_name("R8G8B8A8_UNORM").renderable);
  EXPECT_EQ(by_name("R8G8B8A8_SRGB").isa, IsaFormat::SRGBA8);
  EXPECT_TRUE(by_name("R8G8B8A8_SRGB").srgb);
  EXPECT_FALSE(by_name("R10G10B10A2_SINT").renderable);
  EXPECT_FALSE(by_name("ETC2_RGB8").compressible());
  EXPECT_FALSE(by_name("L8_UNORM").compressible());
  EXPECT_TRUE(by_name("R32G32B32_FLOAT").buffer_only);
}

// Names of ours (no Mesa format maps to these classes / type): PVRTC1 word
// sizes from the Khronos Data Format Specification (8 B per 8x4 or 4x4
// pixels), XR from Apple's Metal bgr10_xr (32-bit) and bgra10_xr (64-bit).
TEST(Format, PvrtcAndExtendedRangeRows) {
  const auto& p2 = by_name("PVRTC1_RGBA_2BPP");
  EXPECT_EQ(p2.channels, Channels::PVRTC_2BPP);
  EXPECT_EQ(p2.bytes_per_block_B, 8);
  EXPECT_EQ(p2.block_width_px, 8);
  EXPECT_EQ(p2.block_height_px, 4);
  EXPECT_FALSE(p2.renderable);
  const auto& p4 = by_name("PVRTC1_SRGBA_4BPP");
  EXPECT_EQ(p4.channels, Channels::PVRTC_4BPP);
  EXPECT_EQ(p4.block_width_px, 4);
  EXPECT_TRUE(p4.srgb);
  const auto& x32 = by_name("B10G10R10_XR");
  EXPECT_EQ(x32.type, TextureType::XR);
  EXPECT_EQ(x32.channels, Channels::R10G10B10A2);
  EXPECT_EQ(x32.bytes_per_block_B, 4);
  EXPECT_FALSE(x32.srgb);
  const auto& x64 = by_name("B10G10R10A10_XR_SRGB");
  EXPECT_EQ(x64.type, TextureType::XR);
  EXPECT_EQ(x64.channels, Channels::R16G16B16A16);
  EXPECT_EQ(x64.bytes_per_block_B, 8);
  EXPECT_TRUE(x64.srgb);
  EXPECT_STREQ(to_string(x64.type), "XR");
}

TEST(Format, LookupIsCaseInsensitiveWithPrefixAndAliases) {
  EXPECT_EQ(*find_format("r8g8b8a8_unorm"), Format::R8G8B8A8_UNORM);
  EXPECT_EQ(*find_format("PIPE_FORMAT_Z32_FLOAT"), Format::Z32_FLOAT);
  EXPECT_EQ(*find_format("BC1_RGB"), Format::DXT1_RGB);
  EXPECT_EQ(*find_format("bc7_unorm"), Format::BPTC_RGBA_UNORM);
  EXPECT_EQ(*find_format("ASTC_4X4"), Format::ASTC_4x4);
}

TEST(Format, UnknownNameListsNearMatches) {
  auto r = find_format("R8G8B8A8_UNROM");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind(), ErrorKind::not_found);
  EXPECT_THAT(r.error().message(), testing::HasSubstr("unknown format 'R8G8B8A8_UNROM'"));
  EXPECT_THAT(r.error().message(), testing::HasSubstr("R8G8B8A8_UNORM"));
  EXPECT_THAT(near_matches("Z32F"), testing::Contains(std::string("Z32_FLOAT")));
  EXPECT_TRUE(near_matches("QQQQQQQQQQQQQQQQQQQQQQQQQQQQQ").empty());
  EXPECT_FALSE(find_format("").ok());
}

TEST(Format, NamesAreUniqueAndRoundTrip) {
  std::set<std::string> seen;
  for (const auto& f : all_formats()) {
    EXPECT_TRUE(seen.insert(f.name).second) << f.name;
    auto back = find_format(f.name);
    ASSERT_TRUE(back.ok()) << f.name;
    EXPECT_EQ(*back, f.format);
    EXPECT_STREQ(name(f.format), f.name);
  }
  EXPECT_GT(seen.size(), 200u);
}

TEST(Format, ComponentCountsOfEveryStorageClass) {
  // Gallium's component counts of the formats stored in each class.
  const std::pair<const char*, int> expected[] = {
      {"R8", 1},       {"R16", 1},          {"R32", 1},           {"R8G8", 2},
      {"R16G16", 2},   {"R32G32", 2},       {"R5G6B5", 3},        {"R11G11B10", 3},
      {"R9G9B9E5", 3}, {"R32G32B32_EMULATED", 3}, {"R4G4B4A4", 4}, {"A1R5G5B5", 4},
      {"R5G5B5A1", 4}, {"R10G10B10A2", 4},  {"R8G8B8A8", 4},      {"R16G16B16A16", 4},
      {"R32G32B32A32", 4}, {"GBGR_422", 0}, {"BGRG_422", 0},      {"ETC2_RGBA8", 0},
      {"BC7", 0},      {"ASTC_4X4", 0},     {"EAC_RG11", 0},      {"PVRTC_4BPP", 0}};
  for (const auto& [name, count] : expected) {
    bool found = false;
    for (const ChannelsInfo& c : all_channels())
      if (std::string(c.name) == name) {
        found = true;
        EXPECT_EQ(component_count(c), count) << name;
      }
    EXPECT_TRUE(found) << name;
  }
}

}  // namespace
}  // namespace agx::format
