// Block-compressed formats: blocks built by hand from the specifications'
// bit layouts (Khronos Data Format Specification: S3TC, RGTC, ETC1/ETC2,
// EAC; ASTC void-extent blocks), decoded through texture_load, with the
// expected texels worked out from the specifications' formulas.
#include <gtest/gtest.h>

#include <cstring>

#include "texture_helpers.h"

namespace agx::gpu::test {
namespace {

// A w x h image of `format` whose every block is `block`, read with
// texture_load at (x, y).
struct BlockImage {
  usc::RegionMemory mem;
  TestImage img;
  std::unique_ptr<TextureUnit> unit;
  BlockImage(const char* format, std::vector<uint8_t> block, uint32_t w = 8, uint32_t h = 8) {
    img = make_test_image(mem, 0x100000, *format::find_format(format), layout::Tiling::twiddled,
                          Dim::d2, w, h, 1, 1);
    const auto& fi = format::info(img.layout.request.format);
    for (uint32_t by = 0; by < h; by += fi.block_height_px)
      for (uint32_t bx = 0; bx < w; bx += fi.block_width_px) {
        auto a = layout::element_address_B(img.layout, bx, by, 0, 0);
        EXPECT_TRUE(a.ok());
        GpuFault fault;
        EXPECT_TRUE(mem.write(0x100000 + *a, block.data(), block.size(), GpuUnit::host, &fault));
      }
    unit = std::make_unique<TextureUnit>(mem, TextureState{});
  }
  std::array<float, 4> at(int x, int y) {
    FetchCoord c;
    c.x = x;
    c.y = y;
    auto t = unit->load(img.tex, SamplerView{}, c);
    EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message());
    std::array<float, 4> out{};
    if (t.ok())
      for (int k = 0; k < 4; ++k) out[k] = u2f(t->c[k]);
    return out;
  }
};

TEST(TextureBlock, Bc1FourAndThreeColourModes) {
  // c0 = red 0xF800 > c1 = blue 0x001F: 4 colours. Texel t has index t % 4.
  uint32_t idx = 0;
  for (int t = 0; t < 16; ++t) idx |= uint32_t(t % 4) << (2 * t);
  std::vector<uint8_t> block = {0x00, 0xF8, 0x1F, 0x00, uint8_t(idx), uint8_t(idx >> 8),
                                uint8_t(idx >> 16), uint8_t(idx >> 24)};
  BlockImage four("DXT1_RGBA", block);
  EXPECT_EQ(four.at(0, 0), (std::array<float, 4>{1, 0, 0, 1}));  // index 0: c0
  EXPECT_EQ(four.at(1, 0), (std::array<float, 4>{0, 0, 1, 1}));  // index 1: c1
  auto c2 = four.at(2, 0);                                         // 2/3 c0 + 1/3 c1
  EXPECT_NEAR(c2[0], 170 / 255.0f, 1.5f / 255);
  EXPECT_NEAR(c2[2], 85 / 255.0f, 1.5f / 255);
  // Same block in the next 4x4 tile: block addressing follows the layout.
  EXPECT_EQ(four.at(5, 4), four.at(1, 0));
  // c0 <= c1: 3 colours and transparent black for index 3.
  std::vector<uint8_t> three = {0x1F, 0x00, 0x00, 0xF8, 0xFF, 0xFF, 0xFF, 0xFF};
  BlockImage t("DXT1_RGBA", three);
  EXPECT_EQ(t.at(0, 0), (std::array<float, 4>{0, 0, 0, 0}));
}

TEST(TextureBlock, Rgtc) {
  // r0 = 200 > r1 = 100: 8 values; texel t has code t % 8.
  uint64_t codes = 0;
  for (int t = 0; t < 16; ++t) codes |= uint64_t(t % 8) << (3 * t);
  std::vector<uint8_t> block = {200, 100};
  for (int i = 0; i < 6; ++i) block.push_back(uint8_t(codes >> (8 * i)));
  BlockImage u("RGTC1_UNORM", block);
  const float e0 = 200 / 255.0f, e1 = 100 / 255.0f;
  EXPECT_FLOAT_EQ(u.at(0, 0)[0], e0);
  EXPECT_FLOAT_EQ(u.at(1, 0)[0], e1);
  EXPECT_NEAR(u.at(2, 0)[0], (6 * e0 + 1 * e1) / 7, 1e-6);
  EXPECT_NEAR(u.at(3, 1)[0], (1 * e0 + 6 * e1) / 7, 1e-6);  // t = 7
  // r0 <= r1: 6 values, then 0 and 1.
  block[0] = 10;
  block[1] = 20;
  BlockImage six("RGTC1_UNORM", block);
  EXPECT_EQ(six.at(2, 1)[0], 0.0f);  // t = 6
  EXPECT_EQ(six.at(3, 1)[0], 1.0f);  // t = 7
  // Signed: -128 reads as -1.
  block[0] = 0x80;
  block[1] = 0x7F;
  BlockImage s("RGTC1_SNORM", block);
  EXPECT_EQ(s.at(0, 0)[0], -1.0f);
  EXPECT_EQ(s.at(1, 0)[0], 1.0f);
  EXPECT_EQ(s.at(3, 1)[0], 1.0f);  // six-value mode (r0 <= r1): code 7 is +1
}

TEST(TextureBlock, Etc1IndividualMode) {
  // R1 = 15, G2 = 15, tables 0, individual, no flip: left half (255, 0, 0),
  // right half (0, 255, 0); index 0 adds +2. Texel (1, 2) (pixel 6) has
  // index msb 1, lsb 1: -8.
  const uint32_t msb = 0xF00F0000u, lsb = (1u << 6) | (1u << 22);
  std::vector<uint8_t> block;
  for (int i = 3; i >= 0; --i) block.push_back(uint8_t(msb >> (8 * i)));
  for (int i = 3; i >= 0; --i) block.push_back(uint8_t(lsb >> (8 * i)));
  BlockImage e("ETC2_RGB8", block);
  EXPECT_EQ(e.at(0, 0), (std::array<float, 4>{1, 2 / 255.0f, 2 / 255.0f, 1}));
  EXPECT_EQ(e.at(3, 3), (std::array<float, 4>{2 / 255.0f, 1, 2 / 255.0f, 1}));
  EXPECT_EQ(e.at(1, 2), (std::array<float, 4>{247 / 255.0f, 0, 0, 1}));
}

TEST(TextureBlock, EacR11) {
  // base 128, multiplier 1, table 0, all indices 0 (modifier -3):
  // 128 * 8 + 4 - 3 * 8 = 1004.
  BlockImage e("ETC2_R11_UNORM", {0x80, 0x10, 0, 0, 0, 0, 0, 0});
  EXPECT_FLOAT_EQ(e.at(2, 1)[0], 1004 / 2047.0f);
  // Signed: base -128 acts as -127; multiplier 0: -127 * 8 - 3 = -1019.
  BlockImage s("ETC2_R11_SNORM", {0x80, 0x00, 0, 0, 0, 0, 0, 0});
  EXPECT_FLOAT_EQ(s.at(0, 0)[0], -1019 / 1023.0f);
}

TEST(TextureBlock, AstcVoidExtent) {
  // LDR void-extent block: bits 0..8 = 0x1FC, bit 9 = 0 (LDR), bits 10..11
  // = 1, extent all ones; then R, G, B, A as UNORM16.
  std::vector<uint8_t> block = {0xFC, 0xFD, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                0xFF, 0xFF, 0x00, 0x00, 0x00, 0x80, 0xFF, 0xFF};
  BlockImage a("ASTC_6x5", block, 12, 10);
  auto v = a.at(7, 6);
  EXPECT_FLOAT_EQ(v[0], 1.0f);
  EXPECT_FLOAT_EQ(v[1], 0.0f);
  EXPECT_NEAR(v[2], 0.5f, 1.0f / 255);
  EXPECT_FLOAT_EQ(v[3], 1.0f);
}

TEST(TextureBlock, UndecodedFormatsNameThemselves) {
  for (const char* name : {"BPTC_RGB_FLOAT", "BPTC_RGB_UFLOAT"}) {
    usc::RegionMemory mem;
    TestImage img = make_test_image(mem, 0x100000, *format::find_format(name),
                                    layout::Tiling::twiddled, Dim::d2, 8, 8, 1, 1);
    TextureUnit unit(mem, {});
    auto t = unit.load(img.tex, SamplerView{}, FetchCoord{});
    ASSERT_FALSE(t.ok());
    const std::string cls = format::channels_info(img.tex.channels)->name;
    EXPECT_NE(t.error().message().find(cls), std::string::npos) << t.error().message();
  }
}

}  // namespace
}  // namespace agx::gpu::test
