// PVRTC1 words built by hand from the bit tables of the Khronos Data Format
// Specification ("PVRTC Compressed Texture Image Formats", KhronosGroup/
// DataFormat pvrtc.txt), decoded through texture_load; every expected texel
// is worked out in the comment beside it from the specification's
// formulas (bit replication to ARGB 4555, the bilinear upscale with weights
// (4 - xr)(4 - yr) or (8 - xr)(4 - yr), the 8-bit conversions C/2 + C/64,
// C + C/16 (4 bpp) and C/4 + C/128, C/2 + C/32 (2 bpp), the modulation
// floor((A (8 - w) + B w) / 8)). Debian has no PVRTC decoder to compare with
// (apt-cache search pvrtc / powervr finds none).
#include <gtest/gtest.h>

#include <cstring>

#include "gpu/texture/texture_internal.h"
#include "texture_helpers.h"

namespace agx::gpu::test {
namespace AGX_UNITY_ID {

// Colour B (bits 48..63) and colour A (bits 32..47, bit 32 is the flag M)
// as the specification's tables lay them out.
uint64_t opaque_b(unsigned r5, unsigned g5, unsigned b5) { return 0x8000 | r5 << 10 | g5 << 5 | b5; }
uint64_t translucent_b(unsigned a3, unsigned r4, unsigned g4, unsigned b4) {
  return a3 << 12 | r4 << 8 | g4 << 4 | b4;
}
uint64_t opaque_a(unsigned r5, unsigned g5, unsigned b4) {
  return 0x8000 | r5 << 10 | g5 << 5 | b4 << 1;
}
uint64_t translucent_a(unsigned a3, unsigned r4, unsigned g4, unsigned b3) {
  return a3 << 12 | r4 << 8 | g4 << 4 | b3 << 1;
}
uint64_t word(uint32_t mod, uint64_t a, bool m, uint64_t b) {
  return uint64_t(mod) | (a | (m ? 1 : 0)) << 32 | b << 48;
}

using Px = std::array<int, 4>;  // expected 8-bit R, G, B, A

// An image of PVRTC words; word (bx, by) at the layout unit's element
// address (our choice of block addressing, docs/texture.md).
struct PvrtcImage {
  usc::RegionMemory mem;
  TestImage img;
  std::unique_ptr<TextureUnit> unit;
  uint32_t bw, bh;
  PvrtcImage(const char* format, uint32_t w, uint32_t h) {
    img = make_test_image(mem, 0x100000, *format::find_format(format), layout::Tiling::twiddled,
                          Dim::d2, w, h, 1, 1);
    const auto& fi = format::info(img.layout.request.format);
    bw = fi.block_width_px;
    bh = fi.block_height_px;
    unit = std::make_unique<TextureUnit>(mem, TextureState{});
  }
  void set(uint32_t bx, uint32_t by, uint64_t w) {
    auto a = layout::element_address_B(img.layout, bx * bw, by * bh, 0, 0);
    ASSERT_TRUE(a.ok());
    GpuFault fault;
    ASSERT_TRUE(mem.write(0x100000 + *a, &w, 8, GpuUnit::host, &fault));
  }
  void fill(uint64_t w) {
    for (uint32_t by = 0; by * bh < img.tex.height_px; ++by)
      for (uint32_t bx = 0; bx * bw < img.tex.width_px; ++bx) set(bx, by, w);
  }
  std::array<float, 4> at(int x, int y) {
    return load_floats(*unit, img.tex, x, y);
  }
  void expect(int x, int y, Px want) {
    auto got = at(x, y);
    for (int k = 0; k < 4; ++k)
      EXPECT_EQ(got[k], float(want[k]) / 255.0f) << "pixel (" << x << "," << y << ") channel " << k;
  }
};

// Modulation data of a 4 bpp word with code `codes[t]` for pixel t = x + 4y.
uint32_t mod4(const std::array<unsigned, 16>& codes) {
  uint32_t m = 0;
  for (unsigned t = 0; t < 16; ++t) m |= codes[t] << (2 * t);
  return m;
}

TEST(TexturePvrtc, FourBppOpaqueStandardModulation) {
  // A opaque (31, 0, 0), B opaque (0, 0, 31); every word the same, so each
  // upscaled channel is c * 16: 31 -> 496 / 2 + 496 / 64 = 248 + 7 = 255,
  // alpha 15 * 16 = 240 + 240 / 16 = 255. Image A (255, 0, 0, 255), B (0, 0,
  // 255, 255). Pixel t has code t % 4: weights 0, 3, 5, 8.
  std::array<unsigned, 16> codes{};
  for (unsigned t = 0; t < 16; ++t) codes[t] = t % 4;
  PvrtcImage p("PVRTC1_RGBA_4BPP", 8, 8);
  p.fill(word(mod4(codes), opaque_a(31, 0, 0), false, opaque_b(0, 0, 31)));
  p.expect(0, 0, {255, 0, 0, 255});  // w 0: A
  p.expect(1, 0, {159, 0, 95, 255});  // w 3: 255 * 5 / 8 = 159.4, 255 * 3 / 8 = 95.6
  p.expect(2, 0, {95, 0, 159, 255});  // w 5
  p.expect(3, 0, {0, 0, 255, 255});   // w 8: B
  p.expect(5, 6, {159, 0, 95, 255});  // word (1, 1), pixel (1, 2): t = 9, code 1
}

TEST(TexturePvrtc, FourBppTranslucentPunchThrough) {
  // A translucent a3 5, r4 9, g4 3, b3 6: A4 = 5 << 1 = 10, R5 = 9 << 1 | 9 >> 3
  // = 19, G5 = 3 << 1 | 0 = 6, B5 = 6 << 2 | 6 >> 1 = 27. B translucent a3 2,
  // r4 15, g4 0, b4 8: A4 = 4, R5 = 31, G5 = 0, B5 = 16 | 1 = 17. Uniform: a
  // 5-bit c is 16c / 2 + 16c / 64 = 8c + c / 4; a 4-bit a is 17a. Image A =
  // (156, 49, 222, 170), B = (255, 0, 140, 68). M = 1: codes 0, 1, 2, 3
  // weigh 0, 4, 4 (alpha 0), 8.
  std::array<unsigned, 16> codes{};
  for (unsigned t = 0; t < 16; ++t) codes[t] = t % 4;
  PvrtcImage p("PVRTC1_RGBA_4BPP", 8, 8);
  p.fill(word(mod4(codes), translucent_a(5, 9, 3, 6), true, translucent_b(2, 15, 0, 8)));
  p.expect(0, 0, {156, 49, 222, 170});
  // (A + B) / 2: 411 / 2 = 205, 49 / 2 = 24, 362 / 2 = 181, 238 / 2 = 119.
  p.expect(1, 0, {205, 24, 181, 119});
  p.expect(2, 0, {205, 24, 181, 0});  // punch-through: alpha 0
  p.expect(3, 0, {255, 0, 140, 68});
}

TEST(TexturePvrtc, FourBppNeighboursAcrossEdgesAndWrap) {
  // 8x8: 2x2 words, modulation 0 (image A). Colour A red c(X, Y): c(0, 0) = 0,
  // c(1, 0) = 16, c(0, 1) = 8, c(1, 1) = 31 (opaque, G = B = 0).
  PvrtcImage p("PVRTC1_RGBA_4BPP", 8, 8);
  const unsigned red[2][2] = {{0, 16}, {8, 31}};  // [Y][X]
  for (uint32_t y = 0; y < 2; ++y)
    for (uint32_t x = 0; x < 2; ++x) p.set(x, y, word(0, opaque_a(red[y][x], 0, 0), false, 0));
  // (0, 0): XLow = floor(-2 / 4) = -1 -> 1 (wrap), xr = 2; YLow -> 1, yr = 2:
  // 4 (31 + 8 + 16 + 0) = 220 -> 110 + 3 = 113.
  p.expect(0, 0, {113, 0, 0, 255});
  p.expect(2, 2, {0, 0, 0, 255});  // xr = yr = 0: c(0, 0) alone
  // (3, 2): xr 1, yr 0: 0 * 3 * 4 + 16 * 1 * 4 = 64 -> 32 + 1 = 33.
  p.expect(3, 2, {33, 0, 0, 255});
  // (5, 3): xr 3, yr 1: 0 * 1 * 3 + 16 * 3 * 3 + 8 * 1 * 1 + 31 * 3 * 1 = 245
  // -> 122 + 3 = 125.
  p.expect(5, 3, {125, 0, 0, 255});
  // (7, 7): XLow = YLow = 1, xr = yr = 1; X + 1 and Y + 1 wrap to 0:
  // 31 * 9 + c(0, 1) 8 * 3 + c(1, 0) 16 * 3 + 0 = 351 -> 175 + 5 = 180.
  p.expect(7, 7, {180, 0, 0, 255});
  // (6, 1): XLow 1, xr 0; YLow -1 -> 1, yr 3: 31 * 4 * 1 + 16 * 4 * 3 = 316
  // -> 158 + 4 = 162.
  p.expect(6, 1, {162, 0, 0, 255});
}

TEST(TexturePvrtc, FourBppSrgbDecodesRgbAtTheEnd) {
  // As FourBppOpaqueStandardModulation, sRGB: R' = 159 -> EOTF(159 / 255).
  std::array<unsigned, 16> codes{};
  for (unsigned t = 0; t < 16; ++t) codes[t] = t % 4;
  PvrtcImage p("PVRTC1_SRGBA_4BPP", 8, 8);
  p.fill(word(mod4(codes), opaque_a(31, 0, 0), false, opaque_b(0, 0, 31)));
  auto eotf = [](double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); };
  auto t = p.at(1, 0);
  EXPECT_NEAR(t[0], eotf(159 / 255.0), 1e-6);
  EXPECT_NEAR(t[2], eotf(95 / 255.0), 1e-6);
  EXPECT_EQ(t[3], 1.0f);  // alpha linear
}

TEST(TexturePvrtc, TwoBppDirectModulation) {
  // M = 0: one bit per pixel, bit x + 8y: A or B. A opaque red (255, 0, 0,
  // 255); B translucent a3 3, g4 15: A4 = 6 -> 6 * 32 = 192 -> 192 / 2 +
  // 192 / 32 = 102; G5 = 31 -> 992 / 4 + 992 / 128 = 255. B = (0, 255, 0, 102).
  uint32_t mod = 0;
  for (unsigned y = 0; y < 4; ++y)
    for (unsigned x = 0; x < 8; ++x) mod |= uint32_t((x + y) & 1) << (y * 8 + x);
  PvrtcImage p("PVRTC1_RGBA_2BPP", 16, 8);
  p.fill(word(mod, opaque_a(31, 0, 0), false, translucent_b(3, 0, 15, 0)));
  p.expect(0, 0, {255, 0, 0, 255});
  p.expect(1, 0, {0, 255, 0, 102});
  p.expect(10, 5, {0, 255, 0, 102});  // word (1, 1), pixel (2, 1): bit 10 = (2 + 1) & 1 = 1
  p.expect(11, 5, {255, 0, 0, 255});  // pixel (3, 1): bit 11 = 0
}

// 2 bpp, M = 1: stored pixels k = 4y + x/2 ((x + y) even) with code k % 4
// (k = 0 is the single bit 1 -> code 3); colours black A, white B, so a
// pixel of weight w reads floor(255 w / 8).
uint32_t checkerboard_mod(bool bit0) {
  uint32_t m = (bit0 ? 1u : 0u) | 1u << 1;
  for (unsigned k = 1; k < 16; ++k) m |= (k % 4) << (2 * k);
  return m;
}

TEST(TexturePvrtc, TwoBppInterpolatedModulation) {
  PvrtcImage p("PVRTC1_RGBA_2BPP", 16, 8);
  p.fill(word(checkerboard_mod(false), opaque_a(0, 0, 0), true, opaque_b(31, 31, 31)));
  p.expect(0, 0, {255, 255, 255, 255});  // single bit 1: code 3, w 8
  p.expect(2, 0, {127, 127, 127, 255});  // k 1: code 1, w 4: 1020 / 8 = 127
  p.expect(4, 0, {127, 127, 127, 0});    // k 2: code 2, punch-through
  p.expect(6, 0, {255, 255, 255, 255});  // k 3
  // (1, 0): left (0, 0) 8, right (2, 0) 4, up (1, -1) = (1, 3) of the word
  // above (wrapped; k 12: 0), down (1, 1) k 4: 0: (8 + 4 + 0 + 0 + 2) / 4 = 3
  // -> 765 / 8 = 95.
  p.expect(1, 0, {95, 95, 95, 255});
  // (0, 1): left (7, 1) of the word to the left (wrapped; k 7: 8), right
  // (1, 1) 0, up (0, 0) 8, down (0, 2) k 8: 0: 18 / 4 = 4 -> 127.
  p.expect(0, 1, {127, 127, 127, 255});
  // (7, 0): left (6, 0) 8, right (0, 0) of the next word 8, up (7, 3) k 15:
  // 8, down (7, 1) 8: 34 / 4 = 8 -> 255.
  p.expect(7, 0, {255, 255, 255, 255});
  // (3, 2): neighbours k 9, 10 (code 2 weighs 4, not punched here), 5, 13:
  // all 4 -> 18 / 4 = 4 -> 127, alpha kept.
  p.expect(3, 2, {127, 127, 127, 255});
}

TEST(TexturePvrtc, TwoBppHorizontalAndVerticalInterpolation) {
  // Bit 0 = 1: bit 20 is flag F and bit 21 the single bit of (4, 2); k 10's
  // code 2 = 0b10 gives F = 0 (horizontal), (4, 2) = 1 (w 8).
  PvrtcImage h("PVRTC1_RGBA_2BPP", 16, 8);
  h.fill(word(checkerboard_mod(true), opaque_a(0, 0, 0), true, opaque_b(31, 31, 31)));
  h.expect(1, 0, {191, 191, 191, 255});  // (8 + 4 + 1) / 2 = 6: 1530 / 8 = 191
  h.expect(3, 2, {191, 191, 191, 255});  // (4 + 8 + 1) / 2 = 6
  h.expect(4, 2, {255, 255, 255, 255});  // single bit: w 8, never punched
  // F = 1 (bit 20 set): vertical.
  PvrtcImage v("PVRTC1_RGBA_2BPP", 16, 8);
  v.fill(word(checkerboard_mod(true) | 1u << 20, opaque_a(0, 0, 0), true, opaque_b(31, 31, 31)));
  v.expect(1, 0, {0, 0, 0, 255});        // up (1, 3) 0, down (1, 1) 0: (0 + 1) / 2 = 0
  v.expect(3, 2, {127, 127, 127, 255});  // (4 + 4 + 1) / 2 = 4
  v.expect(0, 1, {127, 127, 127, 255});  // (8 + 0 + 1) / 2 = 4
}

TEST(TexturePvrtc, TwoBppNeighboursAcrossEdgesAndWrap) {
  // 16x8: 2x2 words of 8x4, image A red as in the 4 bpp case; samples at
  // (8X + 4, 4Y + 2), weights (8 - xr)(4 - yr), 8-bit C / 4 + C / 128.
  PvrtcImage p("PVRTC1_RGBA_2BPP", 16, 8);
  const unsigned red[2][2] = {{0, 16}, {8, 31}};
  for (uint32_t y = 0; y < 2; ++y)
    for (uint32_t x = 0; x < 2; ++x) p.set(x, y, word(0, opaque_a(red[y][x], 0, 0), false, 0));
  // (0, 0): XLow -1 -> 1, xr 4; YLow -1 -> 1, yr 2: 8 (31 + 8 + 16 + 0) = 440
  // -> 110 + 3 = 113.
  p.expect(0, 0, {113, 0, 0, 255});
  p.expect(4, 2, {0, 0, 0, 255});
  // (9, 3): xr 5, yr 1: 16 * 5 * 3 + 8 * 3 * 1 + 31 * 5 * 1 = 419 -> 104 + 3.
  p.expect(9, 3, {107, 0, 0, 255});
  // (15, 7): XLow = YLow = 1, xr 3, yr 1: 31 * 5 * 3 + 8 * 3 * 3 + 16 * 5 * 1
  // = 617 -> 154 + 4 = 158.
  p.expect(15, 7, {158, 0, 0, 255});
}

TEST(TexturePvrtc, SmallLevelsAreOneWordAndFilteringWorks) {
  // A 2x2 image is one 4x4 word (its upper-left texels); all neighbours are
  // itself. A bilinear sample between two texels blends their values.
  std::array<unsigned, 16> codes{};
  for (unsigned t = 0; t < 16; ++t) codes[t] = t % 4;
  PvrtcImage p("PVRTC1_RGBA_4BPP", 2, 2);
  p.set(0, 0, word(mod4(codes), opaque_a(31, 0, 0), false, opaque_b(0, 0, 31)));
  p.expect(0, 0, {255, 0, 0, 255});
  p.expect(1, 1, {159, 0, 95, 255});  // t = 5: code 1
  SamplerView lin;
  lin.magnify = lin.minify = Filter::linear;
  SampleRequest r;
  r.coord = {0.5f, 0.25f, 0.0f};  // u = 0.5: texels 0 and 1 of row 0, half each
  auto t = p.unit->sample(p.img.tex, lin, r);
  ASSERT_TRUE(t.ok()) << t.error().message();
  EXPECT_NEAR(u2f(t->c[0]), (255 + 159) / 2 / 255.0f, 1e-6);
}

TEST(TexturePvrtc, RandomWordsDecodeOnEveryLevel) {
  // A full mip chain of random words (levels down to 1x1, smaller than a
  // word), both bpp: every texel of every level decodes, within [0, 1]
  // (run under valgrind too: no read outside the image).
  for (const char* name : {"PVRTC1_RGBA_2BPP", "PVRTC1_SRGBA_4BPP"}) {
    SCOPED_TRACE(name);
    usc::RegionMemory mem;
    TestImage img = make_test_image(mem, 0x100000, *format::find_format(name),
                                    layout::Tiling::twiddled, Dim::d2, 32, 16, 1, 6);
    std::vector<uint8_t> bytes(img.layout.size_B);
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (auto& b : bytes) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      b = uint8_t(x);
    }
    GpuFault fault;
    ASSERT_TRUE(mem.write(0x100000, bytes.data(), bytes.size(), GpuUnit::host, &fault));
    TextureUnit unit(mem, TextureState{});
    for (uint32_t level = 0; level < img.layout.levels; ++level)
      for (uint32_t py = 0; py < img.layout.level_height_px(level); ++py)
        for (uint32_t px = 0; px < img.layout.level_width_px(level); ++px) {
          FetchCoord c;
          c.x = int32_t(px);
          c.y = int32_t(py);
          c.lod = int32_t(level);
          auto t = unit.load(img.tex, SamplerView{}, c);
          ASSERT_TRUE(t.ok()) << t.error().message();
          for (int k = 0; k < 4; ++k) {
            EXPECT_GE(u2f(t->c[k]), 0.0f);
            EXPECT_LE(u2f(t->c[k]), 1.0f);
          }
        }
  }
}

TEST(TexturePvrtc, NonPowerOfTwoSizesAreRefused) {
  PvrtcImage p("PVRTC1_RGBA_4BPP", 8, 8);
  p.img.tex.width_px = 12;
  FetchCoord c;
  auto t = p.unit->load(p.img.tex, SamplerView{}, c);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().kind(), ErrorKind::unsupported);
  EXPECT_NE(t.error().message().find("power-of-two"), std::string::npos) << t.error().message();
}

TEST(TexturePvrtc, ReflectedMortonWordIndex) {
  // The specification's example: a 16x4-word image, W(13, 2) = 54.
  EXPECT_EQ(internal::pvrtc_word_index(13, 2, 16, 4), 54u);
  // Y takes the lower bit of each pair: W(0, 1) = 1, W(1, 0) = 2.
  EXPECT_EQ(internal::pvrtc_word_index(0, 1, 4, 4), 1u);
  EXPECT_EQ(internal::pvrtc_word_index(1, 0, 4, 4), 2u);
  // Taller than wide: the rest of Y above the pairs: 2x8 words, (1, 5):
  // pair X0 Y0 = 1 1 -> 3, then Y >> 1 = 2 at bit 2: 8 + 3 = 11.
  EXPECT_EQ(internal::pvrtc_word_index(1, 5, 2, 8), 11u);
  EXPECT_EQ(internal::pvrtc_wrap(-1, 4), 3u);
  EXPECT_EQ(internal::pvrtc_wrap(4, 4), 0u);
}

}  // namespace
}  // namespace agx::gpu::test
