// image_write_block: tiles of local pixel storage stored through a PBE
// descriptor. Hand-assembled programs fill threadgroup memory and run the
// instruction with TextureHook attached; the direct API (pbe_write_block)
// covers render-target offsets, samples, tile formats and rotation. Expected
// texels are computed here from the tile bytes and read back through
// texture_load of a Texture view of the same image.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "cmdstream/cmdstream.h"
#include "gpu/texture/image.h"
#include "isa/isa.h"
#include "pbe_words.h"
#include "texture_helpers.h"
#include "util/half.h"

namespace agx::gpu::test {
namespace AGX_UNITY_ID {

namespace cs = agx::cmdstream;

constexpr GpuVa kCode = 0x10000, kHeap = 0x20000, kImage = 0x100000;

Texel load_at(TextureUnit& unit, const TestImage& img, int32_t x, int32_t y, uint32_t sample = 0) {
  FetchCoord at;
  at.x = x;
  at.y = y;
  at.sample = sample;
  auto t = unit.load(img.tex, SamplerView{}, at);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message());
  return t.ok() ? *t : Texel{};
}

// One SIMD group of an 8x4 threadgroup at threadgroup position (tx, ty),
// with `shared_B` bytes of threadgroup memory and ts0 = the PBE descriptor.
struct Machine {
  usc::RegionMemory mem;
  TestImage img;
  TextureState state;
  usc::Core core = usc::make_core();
  std::vector<uint8_t> shared;

  Machine(const char* format, uint32_t w, uint32_t h, uint32_t tx, uint32_t ty, size_t shared_B,
          uint32_t layers = 1)
      : shared(shared_B, 0) {
    const bool array = layers > 1;
    img = make_test_image(mem, kImage, *format::find_format(format), layout::Tiling::twiddled,
                          array ? Dim::d2_array : Dim::d2, w, h, layers, 1);
    EXPECT_TRUE(mem.map(kHeap, pbe_words(img, array ? cs::TextureDimension::k2DArray : cs::TextureDimension::k2D,
                                         cs::Layout::kTwiddled))
                    .ok());
    EXPECT_TRUE(load_states(mem, {StateKind::texture, 0, 1, kHeap}, state).ok());
    usc::Placement p;
    p.threadgroup_position = {tx, ty, 0};
    p.threads_per_threadgroup = {8, 4, 1};
    usc::place(core, p);
  }

  Status run(const char* text) {
    auto code = isa::assemble_program(text, kCode);
    if (!code) return std::move(code).error();
    code->insert(code->end(), {0x88, 0x00});  // stop
    if (mem.regions().count(kCode) == 0) AGX_CHECK(mem.map(kCode, *code));
    AGX_TRY(usc::Program prog, usc::compile(*code, kCode));
    TextureHook hook(mem, state);
    usc::Memories m;
    m.device = &mem;
    m.threadgroup = shared.empty() ? nullptr : &shared;
    m.fixed_function = &hook;
    core.pc = kCode;
    AGX_TRY(usc::StopReason r, usc::run(prog, core, m, usc::RunOptions{}));
    (void)r;
    return {};
  }
};

// Each thread t of the 8x4 threadgroup at position (1, 2) stores 3t + 1 as
// i32 element t of threadgroup memory; image_write_block (tile format i32,
// offset 0) then stores the tile at (8, 8) of a 24x16 R32_UINT image.
constexpr const char* kFillAndStore =
    "get_sr r1, sr51\n"
    "iadd r2, r1, r1\n"
    "iadd r2, r2, r1\n"
    "iadd r2, r2, 1\n"
    "threadgroup_store i32, x, r2, 0, r1l\n"
    "mov_imm r3l, 0\n"
    "image_write_block r3l, r4_r5, 0, ts0, tex_2d, rte, i32, 0, 9, 1\n";

TEST(ImageWriteBlock, ProgramFillsThreadgroupMemoryAndStoresTheTile) {
  Machine m("R32_UINT", 24, 16, 1, 2, 128);
  auto st = m.run(kFillAndStore);
  ASSERT_TRUE(st.ok()) << st.error().message();
  TextureUnit unit(m.mem, {});
  for (int32_t y = 0; y < 16; ++y)
    for (int32_t x = 0; x < 24; ++x) {
      const bool inside = x >= 8 && x < 16 && y >= 8 && y < 12;
      const uint32_t t = uint32_t((y - 8) * 8 + (x - 8));
      EXPECT_EQ(load_at(unit, m.img, x, y).c[0], inside ? 3 * t + 1 : 0u) << x << "," << y;
    }
}

// 2D arrays: the layer is the low half of C (Mesa agx_emit_block_image_store).
TEST(ImageWriteBlock, ArrayLayerFromTheCoordinateRegister) {
  Machine m("R32_UINT", 8, 4, 0, 0, 128, 3);
  auto st = m.run(
      "get_sr r1, sr51\n"
      "threadgroup_store i32, x, r1, 0, r1l\n"
      "mov_imm r3l, 0\n"
      "mov_imm r4l, 2\n"
      "image_write_block r3l, r4l_r4h_r5l_r5h_r6l, 0, ts0, tex_2d_array, rte, i32, 0, 9, 1\n");
  ASSERT_TRUE(st.ok()) << st.error().message();
  TextureUnit unit(m.mem, {});
  for (uint32_t layer = 0; layer < 3; ++layer) {
    FetchCoord at;
    at.x = 5;
    at.y = 3;
    at.layer = layer;
    auto t = unit.load(m.img.tex, SamplerView{}, at);
    ASSERT_TRUE(t.ok()) << t.error().message();
    EXPECT_EQ(t->c[0], layer == 2 ? 29u : 0u) << layer;  // thread 3 * 8 + 5
  }
}

// A tile over the image's edge: the pixels outside are dropped, as
// out-of-range image_write stores are.
TEST(ImageWriteBlock, TileOverTheEdgeDropsThePixelsOutside) {
  Machine m("R32_UINT", 12, 6, 1, 1, 128);  // tile at (8, 4): 4x2 of it inside
  auto st = m.run(kFillAndStore);
  ASSERT_TRUE(st.ok()) << st.error().message();
  TextureUnit unit(m.mem, {});
  EXPECT_EQ(load_at(unit, m.img, 8, 4).c[0], 1u);
  EXPECT_EQ(load_at(unit, m.img, 11, 4).c[0], 10u);   // t = 3
  EXPECT_EQ(load_at(unit, m.img, 11, 5).c[0], 34u);   // t = 11
  EXPECT_EQ(load_at(unit, m.img, 7, 4).c[0], 0u);
}

// Bad operands are errors naming them, and nothing is written.
TEST(ImageWriteBlock, TileMemoryTooSmallIsAnErrorNamingTheBytes) {
  Machine m("R32_UINT", 24, 16, 0, 0, 128);
  auto st = m.run(
      "mov_imm r3l, 4\n"
      "image_write_block r3l, r4_r5, 0, ts0, tex_2d, rte, i32, 0, 9, 1\n");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().kind(), ErrorKind::invalid_argument);
  EXPECT_NE(st.error().message().find("tile memory, which has 128"), std::string::npos) << st.error().message();
  EXPECT_NE(st.error().message().find("offset 4"), std::string::npos) << st.error().message();
  EXPECT_NE(st.error().message().find("pixel (7, 3)"), std::string::npos) << st.error().message();
  TextureUnit unit(m.mem, {});
  EXPECT_EQ(load_at(unit, m.img, 0, 0).c[0], 0u);
}

TEST(ImageWriteBlock, WithoutThreadgroupMemoryIsAnError) {
  Machine m("R32_UINT", 24, 16, 0, 0, 0);
  auto st = m.run("mov_imm r3l, 0\nimage_write_block r3l, r4_r5, 0, ts0, tex_2d, rte, i32, 0, 9, 1\n");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message().find("no local memory"), std::string::npos) << st.error().message();
}

TEST(ImageWriteBlock, FormatErrorsNameTheFormats) {
  {
    Machine m("R32_UINT", 24, 16, 0, 0, 4096);
    auto st = m.run("mov_imm r3l, 0\nimage_write_block r3l, r4_r5, 0, ts0, tex_2d, rte, u8norm, 0, 9, 1\n");
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.error().message().find("u8norm holds no integers for the R32 Uint"), std::string::npos)
        << st.error().message();
  }
  {
    // R10G10B10A2 Sint is not renderable (Mesa's tables have no ISA format for it).
    Machine m("R10G10B10A2_SINT", 24, 16, 0, 0, 4096);
    auto st = m.run("mov_imm r3l, 0\nimage_write_block r3l, r4_r5, 0, ts0, tex_2d, rte, i32, 0, 9, 1\n");
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.error().message().find("R10G10B10A2 Sint is not renderable"), std::string::npos)
        << st.error().message();
  }
  {
    usc::RegionMemory mem;
    TestImage img = make_test_image(mem, kImage, *format::find_format("R32_UINT"), layout::Tiling::linear,
                                    Dim::d2, 4, 4, 1, 1);
    TextureUnit unit(mem, {});
    std::vector<uint8_t> bytes(64);
    TileMemory tile{bytes, 4, 4, 1, 4};
    BlockWrite bw;
    bw.format = 9;  // undefined
    auto st = pbe_write_block(unit, img.pbe, tile, bw);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.error().message().find("tile format 9 is undefined"), std::string::npos) << st.error().message();
  }
}

// A dimension other than 2D / 2D MS (arrays) is refused, naming it.
TEST(ImageWriteBlock, OtherDimensionsAreRefused) {
  Machine m("R32_UINT", 24, 16, 0, 0, 4096);
  auto st = m.run("mov_imm r3l, 0\nimage_write_block r3l, r4_r5_r6, 0, ts0, tex_3d, rte, i32, 0, 9, 1\n");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message().find("dimension 3D"), std::string::npos) << st.error().message();
}

// Two render targets per sample record (stride 8): u8norm RGBA at 0 and
// f16 RG at 4; 4 samples per pixel; the second target goes to an
// R16G16_FLOAT 4x MSAA image, every sample to its sample.
TEST(PbeWriteBlock, SecondRenderTargetOfAMultisampledTile) {
  usc::RegionMemory mem;
  TestImage img = make_test_image(mem, kImage, *format::find_format("R16G16_FLOAT"), layout::Tiling::twiddled,
                                  Dim::d2_ms, 4, 4, 1, 1, 4);
  TextureUnit unit(mem, {});
  const uint32_t w = 2, h = 2, samples = 4, stride = 8;
  std::vector<uint8_t> bytes(w * h * samples * stride, 0xAB);
  auto half_of = [](uint32_t x, uint32_t y, uint32_t s, uint32_t k) {
    return float(int(x) + 2 * int(y)) + 0.25f * float(s) - 8.0f * float(k);
  };
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x)
      for (uint32_t s = 0; s < samples; ++s)
        for (uint32_t k = 0; k < 2; ++k) {
          const uint16_t hv = float_to_half(half_of(x, y, s, k));
          // Row-major pixels, samples consecutive: pixel (x, y) sample s.
          std::memcpy(&bytes[((y * w + x) * samples + s) * stride + 4 + 2 * k], &hv, 2);
        }
  TileMemory tile{bytes, w, h, samples, stride};
  BlockWrite bw;
  bw.format = uint32_t(TileFormat::f16);
  bw.offset_B = 4;
  bw.origin_x = 2;
  bw.origin_y = 0;
  ASSERT_TRUE(pbe_write_block(unit, img.pbe, tile, bw).ok());
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x)
      for (uint32_t s = 0; s < samples; ++s) {
        Texel t = load_at(unit, img, int32_t(2 + x), int32_t(y), s);
        EXPECT_EQ(u2f(t.c[0]), half_of(x, y, s, 0));
        EXPECT_EQ(u2f(t.c[1]), half_of(x, y, s, 1));
      }
  EXPECT_EQ(load_at(unit, img, 0, 0, 0).c[0], 0u);
}

// u8norm RGBA bytes go to an RGBA8 unorm image unchanged (n / 255 encodes
// back to n); srgba8 decodes colour to linear and the sRGB image encodes it
// back; rgb10a2 words unpack to 10/10/10/2-bit unorm.
TEST(PbeWriteBlock, NormalizedAndPackedTileFormats) {
  usc::RegionMemory mem;
  TestImage img = make_test_image(mem, kImage, *format::find_format("R8G8B8A8_UNORM"), layout::Tiling::gpu,
                                  Dim::d2, 8, 8, 1, 1);
  TextureUnit unit(mem, {});
  std::vector<uint8_t> bytes(4 * 4 * 4);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = uint8_t(i * 37 + 5);
  TileMemory tile{bytes, 4, 4, 1, 4};
  BlockWrite bw;
  bw.format = uint32_t(TileFormat::u8norm);
  bw.origin_x = 4;
  bw.origin_y = 4;
  ASSERT_TRUE(pbe_write_block(unit, img.pbe, tile, bw).ok());
  const uint8_t* base = region(mem, kImage);
  for (uint32_t y = 0; y < 4; ++y)
    for (uint32_t x = 0; x < 4; ++x) {
      const auto addr = layout::element_address_B(img.layout, 4 + x, 4 + y, 0, 0, 0);
      ASSERT_TRUE(addr.ok());
      const uint64_t at = *addr;
      for (uint32_t k = 0; k < 4; ++k) EXPECT_EQ(base[at + k], bytes[(y * 4 + x) * 4 + k]) << x << "," << y;
    }

  TestImage srgb = make_test_image(mem, 0x200000, *format::find_format("R8G8B8A8_SRGB"), layout::Tiling::linear,
                                   Dim::d2, 4, 4, 1, 1);
  bw.format = uint32_t(TileFormat::srgba8);
  bw.origin_x = bw.origin_y = 0;
  ASSERT_TRUE(pbe_write_block(unit, srgb.pbe, tile, bw).ok());
  for (uint32_t y = 0; y < 4; ++y)
    for (uint32_t x = 0; x < 4; ++x) {
      const auto addr = layout::element_address_B(srgb.layout, x, y, 0, 0, 0);
      ASSERT_TRUE(addr.ok());
      for (uint32_t k = 0; k < 4; ++k)
        EXPECT_EQ(region(mem, 0x200000)[*addr + k], bytes[(y * 4 + x) * 4 + k]) << x << "," << y;
    }

  TestImage a2 = make_test_image(mem, 0x300000, *format::find_format("R10G10B10A2_UNORM"), layout::Tiling::linear,
                                 Dim::d2, 2, 1, 1, 1);
  const uint32_t words[2] = {0x3FFu | 512u << 10 | 1u << 20 | 2u << 30, 7u | 0u << 10 | 1023u << 20 | 3u << 30};
  std::vector<uint8_t> wb(8);
  std::memcpy(wb.data(), words, 8);
  TileMemory t2{wb, 2, 1, 1, 4};
  bw.format = uint32_t(TileFormat::rgb10a2);
  ASSERT_TRUE(pbe_write_block(unit, a2.pbe, t2, bw).ok());
  EXPECT_EQ(std::memcmp(region(mem, 0x300000), wb.data(), 8), 0);
  Texel t = load_at(unit, a2, 0, 0);
  EXPECT_FLOAT_EQ(u2f(t.c[1]), 512.0f / 1023.0f);
  EXPECT_FLOAT_EQ(u2f(t.c[3]), 2.0f / 3.0f);
}

// Tiles of one byte per component into one-byte-per-channel images go
// through a conversion table (pbe/block.cpp): every byte value, in every
// component, with a swizzle and both roundings, stores what image_write's
// path (pbe_write of the decoded values) stores.
TEST(PbeWriteBlock, OneByteChannelsMatchImageWrite) {
  struct Case {
    const char* format;
    TileFormat tile;
    std::array<uint8_t, 4> swizzle;
  };
  const Case cases[] = {{"R8G8B8A8_UNORM", TileFormat::u8norm, {2, 1, 0, 3}},
                        {"R8G8B8A8_SRGB", TileFormat::srgba8, {0, 1, 2, 3}},
                        {"R8G8B8A8_SNORM", TileFormat::s8norm, {3, 2, 1, 0}},
                        {"R8G8B8A8_UINT", TileFormat::i8, {0, 0, 1, 1}},
                        {"R8G8_UNORM", TileFormat::u8norm, {1, 0, 2, 3}},
                        {"R8_SINT", TileFormat::i8, {0, 1, 2, 3}}};
  for (const Case& c : cases)
    for (Rounding rounding : {Rounding::nearest_even, Rounding::toward_zero}) {
      SCOPED_TRACE(std::string(c.format) + (rounding == Rounding::toward_zero ? " rtz" : " rte"));
      usc::RegionMemory mem;
      const format::Format f = *format::find_format(c.format);
      TestImage block = make_test_image(mem, kImage, f, layout::Tiling::linear, Dim::d2, 16, 16, 1, 1);
      TestImage each = make_test_image(mem, 0x200000, f, layout::Tiling::linear, Dim::d2, 16, 16, 1, 1);
      block.pbe.swizzle = each.pbe.swizzle = c.swizzle;
      auto fmt = texel_format(block.pbe.channels, block.pbe.type, block.pbe.srgb, true);
      ASSERT_TRUE(fmt.ok());
      const unsigned n = fmt->count;
      std::vector<uint8_t> bytes(16 * 16 * n);
      for (uint32_t i = 0; i < 256; ++i)
        for (unsigned k = 0; k < n; ++k) bytes[i * n + k] = uint8_t(i * (2 * k + 1) + 64 * k);
      TextureUnit unit(mem, {});
      BlockWrite bw;
      bw.format = uint32_t(c.tile);
      auto st = pbe_write_block(unit, block.pbe, TileMemory{bytes, 16, 16, 1, n}, bw, rounding);
      ASSERT_TRUE(st.ok()) << st.error().message();
      const bool integer = fmt->integer(), is_signed = block.pbe.type == format::TextureType::Sint;
      for (uint32_t i = 0; i < 256; ++i) {
        PbeWrite w;
        w.x = int32_t(i % 16);
        w.y = int32_t(i / 16);
        w.value = {0, 0, 0, integer ? 1u : f2u(1.0f)};
        for (unsigned k = 0; k < n; ++k) {
          const uint8_t e = bytes[i * n + k];
          const float unorm = float(e) / 255.0f;
          if (c.tile == TileFormat::i8) w.value[k] = is_signed ? uint32_t(int32_t(int8_t(e))) : e;
          else if (c.tile == TileFormat::s8norm) w.value[k] = f2u(std::max(-1.0f, float(int8_t(e)) / 127.0f));
          else if (c.tile == TileFormat::srgba8 && k < 3) w.value[k] = f2u(srgb_to_linear(unorm));
          else w.value[k] = f2u(unorm);
        }
        ASSERT_TRUE(pbe_write(unit, each.pbe, w, rounding).ok());
      }
      EXPECT_EQ(std::memcmp(region(mem, kImage), region(mem, 0x200000), block.layout.size_B), 0);
    }
}

// Sint images take i16 elements sign-extended; the PBE's rotation applies to
// the tile as to image_write: the 2x3 tile lands turned clockwise in a 3x2
// image (source (x, y) at (2 - y, x)).
TEST(PbeWriteBlock, SignedIntegersAndRotation) {
  usc::RegionMemory mem;
  TestImage img = make_test_image(mem, kImage, *format::find_format("R16_SINT"), layout::Tiling::twiddled,
                                  Dim::d2, 3, 2, 1, 1);
  img.pbe.rotate_90 = true;
  TextureUnit unit(mem, {});
  const int16_t v[6] = {-1, 2, -300, 4, 5, -32768};  // row-major 2 wide, 3 high
  std::vector<uint8_t> bytes(12);
  std::memcpy(bytes.data(), v, 12);
  TileMemory tile{bytes, 2, 3, 1, 2};
  BlockWrite bw;
  bw.format = uint32_t(TileFormat::i16);
  ASSERT_TRUE(pbe_write_block(unit, img.pbe, tile, bw).ok());
  EXPECT_EQ(int32_t(load_at(unit, img, 2, 0).c[0]), -1);      // source (0, 0)
  EXPECT_EQ(int32_t(load_at(unit, img, 2, 1).c[0]), 2);       // source (1, 0)
  EXPECT_EQ(int32_t(load_at(unit, img, 1, 0).c[0]), -300);    // source (0, 1)
  EXPECT_EQ(int32_t(load_at(unit, img, 0, 1).c[0]), -32768);  // source (1, 2)
}

}  // namespace
}  // namespace agx::gpu::test
