// ZLS: a tile's depth and stencil loaded from (or cleared to) and stored to
// buffers laid out by the layout unit (zls.h), layers `stride` apart, and
// the zls_ctrl words it refuses.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>

#include "cmdstream/cmdstream.h"
#include "gpu/zls/zls.h"
#include "usc/usc.h"

namespace agx::gpu {
namespace AGX_UNITY_ID {

namespace cs = cmdstream;

constexpr GpuVa kDepth = 0x100000, kStencil = 0x800000;

struct Zls : ::testing::Test {
  drm_asahi_cmd_render r{};
  usc::RegionMemory mem;
  layout::Layout zl, sl;
  uint64_t zstride = 0, sstride = 0;

  void SetUp() override {
    r.width_px = 48;
    r.height_px = 40;
    r.layers = 2;
    r.samples = 1;
  }
  void control(const cs::ZlsControl& c) {
    auto b = cs::pack(c);
    ASSERT_TRUE(b.ok());
    std::memcpy(&r.zls_ctrl, b->data(), 8);
  }
  layout::Layout lay(format::Format f, layout::Tiling t) {
    layout::Request q;
    q.format = f;
    q.width_px = r.width_px;
    q.height_px = r.height_px;
    q.depth_px = r.layers;
    q.tiling = t;
    q.renderable = true;
    auto l = layout::make_layout(q);
    EXPECT_TRUE(l.ok());
    return *l;
  }
  // Buffers whose every depth is x + 100 y + 10000 layer and stencil x ^ y.
  void fill(layout::Tiling zt, layout::Tiling st) {
    zl = lay(format::Format::Z32_FLOAT, zt);
    sl = lay(format::Format::S8_UINT, st);
    zstride = zl.layer_stride_B + 4096;  // a stride of the command's, not the layout's
    sstride = sl.layer_stride_B;
    std::vector<uint8_t> z(zstride * 2), s(sstride * 2);
    for (uint32_t layer = 0; layer < 2; ++layer)
      for (uint32_t y = 0; y < r.height_px; ++y)
        for (uint32_t x = 0; x < r.width_px; ++x) {
          const float v = float(x + 100 * y + 10000 * layer);
          std::memcpy(&z[layer * zstride + *layout::element_address_B(zl, x, y, 0, 0)], &v, 4);
          s[layer * sstride + *layout::element_address_B(sl, x, y, 0, 0)] = uint8_t(x ^ y ^ layer);
        }
    ASSERT_TRUE(mem.map(kDepth, z).ok());
    ASSERT_TRUE(mem.map(kStencil, s).ok());
    r.depth = {kDepth, 0, uint32_t(zstride), 0};
    r.stencil = {kStencil, 0, uint32_t(sstride), 0};
  }
};

TEST_F(Zls, LoadsTheTileOfALayerAndStoresItBack) {
  fill(layout::Tiling::gpu, layout::Tiling::twiddled);
  cs::ZlsControl c{};
  c.z_load = c.z_store = c.s_load = c.s_store = true;
  c.z_load_tiling = c.z_store_tiling = cs::ZlsTiling::kGpu;
  c.s_load_tiling = c.s_store_tiling = cs::ZlsTiling::kTwiddled;
  control(c);
  auto plan = plan_zls(r);
  ASSERT_TRUE(plan.ok()) << plan.error().message();
  DepthStencilTile t;
  t.reset(32, 32, 1);
  GpuFault f;
  ASSERT_TRUE(zls_load(mem, *plan, 32, 32, 1, t, &f).ok());
  for (uint32_t y = 0; y < 32; ++y)
    for (uint32_t x = 0; x < 32; ++x) {
      const bool inside = 32 + x < 48 && 32 + y < 40;
      EXPECT_EQ(t.depth[t.index(x, y, 0)], inside ? float(32 + x + 100 * (32 + y) + 10000) : 0.0f) << x << "," << y;
      EXPECT_EQ(t.stencil[t.index(x, y, 0)], inside ? uint8_t((32 + x) ^ (32 + y) ^ 1) : 0) << x << "," << y;
    }
  for (float& z : t.depth) z = -z;
  for (uint8_t& s : t.stencil) s = uint8_t(~s);
  ASSERT_TRUE(zls_store(mem, *plan, 32, 32, 1, t, &f).ok());
  DepthStencilTile back;
  back.reset(32, 32, 1);
  ASSERT_TRUE(zls_load(mem, *plan, 32, 32, 1, back, &f).ok());
  for (uint32_t y = 0; y + 32 < 40; ++y)
    for (uint32_t x = 0; x + 32 < 48; ++x) {
      EXPECT_EQ(back.depth[back.index(x, y, 0)], t.depth[t.index(x, y, 0)]);
      EXPECT_EQ(back.stencil[back.index(x, y, 0)], t.stencil[t.index(x, y, 0)]);
    }
  // Layer 0 is untouched.
  ASSERT_TRUE(zls_load(mem, *plan, 32, 32, 0, back, &f).ok());
  EXPECT_EQ(back.depth[back.index(1, 2, 0)], float(33 + 100 * 34));
}

TEST_F(Zls, ClearsFromTheBackgroundObjectValues) {
  cs::ZlsControl c{};
  c.z_format = cs::ZlsFormat::k16;
  control(c);
  r.isp_bgobjdepth = 0x8000;
  r.isp_bgobjvals = 0x3A7;
  auto plan = plan_zls(r);
  ASSERT_TRUE(plan.ok()) << plan.error().message();
  DepthStencilTile t;
  t.reset(16, 16, 4);
  GpuFault f;
  ASSERT_TRUE(zls_load(mem, *plan, 0, 0, 0, t, &f).ok());
  EXPECT_EQ(t.depth[t.index(3, 5, 2)], float(0x8000 / 65535.0));
  EXPECT_EQ(t.stencil[t.index(3, 5, 2)], 0xA7);
  c.z_format = cs::ZlsFormat::k32F;
  control(c);
  r.isp_bgobjdepth = std::bit_cast<uint32_t>(0.75f);
  plan = plan_zls(r);
  ASSERT_TRUE(plan.ok());
  ASSERT_TRUE(zls_load(mem, *plan, 0, 0, 0, t, &f).ok());
  EXPECT_EQ(t.depth[0], 0.75f);
}

TEST_F(Zls, RefusesCompressionResolvesAndMissingBuffers) {
  cs::ZlsControl c{};
  c.z_load = true;
  c.z_load_compress = true;
  control(c);
  r.depth.base = kDepth;
  auto plan = plan_zls(r);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.error().message().find("compressed"), std::string::npos) << plan.error().message();
  c.z_load_compress = false;
  c.z_resolve = true;
  control(c);
  plan = plan_zls(r);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.error().message().find("resolve"), std::string::npos);
  c.z_resolve = false;
  c.s_store = true;
  control(c);
  plan = plan_zls(r);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.error().message().find("stencil.base is 0"), std::string::npos) << plan.error().message();
}

TEST_F(Zls, AnUnmappedBufferFaultsAtItsAddress) {
  cs::ZlsControl c{};
  c.z_load = true;
  control(c);
  r.depth.base = 0x7000000;
  auto plan = plan_zls(r);
  ASSERT_TRUE(plan.ok());
  DepthStencilTile t;
  t.reset(32, 32, 1);
  GpuFault f;
  auto st = zls_load(mem, *plan, 0, 0, 0, t, &f);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(f.unit, GpuUnit::isp);
  EXPECT_EQ(f.va, 0x7000000u);
  EXPECT_NE(st.error().message().find("ZLS load"), std::string::npos) << st.error().message();
}

}  // namespace
}  // namespace agx::gpu
