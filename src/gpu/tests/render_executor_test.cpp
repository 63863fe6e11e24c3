// Whole render commands on gpu::GpuExecutor, the executor kmd Devices use:
// the vertex half (a VDM stream with a PPP update, a vertex shader writing
// position and a colour) and then the fragment half (background, a
// fragment shader interpolating the colour, end of tile) of the same
// command, the scene handed between them by the command's identity.
// Expected pixels follow docs/gpu.md: a pixel is drawn when its centre is
// inside (no centre lies on an edge here), colours through u8norm rounding.
#include "render_fixture.h"

namespace agx::gpu::test {
namespace AGX_UNITY_ID {

class RenderExecutor : public RenderCommandTest {};

// A triangle whose vertices share one colour: every covered pixel gets it
// exactly (the planes of a constant are constant), the rest the clear.
TEST_F(RenderExecutor, ATriangleThroughBothHalves) {
  target_of("R8G8B8A8_UNORM", 40, 24);
  clear_and_store(0, 0, 0, 1);
  // Window corners (4, 2), (36, 6), (10, 22) in clip space.
  auto clip = [&](double x, double y) { return std::array<float, 2>{float(x / 20 - 1), float(y / 12 - 1)}; };
  const std::array<std::array<double, 2>, 3> win{{{4.2, 2.3}, {36.4, 6.7}, {10.1, 22.6}}};
  std::vector<Vertex> vertices;
  for (const auto& p : win) {
    const auto c = clip(p[0], p[1]);
    vertices.push_back({c[0], c[1], 0.5f, 1.0f, 0.0f, 1.0f, 0.5f, 1.0f});
  }
  vdm_stream(vertices, cs::Primitive::kTriangles);
  GpuExecutor gpu = make_gpu();
  const Outcome o = submit(gpu);
  ASSERT_TRUE(o.vertex) << o.vertex_fault.reason;
  ASSERT_TRUE(o.fragment) << o.fragment_fault.reason;
  const GpuStats stats = gpu.stats();
  EXPECT_EQ(stats.vertex.draws, 1u);
  EXPECT_EQ(stats.vertex.primitives_out, 1u);
  EXPECT_EQ(stats.fragment.commands, 1u);
  EXPECT_EQ(stats.scenes_pending, 0u);
  auto edge = [](const std::array<double, 2>& a, const std::array<double, 2>& b, double px, double py) {
    return (b[0] - a[0]) * (py - a[1]) - (b[1] - a[1]) * (px - a[0]);
  };
  int drawn = 0;
  for (int y = 0; y < 24; ++y)
    for (int x = 0; x < 40; ++x) {
      const double px = x + 0.5, py = y + 0.5;
      const double e0 = edge(win[0], win[1], px, py), e1 = edge(win[1], win[2], px, py), e2 = edge(win[2], win[0], px, py);
      const bool in = (e0 > 0 && e1 > 0 && e2 > 0) || (e0 < 0 && e1 < 0 && e2 < 0);
      drawn += in;
      ASSERT_EQ(pixel(x, y), (in ? std::array<uint8_t, 4>{0, 255, 128, 255} : std::array<uint8_t, 4>{0, 0, 0, 255}))
          << x << "," << y;
    }
  EXPECT_GT(drawn, 200);
  EXPECT_EQ(stats.fragment.samples_passed, uint64_t(drawn));
}

// A triangle strip over the whole target, red rising with x and green with
// y: the colour interpolated at each pixel centre.
TEST_F(RenderExecutor, AStripWithAnInterpolatedColour) {
  target_of("R8G8B8A8_UNORM", 32, 32);
  clear_and_store(0, 0, 0, 0);
  std::vector<Vertex> vertices;
  for (auto [x, y] : {std::pair{-1.0f, -1.0f}, {1.0f, -1.0f}, {-1.0f, 1.0f}, {1.0f, 1.0f}})
    vertices.push_back({x, y, 0.0f, 1.0f, (x + 1) / 2, (y + 1) / 2, 0.25f, 1.0f});
  vdm_stream(vertices, cs::Primitive::kTriangleStrip);
  GpuExecutor gpu = make_gpu();
  const Outcome o = submit(gpu);
  ASSERT_TRUE(o.vertex) << o.vertex_fault.reason;
  ASSERT_TRUE(o.fragment) << o.fragment_fault.reason;
  EXPECT_EQ(gpu.stats().vertex.primitives_out, 2u);
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x) {
      const auto p = pixel(x, y);
      EXPECT_NEAR(p[0], (x + 0.5) / 32 * 255, 1.0) << x << "," << y;
      EXPECT_NEAR(p[1], (y + 0.5) / 32 * 255, 1.0) << x << "," << y;
      EXPECT_EQ(p[2], unorm8(0.25f)) << x << "," << y;
      EXPECT_EQ(p[3], 255) << x << "," << y;
    }
}

// A vertex half that faults (a block type the VDM does not know) reports
// it; the fragment half of the same command still runs (background and end
// of tile over the draws binned before the fault: none) and the scene is
// not kept.
TEST_F(RenderExecutor, AFaultingVertexHalfLeavesTheFragmentHalfRunning) {
  target_of("R8G8B8A8_UNORM", 32, 32);
  clear_and_store(0.0f, 0.0f, 1.0f, 1.0f);
  std::vector<uint8_t> bad;
  push_u32(bad, 0xE000'0000u);  // Block Type 7: no VDM block
  render.vdm_ctrl_stream_base = kUsc + usc_put(bad, 16);
  GpuExecutor gpu = make_gpu();
  const Outcome o = submit(gpu);
  EXPECT_FALSE(o.vertex);
  EXPECT_NE(o.vertex_fault.reason.find("vertex half of render command #0"), std::string::npos) << o.vertex_fault.reason;
  ASSERT_TRUE(o.fragment) << o.fragment_fault.reason;
  EXPECT_EQ(gpu.stats().scenes_pending, 0u);
  EXPECT_EQ(pixel(7, 9), (std::array<uint8_t, 4>{0, 0, 255, 255}));
}

// The CDM still runs compute commands on the same executor; a render half
// without render fields is a fault naming it, never a crash.
TEST_F(RenderExecutor, AHalfWithoutRenderFieldsFaults) {
  GpuExecutor gpu = make_gpu();
  kmd::FirmwareCommand c;
  c.queue = kmd::FirmwareQueue::fragment;
  c.command_index = 3;
  GpuFault f;
  EXPECT_FALSE(gpu.execute(c, &f));
  EXPECT_NE(f.reason.find("fragment half of render command #3"), std::string::npos) << f.reason;
  EXPECT_EQ(f.unit, GpuUnit::pdm);
}

}  // namespace
}  // namespace agx::gpu::test
