// Block-compressed formats: blocks built by hand from the specifications'
// bit layouts (Khronos Data Format Specification: S3TC, RGTC, ETC1/ETC2,
// EAC; ASTC void-extent blocks), decoded through texture_load, with the
// expected texels worked out from the specifications' formulas.
#include <gtest/gtest.h>

#include <etc1.h>

#include <cstring>
#include <random>

#include "texture_helpers.h"

namespace agx::gpu::test {
namespace AGX_UNITY_ID {

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
    return load_floats(*unit, img.tex, x, y);
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

// ETC1 blocks (individual and differential modes without overflow, the
// ETC1 subset of ETC2 RGB8) decode as Debian's android-libetc1 decodes them.
TEST(TextureBlock, Etc1AgreesWithAndroidLibEtc1) {
  std::mt19937 rng(17);
  for (int n = 0; n < 64; ++n) {
    std::vector<uint8_t> block(8);
    for (auto& b : block) b = uint8_t(rng());
    if (block[3] & 2) {  // differential: keep base + delta inside 0..31
      for (int c = 0; c < 3; ++c) {
        const int base = block[c] >> 3, delta = int(block[c] << 29) >> 29;
        if (base + delta < 0 || base + delta > 31) block[c] &= 0xF8;  // delta 0
      }
    }
    BlockImage e("ETC2_RGB8", block, 4, 4);
    uint8_t ref[48];
    etc1_decode_block(block.data(), ref);
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < 4; ++x) {
        auto v = e.at(x, y);
        for (int c = 0; c < 3; ++c)
          ASSERT_EQ(v[c], ref[(y * 4 + x) * 3 + c] / 255.0f)
              << "block " << n << " texel (" << x << ", " << y << ") channel " << c;
      }
  }
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

// A BC6H block of mode 11 (code 00011: one region, untransformed 10-bit
// endpoints): w = (0, 0, 0), x = (1023, 512, 0); texel 0 index 0, texel 1
// index 15, texel 2 index 8 (weight 34 of 64). Expected values by the
// specification's steps (unquantize, interpolate, scale by 31/64 or 31/32),
// worked out by hand in the comments.
std::vector<uint8_t> bc6h_mode11_block() {
  std::vector<uint8_t> b(16, 0);
  auto put = [&](unsigned at, unsigned n, uint32_t v) {
    for (unsigned i = 0; i < n; ++i)
      if ((v >> i) & 1) b[(at + i) / 8] |= uint8_t(1u << ((at + i) % 8));
  };
  put(0, 5, 0x03);    // mode
  put(35, 10, 1023);  // rx
  put(45, 10, 512);   // gx
  put(68, 4, 15);     // texel 1 (texel 0 has 3 index bits at 65)
  put(72, 4, 8);      // texel 2
  return b;
}

TEST(TextureBlock, Bc6hUnsignedByHand) {
  BlockImage a("BPTC_RGB_UFLOAT", bc6h_mode11_block(), 4, 4);
  auto t0 = a.at(0, 0);
  EXPECT_EQ(t0[0], 0.0f);
  EXPECT_EQ(t0[3], 1.0f);
  // rx 1023 is the largest 10-bit value: 0xFFFF, then 0xFFFF * 31 >> 6 =
  // 0x7BFF (65504). gx 512: ((512 << 16) + 0x8000) >> 10 = 32800, then
  // 32800 * 31 >> 6 = 15887 = 0x3E0F = 1 + 527 / 1024.
  auto t1 = a.at(1, 0);
  EXPECT_EQ(t1[0], 65504.0f);
  EXPECT_EQ(t1[1], 1.0f + 527.0f / 1024.0f);
  EXPECT_EQ(t1[2], 0.0f);
  // Weight 34: r (34 * 65535 + 32) >> 6 = 34815, * 31 >> 6 = 16863 = 0x41DF
  // = 2 (1 + 479 / 1024); g (34 * 32800 + 32) >> 6 = 17425, * 31 >> 6 =
  // 8440 = 0x20F8 = 2^-7 (1 + 248 / 1024).
  auto t2 = a.at(2, 0);
  EXPECT_EQ(t2[0], 2.0f * (1.0f + 479.0f / 1024.0f));
  EXPECT_EQ(t2[1], std::ldexp(1.0f + 248.0f / 1024.0f, -7));
}

TEST(TextureBlock, Bc6hSignedByHand) {
  BlockImage a("BPTC_RGB_FLOAT", bc6h_mode11_block(), 4, 4);
  // Signed: rx 1023 sign-extends to -1: ((1 << 15) + 0x4000) >> 9 = 96,
  // negated; -(96 * 31 >> 5) = -93 = half 0x805D (-93 x 2^-24). gx 512 is
  // -512, at least 2^9 - 1 in magnitude: -0x7FFF, -(0x7FFF * 31 >> 5) =
  // -0x7BFF = -65504.
  auto t1 = a.at(1, 0);
  EXPECT_EQ(t1[0], -std::ldexp(93.0f, -24));
  EXPECT_EQ(t1[1], -65504.0f);
  EXPECT_EQ(t1[2], 0.0f);
}

TEST(TextureBlock, ReservedBc6hModesDecodeToZero) {
  std::vector<uint8_t> block(16, 0xA5);
  block[0] = 0x13 | 0xA0;  // reserved code 10011
  BlockImage a("BPTC_RGB_UFLOAT", block, 4, 4);
  auto t = a.at(3, 3);
  EXPECT_EQ(t[0], 0.0f);
  EXPECT_EQ(t[1], 0.0f);
  EXPECT_EQ(t[2], 0.0f);
}

// The 4:2:2 classes: two pixels in 4 bytes sharing R and B, in the byte
// orders of Metal's gbgr422 (G0 B G1 R) and bgrg422 (B G0 R G1). Laid out as
// a 4-byte image half as wide (the layout unit's numbers for R32).
TEST(TextureBlock, Ycbcr422PairsShareRedAndBlue) {
  for (auto tiling : {layout::Tiling::twiddled, layout::Tiling::linear})
    for (format::Channels cls : {format::Channels::GBGR_422, format::Channels::BGRG_422}) {
      usc::RegionMemory mem;
      TestImage img = make_test_image(mem, 0x100000, format::Format::R32_UINT, tiling, Dim::d2,
                                      3, 2, 1, 1);  // 6x2 px: 3x2 pairs
      img.tex.channels = cls;
      img.tex.type = format::TextureType::Unorm;
      img.tex.width_px = 6;
      const bool gbgr = cls == format::Channels::GBGR_422;
      for (uint32_t y = 0; y < 2; ++y)
        for (uint32_t p = 0; p < 3; ++p) {
          const uint8_t r = uint8_t(200 + p + 10 * y), b = uint8_t(100 + p), g0 = uint8_t(2 * p),
                        g1 = uint8_t(2 * p + 1 + 50 * y);
          const uint8_t bytes[4] = {gbgr ? g0 : b, gbgr ? b : g0, gbgr ? g1 : r, gbgr ? r : g1};
          auto a = layout::element_address_B(img.layout, p, y, 0, 0);
          ASSERT_TRUE(a.ok());
          GpuFault fault;
          ASSERT_TRUE(mem.write(0x100000 + *a, bytes, 4, GpuUnit::host, &fault));
        }
      TextureUnit unit(mem, {});
      for (int y = 0; y < 2; ++y)
        for (int x = 0; x < 6; ++x) {
          FetchCoord c;
          c.x = x;
          c.y = y;
          auto t = unit.load(img.tex, SamplerView{}, c);
          ASSERT_TRUE(t.ok()) << t.error().message();
          const int p = x / 2;
          const int g = (x & 1) ? 2 * p + 1 + 50 * y : 2 * p;
          EXPECT_EQ(u2f(t->c[0]), float(200 + p + 10 * y) / 255.0f);
          EXPECT_EQ(u2f(t->c[1]), float(g) / 255.0f);
          EXPECT_EQ(u2f(t->c[2]), float(100 + p) / 255.0f);
          EXPECT_EQ(u2f(t->c[3]), 1.0f);
        }
      // The PBE cannot write them; mip chains and other types are refused.
      PbeWrite w;
      PbeView pbe = img.pbe;
      pbe.channels = cls;
      pbe.width_px = 6;
      EXPECT_FALSE(pbe_write(unit, pbe, w).ok());
      TextureView snorm = img.tex;
      snorm.type = format::TextureType::Snorm;
      EXPECT_FALSE(unit.load(snorm, SamplerView{}, FetchCoord{}).ok());
      TextureView mips = img.tex;
      mips.mipmapped = true;
      if (tiling != layout::Tiling::linear) {
        EXPECT_FALSE(unit.load(mips, SamplerView{}, FetchCoord{}).ok());
      }
    }
}

// A1R5G5B5 (inferred layout, see texture_format.cpp): A in bit 0, R, G, B in
// bits 1-5, 6-10, 11-15; read as R, G, B, A; the PBE writes the same bits.
TEST(TextureBlock, A1R5G5B5BitPositions) {
  usc::RegionMemory mem;
  TestImage img = make_test_image(mem, 0x100000, format::Format::R5G5B5A1_UNORM,
                                  layout::Tiling::linear, Dim::d2, 4, 1, 1, 1);
  img.tex.channels = img.pbe.channels = format::Channels::A1R5G5B5;
  const uint16_t word = uint16_t(1 | 31 << 1 | 0 << 6 | 16 << 11);
  GpuFault fault;
  ASSERT_TRUE(mem.write(0x100000, &word, 2, GpuUnit::host, &fault));
  TextureUnit unit(mem, {});
  auto t = unit.load(img.tex, SamplerView{}, FetchCoord{});
  ASSERT_TRUE(t.ok()) << t.error().message();
  EXPECT_EQ(u2f(t->c[0]), 1.0f);
  EXPECT_EQ(u2f(t->c[1]), 0.0f);
  EXPECT_EQ(u2f(t->c[2]), 16.0f / 31.0f);
  EXPECT_EQ(u2f(t->c[3]), 1.0f);
  PbeWrite w;
  w.x = 1;
  w.value = {f2u(0.0f), f2u(1.0f), f2u(0.0f), f2u(0.0f)};
  ASSERT_TRUE(pbe_write(unit, img.pbe, w).ok());
  w.x = 2;
  w.value = {f2u(0.0f), f2u(0.0f), f2u(0.0f), f2u(1.0f)};
  ASSERT_TRUE(pbe_write(unit, img.pbe, w).ok());
  uint16_t got[2];
  ASSERT_TRUE(mem.read(0x100002, got, 4, GpuUnit::host, &fault));
  EXPECT_EQ(got[0], uint16_t(31 << 6));
  EXPECT_EQ(got[1], uint16_t(1));
}

}  // namespace
}  // namespace agx::gpu::test
