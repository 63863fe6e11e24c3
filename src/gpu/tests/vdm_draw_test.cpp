// The VDM: draws through the vertex shader into the scene: topologies,
// index sizes, restart, instancing, base vertex, indirect draws, shading
// each distinct index once per instance.
#include "gpu/tests/vdm_fixture.h"

namespace agx::gpu::test {
namespace AGX_UNITY_ID {

using P = cs::Primitive;

// Six vertices on a circle-free grid, all inside the view volume.
std::vector<std::array<float, 4>> grid() {
  return {{-0.5f, -0.5f, 0.5f, 1}, {0.5f, -0.5f, 0.5f, 1}, {-0.5f, 0.5f, 0.5f, 1},
          {0.5f, 0.5f, 0.5f, 1},   {0.0f, 0.8f, 0.5f, 1},  {0.8f, 0.0f, 0.5f, 1}};
}

class VdmDraw : public VertexTest {
 public:
  // A stream: the standard shader and PPP words, then `body`, then Terminate.
  template <class F>
  bool run_draws(F&& body, cs::Cull cull = {}) {
    std::vector<uint8_t> s;
    vdm_state(s, standard_shader(positions(grid())), 6);
    ppp_state(s, standard_ppp(cull));
    body(s);
    terminate(s);
    return run(s);
  }
};

TEST_F(VdmDraw, TriangleReachesTheSceneInWindowCoordinates) {
  ASSERT_TRUE(run_draws([&](auto& s) { draw(s, P::kTriangles, 3); })) << message;
  ASSERT_EQ(scene.states.size(), 1u);
  EXPECT_EQ(scene.states[0].output_count, 6u);
  // Slots: W, then the two flat 32-bit words.
  ASSERT_EQ(scene.states[0].slots.slots.size(), 3u);
  EXPECT_EQ(scene.states[0].slots.slots[1].vertex_output, 4u);
  ASSERT_EQ(scene.primitives.size(), 1u);
  EXPECT_EQ(primitive_vids(0), (std::vector<uint32_t>{0, 1, 2}));
  // x_px = 50 + 50 x / w: (-0.5, -0.5) -> (25, 25), (0.5, -0.5) -> (75, 25).
  const auto& v0 = scene.vertices[scene.primitives[0].vertices[0]].screen;
  const auto& v1 = scene.vertices[scene.primitives[0].vertices[1]].screen;
  EXPECT_DOUBLE_EQ(v0.x_px, 25);
  EXPECT_DOUBLE_EQ(v0.y_px, 25);
  EXPECT_DOUBLE_EQ(v0.z, 0.5);
  EXPECT_DOUBLE_EQ(v0.w, 1);
  EXPECT_DOUBLE_EQ(v1.x_px, 75);
  // (25,25) (75,25) (25,75) in y-down window coordinates is clockwise:
  // Vulkan's area is negative, so with Front face CCW clear it is front.
  EXPECT_TRUE(scene.primitives[0].front_facing);
  const VertexStats st = pipeline->stats();
  EXPECT_EQ(st.commands, 1u);
  EXPECT_EQ(st.draws, 1u);
  EXPECT_EQ(st.vertices_shaded, 3u);
  EXPECT_EQ(st.primitives_in, 1u);
  EXPECT_EQ(st.primitives_out, 1u);
}

struct TopologyCase {
  P prim;
  uint32_t count;
  std::vector<std::vector<uint32_t>> want;  // vertex IDs per primitive
};

TEST_F(VdmDraw, EveryTopologyAssemblesInVulkanOrder) {
  const TopologyCase cases[] = {
      {P::kPoints, 3, {{0}, {1}, {2}}},
      {P::kLines, 5, {{0, 1}, {2, 3}}},
      {P::kLineStrip, 4, {{0, 1}, {1, 2}, {2, 3}}},
      {P::kLineLoop, 3, {{0, 1}, {1, 2}, {2, 0}}},
      {P::kTriangles, 6, {{0, 1, 2}, {3, 4, 5}}},
      // Strips alternate: 0 1 2, 1 3 2, 2 3 4 (first vertex provoking).
      {P::kTriangleStrip, 5, {{0, 1, 2}, {1, 3, 2}, {2, 3, 4}}},
      // Fans: i+1, i+2, 0.
      {P::kTriangleFan, 5, {{1, 2, 0}, {2, 3, 0}, {3, 4, 0}}},
      // Quads (a, b, c, d) as (a, b, c), (a, c, d); a last partial quad
      // is dropped. Quad strips: quad i is (2i, 2i+1, 2i+3, 2i+2).
      {P::kQuads, 6, {{0, 1, 2}, {0, 2, 3}}},
      {P::kQuadStrip, 6, {{0, 1, 3}, {0, 3, 2}, {2, 3, 5}, {2, 5, 4}}},
  };
  for (const TopologyCase& c : cases) {
    ASSERT_TRUE(run_draws([&](auto& s) { draw(s, c.prim, c.count); })) << cs::to_string(c.prim) << ": " << message;
    std::vector<std::vector<uint32_t>> got;
    for (size_t p = 0; p < scene.primitives.size(); ++p) got.push_back(primitive_vids(p));
    EXPECT_EQ(got, c.want) << cs::to_string(c.prim);
  }
}

TEST_F(VdmDraw, LastProvokingVertexKeepsItLastInStripsFansAndQuads) {
  cs::Cull cull;
  cull.flat_shading_vertex = cs::PppVertex::k2;
  ASSERT_TRUE(run_draws([&](auto& s) { draw(s, P::kTriangleStrip, 4); }, cull)) << message;
  ASSERT_EQ(scene.primitives.size(), 2u);
  EXPECT_EQ(primitive_vids(0), (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(primitive_vids(1), (std::vector<uint32_t>{2, 1, 3}));
  EXPECT_EQ(scene.primitives[1].provoking, 2u);
  ASSERT_TRUE(run_draws([&](auto& s) { draw(s, P::kTriangleFan, 4); }, cull)) << message;
  EXPECT_EQ(primitive_vids(1), (std::vector<uint32_t>{0, 2, 3}));
  // Quads (a, b, c, d) as (a, b, d), (b, c, d): d provokes both.
  ASSERT_TRUE(run_draws([&](auto& s) { draw(s, P::kQuads, 4); }, cull)) << message;
  ASSERT_EQ(scene.primitives.size(), 2u);
  EXPECT_EQ(primitive_vids(0), (std::vector<uint32_t>{0, 1, 3}));
  EXPECT_EQ(primitive_vids(1), (std::vector<uint32_t>{1, 2, 3}));
  EXPECT_EQ(scene.primitives[0].provoking, 2u);
  EXPECT_EQ(scene.primitives[1].provoking, 2u);
  // Quad strips: quad i from 2i+2, so 2i+3 stays last.
  ASSERT_TRUE(run_draws([&](auto& s) { draw(s, P::kQuadStrip, 6); }, cull)) << message;
  ASSERT_EQ(scene.primitives.size(), 4u);
  EXPECT_EQ(primitive_vids(0), (std::vector<uint32_t>{2, 0, 3}));
  EXPECT_EQ(primitive_vids(1), (std::vector<uint32_t>{0, 1, 3}));
  EXPECT_EQ(primitive_vids(2), (std::vector<uint32_t>{4, 2, 5}));
  EXPECT_EQ(primitive_vids(3), (std::vector<uint32_t>{2, 3, 5}));
}

TEST_F(VdmDraw, IndexSizesReadTheSameIndicesPlusTheBias) {
  const std::vector<uint32_t> idx = {3, 1, 0};
  struct Size {
    cs::IndexSize size;
    unsigned bytes;
  };
  for (const Size& z : {Size{cs::IndexSize::kU8, 1}, Size{cs::IndexSize::kU16, 2}, Size{cs::IndexSize::kU32, 4}}) {
    std::vector<uint8_t> b;
    for (uint32_t i : idx)
      for (unsigned k = 0; k < z.bytes; ++k) b.push_back(static_cast<uint8_t>(i >> (8 * k)));
    const GpuVa buf = put(b);
    // Start (the index bias) 2: vertex IDs 5, 3, 2.
    ASSERT_TRUE(run_draws([&](auto& s) { indexed(s, P::kTriangles, buf, z.size, 3, (3 * z.bytes + 3) / 4 * 4, 2); }))
        << message;
    ASSERT_EQ(scene.primitives.size(), 1u) << z.bytes;
    EXPECT_EQ(primitive_vids(0), (std::vector<uint32_t>{5, 3, 2})) << z.bytes;
  }
}

TEST_F(VdmDraw, RestartSplitsStripsAndEachDistinctIndexIsShadedOnce) {
  // 16-bit: 0 1 2 0xFFFF 3 4 5 2 1 (the restart index 0xFFFF).
  const std::vector<uint16_t> idx = {0, 1, 2, 0xFFFF, 3, 4, 5, 2, 1};
  const GpuVa buf = put(idx.data(), 2 * idx.size());
  ASSERT_TRUE(run_draws([&](auto& s) {
    indexed(s, P::kTriangleStrip, buf, cs::IndexSize::kU16, 9, 20, 0, true);
  })) << message;
  std::vector<std::vector<uint32_t>> got;
  for (size_t p = 0; p < scene.primitives.size(); ++p) got.push_back(primitive_vids(p));
  EXPECT_EQ(got, (std::vector<std::vector<uint32_t>>{{0, 1, 2}, {3, 4, 5}, {4, 2, 5}, {5, 2, 1}}));
  EXPECT_EQ(pipeline->stats().vertices_shaded, 6u);  // 0..5 once each
  // Primitive IDs count within the draw, across the restart.
  EXPECT_EQ(scene.primitives[3].primitive_id, 3u);
}

TEST_F(VdmDraw, IndicesBeyondTheBufferSizeReadAsZero) {
  const std::vector<uint32_t> idx = {1, 2, 3};
  const GpuVa buf = put_words(idx);
  // Buffer size 8 bytes: the third index reads as 0.
  ASSERT_TRUE(run_draws([&](auto& s) { indexed(s, P::kTriangles, buf, cs::IndexSize::kU32, 3, 8); })) << message;
  ASSERT_EQ(scene.primitives.size(), 1u);
  EXPECT_EQ(primitive_vids(0), (std::vector<uint32_t>{1, 2, 0}));
}

TEST_F(VdmDraw, InstancesShadeEveryVertexOncePerInstance) {
  ASSERT_TRUE(run_draws([&](auto& s) { draw(s, P::kTriangles, 3, 4, 1); })) << message;
  ASSERT_EQ(scene.primitives.size(), 4u);
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(primitive_vids(i), (std::vector<uint32_t>{1, 2, 3})) << i;  // Start 1: the first vertex
    EXPECT_EQ(iid(scene.primitives[i].vertices[0]), i);
    EXPECT_EQ(scene.primitives[i].primitive_id, 0u);  // counted within an instance
  }
  EXPECT_EQ(pipeline->stats().vertices_shaded, 12u);
}

TEST_F(VdmDraw, IndirectDrawsReadTheirCountsWhenTheyRun) {
  // Non-indexed: 3 vertices, 2 instances, first vertex 2, first instance 9.
  const GpuVa args = put_words({3, 2, 2, 9});
  const std::vector<uint32_t> idx = {0, 1, 2, 3, 4, 5};
  const GpuVa buf = put_words(idx);
  // Indexed: 3 indices from index 2, 1 instance, vertex offset 1.
  const GpuVa iargs = put_words({3, 1, 2, 1, 0});
  ASSERT_TRUE(run_draws([&](auto& s) {
    cs::IndexList h;
    h.primitive = P::kTriangles;
    h.indirect_buffer_present = true;
    push(s, h);
    cs::IndexListIndirectBuffer ib;
    ib.address_hi = args >> 32;
    ib.address_lo = static_cast<uint32_t>(args);
    push(s, ib);
    cs::IndexList hi;
    hi.primitive = P::kTriangles;
    hi.index_buffer_hi = buf >> 32;
    hi.index_size = cs::IndexSize::kU32;
    hi.index_buffer_present = hi.indirect_buffer_present = hi.index_buffer_size_present = true;
    push(s, hi);
    push_u32(s, static_cast<uint32_t>(buf));
    ib.address_hi = iargs >> 32;
    ib.address_lo = static_cast<uint32_t>(iargs);
    push(s, ib);
    cs::IndexListBufferSize sz;
    sz.size = 24;
    push(s, sz);
  })) << message;
  ASSERT_EQ(scene.primitives.size(), 3u);
  EXPECT_EQ(primitive_vids(0), (std::vector<uint32_t>{2, 3, 4}));
  EXPECT_EQ(iid(scene.primitives[1].vertices[0]), 1u);
  EXPECT_EQ(primitive_vids(2), (std::vector<uint32_t>{3, 4, 5}));  // indices 2 3 4, plus 1
}

TEST_F(VdmDraw, DrawsBeyondTheLimitsFault) {
  ASSERT_FALSE(run_draws([&](auto& s) { draw(s, P::kPoints, 1u << 20, 32); }));
  EXPECT_NE(message.find("1048576 elements x 32 instances exceed the limit of 16777216 per draw"), std::string::npos)
      << message;
  EXPECT_EQ(fault.unit, GpuUnit::vdm);
  // 2^22 vertices of 6 words x 4 instances: more than 2^26 words to shade.
  ASSERT_FALSE(run_draws([&](auto& s) { draw(s, P::kPoints, 1u << 22, 4); }));
  EXPECT_NE(message.find("4194304 vertices x 4 instances x 6 output words exceed the limit of 67108864 words"),
            std::string::npos)
      << message;
}

}  // namespace
}  // namespace agx::gpu::test
