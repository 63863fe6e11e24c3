// Draws through the runtime's graphics pipelines on the in-process device
// (the gpu unit's executor): an interpolated triangle, depth and stencil
// tests, a scissor, indexed strips with restart, instances, culling,
// indirect counts, and the recording errors. Pixels are checked against a
// reference from docs/gpu.md's rules (pixel centres, top-left fill, the
// Vulkan facing rule); the shapes put no pixel centre on an edge.
#include "draw_fixture.h"

namespace agx::runtime::test {
namespace AGX_UNITY_ID {

using Rgba = std::array<uint8_t, 4>;
constexpr std::array<float, 4> kRed{1, 0, 0, 1}, kGreen{0, 1, 0, 1}, kBlue{0, 0, 1, 1};

std::optional<Rgba> in_rect(uint32_t x, uint32_t y, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1, Rgba c) {
  if (x >= x0 && x < x1 && y >= y0 && y < y1) return c;
  return std::nullopt;
}

TEST_F(DrawTest, TriangleInterpolatesItsColour) {
  Image* rt = image(format::Format::R8G8B8A8_UNORM);
  const std::array<float, 2> a{16, 16}, b{48, 16}, c{32, 48};
  const GraphicsPipeline* p = pipeline(desc({vtx(a[0], a[1], kRed), vtx(b[0], b[1], kGreen), vtx(c[0], c[1], kBlue)}));
  ASSERT_TRUE(rt && p);
  auto pass = begin(rt);
  ASSERT_TRUE(pass);
  ASSERT_TRUE(pass->bind_pipeline(*p).ok());
  ASSERT_TRUE(pass->draw(3).ok());
  Status st = pass->end();
  ASSERT_TRUE(st.ok()) << st.error().message();
  // The barycentric weights at the centre (w = 1: linear).
  expect_pixels(pixels(*rt), [&](uint32_t x, uint32_t y) -> std::optional<Rgba> {
    if (!centre_inside(a, b, c, x, y)) return std::nullopt;
    const double px = x + 0.5, py = y + 0.5;
    const double area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
    const double wb = ((px - a[0]) * (c[1] - a[1]) - (py - a[1]) * (c[0] - a[0])) / area;
    const double wc = ((b[0] - a[0]) * (py - a[1]) - (b[1] - a[1]) * (px - a[0])) / area;
    const double wa = 1 - wb - wc;
    return Rgba{unorm8(float(wa)), unorm8(float(wb)), unorm8(float(wc)), 255};
  });
  EXPECT_NE(pass->command().vdm_ctrl_stream_base, 0u);
  EXPECT_NE(pass->command().isp_scissor_base, 0u);
  EXPECT_EQ(pass->draw_count(), 1u);
}

TEST_F(DrawTest, DepthTestKeepsTheNearerRectangle) {
  Image* rt = image(format::Format::R8G8B8A8_UNORM);
  Image* z = image(format::Format::Z32_FLOAT);
  std::vector<Vertex> v = rect(8, 8, 40, 40, kRed, 0.25f);
  const std::vector<Vertex> far = rect(24, 24, 56, 56, kGreen, 0.75f);
  v.insert(v.end(), far.begin(), far.end());
  GraphicsPipelineDesc d = desc(v);
  d.depth_test = d.depth_write = true;
  d.depth_compare = CompareOp::less;
  const GraphicsPipeline* p = pipeline(d);
  ASSERT_TRUE(rt && z && p);
  auto pass = begin(rt, z);
  ASSERT_TRUE(pass);
  ASSERT_TRUE(pass->bind_pipeline(*p).ok());
  ASSERT_TRUE(pass->draw(6).ok());     // near first
  ASSERT_TRUE(pass->draw(6, 1, 6).ok());  // far, behind it where they overlap
  Status st = pass->end();
  ASSERT_TRUE(st.ok()) << st.error().message();
  expect_pixels(pixels(*rt), [](uint32_t x, uint32_t y) {
    if (auto r = in_rect(x, y, 8, 8, 40, 40, {255, 0, 0, 255})) return r;
    return in_rect(x, y, 24, 24, 56, 56, {0, 255, 0, 255});
  });
  const std::vector<uint8_t> depth = pixels(*z);
  auto depth_at = [&](uint32_t x, uint32_t y) {
    float f;
    std::memcpy(&f, depth.data() + (size_t(y) * kW + x) * 4, 4);
    return f;
  };
  EXPECT_FLOAT_EQ(depth_at(30, 30), 0.25f);
  EXPECT_FLOAT_EQ(depth_at(50, 50), 0.75f);
  EXPECT_FLOAT_EQ(depth_at(2, 60), 1.0f);
}

TEST_F(DrawTest, StencilKeepsTheSecondDrawToTheFirstsPixels) {
  Image* rt = image(format::Format::R8G8B8A8_UNORM);
  Image* s = image(format::Format::S8_UINT);
  std::vector<Vertex> v = rect(8, 8, 24, 40, kRed);
  const std::vector<Vertex> all = rect(0, 0, 64, 64, kGreen);
  v.insert(v.end(), all.begin(), all.end());
  GraphicsPipelineDesc mark = desc(v);
  mark.stencil_test = true;
  mark.front = mark.back = {StencilOp::keep, StencilOp::replace, StencilOp::keep, CompareOp::always, 0xFF, 0xFF, 5};
  GraphicsPipelineDesc test = mark;
  test.front = test.back = {StencilOp::keep, StencilOp::keep, StencilOp::keep, CompareOp::equal, 0xFF, 0, 5};
  const GraphicsPipeline* pm = pipeline(mark);
  const GraphicsPipeline* pt = pipeline(test);
  ASSERT_TRUE(rt && s && pm && pt);
  auto pass = begin(rt, nullptr, s);
  ASSERT_TRUE(pass);
  ASSERT_TRUE(pass->bind_pipeline(*pm).ok());
  ASSERT_TRUE(pass->draw(6).ok());
  ASSERT_TRUE(pass->bind_pipeline(*pt).ok());
  ASSERT_TRUE(pass->draw(6, 1, 6).ok());
  Status st = pass->end();
  ASSERT_TRUE(st.ok()) << st.error().message();
  expect_pixels(pixels(*rt), [](uint32_t x, uint32_t y) { return in_rect(x, y, 8, 8, 24, 40, {0, 255, 0, 255}); });
  const std::vector<uint8_t> stencil = pixels(*s, 1);
  EXPECT_EQ(stencil[size_t(20) * kW + 10], 5);
  EXPECT_EQ(stencil[size_t(50) * kW + 50], 0);
}

TEST_F(DrawTest, ScissorKeepsTheDrawInsideIt) {
  Image* rt = image(format::Format::R8G8B8A8_UNORM);
  GraphicsPipelineDesc d = desc(rect(0, 0, 64, 64, kBlue));
  d.scissor = Scissor{10, 20, 30, 15};
  const GraphicsPipeline* p = pipeline(d);
  ASSERT_TRUE(rt && p);
  auto pass = begin(rt);
  ASSERT_TRUE(pass && pass->bind_pipeline(*p).ok() && pass->draw(6).ok());
  ASSERT_TRUE(pass->end().ok());
  expect_pixels(pixels(*rt), [](uint32_t x, uint32_t y) { return in_rect(x, y, 10, 20, 40, 35, {0, 0, 255, 255}); });
}

// A strip of 4 vertices (a quad), a restart, and a strip of 3 (a
// triangle), through 8-, 16- and 32-bit indices at an offset.
TEST_F(DrawTest, IndexedStripsRestart) {
  const std::vector<Vertex> v = {vtx(4, 4, kRed),   vtx(28, 4, kRed),    vtx(4, 28, kRed),    vtx(28, 28, kRed),
                                 vtx(36, 36, kBlue), vtx(60, 36, kBlue), vtx(36, 60, kBlue)};
  for (IndexType type : {IndexType::u8, IndexType::u16, IndexType::u32}) {
    SCOPED_TRACE(int(type));
    const std::vector<uint32_t> list = {9, 9, 0, 1, 2, 3, 0xFFFFFFFF, 4, 5, 6};
    const uint32_t size_B = type == IndexType::u8 ? 1 : type == IndexType::u16 ? 2 : 4;
    std::vector<uint8_t> bytes(list.size() * size_B);
    for (size_t i = 0; i < list.size(); ++i) std::memcpy(bytes.data() + i * size_B, &list[i], size_B);
    Buffer* ib = buffer(bytes.data(), bytes.size(), "indices");
    GraphicsPipelineDesc d = desc(v);
    d.topology = Topology::triangle_strip;
    d.primitive_restart = true;
    Image* rt = image(format::Format::R8G8B8A8_UNORM);
    const GraphicsPipeline* p = pipeline(d);
    ASSERT_TRUE(rt && p && ib);
    auto pass = begin(rt);
    ASSERT_TRUE(pass && pass->bind_pipeline(*p).ok());
    ASSERT_TRUE(pass->bind_index_buffer(*ib, size_B, type).ok());
    ASSERT_TRUE(pass->draw_indexed(8, 1, 1).ok());  // skips both 9s
    ASSERT_TRUE(pass->end().ok());
    const std::array<float, 2> a{36, 36}, b{60, 36}, c{36, 60};
    expect_pixels(pixels(*rt), [&](uint32_t x, uint32_t y) -> std::optional<Rgba> {
      if (auto r = in_rect(x, y, 4, 4, 28, 28, {255, 0, 0, 255})) return r;
      if (centre_inside(a, b, c, x, y)) return Rgba{0, 0, 255, 255};
      return std::nullopt;
    });
  }
}

// The vertex program reads vertex r5 + 3 x r6: instance 1 is the second triangle.
TEST_F(DrawTest, InstancesReadTheirOwnVertices) {
  Image* rt = image(format::Format::R8G8B8A8_UNORM);
  const std::vector<Vertex> v = {vtx(2, 2, kRed),    vtx(30, 2, kRed),    vtx(2, 30, kRed),
                                 vtx(34, 34, kGreen), vtx(62, 34, kGreen), vtx(34, 62, kGreen)};
  const GraphicsPipeline* p = pipeline(desc(v));
  ASSERT_TRUE(rt && p);
  auto pass = begin(rt);
  ASSERT_TRUE(pass && pass->bind_pipeline(*p).ok() && pass->draw(3, 2).ok());
  ASSERT_TRUE(pass->end().ok());
  expect_pixels(pixels(*rt), [](uint32_t x, uint32_t y) -> std::optional<Rgba> {
    if (centre_inside({2, 2}, {30, 2}, {2, 30}, x, y)) return Rgba{255, 0, 0, 255};
    if (centre_inside({34, 34}, {62, 34}, {34, 62}, x, y)) return Rgba{0, 255, 0, 255};
    return std::nullopt;
  });
}

// Vulkan's facing: a = -1/2 sum(x_i y_(i+1) - x_(i+1) y_i) in window
// coordinates (y down), a > 0 counter-clockwise.
TEST_F(DrawTest, CullingDropsTheBackFaces) {
  const std::vector<Vertex> v = {vtx(4, 4, kRed),   vtx(28, 4, kRed),   vtx(4, 28, kRed),     // a < 0: clockwise
                                 vtx(36, 36, kBlue), vtx(36, 60, kBlue), vtx(60, 36, kBlue)};  // a > 0
  auto area = [&](size_t i) {
    double s = 0;
    for (size_t k = 0; k < 3; ++k) {
      const Vertex &p = v[i + k], &q = v[i + (k + 1) % 3];
      s += double(p[0]) * q[1] - double(q[0]) * p[1];
    }
    return -s / 2;  // clip and window coordinates differ by a positive scale
  };
  ASSERT_LT(area(0), 0);
  ASSERT_GT(area(3), 0);
  for (FrontFace front : {FrontFace::counter_clockwise, FrontFace::clockwise}) {
    GraphicsPipelineDesc d = desc(v);
    d.cull = CullMode::back;
    d.front_face = front;
    Image* rt = image(format::Format::R8G8B8A8_UNORM);
    const GraphicsPipeline* p = pipeline(d);
    ASSERT_TRUE(rt && p);
    auto pass = begin(rt);
    ASSERT_TRUE(pass && pass->bind_pipeline(*p).ok() && pass->draw(6).ok());
    ASSERT_TRUE(pass->end().ok());
    const bool ccw_kept = front == FrontFace::counter_clockwise;
    expect_pixels(pixels(*rt), [&](uint32_t x, uint32_t y) -> std::optional<Rgba> {
      if (!ccw_kept && centre_inside({4, 4}, {28, 4}, {4, 28}, x, y)) return Rgba{255, 0, 0, 255};
      if (ccw_kept && centre_inside({36, 36}, {36, 60}, {60, 36}, x, y)) return Rgba{0, 0, 255, 255};
      return std::nullopt;
    });
  }
}

TEST_F(DrawTest, IndirectCountsAreReadWhenTheDrawRuns) {
  Image* rt = image(format::Format::R8G8B8A8_UNORM);
  const GraphicsPipeline* p = pipeline(desc(rect(8, 8, 40, 24, kGreen)));
  const uint32_t direct[4] = {6, 1, 0, 0};            // VkDrawIndirectCommand
  const uint32_t indexed[5] = {3, 1, 0, 0, 0};        // VkDrawIndexedIndirectCommand
  const uint16_t indices[4] = {3, 4, 5, 0};
  Buffer* counts = buffer(direct, sizeof direct, "counts");
  Buffer* icounts = buffer(indexed, sizeof indexed, "indexed counts");
  Buffer* ib = buffer(indices, sizeof indices, "indices");
  ASSERT_TRUE(rt && p && counts && icounts && ib);
  auto pass = begin(rt);
  ASSERT_TRUE(pass && pass->bind_pipeline(*p).ok());
  ASSERT_TRUE(pass->draw_indirect(*counts, 0).ok());
  ASSERT_TRUE(pass->bind_index_buffer(*ib, 0, IndexType::u16).ok());
  ASSERT_TRUE(pass->draw_indexed_indirect(*icounts, 0).ok());
  Status st = pass->end();
  ASSERT_TRUE(st.ok()) << st.error().message();
  expect_pixels(pixels(*rt), [](uint32_t x, uint32_t y) { return in_rect(x, y, 8, 8, 40, 24, {0, 255, 0, 255}); });
}

TEST_F(DrawTest, RecordingErrorsNameTheDraw) {
  Image* rt = image(format::Format::R8G8B8A8_UNORM);
  const GraphicsPipeline* p = pipeline(desc(rect(0, 0, 8, 8, kRed)));
  const uint32_t counts[2] = {3, 1};
  Buffer* small = buffer(counts, sizeof counts, "counts");
  ASSERT_TRUE(rt && p && small);
  auto pass = begin(rt);
  ASSERT_TRUE(pass);
  auto message = [](const Status& st) { return st.ok() ? std::string("ok") : st.error().message(); };
  EXPECT_NE(message(pass->draw(3)).find("frame: draw 0: no graphics pipeline bound"), std::string::npos);
  ASSERT_TRUE(pass->bind_pipeline(*p).ok());
  EXPECT_NE(message(pass->draw_indexed(3)).find("draw 0: an indexed draw without an index buffer"), std::string::npos);
  EXPECT_NE(message(pass->draw(3, 1, 0, 2)).find("first instance 2"), std::string::npos);
  EXPECT_NE(message(pass->draw_indirect(*small, 0)).find("indirect counts at offset 0"), std::string::npos);
  EXPECT_NE(message(pass->bind_index_buffer(*small, 3, IndexType::u16)).find("index buffer offset 3"), std::string::npos);
  ASSERT_TRUE(pass->draw(3).ok());
  ASSERT_TRUE(pass->bind_index_buffer(*small, 4, IndexType::u16).ok());
  EXPECT_NE(message(pass->draw_indexed(3, 1, 4)).find("frame: draw 1: first index 4 is past the end"), std::string::npos);
  EXPECT_EQ(pass->draw_count(), 1u);
  ASSERT_TRUE(pass->end().ok());
}

// Draw 2's vertex program reads its table from an unmapped address: the
// pass's fault names that draw (found by replaying the stream's prefixes).
TEST_F(DrawTest, AFaultNamesTheDraw) {
  Image* rt = image(format::Format::R8G8B8A8_UNORM);
  const GraphicsPipeline* good = pipeline(desc(rect(0, 0, 8, 8, kRed)));
  GraphicsPipelineDesc d = desc(rect(0, 0, 8, 8, kRed));
  d.vertex.uniforms = {0xdead0000u, 0x7};
  const GraphicsPipeline* bad = pipeline(d);
  ASSERT_TRUE(rt && good && bad);
  for (uint32_t draws : {3u, 4u, 6u}) {
    SCOPED_TRACE(draws);
    auto pass = begin(rt);
    ASSERT_TRUE(pass);
    for (uint32_t i = 0; i < draws; ++i) {
      ASSERT_TRUE(pass->bind_pipeline(i == 2 ? *bad : *good).ok());
      ASSERT_TRUE(pass->draw(6).ok());
    }
    Status st = pass->end();
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().kind(), ErrorKind::fault);
    EXPECT_NE(st.error().message().find("frame: draw 2: GPU fault: read of 0x00000007dead0000"), std::string::npos)
        << st.error().message();
  }
}

// A compiled fragment shader's inputs sit where its compiler put them:
// separable bindings put the colour in cf3 (W stays in cf0).
TEST_F(DrawTest, SeparableFragmentInputsBindTheirOwnRegisters) {
  Image* rt = image(format::Format::R8G8B8A8_UNORM);
  GraphicsPipelineDesc d = desc(rect(8, 8, 40, 24, kGreen));
  d.fragment.code = assemble("iterproj r0_r1_r2_r3, cf3, cf0, center, 0b0, 0, 0, 0, 0, 0\n"
                             "st_tile r0_r1_r2_r3, u8norm, 0, xyzw, 0, 255, 0\n");
  d.fragment.code.insert(d.fragment.code.end(), {0x88, 0x00});
  d.fragment_inputs = std::vector<varyings::SeparableEntry>{{0, varyings::CoefficientSource::kVarying, 3, 0}};
  const GraphicsPipeline* p = pipeline(d);
  ASSERT_TRUE(rt && p);
  ASSERT_EQ(p->varyings().bindings.bindings.size(), 2u);
  EXPECT_EQ(p->varyings().bindings.bindings[1].base_cf, 3u);
  EXPECT_EQ(p->varyings().bindings.num_cf, 7u);
  ASSERT_NO_FATAL_FAILURE(draw_pass(rt, *p, 6));
  expect_pixels(pixels(*rt), [&](uint32_t x, uint32_t y) { return in_rect(x, y, 8, 8, 40, 24, {0, 255, 0, 255}); });
  // An entry naming no varying, and Z without separable inputs, are refused.
  GraphicsPipelineDesc e = d;
  e.fragment_inputs->at(0).varying = 5;
  auto bad = GraphicsPipeline::create(*dev, e);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("fragment inputs"), std::string::npos) << bad.error().message();
  e = desc(rect(8, 8, 40, 24, kGreen));
  e.outputs.fragcoord_z = true;
  bad = GraphicsPipeline::create(*dev, e);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("fragment Z"), std::string::npos) << bad.error().message();
}

// A program with scratch gets the spill size bucket, and the pass's
// command a helper program for its stage only (each with its header).
TEST_F(DrawTest, ScratchGivesItsStageAHelperProgram) {
  Image* rt = image(format::Format::R8G8B8A8_UNORM);
  ASSERT_TRUE(rt);
  auto run = [&](uint32_t vertex_B, uint32_t fragment_B) -> drm_asahi_cmd_render {
    GraphicsPipelineDesc d = desc(rect(0, 0, 8, 8, kRed));
    d.vertex.scratch_B = vertex_B;
    d.fragment.scratch_B = fragment_B;
    const GraphicsPipeline* p = pipeline(std::move(d));
    auto pass = begin(rt);
    EXPECT_TRUE(p && pass);
    if (!p || !pass) return {};
    EXPECT_TRUE(pass->bind_pipeline(*p).ok());
    EXPECT_TRUE(pass->draw(6).ok());
    Status st = pass->end();
    EXPECT_TRUE(st.ok()) << (st.ok() ? "" : st.error().message());
    expect_pixels(pixels(*rt), [](uint32_t x, uint32_t y) { return in_rect(x, y, 0, 0, 8, 8, {255, 0, 0, 255}); });
    return pass->command();
  };
  drm_asahi_cmd_render c = run(0, 0);
  EXPECT_EQ(c.vertex_helper.binary, 0u);
  EXPECT_EQ(c.fragment_helper.binary, 0u);
  c = run(64, 0);
  EXPECT_EQ(c.vertex_helper.binary & 1u, 1u);  // tagged as Mesa's agx_helper_program does
  EXPECT_NE(c.vertex_helper.data, 0u);
  EXPECT_EQ(c.fragment_helper.binary, 0u);
  c = run(100, 4096);
  EXPECT_EQ(c.vertex_helper.binary & 1u, 1u);
  EXPECT_EQ(c.fragment_helper.binary & 1u, 1u);
  EXPECT_NE(c.fragment_helper.data, c.vertex_helper.data);
  // Too much scratch: the pipeline is refused.
  GraphicsPipelineDesc big = desc(rect(0, 0, 8, 8, kRed));
  big.fragment.scratch_B = kMaxScratch_B + 4;
  auto p = GraphicsPipeline::create(*dev, std::move(big));
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message().find("fragment program: 524292 bytes of scratch per thread"), std::string::npos)
      << p.error().message();
}

TEST_F(DrawTest, ClipDistancesCutTheDraw) {
  // A window-filling rectangle whose clip distance 0 is its clip-space x:
  // the left half (x < 0) is clipped away.
  Image* rt = image(format::Format::R8G8B8A8_UNORM);
  GraphicsPipelineDesc d = desc(rect(0, 0, 64, 64, kRed));
  d.vertex.code = assemble(vertex_code());
  for (unsigned i = 0; i < 9; ++i) {
    const auto w = st_var(i == 8 ? 8 : 8 + i, i, i == 8);  // output 8: the layout's clip distance 0
    d.vertex.code.insert(d.vertex.code.end(), w.begin(), w.end());
  }
  d.vertex.code.insert(d.vertex.code.end(), {0x88, 0x00});  // stop
  d.outputs.clip_distances = 1;
  const GraphicsPipeline* p = pipeline(d);
  ASSERT_TRUE(rt && p);
  EXPECT_EQ(p->varyings().layout.output_count, 9u);
  ASSERT_NO_FATAL_FAILURE(draw_pass(rt, *p, 6));
  expect_pixels(pixels(*rt), [&](uint32_t x, uint32_t y) { return in_rect(x, y, 32, 0, 64, 64, {255, 0, 0, 255}); });
}

TEST_F(DrawTest, PipelineErrorsNameThePipeline) {
  GraphicsPipelineDesc d = desc(rect(0, 0, 8, 8, kRed));
  d.label = "quad";
  auto err = [&](GraphicsPipelineDesc x) {
    auto p = GraphicsPipeline::create(*dev, std::move(x));
    return p.ok() ? std::string("ok") : p.error().message();
  };
  GraphicsPipelineDesc e = d;
  e.line_width = 0;
  EXPECT_NE(err(e).find("quad: line width 0"), std::string::npos);
  e = d;
  e.vertex.code.clear();
  EXPECT_NE(err(e).find("quad: vertex program: no code"), std::string::npos);
  e = d;
  e.fragment.register_halves = 300;
  EXPECT_NE(err(e).find("fragment program: 300 register halves"), std::string::npos);
  e = d;
  e.viewport = Viewport{0, 0, 0, 10};
  EXPECT_NE(err(e).find("viewport 0x10"), std::string::npos);
  e = d;
  e.outputs.varyings[0].components = 7;
  EXPECT_NE(err(e).find("quad: vertex outputs"), std::string::npos);
  EXPECT_EQ(err(d), "ok");
}

}  // namespace
}  // namespace agx::runtime::test
