// Lossless-compressed images: the public modes (uncompressed, solid) read
// through texture_load and written through the PBE; tiles found through the
// twiddled metadata index (expected indices worked out by hand from Mesa
// src/asahi/libagx/compression.cl index_metadata); unknown modes and mixed
// tiles are errors naming them.
#include <gtest/gtest.h>

#include <cstring>

#include "texture_helpers.h"

namespace agx::gpu::test {
namespace AGX_UNITY_ID {

constexpr GpuVa kBody = 0x100000, kMeta = 0x800000;

// A compressed image: the body from the layout unit (laid out as the plain
// image), the metadata at its own address, every tile set to `mode`.
struct Compressed {
  usc::RegionMemory mem;
  TestImage img;
  layout::Layout comp;  // the same request, compressed: metadata offsets
  std::unique_ptr<TextureUnit> unit;

  Compressed(const char* format, uint32_t w, uint32_t h, uint32_t levels, uint8_t mode,
             uint32_t samples = 1, layout::Tiling tiling = layout::Tiling::twiddled,
             uint32_t layers = 1) {
    img = make_test_image(mem, kBody, *format::find_format(format), tiling,
                          layers > 1 ? Dim::d2_array : (samples > 1 ? Dim::d2_ms : Dim::d2), w,
                          h, layers, levels, samples);
    if (samples > 1 && layers > 1) img.tex.dim = img.pbe.dim = Dim::d2_ms_array;
    layout::Request r = img.layout.request;
    r.compressed = true;
    auto l = layout::make_layout(r);
    EXPECT_TRUE(l.ok()) << (l.ok() ? "" : l.error().message());
    comp = *l;
    const uint64_t meta_B = comp.metadata_layer_stride_B * r.depth_px;
    EXPECT_TRUE(mem.map(kMeta, std::vector<uint8_t>(meta_B, mode)).ok());
    img.tex.compressed = img.pbe.compressed = true;
    img.tex.acceleration_buffer = img.pbe.acceleration_buffer = kMeta;
    unit = std::make_unique<TextureUnit>(mem, TextureState{});
  }
  uint8_t* meta(uint32_t level, uint64_t index, uint32_t layer = 0) {
    return const_cast<uint8_t*>(mem.regions().at(kMeta).data()) +
           layer * comp.metadata_layer_stride_B + comp.metadata_level_offsets_B[level] + index * 8;
  }
  uint8_t* body(uint32_t x, uint32_t y, uint32_t level = 0, uint32_t sample = 0,
                uint32_t layer = 0) {
    auto a = layout::element_address_B(img.layout, x, y, layer, level, sample);
    EXPECT_TRUE(a.ok());
    return const_cast<uint8_t*>(mem.regions().at(kBody).data()) + *a;
  }
  Result<Texel> load(int x, int y, uint32_t level = 0, uint32_t sample = 0, uint32_t layer = 0) {
    FetchCoord c;
    c.x = x;
    c.y = y;
    c.lod = int32_t(level);
    c.sample = sample;
    c.layer = layer;
    return unit->load(img.tex, SamplerView{}, c);
  }
  Status store(int x, int y, std::array<uint32_t, 4> v, uint32_t level = 0, uint32_t sample = 0,
               uint32_t layer = 0) {
    PbeWrite wr;
    wr.x = x;
    wr.y = y;
    wr.value = v;
    wr.lod = level;
    wr.sample = sample;
    wr.layer = layer;
    return pbe_write(*unit, img.pbe, wr);
  }
};

uint32_t r32(const Result<Texel>& t) { return t.ok() ? t->c[0] : 0xDEADBEEF; }

TEST(TextureCompression, UncompressedTilesRoundTrip) {
  for (auto tiling : {layout::Tiling::twiddled, layout::Tiling::gpu}) {
    // 40x24 px of R32: 3x2 tiles; mode 0x7f is "uncompressed" for 4-byte texels.
    Compressed c("R32_UINT", 40, 24, 1, 0x7f, 1, tiling);
    for (int y = 0; y < 24; ++y)
      for (int x = 0; x < 40; ++x) ASSERT_TRUE(c.store(x, y, {uint32_t(x * 100 + y), 0, 0, 0}).ok());
    for (int y = 0; y < 24; ++y)
      for (int x = 0; x < 40; ++x) {
        uint32_t raw;
        std::memcpy(&raw, c.body(x, y), 4);  // plain in the body, where the layout puts it
        EXPECT_EQ(raw, uint32_t(x * 100 + y));
        EXPECT_EQ(r32(c.load(x, y)), uint32_t(x * 100 + y));
      }
    for (uint64_t i = 0; i < 8; ++i) EXPECT_EQ(c.meta(0, 0)[i], 0x7f);  // unchanged
  }
}

TEST(TextureCompression, SolidTilesReadTheirColourAndExpandOnWrite) {
  // 32x32 px RGBA8 (mode 0xff would be 8/16-byte texels; 4-byte is 0x7f):
  // all four tiles solid, as a fast clear leaves them (the colour at the
  // start of each tile in the body).
  Compressed c("R8G8B8A8_UNORM", 32, 32, 1, 0x03);
  const uint8_t colours[4][4] = {{255, 0, 0, 255}, {0, 255, 0, 255}, {0, 0, 255, 255},
                                 {255, 255, 255, 0}};
  for (int t = 0; t < 4; ++t) std::memcpy(c.body(16 * (t & 1), 16 * (t >> 1)), colours[t], 4);
  auto colour_at = [&](int x, int y) {
    auto t = c.load(x, y);
    EXPECT_TRUE(t.ok()) << t.error().message();
    std::array<int, 4> v{};
    for (int k = 0; k < 4; ++k) v[k] = int(std::lround(u2f(t->c[k]) * 255));
    return v;
  };
  for (int y = 0; y < 32; y += 3)
    for (int x = 0; x < 32; x += 5) {
      const int t = (x / 16) + 2 * (y / 16);
      EXPECT_EQ(colour_at(x, y), (std::array<int, 4>{colours[t][0], colours[t][1], colours[t][2],
                                                     colours[t][3]}))
          << x << "," << y;
    }
  // A store into tile (1, 1): the tile becomes plain (0x7f in all eight
  // subtile bytes), keeps its colour elsewhere, and holds the new texel.
  ASSERT_TRUE(c.store(20, 27, {f2u(0.0f), f2u(1.0f), f2u(1.0f), f2u(1.0f)}).ok());
  // Tile (1, 1) of a 2x2 grid: interleave(1, 1) = 3.
  for (uint64_t i = 0; i < 8; ++i) EXPECT_EQ(c.meta(0, 3)[i], 0x7f);
  for (uint64_t t = 0; t < 3; ++t) EXPECT_EQ(c.meta(0, t)[0], 0x03);
  EXPECT_EQ(colour_at(20, 27), (std::array<int, 4>{0, 255, 255, 255}));
  EXPECT_EQ(colour_at(31, 31), (std::array<int, 4>{255, 255, 255, 0}));
  EXPECT_EQ(colour_at(16, 16), (std::array<int, 4>{255, 255, 255, 0}));
  EXPECT_EQ(colour_at(0, 0), (std::array<int, 4>{255, 0, 0, 255}));
}

TEST(TextureCompression, MetadataIndexIsTwiddled) {
  // 48x40 px: 3x3 tiles, minor dimension 3 -> 2 interleaved bits. Tile (1, 2)
  // is interleave(1, 2) = 0b1001 = 9; tile (2, 1) is 0b0110 = 6.
  {
    Compressed c("R32_UINT", 48, 40, 1, 0x7f);
    std::memset(c.meta(0, 9), 0x03, 8);
    const uint32_t solid = 0xABCD;
    std::memcpy(c.body(16, 32), &solid, 4);
    EXPECT_EQ(r32(c.load(31, 39)), solid);  // inside tile (1, 2)
    EXPECT_EQ(r32(c.load(32, 20)), 0u);     // tile (2, 1): plain zeros
    std::memset(c.meta(0, 6), 0x03, 8);
    const uint32_t solid2 = 0x1234;
    std::memcpy(c.body(32, 16), &solid2, 4);
    EXPECT_EQ(r32(c.load(40, 20)), solid2);
  }
  // 80x16 px: 5x1 tiles, minor dimension 1 -> no interleaving, index = x.
  {
    Compressed c("R16_UINT", 80, 16, 1, 0x3f);
    std::memset(c.meta(0, 3), 0x03, 8);
    const uint16_t solid = 0x7777;
    std::memcpy(c.body(48, 0), &solid, 2);
    EXPECT_EQ(r32(c.load(60, 10)), solid);
    EXPECT_EQ(r32(c.load(70, 10)), 0u);
  }
  // 16x80 px: 1x5 tiles, index = y.
  {
    Compressed c("R8_UINT", 16, 80, 1, 0x1f);
    std::memset(c.meta(0, 4), 0x03, 8);
    *c.body(0, 64) = 0x5A;
    EXPECT_EQ(r32(c.load(9, 70)), 0x5Au);
    EXPECT_EQ(r32(c.load(9, 50)), 0u);
  }
}

TEST(TextureCompression, MultisampledTilesStretch) {
  // 4 samples: 2x2 sample positions per pixel, so a 16x16-sample tile is
  // 8x8 px. 16x16 px -> 32x32 samples -> 2x2 tiles.
  Compressed c("R32_UINT", 16, 16, 1, 0x03, 4);
  const uint32_t colours[4] = {11, 22, 33, 44};
  for (int t = 0; t < 4; ++t) std::memcpy(c.body(8 * (t & 1), 8 * (t >> 1)), &colours[t], 4);
  for (uint32_t s = 0; s < 4; ++s) {
    EXPECT_EQ(r32(c.load(3, 3, 0, s)), 11u);
    EXPECT_EQ(r32(c.load(12, 2, 0, s)), 22u);
    EXPECT_EQ(r32(c.load(1, 15, 0, s)), 33u);
  }
  ASSERT_TRUE(c.store(9, 9, {99, 0, 0, 0}, 0, 3).ok());
  EXPECT_EQ(c.meta(0, 3)[0], 0x7f);
  for (uint32_t s = 0; s < 3; ++s) EXPECT_EQ(r32(c.load(9, 9, 0, s)), 44u);
  EXPECT_EQ(r32(c.load(9, 9, 0, 3)), 99u);
  EXPECT_EQ(r32(c.load(15, 15, 0, 2)), 44u);
  EXPECT_EQ(r32(c.load(7, 7, 0, 1)), 11u);  // other tiles still solid
  EXPECT_EQ(c.meta(0, 0)[0], 0x03);
}

TEST(TextureCompression, SmallLevelsHaveNoMetadata) {
  // 64x64 with a full chain: levels 0..2 (64, 32, 16 px) have metadata,
  // level 3 (8 px) and smaller are plain twiddled.
  Compressed c("R32_UINT", 64, 64, 7, 0x41);
  EXPECT_EQ(c.comp.metadata_levels, 3u);
  auto t = c.load(1, 1, 2);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message().find("0x41"), std::string::npos) << t.error().message();
  EXPECT_NE(t.error().message().find("level 2"), std::string::npos) << t.error().message();
  ASSERT_TRUE(c.store(5, 6, {77, 0, 0, 0}, 3).ok());
  EXPECT_EQ(r32(c.load(5, 6, 3)), 77u);
}

TEST(TextureCompression, UnknownModesAndMixedTilesAreErrors) {
  Compressed c("R32_UINT", 32, 32, 1, 0x7f);
  c.meta(0, 1)[5] = 0x03;  // one subtile of tile (1, 0) differs
  auto t = c.load(20, 4);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message().find("mixes subtile modes"), std::string::npos);
  EXPECT_FALSE(c.store(20, 4, {1, 0, 0, 0}).ok());
  std::memset(c.meta(0, 2), 0x5b, 8);  // tile (0, 1): a compressed encoding
  t = c.load(3, 20);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().kind(), ErrorKind::unsupported);
  EXPECT_NE(t.error().message().find("0x5b"), std::string::npos) << t.error().message();
  EXPECT_TRUE(c.load(3, 3).ok());  // tile (0, 0) is still plain
  // No metadata buffer, unmapped metadata, too small an image.
  TextureView no_meta = c.img.tex;
  no_meta.acceleration_buffer = 0;
  EXPECT_FALSE(c.unit->load(no_meta, SamplerView{}, FetchCoord{}).ok());
  TextureView unmapped = c.img.tex;
  unmapped.acceleration_buffer = 0x40000000;
  t = c.unit->load(unmapped, SamplerView{}, FetchCoord{});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().kind(), ErrorKind::fault);
  TextureView small = c.img.tex;
  small.width_px = small.height_px = 8;
  EXPECT_FALSE(c.unit->load(small, SamplerView{}, FetchCoord{}).ok());
}

TEST(TextureCompression, LayersUseTheMetadataLayerStride) {
  Compressed c("R32_UINT", 16, 16, 1, 0x7f, 1, layout::Tiling::twiddled, 3);
  std::memset(c.meta(0, 0, 2), 0x03, 8);
  const uint32_t solid = 0x600D;
  std::memcpy(c.body(0, 0, 0, 0, 2), &solid, 4);
  EXPECT_EQ(r32(c.load(7, 7, 0, 0, 2)), solid);
  EXPECT_EQ(r32(c.load(7, 7, 0, 0, 1)), 0u);
}

}  // namespace
}  // namespace agx::gpu::test
