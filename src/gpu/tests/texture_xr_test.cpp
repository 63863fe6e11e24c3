// Texture Type XR (extended range): PBE writes then texture_load, against
// Apple's public Metal documentation of bgr10_xr / bgra10_xr (and _srgb):
// shader value = (code - 384) / 510; 32-bit B, G, R in bits 0-9, 10-19,
// 20-29 (30-31 zero); 64-bit: each code in bits 6-15 of its 16-bit lane;
// alpha clamped to [0, 1]; sRGB forms apply the transfer after the linear
// encoding, mirrored for negative values (Apple's -0.5271 .. 1.66894).
// Every expected value is computed here from that formula.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "texture_helpers.h"

namespace agx::gpu::test {
namespace AGX_UNITY_ID {

float xr(int code) { return float(double(code - 384) / 510.0); }  // Apple's formula

double eotf(double v) {  // sRGB EOTF with the sign mirrored
  const double a = std::fabs(v);
  return std::copysign(a <= 0.04045 ? a / 12.92 : std::pow((a + 0.055) / 1.055, 2.4), v);
}

struct XrImage {
  usc::RegionMemory mem;
  TestImage img;
  std::unique_ptr<TextureUnit> unit;
  explicit XrImage(const char* format, layout::Tiling tiling = layout::Tiling::linear) {
    img = make_test_image(mem, 0x100000, *format::find_format(format), tiling, Dim::d2, 4, 4, 1, 1);
    unit = std::make_unique<TextureUnit>(mem, TextureState{});
  }
  void write(int x, int y, std::array<float, 4> v, Rounding r = Rounding::nearest_even) {
    PbeWrite wr;
    for (int k = 0; k < 4; ++k) wr.value[k] = f2u(v[k]);
    wr.x = x;
    wr.y = y;
    auto st = pbe_write(*unit, img.pbe, wr, r);
    ASSERT_TRUE(st.ok()) << st.error().message();
  }
  uint64_t stored(int x, int y) {
    auto a = layout::element_address_B(img.layout, uint32_t(x), uint32_t(y), 0, 0);
    EXPECT_TRUE(a.ok());
    uint64_t v = 0;
    std::memcpy(&v, region(mem, 0x100000) + *a, format::info(img.layout.request.format).bytes_per_block_B);
    return v;
  }
  void poke(int x, int y, uint64_t v) {
    auto a = layout::element_address_B(img.layout, uint32_t(x), uint32_t(y), 0, 0);
    ASSERT_TRUE(a.ok());
    GpuFault fault;
    ASSERT_TRUE(mem.write(0x100000 + *a, &v, format::info(img.layout.request.format).bytes_per_block_B,
                          GpuUnit::host, &fault));
  }
  std::array<float, 4> load(int x, int y) {
    return load_floats(*unit, img.tex, x, y);
  }
};

TEST(TextureXr, Packed32BitRoundTrips) {
  // Codes: 0 -> -384 / 510 = -0.752941, 384 -> 0, 385 -> 1 / 510, 639 ->
  // 255 / 510 = 0.5, 894 -> 510 / 510 = 1, 1023 -> 639 / 510 = 1.252941.
  for (layout::Tiling tiling : {layout::Tiling::linear, layout::Tiling::twiddled}) {
    XrImage im("B10G10R10_XR", tiling);
    const int codes[][3] = {{0, 384, 1023}, {385, 639, 894}, {1023, 0, 384}, {894, 894, 0}};
    for (int i = 0; i < 4; ++i) {
      const auto& c = codes[i];
      im.write(i, 1, {xr(c[0]), xr(c[1]), xr(c[2]), 0.25f});
      // Memory channel 0 in bits 0-9, 1 in 10-19, 2 in 20-29; bits 30-31 0.
      EXPECT_EQ(im.stored(i, 1), uint64_t(c[0] | c[1] << 10 | c[2] << 20)) << i;
      auto t = im.load(i, 1);
      for (int k = 0; k < 3; ++k) EXPECT_EQ(t[k], xr(c[k])) << i << " " << k;
      EXPECT_EQ(t[3], 1.0f);  // no alpha: reads 1
    }
  }
  // The constants against Apple's quoted numbers: code 0 is -0.752941, code
  // 1022 the quoted top 1.25098 (= 319 / 255); 1023 is one code above it.
  EXPECT_NEAR(xr(0), -0.752941, 1e-6);
  EXPECT_NEAR(xr(1022), 1.25098, 1e-5);
}

TEST(TextureXr, ClampRoundAndNaN) {
  XrImage im("B10G10R10_XR");
  // 2.0 clamps to 1023, -1.0 to 0, NaN stores 0.0 (384).
  im.write(0, 0, {2.0f, -1.0f, std::nanf(""), 0.0f});
  EXPECT_EQ(im.stored(0, 0), uint64_t(1023 | 0 << 10 | 384 << 20));
  // Round to nearest: 1.4 / 510 -> 384 + 1 = 385; 1.6 / 510 -> 386;
  // -1.6 / 510 -> 382.
  im.write(1, 0, {1.4f / 510, 1.6f / 510, -1.6f / 510, 0.0f});
  EXPECT_EQ(im.stored(1, 0), uint64_t(385 | 386 << 10 | 382 << 20));
  // Toward zero: 1.6 / 510 -> 385, -1.6 / 510 -> 383.
  im.write(2, 0, {1.6f / 510, -1.6f / 510, 0.0f, 0.0f}, Rounding::toward_zero);
  EXPECT_EQ(im.stored(2, 0), uint64_t(385 | 383 << 10 | 384 << 20));
}

TEST(TextureXr, SixtyFourBitLanesAndClampedAlpha) {
  XrImage im("B10G10R10A10_XR", layout::Tiling::twiddled);
  // Codes in bits 6-15 of each lane, bits 0-5 zero.
  const int c[4] = {0, 384, 1023, 639};
  im.write(0, 0, {xr(c[0]), xr(c[1]), xr(c[2]), xr(c[3])});
  uint64_t want = 0;
  for (int k = 0; k < 4; ++k) want |= uint64_t(c[k]) << (16 * k + 6);
  EXPECT_EQ(im.stored(0, 0), want);
  auto t = im.load(0, 0);
  for (int k = 0; k < 4; ++k) EXPECT_EQ(t[k], xr(c[k])) << k;
  // Alpha clamps to [0, 1] written (-0.5 -> 0.0 = code 384; 1.2 -> 1.0 =
  // 894) and read (a stored 1023 reads 1.0, a stored 0 reads 0.0).
  im.write(1, 0, {0.0f, 0.0f, 0.0f, -0.5f});
  EXPECT_EQ(im.stored(1, 0) >> 54, 384u);
  im.write(2, 0, {0.0f, 0.0f, 0.0f, 1.2f});
  EXPECT_EQ(im.stored(2, 0) >> 54, 894u);
  im.poke(3, 0, uint64_t(1023) << 54 | uint64_t(1023) << 6);
  EXPECT_EQ(im.load(3, 0)[3], 1.0f);
  EXPECT_EQ(im.load(3, 0)[0], xr(1023));  // colour channels are not clamped
  im.poke(3, 1, 0);
  EXPECT_EQ(im.load(3, 1)[3], 0.0f);
  EXPECT_EQ(im.load(3, 1)[0], xr(0));
  // The padding bits are ignored when read.
  im.poke(2, 1, uint64_t(894) << 6 | 0x3F);
  EXPECT_EQ(im.load(2, 1)[0], 1.0f);
}

TEST(TextureXr, SrgbMirrorsTheTransfer) {
  // Linear = sign(v) EOTF(|v|) of v = (code - 384) / 510: code 0 -> -0.5271,
  // 1022 -> 1.66894 (Apple's quoted range), 894 -> 1, 384 -> 0.
  XrImage im("B10G10R10_XR_SRGB");
  EXPECT_NEAR(eotf(xr(0)), -0.5271, 1e-4);
  EXPECT_NEAR(eotf(xr(1022)), 1.66894, 1e-5);
  const int codes[] = {0, 100, 383, 384, 385, 500, 894, 1022, 1023};
  int x = 0, y = 0;
  for (int code : codes) {
    const float lin = float(eotf(double(code - 384) / 510.0));
    im.write(x, y, {lin, lin, lin, 0.0f});
    EXPECT_EQ(im.stored(x, y), uint64_t(code | code << 10 | code << 20)) << code;
    auto t = im.load(x, y);
    EXPECT_NEAR(t[0], lin, 1e-6 * std::max(1.0f, std::fabs(lin))) << code;
    EXPECT_EQ(t[3], 1.0f);
    if (++x == 4) x = 0, ++y;
  }
  // The 64-bit sRGB form leaves alpha linear.
  XrImage a("B10G10R10A10_XR_SRGB");
  a.write(0, 0, {0.0f, 0.0f, 0.0f, 0.5f});
  EXPECT_EQ(a.stored(0, 0) >> 54, 639u);  // 384 + 255
  EXPECT_EQ(a.load(0, 0)[3], 0.5f);
}

TEST(TextureXr, OtherClassesAreRefusedNamingXr) {
  XrImage im("B10G10R10_XR");
  im.img.tex.channels = format::Channels::R8G8B8A8;
  auto t = im.unit->load(im.img.tex, SamplerView{}, FetchCoord{});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().kind(), ErrorKind::unsupported);
  EXPECT_NE(t.error().message().find("XR"), std::string::npos) << t.error().message();
  EXPECT_NE(t.error().message().find("R8G8B8A8"), std::string::npos) << t.error().message();
}

TEST(TextureXr, BilinearFilteringIsInTheShaderRange) {
  // Texels -0.752941 (code 0) and 1.252941 (1023) blend to their mean.
  XrImage im("B10G10R10_XR");
  im.write(0, 0, {xr(0), 0.0f, 0.0f, 0.0f});
  im.write(1, 0, {xr(1023), 0.0f, 0.0f, 0.0f});
  SamplerView lin;
  lin.magnify = lin.minify = Filter::linear;
  SampleRequest r;
  r.coord = {0.25f, 0.125f, 0.0f};  // u = 0.5: texels 0 and 1 of row 0
  auto t = im.unit->sample(im.img.tex, lin, r);
  ASSERT_TRUE(t.ok()) << t.error().message();
  EXPECT_NEAR(u2f(t->c[0]), (xr(0) + xr(1023)) / 2, 1e-6);
}

}  // namespace
}  // namespace agx::gpu::test
