// The whole path: texture_load / texture_sample / image_write instructions
// run by the USC emulator with TextureHook attached, descriptors packed with
// the cmdstream tables in GPU memory, texture state registers loaded the way
// USC Texture / USC Sampler words load them, and bindless handles.
#include <gtest/gtest.h>

#include <cstring>

#include "cmdstream/cmdstream.h"
#include "isa/isa.h"
#include "pbe_words.h"
#include "texture_words.h"
#include "texture_helpers.h"
#include "texture_machine.h"

namespace agx::gpu::test {
namespace AGX_UNITY_ID {

namespace cs = agx::cmdstream;

constexpr GpuVa kHeap = 0x20000, kSamplers = 0x30000, kImage = 0x100000;

using Machine = TextureMachine;

TEST(TextureHook, ImageWriteThenTextureLoadThroughStateRegisters) {
  Machine m;
  m.img = make_test_image(m.mem, kImage, *format::find_format("R16G16B16A16_FLOAT"),
                          layout::Tiling::twiddled, Dim::d2, 32, 1, 1, 1);
  auto tex = texture_words(m.img, cs::TextureDimension::k2D, cs::Layout::kTwiddled);
  auto pbe = pbe_words(m.img, cs::TextureDimension::k2D, cs::Layout::kTwiddled);
  std::vector<uint8_t> heap(tex);  // ts0 = texture, ts1 = PBE
  heap.insert(heap.end(), pbe.begin(), pbe.end());
  ASSERT_TRUE(m.mem.map(kHeap, heap).ok());
  cs::Sampler txf;
  txf.wrap_s = txf.wrap_t = txf.wrap_r = cs::Wrap::kClampToBorder;
  ASSERT_TRUE(m.mem.map(kSamplers, sampler_words(txf)).ok());
  ASSERT_TRUE(load_states(m.mem, {StateKind::texture, 0, 2, kHeap}, m.state).ok());
  ASSERT_TRUE(load_states(m.mem, {StateKind::sampler, 0, 1, kSamplers}, m.state).ok());
  // Lane l writes (l, 2l, -l, 0.5) at x = l, y = 0, then loads it back.
  for (unsigned l = 0; l < usc::kLanes; ++l) {
    m.core.r[0][l] = f2u(float(l));
    m.core.r[1][l] = f2u(float(2 * l));
    m.core.r[2][l] = f2u(-float(l));
    m.core.r[3][l] = f2u(0.5f);
    m.core.r[4][l] = l;  // x
    m.core.r[5][l] = 0;  // y
  }
  auto st = m.run(
      "image_write r0_r1_r2_r3, r4_r5, 0, None, ts1, tex_2d, rte, 1, 0, 0, 0\n"
      "texture_load 0, 0b0000, 0b0, none, xyzw, 0b00, r8_r9_r10_r11, None, ts0, ss0, tex_2d, "
      "r4_r5, lod_min, r6l");
  ASSERT_TRUE(st.ok()) << st.error().message();
  for (unsigned l = 0; l < usc::kLanes; ++l) {
    EXPECT_EQ(u2f(m.core.r[8][l]), float(l));
    EXPECT_EQ(u2f(m.core.r[9][l]), float(2 * l));
    EXPECT_EQ(u2f(m.core.r[10][l]), -float(l));
    EXPECT_EQ(u2f(m.core.r[11][l]), 0.5f);
  }
}

// Bindless: a u64 uniform base plus a 32-bit register byte offset; an
// extended sampler heap (Sampler + Border) with a custom border; 16-bit
// results with mask xz packed into r8l, r8h.
TEST(TextureHook, BindlessSampleWithCustomBorderAndPackedHalfResults) {
  Machine m;
  m.img = make_test_image(m.mem, kImage, *format::find_format("R8G8B8A8_UNORM"),
                          layout::Tiling::gpu, Dim::d2, 2, 2, 1, 1);
  {
    TextureUnit unit(m.mem, {});
    const float texels[4][4] = {{1, 0, 0, 1}, {0, 1, 0, 1}, {0, 0, 1, 1}, {1, 1, 1, 1}};
    for (int i = 0; i < 4; ++i) {
      PbeWrite w;
      for (int k = 0; k < 4; ++k) w.value[k] = f2u(texels[i][k]);
      w.x = i % 2;
      w.y = i / 2;
      ASSERT_TRUE(pbe_write(unit, m.img.pbe, w).ok());
    }
  }
  auto tex = texture_words(m.img, cs::TextureDimension::k2D, cs::Layout::kGpu);
  std::vector<uint8_t> heap(24, 0);  // descriptor 0 unused: the handle points at 24
  heap.insert(heap.end(), tex.begin(), tex.end());
  ASSERT_TRUE(m.mem.map(kHeap, heap).ok());
  cs::Sampler s0;
  cs::Sampler s1;
  s1.magnify = s1.minify = cs::Filter::kLinear;
  s1.wrap_s = s1.wrap_t = s1.wrap_r = cs::Wrap::kClampToBorder;
  s1.border_colour = cs::BorderColour::kCustom;
  cs::Border border;
  border.channel_0 = 255;
  border.channel_1 = 0;
  border.channel_2 = 128;
  border.channel_3 = 255;
  std::vector<uint8_t> samplers = sampler_words(s0);
  samplers.resize(24, 0);
  auto s1w = sampler_words(s1);
  samplers.insert(samplers.end(), s1w.begin(), s1w.end());
  auto bw = cs::pack(border);
  ASSERT_TRUE(bw.ok());
  samplers.insert(samplers.end(), bw->begin(), bw->end());
  ASSERT_TRUE(m.mem.map(kSamplers, samplers).ok());
  m.state.extended_samplers = true;
  ASSERT_TRUE(load_states(m.mem, {StateKind::sampler, 0, 2, kSamplers}, m.state).ok());
  m.core.u[2] = uint32_t(kHeap);
  m.core.u[3] = uint32_t(kHeap >> 32);
  for (unsigned l = 0; l < usc::kLanes; ++l) {
    const bool inside = (l % 2) == 0;
    m.core.r[4][l] = f2u(inside ? 0.5f : -1.0f);
    m.core.r[5][l] = f2u(inside ? 0.5f : -1.0f);
    m.core.r[6][l] = 0;  // r6l: LOD 0.0 (fp16)
    m.core.r[12][l] = 24;
  }
  auto st = m.run(
      "texture_sample 0, 0b0000, 0b0, none, xz, 0b00, r8l_r8h, u2_u3, r12, ss1, tex_2d, r4_r5, "
      "lod_min, r6l");
  ASSERT_TRUE(st.ok()) << st.error().message();
  for (unsigned l = 0; l < usc::kLanes; ++l) {
    const bool inside = (l % 2) == 0;
    const float want_x = inside ? 0.5f : 1.0f;           // (1 + 0 + 0 + 1) / 4, or border R
    const float want_z = inside ? 0.5f : 128 / 255.0f;   // (0 + 0 + 1 + 1) / 4, or border B
    EXPECT_EQ(m.core.r16(16, l), float_to_half(want_x)) << "lane " << l;
    EXPECT_EQ(m.core.r16(17, l), float_to_half(want_z)) << "lane " << l;
  }
}

// 2D arrays: the layer rides in the 16-bit half after the coordinates.
TEST(TextureHook, ArrayLayersAndLodsFromRegisters) {
  Machine m;
  m.img = make_test_image(m.mem, kImage, *format::find_format("R32_FLOAT"),
                          layout::Tiling::twiddled, Dim::d2_array, 4, 4, 3, 1);
  {
    TextureUnit unit(m.mem, {});
    for (uint32_t layer = 0; layer < 3; ++layer)
      for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 4; ++x) {
          PbeWrite w;
          w.value[0] = f2u(float(layer * 100 + x + 10 * y));
          w.x = x;
          w.y = y;
          w.layer = layer;
          ASSERT_TRUE(pbe_write(unit, m.img.pbe, w).ok());
        }
  }
  auto tex = texture_words(m.img, cs::TextureDimension::k2DArray, cs::Layout::kTwiddled);
  ASSERT_TRUE(m.mem.map(kHeap, tex).ok());
  cs::Sampler txf;
  txf.wrap_s = txf.wrap_t = txf.wrap_r = cs::Wrap::kClampToBorder;
  ASSERT_TRUE(m.mem.map(kSamplers, sampler_words(txf)).ok());
  ASSERT_TRUE(load_states(m.mem, {StateKind::texture, 0, 1, kHeap}, m.state).ok());
  ASSERT_TRUE(load_states(m.mem, {StateKind::sampler, 0, 1, kSamplers}, m.state).ok());
  for (unsigned l = 0; l < usc::kLanes; ++l) {
    m.core.r[4][l] = l % 4;
    m.core.r[5][l] = (l / 4) % 4;
    m.core.r[6][l] = l % 3;  // r6l: layer
    m.core.r[7][l] = 0;      // r7l: LOD 0
  }
  auto st = m.run(
      "texture_load 0, 0b0000, 0b0, none, x, 0b00, r8, None, ts0, ss0, tex_2d_array, "
      "r4l_r4h_r5l_r5h_r6l, lod_min, r7l");
  ASSERT_TRUE(st.ok()) << st.error().message();
  for (unsigned l = 0; l < usc::kLanes; ++l)
    EXPECT_EQ(u2f(m.core.r[8][l]), float((l % 3) * 100 + l % 4 + 10 * ((l / 4) % 4))) << l;
}

TEST(TextureHook, ErrorsNameWhatIsWrong) {
  Machine m;
  m.img = make_test_image(m.mem, kImage, *format::find_format("R32_FLOAT"),
                          layout::Tiling::twiddled, Dim::d2, 4, 4, 1, 1);
  ASSERT_TRUE(m.mem.map(kHeap, texture_words(m.img, cs::TextureDimension::k2D,
                                              cs::Layout::kTwiddled)).ok());
  ASSERT_TRUE(m.mem.map(kSamplers, sampler_words(cs::Sampler{})).ok());
  ASSERT_TRUE(load_states(m.mem, {StateKind::texture, 0, 1, kHeap}, m.state).ok());
  ASSERT_TRUE(load_states(m.mem, {StateKind::sampler, 0, 1, kSamplers}, m.state).ok());
  // ts5 was never loaded.
  auto st = m.run(
      "texture_load 0, 0b0000, 0b0, none, x, 0b00, r8, None, ts5, ss0, tex_2d, r4_r5, lod_min, "
      "r7l");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message().find("texture state register 5"), std::string::npos)
      << st.error().message();
}

// Registers are loaded when the USC word runs: an unmapped descriptor array
// faults then, naming the register and the address; a descriptor rewritten
// in memory afterwards is not seen.
TEST(TextureHook, StateRegistersAreLoadedWhenTheWordRuns) {
  Machine m;
  m.img = make_test_image(m.mem, kImage, *format::find_format("R32_FLOAT"),
                          layout::Tiling::twiddled, Dim::d2, 4, 4, 1, 1);
  cs::UscTexture word;
  word.start = 1;
  word.count = 1;
  word.buffer = 0xdead000;
  auto wb = cs::pack(word);
  ASSERT_TRUE(wb.ok());
  GpuFault fault;
  Status st = load_state_word(m.mem, *wb, m.state, &fault);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().kind(), ErrorKind::fault);
  EXPECT_NE(st.error().message().find("texture state register 1: descriptor at 0xdead000"), std::string::npos)
      << st.error().message();
  EXPECT_EQ(fault.va, 0xdead000u);
  m.state.texture_registers = 1;
  word.start = 0;
  word.count = 2;
  word.buffer = kHeap;
  wb = cs::pack(word);
  st = load_state_word(m.mem, *wb, m.state);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message().find("beyond the 1 the launch declares"), std::string::npos) << st.error().message();

  m.state.texture_registers = 256;
  auto tex = texture_words(m.img, cs::TextureDimension::k2D, cs::Layout::kTwiddled);
  ASSERT_TRUE(m.mem.map(kHeap, tex).ok());
  word.count = 1;
  wb = cs::pack(word);
  ASSERT_TRUE(load_state_word(m.mem, *wb, m.state).ok());
  // Overwrite the array in memory: the register keeps what was loaded.
  std::vector<uint8_t> junk(24, 0xff);
  ASSERT_TRUE(m.mem.write(kHeap, junk.data(), junk.size(), GpuUnit::host, &fault));
  TextureUnit unit(m.mem, m.state);
  auto v = unit.texture_at_register(0);
  ASSERT_TRUE(v.ok()) << v.error().message();
  EXPECT_EQ(v->width_px, 4u);
  EXPECT_EQ(v->address, kImage);
}

}  // namespace
}  // namespace agx::gpu::test

namespace agx::gpu::test {
namespace AGX_UNITY_ID {

// gather_depth (q6 = 3) with the compare bit and query_lod (mode 2) as
// assembled instructions: operands read from registers as the hook reads
// them (reference in O, gradients in D), results packed by mask.
TEST(TextureHook, GatherDepthAndQueryLodInstructions) {
  Machine m;
  m.img = make_test_image(m.mem, kImage, *format::find_format("Z32_FLOAT"), layout::Tiling::twiddled,
                          Dim::d2, 16, 16, 1, 5);
  {
    TextureUnit unit(m.mem, TextureState{});
    for (uint32_t y = 0; y < 16; ++y)
      for (uint32_t x = 0; x < 16; ++x) {
        PbeWrite w;
        w.value = {f2u(float(x + 16 * y) / 256.0f), 0, 0, 0};
        w.x = int32_t(x);
        w.y = int32_t(y);
        ASSERT_TRUE(pbe_write(unit, m.img.pbe, w).ok());
      }
  }
  ASSERT_TRUE(m.mem.map(kHeap, texture_words(m.img, cs::TextureDimension::k2D, cs::Layout::kTwiddled)).ok());
  cs::Sampler s;
  s.minify = s.magnify = cs::Filter::kNearest;
  s.mip_filter = cs::MipFilter::kLinear;
  s.maximum_lod = 15.0f;
  s.compare_func = cs::CompareFunc::kLess;
  ASSERT_TRUE(m.mem.map(kSamplers, sampler_words(s)).ok());
  ASSERT_TRUE(load_states(m.mem, {StateKind::texture, 0, 1, kHeap}, m.state).ok());
  ASSERT_TRUE(load_states(m.mem, {StateKind::sampler, 0, 1, kSamplers}, m.state).ok());
  for (unsigned l = 0; l < usc::kLanes; ++l) {
    m.core.r[4][l] = f2u(1.75f / 16);  // i0 = 1
    m.core.r[5][l] = f2u(2.25f / 16);  // j0 = 1
    m.core.r[6][l] = 0;                // LOD 0 (fp16)
    m.core.r[12][l] = f2u(float(1 + 16 * 2) / 256.0f - 1e-4f);  // just below texel (1, 2)
    // Gradients ddx.x, ddy.x, ddx.y, ddy.y: rho = 16 * 2^(l % 4) / 16.
    const float d = float(1u << (l % 4)) / 16.0f;
    m.core.r[16][l] = f2u(d);
    m.core.r[17][l] = 0;
    m.core.r[18][l] = 0;
    m.core.r[19][l] = f2u(d);
  }
  auto st = m.run(
      "texture_sample 1, 0b0000, 0b0, gather_depth, xyzw, 0b00, r8_r9_r10_r11, None, ts0, ss0, tex_2d, r4_r5, "
      "lod_min, r6l, r12\n"
      "texture_sample 0, query_lod, 0b0000, 0b0, none, xy, 0b00, r20_r21, None, ts0, ss0, tex_2d, r4_r5, "
      "lod_grad, r16_r17_r18_r19");
  ASSERT_TRUE(st.ok()) << st.error().message();
  // (i0, j1), (i1, j1), (i1, j0), (i0, j0) = texels (1,2), (2,2), (2,1), (1,1):
  // ref < depth passes for the first two only.
  for (unsigned l = 0; l < usc::kLanes; ++l) {
    EXPECT_EQ(u2f(m.core.r[8][l]), 1.0f) << l;
    EXPECT_EQ(u2f(m.core.r[9][l]), 1.0f) << l;
    EXPECT_EQ(u2f(m.core.r[10][l]), 0.0f) << l;
    EXPECT_EQ(u2f(m.core.r[11][l]), 0.0f) << l;
    EXPECT_FLOAT_EQ(u2f(m.core.r[20][l]), float(l % 4)) << l;  // the level (linear mip: lambda in [0, 4])
    EXPECT_FLOAT_EQ(u2f(m.core.r[21][l]), float(l % 4)) << l;  // lambda
  }
}

}  // namespace
}  // namespace agx::gpu::test
