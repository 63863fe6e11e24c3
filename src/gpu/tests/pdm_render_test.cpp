// The fragment half end to end: background and end-of-tile programs, a
// triangle with a constant and with an interpolated colour, 2x2 quads and
// derivatives, results independent of the worker count, and faults.
// Expected pixels come from the documented rules (docs/gpu.md): a pixel is
// drawn when its centre is inside the triangle (the test's triangles put no
// centre on an edge), colours through u8norm rounding.
#include <cmath>

#include "pdm_fixture.h"
#include "texture_words.h"

namespace agx::gpu::test {
namespace AGX_UNITY_ID {

uint8_t unorm8(float v) { return uint8_t(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)); }

constexpr const char* kGreen =
    "mov_imm r0, 0, 0b0\nmov_imm r1, 1065353216, 0b0\nmov_imm r2, 0, 0b0\nmov_imm r3, 1065353216, 0b0\n"
    "st_tile r0_r1_r2_r3, u8norm, 0, xyzw, 0, 255, 0\n";

class PdmRender : public RenderTest {};

TEST_F(PdmRender, BackgroundClearsEveryTileAndEndOfTileStoresIt) {
  target_of("R8G8B8A8_UNORM", 40, 24);
  clear_and_store(1.0f, 0.0f, 0.2f, 1.0f);
  auto st = run();
  ASSERT_TRUE(st.ok()) << st.error().message();
  EXPECT_EQ(last_stats.tiles, 2u);  // 32x32 tiles: 2 x 1
  EXPECT_EQ(last_stats.commands, 1u);
  for (int y = 0; y < 24; ++y)
    for (int x = 0; x < 40; ++x)
      ASSERT_EQ(pixel(x, y), (std::array<uint8_t, 4>{255, 0, unorm8(0.2f), 255})) << x << "," << y;
}

TEST_F(PdmRender, TriangleWithAConstantColour) {
  target_of("R8G8B8A8_UNORM", 48, 40);
  clear_and_store(0, 0, 0, 1);
  const uint32_t s = draw(kGreen, {});
  const double ax = 3.3, ay = 2.7, bx = 44.1, by = 9.2, cx = 12.6, cy = 37.9;
  triangle(s, vertex(ax, ay, 0.5), vertex(bx, by, 0.5), vertex(cx, cy, 0.5));
  auto st = run();
  ASSERT_TRUE(st.ok()) << st.error().message();
  EXPECT_EQ(last_stats.primitives_binned, 4u);  // the triangle touches all four tiles
  int drawn = 0;
  for (int y = 0; y < 40; ++y)
    for (int x = 0; x < 48; ++x) {
      const bool in = centre_inside(ax, ay, bx, by, cx, cy, x, y);
      drawn += in;
      ASSERT_EQ(pixel(x, y), (in ? std::array<uint8_t, 4>{0, 255, 0, 255} : std::array<uint8_t, 4>{0, 0, 0, 255}))
          << x << "," << y;
    }
  EXPECT_GT(drawn, 400);
  EXPECT_EQ(last_stats.samples_passed, uint64_t(drawn));
}

// A smooth vec4 varying: red along x, green along y (w = 1, so perspective
// interpolation is linear); iter at the pixel centre.
TEST_F(PdmRender, TriangleWithAnInterpolatedColour) {
  target_of("R8G8B8A8_UNORM", 32, 32);
  clear_and_store(0, 0, 0, 0);
  varyings::Interface iface;
  iface.varyings.push_back({"color", 4, 32, varyings::Interp::smooth});
  // cf0 is W; the colour is cf1..cf4 (compile-time bindings).
  const uint32_t s = draw("iterproj r0_r1_r2_r3, cf1, cf0, center, 0b0, 0, 0, 0, 0, 0\n"
                          "st_tile r0_r1_r2_r3, u8norm, 0, xyzw, 0, 255, 0\n",
                          iface);
  auto col = [](double x, double y) { return std::vector<float>{float(x / 32), float(y / 32), 0.25f, 1.0f}; };
  const uint32_t a = vertex(0, 0, 0, col(0, 0)), b = vertex(32, 0, 0, col(32, 0)), c = vertex(0, 32, 0, col(0, 32));
  const uint32_t d = vertex(32, 32, 0, col(32, 32));
  triangle(s, a, b, c);
  triangle(s, b, d, c);
  auto st = run();
  ASSERT_TRUE(st.ok()) << st.error().message();
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x) {
      const auto p = pixel(x, y);
      EXPECT_NEAR(p[0], (x + 0.5) / 32 * 255, 1.0) << x << "," << y;
      EXPECT_NEAR(p[1], (y + 0.5) / 32 * 255, 1.0) << x << "," << y;
      EXPECT_EQ(p[2], 64) << x << "," << y;
      EXPECT_EQ(p[3], 255) << x << "," << y;
    }
}

// Quads: dfdx of the pixel x coordinate (sr80) is 1 in every lane, helper
// lanes included, so a one-pixel triangle's colour is dfdx / 4 = 0.25.
TEST_F(PdmRender, QuadsGiveDerivativesToSinglePixels) {
  target_of("R8G8B8A8_UNORM", 32, 32);
  clear_and_store(0, 0, 0, 0);
  const uint32_t s = draw("get_sr r4, sr80\n"
                          "convert u32_to_f, r5, r4, rte\n"
                          "dfdx r0, r5\n"
                          "fmul32 r0, r0, 0.25\n"
                          "mov_imm r1, 0, 0b0\nmov_imm r2, 0, 0b0\nmov_imm r3, 1065353216, 0b0\n"
                          "st_tile r0_r1_r2_r3, u8norm, 0, xyzw, 0, 255, 0\n",
                          {});
  triangle(s, vertex(5.2, 7.2, 0), vertex(6.4, 7.2, 0), vertex(5.2, 8.4, 0));  // covers pixel (5, 7) only
  auto st = run();
  ASSERT_TRUE(st.ok()) << st.error().message();
  EXPECT_EQ(last_stats.quads_shaded, 1u);
  EXPECT_EQ(pixel(5, 7), (std::array<uint8_t, 4>{64, 0, 0, 255}));
  EXPECT_EQ(pixel(4, 7), (std::array<uint8_t, 4>{0, 0, 0, 0}));  // the helper lane wrote nothing
  EXPECT_EQ(pixel(4, 6), (std::array<uint8_t, 4>{0, 0, 0, 0}));
}

TEST_F(PdmRender, ResultsDoNotDependOnTheWorkerCount) {
  std::vector<std::array<uint8_t, 4>> images[2];
  for (unsigned threads : {1u, 3u}) {
    mem = usc::RegionMemory();
    scene = Scene();
    usc_used = 0;
    target_of("R8G8B8A8_UNORM", 80, 70);
    clear_and_store(0.1f, 0.2f, 0.3f, 1);
    const uint32_t s = draw(kGreen, {});
    for (int i = 0; i < 12; ++i)
      triangle(s, vertex(3 + 6 * i, 1, 0), vertex(70 - 2 * i, 5 + 5 * i, 0), vertex(1 + i, 68 - i, 0));
    FragmentOptions o;
    o.threads = threads;
    auto st = run(std::move(o));
    ASSERT_TRUE(st.ok()) << st.error().message();
    for (int y = 0; y < 70; ++y)
      for (int x = 0; x < 80; ++x) images[threads == 1 ? 0 : 1].push_back(pixel(x, y));
  }
  EXPECT_EQ(images[0], images[1]);
}

TEST_F(PdmRender, AFaultingShaderFaultsTheCommandAtItsAddress) {
  target_of("R8G8B8A8_UNORM", 32, 32);
  clear_and_store(0, 0, 0, 0);
  const uint32_t s = draw("mov_imm r0, 0, 0b0\nmov_imm r1, 16, 0b0\ndevice_load 0, i32, x, r2, r0_r1, 0, unsigned\n"
                          "wait 0\n",
                          {});
  triangle(s, vertex(1, 1, 0), vertex(30, 1, 0), vertex(1, 30, 0));
  auto st = run();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(last_fault.unit, GpuUnit::usc);
  EXPECT_EQ(last_fault.va, 0x10'0000'0000ull);
  EXPECT_NE(st.error().message().find("fragment shader of primitive 0"), std::string::npos) << st.error().message();
  EXPECT_EQ(last_stats.faults, 1u);
}

// Mesa's background program for a loaded attachment: texture_load of the
// target at the pixel's coordinates (sr80, sr81) through a Texture and a
// Sampler word; the eot stores the tile back, so pixels outside the drawn
// rectangle keep their colour.
TEST_F(PdmRender, BackgroundLoadsTheTargetThroughTheTextureUnit) {
  target_of("R8G8B8A8_UNORM", 40, 24);
  for (uint32_t y = 0; y < 24; ++y)
    for (uint32_t x = 0; x < 40; ++x) {
      const uint8_t p[4] = {uint8_t(6 * x), uint8_t(10 * y), 7, 255};
      auto at = layout::element_address_B(target.layout, x, y, 0, 0);
      ASSERT_TRUE(at.ok());
      GpuFault f;
      ASSERT_TRUE(mem.write(kTarget + *at, p, 4, GpuUnit::host, &f));
    }
  render.bg = reload_program();
  render.eot = tile_program("mov_imm r3l, 0\nimage_write_block r3l, r4_r5, 0, ts0, tex_2d, rte, u8norm, 0, 9, 1\n",
                            true);
  rect(draw(kGreen, {}), 8, 4, 36, 10, 0.5);
  auto st = run();
  ASSERT_TRUE(st.ok()) << st.error().message();
  for (int y = 0; y < 24; ++y)
    for (int x = 0; x < 40; ++x) {
      const bool in = x >= 8 && x < 36 && y >= 4 && y < 10;
      ASSERT_EQ(pixel(x, y), in ? (std::array<uint8_t, 4>{0, 255, 0, 255})
                                : (std::array<uint8_t, 4>{uint8_t(6 * x), uint8_t(10 * y), 7, 255}))
          << x << "," << y;
    }
}

// Scratch (the Registers word's spill size): the command needs a fragment
// helper, and each SIMD group takes a stack record of its core (tile 0:
// core 0) and gives it back, as Mesa's helper does (libagx helper.h
// records: alloc_cur, alloc_max, alloc_count[bucket]).
TEST_F(PdmRender, FragmentShadersWithScratchAskTheFragmentHelper) {
  target_of("R8G8B8A8_UNORM", 32, 32);
  clear_and_store(0, 0, 0, 1);
  draw_spill_bucket = 1;
  rect(draw(kGreen, {}), 0, 0, 32, 8, 0.5);
  auto st = run();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message().find("no fragment helper program"), std::string::npos) << st.error().message();
  constexpr GpuVa kHeader = 0x6000'0000ull;
  std::vector<uint8_t> header(8 + 128 * 88, 0);
  header[0] = 128;  // subgroups
  ASSERT_TRUE(mem.map(kHeader, header).ok());
  render.fragment_helper.binary = 1;
  render.fragment_helper.data = kHeader;
  st = run();
  ASSERT_TRUE(st.ok()) << st.error().message();
  uint32_t rec[6] = {};  // core 0: blocklist (2 words), alloc_cur, alloc_max, alloc_failed, padding
  uint32_t count1 = 0;
  GpuFault f;
  ASSERT_TRUE(mem.read(kHeader + 8, rec, sizeof rec, GpuUnit::host, &f));
  ASSERT_TRUE(mem.read(kHeader + 8 + 24 + 4, &count1, 4, GpuUnit::host, &f));
  EXPECT_EQ(rec[2], 0u);  // all given back
  EXPECT_EQ(rec[3], 1u);  // one group at a time
  EXPECT_EQ(rec[4], 0u);
  // One SIMD group per 8 covered quads of each primitive (the two
  // triangles of the rectangle both cover the quads on its diagonal).
  uint32_t groups = 0;
  auto pos = decode_sample_positions(render.ppp_multisamplectl, 1);
  ASSERT_TRUE(pos.ok());
  for (const ScenePrimitive& p : scene.primitives) {
    auto r = setup_primitive(scene, p);
    ASSERT_TRUE(r.ok());
    uint32_t quads = 0;
    for (int qy = 0; qy < 32; qy += 2)
      for (int qx = 0; qx < 32; qx += 2)
        quads += (coverage(*r, qx, qy, *pos) | coverage(*r, qx + 1, qy, *pos) | coverage(*r, qx, qy + 1, *pos) |
                  coverage(*r, qx + 1, qy + 1, *pos)) != 0;
    groups += (quads + 7) / 8;
  }
  EXPECT_GT(groups, 8u);
  EXPECT_EQ(count1, groups);
  EXPECT_EQ(pixel(5, 5), (std::array<uint8_t, 4>{0, 255, 0, 255}));
}

// The end-of-tile program's SIMD groups each write their pixels, then
// store the tile: the one store (the last group's) sees every group's.
TEST_F(PdmRender, EndOfTileStoresTheTileAfterEveryGroup) {
  target_of("R8G8B8A8_UNORM", 32, 16);
  clear_and_store(0, 0, 0, 1);
  render.eot = tile_program(fill_rgba(0, 0, 1, 1) +
                                "mov_imm r3l, 0\nimage_write_block r3l, r4_r5, 0, ts0, tex_2d, rte, u8norm, 0, 9, 1\n",
                            true);
  auto st = run();
  ASSERT_TRUE(st.ok()) << st.error().message();
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 32; ++x) ASSERT_EQ(pixel(x, y), (std::array<uint8_t, 4>{0, 0, 255, 255})) << x << "," << y;
}

TEST_F(PdmRender, BadRenderCommandFieldsAreNamed) {
  target_of("R8G8B8A8_UNORM", 32, 32);
  render.utile_width_px = 8;
  auto st = run();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message().find("utile 8x32"), std::string::npos) << st.error().message();
  EXPECT_EQ(last_fault.unit, GpuUnit::pdm);
  render.utile_width_px = 32;
  render.samples = 3;
  st = run();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message().find("3 samples"), std::string::npos) << st.error().message();
  render.samples = 1;
  render.bg.usc = 0x40 | 4;  // USC words of zeros: not a word list
  st = run();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message().find("background program"), std::string::npos) << st.error().message();
}

TEST_F(PdmRender, ProgramsWithAnotherTileLayoutAreRefused) {
  target_of("R8G8B8A8_UNORM", 32, 32);
  clear_and_store(0, 0, 0, 0);
  render.utile_height_px = 16;  // the Shared words say 32x32
  auto st = run();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message().find("32x32 tiles of 1 samples but the command has 32x16"), std::string::npos)
      << st.error().message();
}

}  // namespace
}  // namespace agx::gpu::test
