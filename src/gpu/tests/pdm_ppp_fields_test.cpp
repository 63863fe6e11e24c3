// The PPP fields of a draw the fragment half models or holds to Mesa's
// values (docs/gpu.md, "PPP fields"): Tag write disable (the shader does
// not run, depth / stencil and queries do), Sample mask after
// depth/stencil (never set by Mesa: a fault), Pass type and Object type
// (every value of their enums is accepted; any other faults naming the
// word and field), Conservative depth (every value draws the same).
#include "pdm_fixture.h"

namespace agx::gpu::test {
namespace AGX_UNITY_ID {

using Rgba = std::array<uint8_t, 4>;
constexpr Rgba kBlack{0, 0, 0, 255}, kRed{255, 0, 0, 255};

class PdmPppFields : public RenderTest {
 protected:
  void SetUp() override {
    target_of("R8G8B8A8_UNORM", 40, 24);
    clear_and_store(0, 0, 0, 1);
  }
  // A red rectangle over [4, 20) x [4, 12) at depth 0.25, depth Always with
  // writes, counted in occlusion query 1.
  void red_rect(const PppWords& w) { rect(draw(colour(1, 0, 0, 1), {}, w), 4, 4, 20, 12, 0.25); }
  static PppWords writing_words() {
    PppWords w = open_words();
    w.front.disable_depth_write = w.back.disable_depth_write = false;
    w.fragment_control.visibility_mode = cs::VisibilityMode::kCounting;
    w.occlusion_query.index = 1;
    return w;
  }
  void expect_fault(const std::string& what) {
    auto st = run();
    ASSERT_FALSE(st.ok()) << what;
    EXPECT_NE(st.error().message().find(what), std::string::npos) << st.error().message();
    EXPECT_EQ(last_fault.unit, GpuUnit::pdm);
  }
  uint64_t query(uint32_t i) {
    uint64_t v = 0;
    GpuFault f;
    EXPECT_TRUE(mem.read(render.isp_oclqry_base + i * 8, &v, 8, GpuUnit::host, &f));
    return v;
  }
};

TEST_F(PdmPppFields, TagWriteDisableSkipsTheShaderButNotTheTests) {
  cs::ZlsControl c{};
  c.z_store = true;
  c.z_format = cs::ZlsFormat::k32F;
  for (bool second_word : {false, true}) {
    zls(c, 1.0f, 0);
    PppWords w = writing_words();
    (second_word ? w.fragment_control_2 : w.fragment_control).tag_write_disable = true;
    scene = Scene();
    red_rect(w);
    auto st = run();
    ASSERT_TRUE(st.ok()) << st.error().message();
    EXPECT_EQ(pixel(8, 8), kBlack) << second_word;   // no colour: the shader did not run
    EXPECT_EQ(depth_at(8, 8), 0.25f) << second_word;  // the depth was written
    EXPECT_EQ(depth_at(30, 8), 1.0f) << second_word;
    EXPECT_EQ(query(1), (second_word ? 2u : 1u) * 16 * 8) << second_word;  // counted (added to the last run's)
    EXPECT_EQ(last_stats.quads_shaded, 0u);
  }
  // Without the bit the shader runs.
  scene = Scene();
  red_rect(writing_words());
  auto st = run();
  ASSERT_TRUE(st.ok()) << st.error().message();
  EXPECT_EQ(pixel(8, 8), kRed);
  EXPECT_GE(last_stats.quads_shaded, 8u * 4);  // the rectangle's 8 x 4 quads (its diagonal's twice)
}

TEST_F(PdmPppFields, MesasValuesDrawTheSame) {
  for (unsigned pass = 0; pass < 4; ++pass)
    for (unsigned conservative = 0; conservative < 4; ++conservative)
      for (cs::ObjectType object : {cs::ObjectType::kTriangle, cs::ObjectType::kLine,
                                    cs::ObjectType::kPointSpriteUv10, cs::ObjectType::kPointSpriteUv01}) {
        scene = Scene();
        PppWords w = open_words();
        w.fragment_control.pass_type = w.fragment_control_2.pass_type = cs::PassType(pass);
        w.front_2.conservative_depth = w.back_2.conservative_depth = cs::ConservativeDepth(conservative);
        w.front_2.object_type = w.back_2.object_type = object;
        red_rect(w);
        auto st = run();
        ASSERT_TRUE(st.ok()) << st.error().message();
        ASSERT_EQ(pixel(8, 8), kRed) << pass << " " << conservative << " " << unsigned(object);
        ASSERT_EQ(pixel(30, 8), kBlack);
      }
}

TEST_F(PdmPppFields, SampleMaskAfterDepthStencilFaults) {
  PppWords w = open_words();
  w.fragment_control_2.sample_mask_after_depth_stencil = true;
  red_rect(w);
  expect_fault("draw state 0: Fragment control 2 Sample mask after depth/stencil: set; Mesa never sets it");
}

TEST_F(PdmPppFields, AValueOutsideItsEnumFaultsNamingWordAndField) {
  PppWords w = open_words();
  w.fragment_control.pass_type = cs::PassType(5);
  red_rect(w);
  expect_fault("draw state 0: Fragment control Pass type: 5 is not a pass type");
  scene = Scene();
  w = open_words();
  w.back_2.object_type = cs::ObjectType(3);
  red_rect(w);
  expect_fault("draw state 0: Fragment face 2 (back) Object type: 3 is not an object type");
}

}  // namespace
}  // namespace agx::gpu::test
