// Every texturable format of the format unit, in every layout, over levels,
// layers and samples: a value written through the PBE lands in memory at
// the layout unit's address with the bits computed here from the class
// name, and reads back through texture_load as the Vulkan conversion rules
// say. Expected values are computed independently of the texture unit.
#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
#include <string>

#include "texture_helpers.h"
#include "util/half.h"

namespace agx::gpu::test {
namespace AGX_UNITY_ID {

using format::TextureType;

// Channel widths, least significant first, from the Channels class name
// ("R5G6B5" -> 5, 6, 5; "R9G9B9E5" -> 9, 9, 9, 5).
std::vector<unsigned> widths_from_name(const std::string& name) {
  std::vector<unsigned> w;
  for (size_t i = 0; i < name.size() && name[i] != '_';) {
    if (std::isalpha(static_cast<unsigned char>(name[i]))) {
      size_t j = i + 1;
      unsigned v = 0;
      while (j < name.size() && std::isdigit(static_cast<unsigned char>(name[j])))
        v = v * 10 + unsigned(name[j++] - '0');
      if (v) w.push_back(v);
      i = j;
    } else {
      ++i;
    }
  }
  return w;
}

uint32_t hash(uint32_t a) {
  a ^= a >> 16;
  a *= 0x7feb352dU;
  a ^= a >> 15;
  a *= 0x846ca68bU;
  a ^= a >> 16;
  return a;
}

double srgb_decode(double c) {
  return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}

float ufloat(uint32_t bits, unsigned mbits) {
  uint32_t e = bits >> mbits, m = bits & ((1u << mbits) - 1);
  if (e == 0) return float(std::ldexp(double(m), -14 - int(mbits)));
  return float(std::ldexp(1.0 + double(m) / double(1u << mbits), int(e) - 15));
}

// One channel's stored bits and the value written / read back.
struct ChannelCase {
  uint32_t raw = 0;      // stored bits
  uint32_t written = 0;  // source component (float or integer bits)
  uint32_t read = 0;     // texture_load result (float or integer bits)
};

// A test texel for (format, seed): stored bits per memory channel and the
// matching values, or false when the class is special (RGB9E5).
std::vector<ChannelCase> texel_case(const format::FormatInfo& fi, const std::vector<unsigned>& w,
                                    uint32_t seed) {
  std::vector<ChannelCase> out;
  const bool rg11b10 = std::string(format::channels_info(fi.channels)->name) == "R11G11B10";
  for (size_t k = 0; k < w.size(); ++k) {
    const unsigned b = w[k];
    const uint32_t h = hash(seed * 4 + uint32_t(k) + 1);
    const uint32_t max = b == 32 ? 0xFFFFFFFFu : (1u << b) - 1;
    ChannelCase c;
    if (rg11b10) {
      const unsigned mb = b == 11 ? 6 : 5;
      const uint32_t e = 1 + h % 29, m = (h >> 8) & ((1u << mb) - 1);
      c.raw = e << mb | m;
      c.written = c.read = f2u(ufloat(c.raw, mb));
    } else if (fi.type == TextureType::Unorm) {
      c.raw = h & max;
      const bool srgb = fi.srgb && k < 3;
      if (srgb) {
        c.written = c.read = f2u(float(srgb_decode(double(c.raw) / 255.0)));
      } else {
        c.written = c.read = f2u(float(c.raw) / float(max));
      }
    } else if (fi.type == TextureType::Snorm) {
      const int32_t smax = int32_t((1u << (b - 1)) - 1);
      const int32_t v = int32_t(h % uint32_t(2 * smax + 1)) - smax;
      c.raw = uint32_t(v) & max;
      c.written = c.read = f2u(float(v) / float(smax));
    } else if (fi.type == TextureType::Float && b == 16) {
      // A finite half: exponent 1..30.
      c.raw = ((h & 0x8000) | ((1 + h % 30) << 10) | ((h >> 12) & 0x3FF)) & 0xFFFF;
      c.written = c.read = f2u(half_to_float(uint16_t(c.raw)));
    } else if (fi.type == TextureType::Float) {
      c.raw = (h & 0x807FFFFF) | ((1 + h % 250) << 23);
      c.written = c.read = c.raw;
    } else if (fi.type == TextureType::Uint) {
      c.raw = h & max;
      c.written = c.read = c.raw;
    } else {  // Sint
      c.raw = h & max;
      const int32_t v = b == 32 ? int32_t(c.raw) : int32_t(c.raw << (32 - b)) >> (32 - b);
      c.written = c.read = uint32_t(v);
    }
    out.push_back(c);
  }
  return out;
}

bool roundtrip_format(const format::FormatInfo& fi) {
  if (fi.block_compressed || fi.lowered) return false;
  if (fi.type == TextureType::XR) return false;  // texture_xr_test.cpp
  const std::string cls = format::channels_info(fi.channels)->name;
  return cls != "R9G9B9E5" && cls != "R32G32B32_EMULATED";
}

struct LayoutCase {
  layout::Tiling tiling;
  Dim dim;
  uint32_t layers, levels, samples;
};

void run_roundtrip(const format::FormatInfo& fi, const LayoutCase& lc) {
  SCOPED_TRACE(testing::Message() << fi.name << " " << layout::to_string(lc.tiling) << " "
                                  << to_string(lc.dim) << " layers " << lc.layers << " levels "
                                  << lc.levels << " samples " << lc.samples);
  usc::RegionMemory mem;
  const GpuVa va = 0x100000;
  TestImage img = make_test_image(mem, va, fi.format, lc.tiling, lc.dim, 13, 7, lc.layers,
                                  lc.levels, lc.samples);
  TextureUnit unit(mem, {});
  const std::string cls = format::channels_info(fi.channels)->name;
  const auto widths = widths_from_name(cls);
  const unsigned bpp = format::channels_info(fi.channels)->bytes_B;
  SamplerView txf;  // Mesa's txf sampler: clamp to a transparent black border
  txf.wrap = {Wrap::clamp_to_border, Wrap::clamp_to_border, Wrap::clamp_to_border};
  txf.mip = MipFilter::nearest;

  auto seed_of = [&](uint32_t x, uint32_t y, uint32_t layer, uint32_t level, uint32_t s) {
    return (((level * 16 + layer) * 16 + y) * 16 + x) * 4 + s;
  };
  // Write every texel of every level, layer and sample.
  for (uint32_t level = 0; level < img.layout.levels; ++level) {
    img.pbe.level = level;
    for (uint32_t layer = 0; layer < lc.layers; ++layer)
      for (uint32_t y = 0; y < img.layout.level_height_px(level); ++y)
        for (uint32_t x = 0; x < img.layout.level_width_px(level); ++x)
          for (uint32_t s = 0; s < lc.samples; ++s) {
            auto cs = texel_case(fi, widths, seed_of(x, y, layer, level, s));
            PbeWrite wr;
            for (size_t k = 0; k < cs.size(); ++k) wr.value[k] = cs[k].written;
            wr.x = int32_t(x);
            wr.y = int32_t(y);
            wr.layer = layer;
            wr.sample = s;
            auto st = pbe_write(unit, img.pbe, wr);
            ASSERT_TRUE(st.ok()) << st.error().message();
          }
  }
  // Memory holds the packed bits at the layout unit's addresses, and
  // texture_load returns the values.
  const uint8_t* bytes = region(mem, va);
  for (uint32_t level = 0; level < img.layout.levels; ++level)
    for (uint32_t layer = 0; layer < lc.layers; ++layer)
      for (uint32_t y = 0; y < img.layout.level_height_px(level); ++y)
        for (uint32_t x = 0; x < img.layout.level_width_px(level); ++x)
          for (uint32_t s = 0; s < lc.samples; ++s) {
            auto cs = texel_case(fi, widths, seed_of(x, y, layer, level, s));
            auto addr = layout::element_address_B(img.layout, x, y, layer, level, s);
            ASSERT_TRUE(addr.ok()) << addr.error().message();
            unsigned __int128 stored = 0, want = 0;
            std::memcpy(&stored, bytes + *addr, bpp);
            unsigned shift = 0;
            for (size_t k = 0; k < cs.size(); ++k) {
              want |= (unsigned __int128)cs[k].raw << shift;
              shift += widths[k];
            }
            ASSERT_TRUE(stored == want) << "texel (" << x << "," << y << ") layer " << layer
                                        << " level " << level << " sample " << s;
            FetchCoord at;
            at.x = int32_t(x);
            at.y = int32_t(y);
            if (lc.dim == Dim::d3) at.z = int32_t(layer);
            else at.layer = layer;
            at.lod = int32_t(level);
            at.sample = s;
            auto t = unit.load(img.tex, txf, at);
            ASSERT_TRUE(t.ok()) << t.error().message();
            for (size_t k = 0; k < cs.size(); ++k)
              ASSERT_EQ(t->c[k], cs[k].read) << "channel " << k << " of (" << x << "," << y
                                             << ") layer " << layer << " level " << level;
          }
}

TEST(PbeRoundtrip, EveryFormatEveryLayoutLevelsAndLayers) {
  const LayoutCase cases[] = {
      {layout::Tiling::linear, Dim::d2, 1, 1, 1},
      {layout::Tiling::linear, Dim::d2_array, 2, 1, 1},
      {layout::Tiling::gpu, Dim::d2_array, 3, 3, 1},
      {layout::Tiling::twiddled, Dim::d2_array, 2, 3, 1},
  };
  unsigned formats = 0;
  for (const format::FormatInfo& fi : format::all_formats()) {
    if (!roundtrip_format(fi)) continue;
    ++formats;
    for (const LayoutCase& lc : cases) {
      run_roundtrip(fi, lc);
      if (HasFatalFailure()) return;
    }
  }
  EXPECT_EQ(formats, 136u);  // 219 less block-compressed, lowered, RGB9E5, RGB32, XR
}

TEST(PbeRoundtrip, MultisampledAnd3D) {
  for (const char* name : {"R8G8B8A8_UNORM", "R16G16_FLOAT", "R32_UINT", "R10G10B10A2_UNORM"}) {
    const format::FormatInfo& fi = format::info(*format::find_format(name));
    run_roundtrip(fi, {layout::Tiling::twiddled, Dim::d2_ms_array, 2, 1, 4});
    run_roundtrip(fi, {layout::Tiling::gpu, Dim::d2_ms, 1, 1, 2});
    run_roundtrip(fi, {layout::Tiling::twiddled, Dim::d3, 4, 1, 1});
    if (HasFatalFailure()) return;
  }
}

// RGB9E5: the canonical encoding (largest mantissa >= 256) round-trips.
TEST(PbeRoundtrip, SharedExponent) {
  usc::RegionMemory mem;
  TestImage img = make_test_image(mem, 0x10000, *format::find_format("R9G9B9E5_FLOAT"),
                                  layout::Tiling::twiddled, Dim::d2, 4, 4, 1, 1);
  TextureUnit unit(mem, {});
  for (uint32_t e = 1; e < 31; e += 3) {
    const uint32_t m0 = 256 + e * 7, m1 = e * 13, m2 = 511 - e;
    const uint32_t word = e << 27 | m2 << 18 | m1 << 9 | m0;
    PbeWrite wr;
    for (int k = 0; k < 3; ++k) {
      const uint32_t m = (word >> (9 * k)) & 511;
      wr.value[k] = f2u(float(std::ldexp(double(m), int(e) - 24)));
    }
    ASSERT_TRUE(pbe_write(unit, img.pbe, wr).ok());
    uint32_t stored;
    std::memcpy(&stored, region(mem, 0x10000), 4);
    EXPECT_EQ(stored, word) << "exponent " << e;
    auto t = unit.load(img.tex, SamplerView{}, FetchCoord{});
    ASSERT_TRUE(t.ok());
    for (int k = 0; k < 3; ++k) EXPECT_EQ(t->c[k], wr.value[k]);
  }
}

// Normalized rounding and clamping, sRGB encode (Vulkan "Fixed-Point Data
// Conversions": round to nearest; values clamp to the representable range).
TEST(PbeRoundtrip, ConversionRoundingAndClamping) {
  usc::RegionMemory mem;
  TestImage u8 = make_test_image(mem, 0x10000, *format::find_format("R8G8B8A8_UNORM"),
                                 layout::Tiling::linear, Dim::d2, 4, 1, 1, 1);
  TestImage s8 = make_test_image(mem, 0x20000, *format::find_format("R8G8B8A8_SNORM"),
                                 layout::Tiling::linear, Dim::d2, 4, 1, 1, 1);
  TestImage srgb = make_test_image(mem, 0x30000, *format::find_format("R8G8B8A8_SRGB"),
                                   layout::Tiling::linear, Dim::d2, 4, 1, 1, 1);
  TextureUnit unit(mem, {});
  PbeWrite wr;
  wr.value = {f2u(0.5f), f2u(-3.0f), f2u(7.0f), f2u(100.4f / 255.0f)};
  ASSERT_TRUE(pbe_write(unit, u8.pbe, wr).ok());
  const uint8_t* b = region(mem, 0x10000);
  EXPECT_EQ(b[0], 128);  // 127.5 rounds to even 128
  EXPECT_EQ(b[1], 0);
  EXPECT_EQ(b[2], 255);
  EXPECT_EQ(b[3], 100);
  wr.value = {f2u(-1.5f), f2u(0.5f), f2u(-0.25f), f2u(std::nanf(""))};
  ASSERT_TRUE(pbe_write(unit, s8.pbe, wr).ok());
  b = region(mem, 0x20000);
  EXPECT_EQ(int8_t(b[0]), -127);
  EXPECT_EQ(int8_t(b[1]), 64);   // 63.5 -> 64 (even)
  EXPECT_EQ(int8_t(b[2]), -32);  // -31.75 -> -32
  EXPECT_EQ(int8_t(b[3]), 0);
  // sRGB: 0.5 linear is 0.735357 encoded -> 187.5 -> 188; alpha stays linear.
  wr.value = {f2u(0.5f), f2u(0.0031308f), f2u(1.0f), f2u(0.5f)};
  ASSERT_TRUE(pbe_write(unit, srgb.pbe, wr).ok());
  b = region(mem, 0x30000);
  EXPECT_EQ(b[0], 188);
  EXPECT_EQ(b[1], 10);  // 0.0031308 * 12.92 * 255 = 10.31
  EXPECT_EQ(b[2], 255);
  EXPECT_EQ(b[3], 128);
  // Round toward zero (image_write's rtz).
  wr.value = {f2u(0.5f), f2u(0.999f), f2u(0.0f), f2u(1.0f)};
  ASSERT_TRUE(pbe_write(unit, u8.pbe, wr, Rounding::toward_zero).ok());
  b = region(mem, 0x10000);
  EXPECT_EQ(b[0], 127);
  EXPECT_EQ(b[1], 254);
}

// The PBE swizzle: memory channel k takes source component swizzle[k]
// (Mesa pack_pbe: B8G8R8A8 stores B in byte 0).
TEST(PbeRoundtrip, SwizzleAndOutOfRangeWritesDropped) {
  usc::RegionMemory mem;
  TestImage img = make_test_image(mem, 0x10000, *format::find_format("B8G8R8A8_UNORM"),
                                  layout::Tiling::twiddled, Dim::d2, 8, 8, 1, 1);
  img.pbe.swizzle = {2, 1, 0, 3};
  TextureUnit unit(mem, {});
  PbeWrite wr;
  wr.value = {f2u(1.0f), f2u(0.0f), f2u(0.2f), f2u(0.6f)};
  ASSERT_TRUE(pbe_write(unit, img.pbe, wr).ok());
  const uint8_t* b = region(mem, 0x10000);
  EXPECT_EQ(b[0], 51);
  EXPECT_EQ(b[1], 0);
  EXPECT_EQ(b[2], 255);
  EXPECT_EQ(b[3], 153);
  // Out of range: nothing changes, no error.
  std::vector<uint8_t> before(region(mem, 0x10000), region(mem, 0x10000) + img.layout.size_B);
  for (auto [x, y] : {std::pair{8, 0}, {0, 8}, {-1, 0}, {0, -5}}) {
    wr.x = x;
    wr.y = y;
    ASSERT_TRUE(pbe_write(unit, img.pbe, wr).ok());
  }
  EXPECT_TRUE(std::equal(before.begin(), before.end(), region(mem, 0x10000)));
}

// "Flip vertical" writes row y to row height - 1 - y.
TEST(PbeRoundtrip, FlipVertical) {
  usc::RegionMemory mem;
  TestImage img = make_test_image(mem, 0x10000, *format::find_format("R32_UINT"),
                                  layout::Tiling::linear, Dim::d2, 4, 3, 1, 1);
  img.pbe.flip_vertical = true;
  TextureUnit unit(mem, {});
  PbeWrite wr;
  wr.value = {77, 0, 0, 0};
  wr.x = 1;
  wr.y = 0;
  ASSERT_TRUE(pbe_write(unit, img.pbe, wr).ok());
  FetchCoord at;
  at.x = 1;
  at.y = 2;
  auto t = unit.load(img.tex, SamplerView{}, at);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->c[0], 77u);
}

// A write whose image is not mapped is a fault naming the address.
TEST(PbeRoundtrip, UnmappedImageFaults) {
  usc::RegionMemory mem;
  TextureUnit unit(mem, {});
  PbeView p;
  p.layout = ImageLayout::twiddled;
  p.width_px = 16;
  p.height_px = 16;
  p.buffer = 0x500000;
  auto st = pbe_write(unit, p, PbeWrite{});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().kind(), ErrorKind::fault);
  EXPECT_NE(st.error().message().find("500000"), std::string::npos) << st.error().message();
}

}  // namespace
}  // namespace agx::gpu::test
