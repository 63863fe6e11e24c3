// The primitive stage: viewport transform, culling, clipping (depth, user
// distances, guard band, near w) with the outputs of new vertices, point
// size, line width, layer and viewport index, rasterizer discard; numbers
// computed by hand.
#include "gpu/tests/vdm_fixture.h"
#include "util/half.h"

namespace agx::gpu::test {
namespace AGX_UNITY_ID {

using P = cs::Primitive;

PppWords base_words() {
  PppWords w;
  w.viewports.push_back(viewport(50, 50, 50, 50));
  return w;
}

struct StageRun {
  StageRun(PppWords ppp, uint32_t count) {
    DrawState st;
    st.ppp = std::move(ppp);
    st.output_count = count;
    auto p = plan_draw_state(st);
    EXPECT_TRUE(p.ok()) << p.error().message();
    if (p) plan = *p;
    scene.states.push_back(std::move(st));
  }
  PrimitiveCounts draw(P prim, std::vector<uint32_t> elements, const std::vector<uint32_t>& outputs) {
    PrimitiveInput in;
    in.topology = prim;
    in.elements = elements;
    in.outputs = outputs;
    auto c = run_primitives(in, plan, scene);
    EXPECT_TRUE(c.ok()) << c.error().message();
    return c ? *c : PrimitiveCounts{};
  }
  const varyings::ScreenVertex& screen(size_t p, unsigned k) const {
    return scene.vertices[scene.primitives[p].vertices[k]].screen;
  }
  uint32_t word(size_t p, unsigned k, unsigned w) const {
    return scene.outputs[scene.vertices[scene.primitives[p].vertices[k]].first_output + w];
  }
  Scene scene;
  OutputPlan plan;
};

// Position-only vertices.
std::vector<uint32_t> verts(const std::vector<std::array<float, 4>>& p) {
  std::vector<uint32_t> out;
  for (const auto& v : p)
    for (float f : v) out.push_back(bits(f));
  return out;
}

TEST(PppStage, ViewportTransformDividesByW) {
  PppWords w = base_words();
  w.viewports[0] = viewport(50, 50, 50, -50, 0.25f, 0.5f);
  StageRun s(w, 4);
  auto c = s.draw(P::kTriangles, {0, 1, 2}, verts({{1, -1, 1, 2}, {0, 1, 0, 2}, {-1, -1, 2, 2}}));
  EXPECT_EQ(c.in, 1u);
  ASSERT_EQ(c.out, 1u);
  // x = 50 + 50 * 0.5, y = 50 - 50 * (-0.5), z = 0.25 + 0.5 * 0.5.
  EXPECT_DOUBLE_EQ(s.screen(0, 0).x_px, 75);
  EXPECT_DOUBLE_EQ(s.screen(0, 0).y_px, 75);
  EXPECT_DOUBLE_EQ(s.screen(0, 0).z, 0.5);
  EXPECT_DOUBLE_EQ(s.screen(0, 0).w, 2);
  EXPECT_DOUBLE_EQ(s.screen(0, 2).z, 0.75);
}

TEST(PppStage, CullingFollowsFrontFaceCcw) {
  // In y-down window coordinates (25,25) (75,25) (25,75) is clockwise.
  const auto cw = verts({{-0.5f, -0.5f, 0, 1}, {0.5f, -0.5f, 0, 1}, {-0.5f, 0.5f, 0, 1}});
  PppWords w = base_words();
  w.cull.front_face_ccw = true;
  w.cull.cull_back = true;
  StageRun s(w, 4);
  EXPECT_EQ(s.draw(P::kTriangles, {0, 1, 2}, cw).out, 0u);  // clockwise: back, culled
  EXPECT_EQ(s.draw(P::kTriangles, {0, 2, 1}, cw).out, 1u);  // counter-clockwise: front
  EXPECT_TRUE(s.scene.primitives[0].front_facing);
  w.cull.cull_back = false;
  w.cull.cull_front = true;
  StageRun f(w, 4);
  EXPECT_EQ(f.draw(P::kTriangles, {0, 1, 2}, cw).out, 1u);
  EXPECT_FALSE(f.scene.primitives[0].front_facing);
  EXPECT_EQ(f.draw(P::kTriangles, {0, 2, 1}, cw).out, 0u);
  // Zero area covers nothing and is dropped.
  EXPECT_EQ(f.draw(P::kTriangles, {0, 0, 1}, cw).out, 0u);
}

TEST(PppStage, DepthClipCutsTrianglesAndInterpolatesOutputs) {
  // Outputs: position, a smooth 32-bit word, a flat 32-bit word, a smooth
  // 16-bit pair.
  PppWords w = base_words();
  w.cull.depth_clip = true;
  w.output_select.varyings = true;
  w.varying_counts_32.smooth = 1;
  w.varying_counts_32.flat = 1;
  w.varying_counts_16.smooth = 1;
  StageRun s(w, 7);
  auto pair = [](float lo, float hi) { return uint32_t{float_to_half(lo)} | uint32_t{float_to_half(hi)} << 16; };
  const std::vector<uint32_t> out = {
      bits(0), bits(0), bits(0.5f), bits(1), bits(0), 100, pair(1, 2),
      bits(0.5f), bits(0), bits(0.5f), bits(1), bits(10), 200, pair(3, 4),
      bits(0), bits(0.5f), bits(-0.5f), bits(1), bits(20), 300, pair(5, 6),
  };
  auto c = s.draw(P::kTriangles, {0, 1, 2}, out);
  // v2 is behind z = 0: the polygon v0 v1 (v1+v2)/2 (v0+v2)/2, two triangles.
  ASSERT_EQ(c.out, 2u);
  EXPECT_EQ(s.scene.primitives[0].primitive_id, 0u);
  EXPECT_EQ(s.scene.primitives[1].primitive_id, 0u);
  // The second triangle: v0, n12, n20.
  EXPECT_EQ(as_float(s.word(1, 1, 0)), 0.25f);
  EXPECT_EQ(as_float(s.word(1, 1, 1)), 0.25f);
  EXPECT_EQ(as_float(s.word(1, 1, 2)), 0.0f);
  EXPECT_DOUBLE_EQ(s.screen(1, 1).z, 0.0);
  EXPECT_EQ(as_float(s.word(1, 1, 4)), 15.0f);
  EXPECT_EQ(as_float(s.word(1, 2, 4)), 10.0f);
  EXPECT_EQ(s.word(1, 1, 6), pair(4, 5));
  EXPECT_EQ(s.word(1, 2, 6), pair(3, 4));
  // Flat words come from the provoking vertex (v0) on every vertex.
  for (unsigned k = 0; k < 3; ++k) {
    EXPECT_EQ(s.word(0, k, 5), 100u);
    EXPECT_EQ(s.word(1, k, 5), 100u);
  }
}

TEST(PppStage, ClippedNoperspectiveVaryingsStayLinearInWindowSpace) {
  // Outputs: position, a smooth 32-bit word, a linear (noperspective)
  // 32-bit word, a linear 16-bit pair. v2 is behind z = 0 with w = 3.
  PppWords w = base_words();
  w.cull.depth_clip = true;
  w.output_select.varyings = true;
  w.varying_counts_32.smooth = 1;
  w.varying_counts_32.linear = 1;
  w.varying_counts_16.linear = 1;
  StageRun s(w, 7);
  auto pair = [](float lo, float hi) { return uint32_t{float_to_half(lo)} | uint32_t{float_to_half(hi)} << 16; };
  const std::vector<uint32_t> out = {
      bits(0), bits(0), bits(0.5f), bits(1), bits(0), bits(0), pair(1, 2),
      bits(0.5f), bits(0), bits(0.5f), bits(1), bits(10), bits(10), pair(3, 4),
      bits(0.6f), bits(0.9f), bits(-1.5f), bits(3), bits(20), bits(20), pair(5, 6),
  };
  ASSERT_EQ(s.draw(P::kTriangles, {0, 1, 2}, out).out, 2u);
  // n20 = v0 + t (v2 - v0) at t = 0.5 / 2 = 0.25: w = 1.5, x = 0.15, so
  // x/w = 0.1, halfway between v0's 0 and v2's 0.2 in window space.
  EXPECT_EQ(as_float(s.word(1, 2, 3)), 1.5f);
  EXPECT_NEAR(s.screen(1, 2).x_px, 55.0, 1e-5);  // x 0.15 in float
  EXPECT_EQ(as_float(s.word(1, 2, 4)), 5.0f);   // smooth: at t
  EXPECT_EQ(as_float(s.word(1, 2, 5)), 10.0f);  // linear: at s = t w2 / w = 0.5
  EXPECT_EQ(s.word(1, 2, 6), pair(3, 4));
  // n12 from v1 (d 0.5) toward v2 (d -1.5): t = 0.25 again, s = 0.5.
  EXPECT_EQ(as_float(s.word(1, 1, 4)), 12.5f);
  EXPECT_EQ(as_float(s.word(1, 1, 5)), 15.0f);
  EXPECT_EQ(s.word(1, 1, 6), pair(4, 5));
}

TEST(PppStage, DepthClampWithoutDepthClip) {
  PppWords w = base_words();
  w.cull.depth_clamp = true;
  StageRun s(w, 4);
  ASSERT_EQ(s.draw(P::kTriangles, {0, 1, 2}, verts({{0, 0, -0.5f, 1}, {0.5f, 0, 2, 1}, {0, 0.5f, 0.5f, 1}})).out, 1u);
  EXPECT_DOUBLE_EQ(s.screen(0, 0).z, 0.0);
  EXPECT_DOUBLE_EQ(s.screen(0, 1).z, 1.0);
  EXPECT_DOUBLE_EQ(s.screen(0, 2).z, 0.5);
}

TEST(PppStage, UserClipDistancesClip) {
  PppWords w = base_words();
  w.output_select.clip_distance_plane_0 = true;
  StageRun s(w, 5);
  const std::vector<uint32_t> out = {
      bits(0), bits(0), bits(0), bits(1), bits(1),  bits(0.5f), bits(0), bits(0), bits(1), bits(1),
      bits(0), bits(0.5f), bits(0), bits(1), bits(-1),
  };
  EXPECT_EQ(s.draw(P::kTriangles, {0, 1, 2}, out).out, 2u);
  // The new vertex between v1 (d 1) and v2 (d -1): halfway, d 0.
  EXPECT_EQ(as_float(s.word(0, 2, 4)), 0.0f);
  EXPECT_EQ(as_float(s.word(0, 2, 0)), 0.25f);
  std::vector<uint32_t> outside = out;
  outside[4] = outside[9] = bits(-2);
  EXPECT_EQ(s.draw(P::kTriangles, {0, 1, 2}, outside).out, 0u);
}

TEST(PppStage, GuardBandAvoidsClippingAndTrivialRejectDropsOutsiders) {
  StageRun s(base_words(), 4);
  // x = 3w: outside the view volume, inside the guard band (8 widths).
  EXPECT_EQ(s.draw(P::kTriangles, {0, 1, 2}, verts({{0, 0, 0, 1}, {3, 0, 0, 1}, {0, 0.5f, 0, 1}})).out, 1u);
  EXPECT_EQ(s.scene.vertices.size(), 3u);
  EXPECT_DOUBLE_EQ(s.screen(0, 1).x_px, 200);
  // x = 20w: clipped at the guard band x = 8w.
  EXPECT_EQ(s.draw(P::kTriangles, {0, 1, 2}, verts({{0, 0, 0, 1}, {20, 0, 0, 1}, {0, 0.5f, 0, 1}})).out, 2u);
  double max_x = 0;
  for (unsigned k = 0; k < 3; ++k) max_x = std::max(max_x, s.screen(2, k).x_px);
  EXPECT_DOUBLE_EQ(max_x, 450);  // 50 + 50 * 8
  // Wholly right of the view volume, or behind the eye: nothing.
  EXPECT_EQ(s.draw(P::kTriangles, {0, 1, 2}, verts({{2, 0, 0, 1}, {3, 0, 0, 1}, {2, 1, 0, 1}})).out, 0u);
  EXPECT_EQ(s.draw(P::kTriangles, {0, 1, 2}, verts({{0, 0, 0, -1}, {1, 0, 0, -1}, {0, 1, 0, -1}})).out, 0u);
  // One vertex behind the eye: clipped at w = kMinW, nothing infinite.
  EXPECT_GE(s.draw(P::kTriangles, {0, 1, 2}, verts({{0, 0, 0, 1}, {0.5f, 0, 0, 1}, {0, 0.5f, 0, -1}})).out, 1u);
  for (const SceneVertex& v : s.scene.vertices) EXPECT_GT(v.screen.w, 0);
}

TEST(PppStage, TheWClampWordIsTheNearWPlane) {
  PppWords w = base_words();
  w.w_clamp.w_clamp = 0.5f;
  StageRun s(w, 4);
  // v2 at w = -1.5: the edges to it are cut where w = 0.5, a third of the way.
  ASSERT_GE(s.draw(P::kTriangles, {0, 1, 2}, verts({{0, 0, 0, 1.5f}, {0.5f, 0, 0, 1.5f}, {0, 0.5f, 0, -1.5f}})).out,
            1u);
  double min_w = 10;
  for (const SceneVertex& v : s.scene.vertices) min_w = std::min(min_w, v.screen.w);
  EXPECT_FLOAT_EQ(static_cast<float>(min_w), 0.5f);
}

TEST(PppStage, PointsLinesLayersAndViewports) {
  PppWords w = base_words();
  w.viewports.push_back(viewport(10, 10, 10, 10));
  w.output_select.point_size = true;
  w.output_select.viewport_target = w.output_select.render_target = true;
  w.front.line_width = 0x1F;  // (31 + 1) / 16 = 2 pixels
  StageRun s(w, 6);
  const uint32_t lv = 1u << 16 | 3;  // viewport 1, layer 3
  const std::vector<uint32_t> out = {
      bits(0), bits(0), bits(0), bits(1), bits(4), lv, bits(0.5f), bits(0), bits(0), bits(1), bits(4), 0,
      bits(5), bits(0), bits(0), bits(1), bits(4), 0,
  };
  // The third point lies outside the view volume: dropped by its centre.
  EXPECT_EQ(s.draw(P::kPoints, {0, 1, 2}, out).out, 2u);
  EXPECT_EQ(s.scene.primitives[0].kind, PrimitiveKind::point);
  EXPECT_EQ(s.scene.primitives[0].point_size_px, 4.0f);
  EXPECT_EQ(s.scene.primitives[0].layer, 3u);
  EXPECT_EQ(s.scene.primitives[0].viewport, 1u);
  EXPECT_DOUBLE_EQ(s.screen(0, 0).x_px, 10);  // viewport 1
  EXPECT_DOUBLE_EQ(s.screen(1, 0).x_px, 75);  // viewport 0
  EXPECT_EQ(s.draw(P::kLines, {0, 1}, out).out, 1u);
  EXPECT_EQ(s.scene.primitives[2].kind, PrimitiveKind::line);
  EXPECT_EQ(s.scene.primitives[2].line_width_px, 2.0f);
  EXPECT_EQ(s.scene.primitives[2].viewport, 1u);  // the provoking (first) vertex's
}

TEST(PppStage, RasterizerDiscardCountsButAddsNothing) {
  PppWords w = base_words();
  w.cull_2.rasterizer_discard = true;
  StageRun s(w, 4);
  auto c = s.draw(P::kTriangleStrip, {0, 1, 2, 3}, verts({{0, 0, 0, 1}, {1, 0, 0, 1}, {0, 1, 0, 1}, {1, 1, 0, 1}}));
  EXPECT_EQ(c.in, 2u);
  EXPECT_EQ(c.out, 0u);
  EXPECT_TRUE(s.scene.primitives.empty());
}

TEST(PppStage, PolygonModesDrawEdgesOrVertices) {
  // Clockwise in window coordinates: front (Front face CCW clear).
  const auto cw = verts({{-0.5f, -0.5f, 0.5f, 1}, {0.5f, -0.5f, 0.5f, 1}, {-0.5f, 0.5f, 0.5f, 1}});
  PppWords w = base_words();
  w.front.polygon_mode = cs::PolygonMode::kLine;
  w.front.line_width = 0x2F;  // 3 pixels
  w.back.polygon_mode = cs::PolygonMode::kPoint;
  w.cull.depth_clip = true;
  StageRun s(w, 4);
  EXPECT_EQ(s.draw(P::kTriangles, {0, 1, 2}, cw).out, 3u);
  for (size_t p = 0; p < 3; ++p) {
    EXPECT_EQ(s.scene.primitives[p].kind, PrimitiveKind::line);
    EXPECT_EQ(s.scene.primitives[p].line_width_px, 3.0f);
    EXPECT_TRUE(s.scene.primitives[p].front_facing);
  }
  EXPECT_DOUBLE_EQ(s.screen(2, 0).x_px, 25);  // the closing edge v2 -> v0
  EXPECT_DOUBLE_EQ(s.screen(2, 1).y_px, 25);
  EXPECT_EQ(s.draw(P::kTriangles, {0, 2, 1}, cw).out, 3u);  // back facing: three points
  EXPECT_EQ(s.scene.primitives[3].kind, PrimitiveKind::point);
  EXPECT_FALSE(s.scene.primitives[3].front_facing);
  // Clipped by z >= 0: v0 v1 n12 n20; the edge n12 -> n20 lies on the
  // clip plane and is drawn only with Draw clipped edges.
  const auto behind = verts({{-0.5f, -0.5f, 0.5f, 1}, {0.5f, -0.5f, 0.5f, 1}, {-0.5f, 0.5f, -0.5f, 1}});
  EXPECT_EQ(s.draw(P::kTriangles, {0, 1, 2}, behind).out, 3u);
  w.cull_2.draw_clipped_edges = true;
  StageRun e(w, 4);
  EXPECT_EQ(e.draw(P::kTriangles, {0, 1, 2}, behind).out, 4u);
  w.front.polygon_mode = static_cast<cs::PolygonMode>(3);
  StageRun bad(w, 4);
  PrimitiveInput in;
  const std::vector<uint32_t> el = {0, 1, 2};
  in.outputs = cw;
  in.elements = el;
  auto r = run_primitives(in, bad.plan, bad.scene);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("front face's Polygon mode 3 names no mode"), std::string::npos)
      << r.error().message();
}

TEST(PppStage, BadStatesAreClearErrors) {
  DrawState st;
  st.output_count = 4;
  ASSERT_TRUE(plan_draw_state(st).ok());
  Scene scene;
  scene.states.push_back(st);
  auto plan = plan_draw_state(scene.states[0]);
  PrimitiveInput in;
  const std::vector<uint32_t> out = verts({{0, 0, 0, 1}});
  const std::vector<uint32_t> el = {0};
  in.outputs = out;
  in.elements = el;
  auto r = run_primitives(in, *plan, scene);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("no Viewport words in force"), std::string::npos) << r.error().message();
  scene.states[0].ppp = base_words();
  const std::vector<uint32_t> far = {5};
  in.elements = far;
  r = run_primitives(in, *plan, scene);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("element 0 names shaded vertex 5 of 1"), std::string::npos);
}

}  // namespace
}  // namespace agx::gpu::test
