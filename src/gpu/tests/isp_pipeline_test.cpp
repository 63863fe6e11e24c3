// The ISP inside the fragment half: depth test between overlapping
// rectangles with the depth buffer stored by the ZLS, stencil (one- and
// two-sided), scissor, 4x MSAA coverage, occlusion queries (counting and
// boolean), late Z with discard and zs_emit. Rectangles have integer
// edges, so the pixels they cover are known without the fill rule.
#include "pdm_fixture.h"

namespace agx::gpu::test {
namespace AGX_UNITY_ID {

using Rgba = std::array<uint8_t, 4>;
constexpr Rgba kBlack{0, 0, 0, 255}, kRed{255, 0, 0, 255}, kGreen{0, 255, 0, 255}, kBlue{0, 0, 255, 255};

class IspPipeline : public RenderTest {
 public:
  void SetUp() override {
    target_of("R8G8B8A8_UNORM", 32, 32);
    clear_and_store(0, 0, 0, 1);
  }
  static PppWords depth_words(cs::ZsFunc f, bool write = true) {
    PppWords w = open_words();
    w.front.depth_function = w.back.depth_function = f;
    w.front.disable_depth_write = w.back.disable_depth_write = !write;
    return w;
  }
  static bool in(int x, int y, int x0, int y0, int x1, int y1) { return x >= x0 && x < x1 && y >= y0 && y < y1; }
};

TEST_F(IspPipeline, DepthTestBetweenOverlappingPrimitivesAndTheStoredDepth) {
  cs::ZlsControl c{};
  c.z_store = true;
  c.z_format = cs::ZlsFormat::k32F;
  zls(c, 1.0f, 0);
  const PppWords less = depth_words(cs::ZsFunc::kLess);
  rect(draw(colour(1, 0, 0, 1), {}, less), 0, 0, 20, 20, 0.6);
  rect(draw(colour(0, 1, 0, 1), {}, less), 10, 10, 30, 30, 0.3);
  rect(draw(colour(0, 0, 1, 1), {}, less), 0, 0, 32, 32, 0.8);
  auto st = run();
  ASSERT_TRUE(st.ok()) << st.error().message();
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x) {
      const bool b = in(x, y, 10, 10, 30, 30), a = in(x, y, 0, 0, 20, 20);
      ASSERT_EQ(pixel(x, y), b ? kGreen : a ? kRed : kBlue) << x << "," << y;
      ASSERT_EQ(depth_at(x, y), b ? 0.3f : a ? 0.6f : 0.8f) << x << "," << y;
    }
}

TEST_F(IspPipeline, LoadedDepthAndSixteenBitDepth) {
  cs::ZlsControl c{};
  c.z_load = c.z_store = true;
  c.z_format = cs::ZlsFormat::k16;
  zls(c, 0.0f, 0);
  // The loaded buffer holds 0.25 on the left half and 0.75 on the right.
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x) {
      const uint16_t v = x < 16 ? 16384 : 49151;
      auto off = layout::element_address_B(depth_layout, x, y, 0, 0);
      ASSERT_TRUE(off.ok());
      GpuFault f;
      ASSERT_TRUE(mem.write(kDepth + *off, &v, 2, GpuUnit::host, &f));
    }
  rect(draw(colour(0, 1, 0, 1), {}, depth_words(cs::ZsFunc::kLess)), 0, 0, 32, 32, 0.5);
  auto st = run();
  ASSERT_TRUE(st.ok()) << st.error().message();
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x) {
      ASSERT_EQ(pixel(x, y), x < 16 ? kBlack : kGreen) << x << "," << y;
      ASSERT_EQ(at<uint16_t>(kDepth, depth_layout, x, y), x < 16 ? 16384 : 32768) << x << "," << y;
    }
}

TEST_F(IspPipeline, StencilOneAndTwoSided) {
  cs::ZlsControl c{};
  c.s_store = true;
  zls(c, 1.0f, 0);
  PppWords mark = open_words();
  mark.fragment_control.stencil_test_enable = true;
  mark.front.stencil_reference = 1;
  mark.front_stencil.depth_pass = cs::StencilOp::kReplace;
  rect(draw(colour(1, 0, 0, 1), {}, mark), 0, 0, 16, 32, 0.5);
  PppWords equal = open_words();
  equal.fragment_control.stencil_test_enable = true;
  equal.front.stencil_reference = 1;
  equal.front_stencil.compare = cs::ZsFunc::kEqual;
  equal.front_stencil.depth_pass = cs::StencilOp::kIncrSat;
  rect(draw(colour(0, 1, 0, 1), {}, equal), 0, 0, 32, 32, 0.5);
  // Back-facing, two-sided: the back stencil (Equal 0) draws the right half.
  PppWords sides = equal;
  sides.fragment_control.two_sided_stencil = true;
  sides.back.stencil_reference = 0;
  sides.back_stencil.compare = cs::ZsFunc::kEqual;
  sides.back_stencil.read_mask = sides.back_stencil.write_mask = 0xFF;
  sides.back_stencil.depth_pass = cs::StencilOp::kKeep;
  rect(draw(colour(0, 0, 1, 1), {}, sides), 0, 0, 32, 32, 0.5, /*front=*/false);
  auto st = run();
  ASSERT_TRUE(st.ok()) << st.error().message();
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x) {
      ASSERT_EQ(pixel(x, y), x < 16 ? kGreen : kBlue) << x << "," << y;
      ASSERT_EQ(stencil_at(x, y), x < 16 ? 2 : 0) << x << "," << y;
    }
}

TEST_F(IspPipeline, ScissorFromTheScissorArray) {
  put(render.isp_scissor_base + cs::Scissor::kSize_B,
      cs::Scissor{.max_x = 20, .min_x = 4, .max_y = 12, .min_y = 6, .min_z = 0, .max_z = 1});
  PppWords w = open_words();
  w.fragment_control.scissor_enable = true;
  w.depth_bias_scissor.scissor = 1;
  rect(draw(colour(1, 0, 0, 1), {}, w), 0, 0, 32, 32, 0.5);
  auto st = run();
  ASSERT_TRUE(st.ok()) << st.error().message();
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x) ASSERT_EQ(pixel(x, y), in(x, y, 4, 6, 20, 12) ? kRed : kBlack) << x << "," << y;
}

TEST_F(IspPipeline, FourSampleCoverage) {
  mem = usc::RegionMemory();
  usc_used = 0;
  target_of("R8G8B8A8_UNORM", 32, 32, 4);
  clear_and_store(0, 0, 0, 1);
  rect(draw(colour(0, 1, 0, 1), {}), 0, 0, 5.5, 32, 0.5);  // samples left of x = 5.5
  auto st = run();
  ASSERT_TRUE(st.ok()) << st.error().message();
  for (int y = 0; y < 32; ++y)
    for (uint32_t s = 0; s < 4; ++s) {
      EXPECT_EQ(pixel(4, y, s), kGreen) << y << " sample " << s;
      EXPECT_EQ(pixel(5, y, s), s == 0 || s == 2 ? kGreen : kBlack) << y << " sample " << s;  // x 6/16, 2/16
      EXPECT_EQ(pixel(6, y, s), kBlack) << y << " sample " << s;
    }
  EXPECT_EQ(last_stats.samples_passed, 32u * (5 * 4 + 2));
}

TEST_F(IspPipeline, OcclusionQueriesCountAndFlag) {
  const uint64_t five = 5;
  GpuFault f;
  ASSERT_TRUE(mem.write(render.isp_oclqry_base + 2 * 8, &five, 8, GpuUnit::host, &f));
  PppWords counting = open_words();
  counting.fragment_control.visibility_mode = cs::VisibilityMode::kCounting;
  counting.occlusion_query.index = 2;
  rect(draw(colour(1, 0, 0, 1), {}, counting), 0, 0, 10, 10, 0.5);
  PppWords failing = depth_words(cs::ZsFunc::kNever);
  failing.fragment_control.visibility_mode = cs::VisibilityMode::kBoolean;
  failing.occlusion_query.index = 3;
  rect(draw(colour(1, 0, 0, 1), {}, failing), 0, 0, 32, 32, 0.5);
  PppWords passing = open_words();
  passing.fragment_control.visibility_mode = cs::VisibilityMode::kBoolean;
  passing.occlusion_query.index = 4;
  rect(draw(colour(1, 0, 0, 1), {}, passing), 30, 30, 31, 31, 0.5);
  auto st = run();
  ASSERT_TRUE(st.ok()) << st.error().message();
  uint64_t q[5] = {};
  ASSERT_TRUE(mem.read(render.isp_oclqry_base, q, sizeof q, GpuUnit::host, &f));
  EXPECT_EQ(q[2], 5u + 100u);
  EXPECT_EQ(q[3], 0u);
  EXPECT_EQ(q[4], 1u);
}

// Late Z: a shader whose Fragment Properties has no Early-z testing and
// that discards every sample writes neither colour nor depth; one with no
// Fragment Properties that emits depth with zs_emit (late because of the
// zs_emit; T's two halves are the depth) stores that depth.
TEST_F(IspPipeline, LateZWithDiscardAndEmittedDepth) {
  cs::ZlsControl c{};
  c.z_store = true;
  c.z_format = cs::ZlsFormat::k32F;
  zls(c, 1.0f, 0);
  cs::UscFragmentProperties late{};
  late.early_z_testing = false;
  const PppWords less = depth_words(cs::ZsFunc::kLess);
  rect(draw("mov_imm r4l, 255\nmov_imm r5l, 0\nsample_mask r4l, r5l\n" + colour(1, 0, 0, 1), {}, less, late), 0, 0,
       16, 32, 0.5);
  rect(draw("mov_imm r4l, 255\nmov_imm r2, " + std::to_string(f2u(0.125f)) + ", 0b0\nzs_emit r4l, r2l_r2h, 0\n" +
                colour(0, 1, 0, 1),
            {}, less),
       16, 0, 32, 32, 0.5);
  auto st = run();
  ASSERT_TRUE(st.ok()) << st.error().message();
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x) {
      ASSERT_EQ(pixel(x, y), x < 16 ? kBlack : kGreen) << x << "," << y;
      ASSERT_EQ(depth_at(x, y), x < 16 ? 1.0f : 0.125f) << x << "," << y;
    }
}

TEST_F(IspPipeline, DepthBiasFromTheBiasArray) {
  cs::ZlsControl c{};
  c.z_store = true;
  c.z_format = cs::ZlsFormat::k16;
  zls(c, 1.0f, 0);
  cs::DepthBias b{};
  b.depth_bias = 100;
  put(render.isp_dbias_base + 2 * cs::DepthBias::kSize_B, b);
  render.flags |= DRM_ASAHI_RENDER_DBIAS_IS_INT;
  PppWords w = depth_words(cs::ZsFunc::kAlways);
  w.fragment_control.depth_bias_enable = true;
  w.depth_bias_scissor.depth_bias = 2;
  rect(draw(colour(1, 0, 0, 1), {}, w), 0, 0, 32, 32, 0.5);
  auto st = run();
  ASSERT_TRUE(st.ok()) << st.error().message();
  EXPECT_EQ(at<uint16_t>(kDepth, depth_layout, 3, 3), uint16_t(std::lround((0.5 + 100.0 / 65536) * 65535)));
}

}  // namespace
}  // namespace agx::gpu::test
