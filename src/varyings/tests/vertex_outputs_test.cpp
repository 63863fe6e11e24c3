// Vertex output order: the seed's "Ordering of vertex outputs with all
// outputs used" (Mesa docs/drivers/asahi.rst, "Hardware varyings") and the
// older revision's index table (position 0, 32-bit varying 0 at 4, ...).
#include <gtest/gtest.h>

#include "varyings/tests/test_interfaces.h"
#include "varyings/varyings.h"

namespace agx::varyings {
namespace AGX_UNITY_ID {

struct Expected {
  const char* name;
  unsigned index, words;
};

TEST(VertexOutputs, EveryKindInSeedOrder) {
  auto l = layout_vertex_outputs(test::every_kind());
  ASSERT_TRUE(l.ok()) << l.error().message();
  // position; 32-bit smooth a b, flat c, linear d; 16-bit pairs smooth e f,
  // flat g, linear h; point size; layer/viewport; clip distances 0..2.
  const Expected want[] = {
      {"position", 0, 4}, {"a", 4, 4},  {"b", 8, 2},  {"c", 10, 1}, {"d", 11, 3},
      {"e", 14, 1},       {"f", 15, 2}, {"g", 17, 1}, {"h", 18, 2}, {"point_size", 20, 1},
      {"layer_viewport", 21, 1}, {"clip_distance_0", 22, 1}, {"clip_distance_1", 23, 1},
      {"clip_distance_2", 24, 1},
  };
  ASSERT_EQ(l->outputs.size(), std::size(want));
  for (size_t i = 0; i < std::size(want); ++i) {
    EXPECT_EQ(l->outputs[i].name, want[i].name) << i;
    EXPECT_EQ(l->outputs[i].index, want[i].index) << want[i].name;
    EXPECT_EQ(l->outputs[i].words, want[i].words) << want[i].name;
  }
  EXPECT_EQ(l->output_count, 25u);
  EXPECT_EQ(l->first_16bit_index, 14u);
  EXPECT_EQ(l->user_words_32, 10u);
  EXPECT_EQ(l->user_pairs_16, 6u);
  // Varying Counts: smooth 6, flat 1, linear 3 words; pairs 3, 1, 2.
  EXPECT_EQ(l->varying_counts_32, 0x00030106u);
  EXPECT_EQ(l->varying_counts_16, 0x00020103u);
  // Output Select: planes 0-2, Varyings (16), Point size (18), Viewport
  // target (19), Render target (20).
  EXPECT_EQ(l->output_select, 0x001D0007u);
  // VDM State Vertex Outputs: output count 1 and 2 both 25.
  EXPECT_EQ(l->vdm_vertex_outputs, 0x1919u);
}

TEST(VertexOutputs, OlderSeedIndexTable) {
  // Index 0 position, 4 + k the k-th 32-bit varying word, then the 16-bit
  // pairs, then point size last.
  Interface i;
  i.varyings = {{"v0", 1, 32, Interp::smooth}, {"v1", 1, 32, Interp::smooth},
                {"p0", 2, 16, Interp::smooth}};
  i.point_size = true;
  auto l = layout_vertex_outputs(i);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->outputs[1].index, 4u);
  EXPECT_EQ(l->outputs[2].index, 5u);
  EXPECT_EQ(l->outputs[3].index, 6u);
  EXPECT_EQ(l->outputs[4].name, "point_size");
  EXPECT_EQ(l->outputs[4].index, 7u);
  EXPECT_EQ(l->output_count, 8u);
}

TEST(VertexOutputs, PositionOnly) {
  auto l = layout_vertex_outputs(Interface{});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->output_count, 4u);
  EXPECT_EQ(l->output_select, 0u);  // no varyings: the Varyings bit stays clear
  EXPECT_EQ(l->vdm_vertex_outputs, 0x0404u);
}

TEST(VertexOutputs, SixteenBitVaryingsStartOnAWord) {
  Interface i;
  i.varyings = {{"x", 3, 16, Interp::flat}, {"y", 1, 16, Interp::flat}};
  auto l = layout_vertex_outputs(i);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->find_varying(0)->index, 4u);
  EXPECT_EQ(l->find_varying(0)->words, 2u);
  EXPECT_EQ(l->find_varying(1)->index, 6u);
  EXPECT_EQ(l->counts_16.flat, 3u);
}

void expect_error(const Interface& i, std::string_view what) {
  auto l = layout_vertex_outputs(i);
  ASSERT_FALSE(l.ok()) << what;
  EXPECT_NE(l.error().message().find(what), std::string::npos) << l.error().message();
}

TEST(VertexOutputs, BadInterfacesAreClearErrors) {
  Interface many;
  for (int k = 0; k < 70; ++k) many.varyings.push_back({"v" + std::to_string(k), 4, 32, Interp::smooth});
  expect_error(many, "too many vertex outputs: 284 words");

  Interface group;  // 64 x vec4 flat = 256 words in one group (and 260 outputs)
  for (int k = 0; k < 64; ++k) group.varyings.push_back({"f" + std::to_string(k), 4, 32, Interp::flat});
  expect_error(group, "too many");

  Interface bad;
  bad.varyings = {{"x", 5, 32, Interp::smooth}};
  expect_error(bad, "5 components");
  bad.varyings = {{"x", 2, 24, Interp::smooth}};
  expect_error(bad, "24 bits");
  bad.varyings = {{"x", 2, 32, Interp::smooth}, {"x", 1, 32, Interp::flat}};
  expect_error(bad, "used twice");
  bad.varyings = {{"position", 4, 32, Interp::smooth}};
  expect_error(bad, "reserved");
  bad.varyings = {};
  bad.clip_distances = 17;
  expect_error(bad, "17 clip distances");
}

TEST(ClipDistances, FragmentReadsNeedAUserVarying) {
  auto p = plan_clip_distances(6, true, std::nullopt);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->hardware_planes, 6u);
  ASSERT_EQ(p->user_varyings.size(), 2u);
  EXPECT_EQ(p->user_varyings[0].components, 4u);
  EXPECT_EQ(p->user_varyings[1].components, 2u);
  EXPECT_EQ(p->planes_to_force_inside, 0u);
}

TEST(ClipDistances, EnableMaskIsLoweredInTheShader) {
  // OpenGL enables planes 0 and 2 of 4 written: planes 1 and 3 must be
  // written as 0 (never clipped), since the hardware has no enable mask.
  auto p = plan_clip_distances(4, false, 0b0101u);
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->user_varyings.empty());
  EXPECT_EQ(p->planes_to_force_inside, 0b1010u);
  EXPECT_FALSE(plan_clip_distances(17, false, std::nullopt).ok());
}

}  // namespace
}  // namespace agx::varyings

namespace agx::varyings {
namespace AGX_UNITY_ID {

TEST(LayoutFromWords, RebuildsTheInterfaceLayoutByGroup) {
  auto l = layout_vertex_outputs(test::every_kind());
  ASSERT_TRUE(l.ok()) << l.error().message();
  auto w = layout_from_words(l->output_select, l->varying_counts_32, l->varying_counts_16, l->output_count);
  ASSERT_TRUE(w.ok()) << w.error().message();
  // One range per interpolation group: 32-bit smooth 6, flat 1, linear 3;
  // 16-bit smooth 3, flat 1, linear 2; then the system outputs.
  const Expected want[] = {
      {"position", 0, 4},      {"smooth_32", 4, 6},      {"flat_32", 10, 1},      {"linear_32", 11, 3},
      {"smooth_16", 14, 3},    {"flat_16", 17, 1},       {"linear_16", 18, 2},    {"point_size", 20, 1},
      {"layer_viewport", 21, 1}, {"clip_distance_0", 22, 1}, {"clip_distance_1", 23, 1},
      {"clip_distance_2", 24, 1},
  };
  ASSERT_EQ(w->outputs.size(), std::size(want));
  for (size_t i = 0; i < std::size(want); ++i) {
    EXPECT_EQ(w->outputs[i].name, want[i].name) << i;
    EXPECT_EQ(w->outputs[i].index, want[i].index) << want[i].name;
    EXPECT_EQ(w->outputs[i].words, want[i].words) << want[i].name;
  }
  EXPECT_EQ(w->outputs[2].interp, Interp::flat);
  EXPECT_EQ(w->outputs[6].interp, Interp::linear);
  EXPECT_EQ(w->first_16bit_index, 14u);
  EXPECT_EQ(w->vdm_vertex_outputs, l->vdm_vertex_outputs);
  // The slots Output Select makes of it are those of the interface's layout.
  auto a = remap(l->output_select, *l), b = remap(l->output_select, *w);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->slots.size(), b->slots.size());
  for (size_t i = 0; i < a->slots.size(); ++i) {
    EXPECT_EQ(a->slots[i].source, b->slots[i].source) << i;
    EXPECT_EQ(a->slots[i].vertex_output, b->slots[i].vertex_output) << i;
  }
  EXPECT_EQ(a->num_16bit_pairs, b->num_16bit_pairs);
}

TEST(LayoutFromWords, WordsThatDisagreeAreClearErrors) {
  auto l = layout_vertex_outputs(test::every_kind());
  ASSERT_TRUE(l.ok());
  auto count = layout_from_words(l->output_select, l->varying_counts_32, l->varying_counts_16, 24);
  ASSERT_FALSE(count.ok());
  EXPECT_NE(count.error().message().find("describe 25 vertex output words, the Vertex Outputs count is 24"),
            std::string::npos)
      << count.error().message();
  // Plane 1 without plane 0; Viewport target without Render target.
  auto gap = layout_from_words(1u << 1, 0, 0, 5);
  ASSERT_FALSE(gap.ok());
  EXPECT_NE(gap.error().message().find("clip distance plane 1 is set but plane 0 is not"), std::string::npos)
      << gap.error().message();
  auto lv = layout_from_words(1u << 19, 0, 0, 5);
  ASSERT_FALSE(lv.ok());
  EXPECT_NE(lv.error().message().find("Viewport target is set but Render target is clear"), std::string::npos)
      << lv.error().message();
  auto position = layout_from_words(0, 0, 0, 4);
  ASSERT_TRUE(position.ok()) << position.error().message();
  EXPECT_EQ(position->outputs.size(), 1u);
}

}  // namespace
}  // namespace agx::varyings
