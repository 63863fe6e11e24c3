// texture_sample's automatic LOD (lod modes auto_lod 0 and auto_lod_bias
// 5, dougallj/applegpu's `lod` enum): the texture unit takes the
// derivatives from the coordinates of the lane's 2x2 quad (lanes 0, 1 on
// top, 2, 3 below) and selects the level by the Vulkan "LOD Operation"
// rules; the bias (fp16, D) adds to the computed LOD.
#include <gtest/gtest.h>

#include "cmdstream/cmdstream.h"
#include "pbe_words.h"
#include "texture_helpers.h"
#include "texture_machine.h"
#include "texture_words.h"

namespace agx::gpu::test {
namespace AGX_UNITY_ID {

namespace cs = agx::cmdstream;

constexpr GpuVa kHeap = 0x20000, kSamplers = 0x30000, kImage = 0x100000;
constexpr uint32_t kLevels = 5;

// A 16x16 R32G32B32A32_FLOAT image whose level k is the solid colour
// (k, 0, 0, 1), sampled nearest / nearest-mip; `code` runs on one SIMD
// group whose quad q steps 2^q / 16 per pixel (derivatives of 2^q
// texels: lambda = q).
struct AutoLod : TextureMachine {
  void setup() {
    img = make_test_image(mem, kImage, *format::find_format("R32G32B32A32_FLOAT"), layout::Tiling::twiddled, Dim::d2,
                          16, 16, 1, kLevels);
    TextureUnit unit(mem, TextureState{});
    for (uint32_t k = 0; k < kLevels; ++k)
      for (uint32_t y = 0; y < (16u >> k); ++y)
        for (uint32_t x = 0; x < (16u >> k); ++x) {
          PbeWrite w;
          w.value = {f2u(float(k)), 0, 0, f2u(1.0f)};
          w.x = int32_t(x);
          w.y = int32_t(y);
          w.lod = k;
          ASSERT_TRUE(pbe_write(unit, img.pbe, w).ok());
        }
    ASSERT_TRUE(mem.map(kHeap, texture_words(img, cs::TextureDimension::k2D, cs::Layout::kTwiddled)).ok());
    cs::Sampler s;
    s.minify = s.magnify = cs::Filter::kNearest;
    s.mip_filter = cs::MipFilter::kNearest;
    s.maximum_lod = 15.0f;
    ASSERT_TRUE(mem.map(kSamplers, sampler_words(s)).ok());
    ASSERT_TRUE(load_states(mem, {StateKind::texture, 0, 1, kHeap}, state).ok());
    ASSERT_TRUE(load_states(mem, {StateKind::sampler, 0, 1, kSamplers}, state).ok());
    for (unsigned l = 0; l < usc::kLanes; ++l) {
      const float step = float(1u << (l / 4)) / 16.0f;
      core.r[4][l] = f2u(0.01f + float(l & 1) * step);
      core.r[5][l] = f2u(0.01f + float(l >> 1 & 1) * step);
    }
  }
};

TEST(TextureAutoLod, QuadCoordinatesSelectTheLevel) {
  AutoLod a;
  a.setup();
  auto st = a.run("texture_sample 0, 0b0000, 0b0, none, xyzw, 0b00, r8_r9_r10_r11, None, ts0, ss0, tex_2d, r4_r5, "
                  "auto_lod, 0\nwait 0\n");
  ASSERT_TRUE(st.ok()) << st.error().message();
  for (unsigned l = 0; l < usc::kLanes; ++l) {
    EXPECT_EQ(u2f(a.core.r[8][l]), float(std::min(l / 4, kLevels - 1))) << l;
    EXPECT_EQ(u2f(a.core.r[11][l]), 1.0f) << l;
  }
}

// Inactive lanes still give their quad their coordinates (helpers).
TEST(TextureAutoLod, InactiveQuadLanesStillCount) {
  AutoLod a;
  a.setup();
  a.core.exec = 0x11111111u;  // lane 0 of every quad
  auto st = a.run("texture_sample 0, 0b0000, 0b0, none, xyzw, 0b00, r8_r9_r10_r11, None, ts0, ss0, tex_2d, r4_r5, "
                  "auto_lod, 0\nwait 0\n");
  ASSERT_TRUE(st.ok()) << st.error().message();
  for (unsigned q = 0; q < usc::kLanes / 4; ++q) EXPECT_EQ(u2f(a.core.r[8][4 * q]), float(std::min(q, kLevels - 1))) << q;
}

TEST(TextureAutoLod, BiasAddsToTheComputedLod) {
  AutoLod a;
  a.setup();
  for (unsigned l = 0; l < usc::kLanes; ++l) a.core.r[6][l] = l % 8 < 4 ? 0x3C00u : 0xBC00u;  // fp16 1.0 / -1.0
  auto st = a.run("texture_sample 0, 0b0000, 0b0, none, xyzw, 0b00, r8_r9_r10_r11, None, ts0, ss0, tex_2d, r4_r5, "
                  "auto_lod_bias, r6l\nwait 0\n");
  ASSERT_TRUE(st.ok()) << st.error().message();
  for (unsigned l = 0; l < usc::kLanes; ++l) {
    const int lambda = int(l / 4) + (l % 8 < 4 ? 1 : -1);
    EXPECT_EQ(u2f(a.core.r[8][l]), float(std::clamp(lambda, 0, int(kLevels) - 1))) << l;
  }
}

}  // namespace AGX_UNITY_ID
}  // namespace agx::gpu::test
