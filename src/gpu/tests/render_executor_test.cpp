// Whole render commands on gpu::GpuExecutor, the executor kmd Devices use:
// the vertex half (a VDM stream with a PPP update, a vertex shader writing
// position and a colour) and then the fragment half (background, a
// fragment shader interpolating the colour, end of tile) of the same
// command, the scene handed between them by the command's identity.
// Expected pixels follow docs/gpu.md: a pixel is drawn when its centre is
// inside (no centre lies on an edge here), colours through u8norm rounding.
#include <cmath>

#include "gpu/render/executor.h"
#include "pdm_fixture.h"
#include "vdm_fixture.h"

namespace agx::gpu::test {
namespace {

// Vertex v's position is words 8v..8v+3 of the table at u0_u1, its colour
// words 8v+4..8v+7; outputs 0-3 the position, 4-7 the colour.
constexpr const char* kVertexShader =
    "iadd r7, r5, r5\niadd r7, r7, r7\niadd r7, r7, r7\n"
    "device_load 0, i32, x, r8, u0_u1, r7, unsigned\niadd r7, r7, 1\n"
    "device_load 0, i32, x, r9, u0_u1, r7, unsigned\niadd r7, r7, 1\n"
    "device_load 0, i32, x, r10, u0_u1, r7, unsigned\niadd r7, r7, 1\n"
    "device_load 0, i32, x, r11, u0_u1, r7, unsigned\niadd r7, r7, 1\n"
    "device_load 0, i32, x, r12, u0_u1, r7, unsigned\niadd r7, r7, 1\n"
    "device_load 0, i32, x, r13, u0_u1, r7, unsigned\niadd r7, r7, 1\n"
    "device_load 0, i32, x, r14, u0_u1, r7, unsigned\niadd r7, r7, 1\n"
    "device_load 0, i32, x, r15, u0_u1, r7, unsigned\nwait 0\n";

// cf0 is W; the colour is cf1..cf4 (compile-time bindings).
constexpr const char* kFragmentShader =
    "iterproj r0_r1_r2_r3, cf1, cf0, center, 0b0, 0, 0, 0, 0, 0\n"
    "st_tile r0_r1_r2_r3, u8norm, 0, xyzw, 0, 255, 0\n";

using Vertex = std::array<float, 8>;  // clip-space x, y, z, w; r, g, b, a

uint8_t unorm8(float v) { return uint8_t(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)); }

class RenderExecutor : public RenderTest {
 public:
  // The vertex shader and its word list (u0_u1 = the vertex table);
  // returns the word list's offset from usc_exec_base.
  uint32_t vertex_program(const std::vector<Vertex>& vertices) {
    std::vector<uint8_t> table;
    for (const Vertex& v : vertices)
      for (float f : v) push_u32(table, bits(f));
    const uint64_t table_va = kUsc + usc_put(table, 16);
    std::vector<uint8_t> holder;
    push_u32(holder, uint32_t(table_va));
    push_u32(holder, uint32_t(table_va >> 32));
    const uint64_t holder_va = kUsc + usc_put(holder, 8);
    const uint32_t at = (usc_used + 63) / 64 * 64;
    auto text = isa::assemble_program(kVertexShader, kUsc + at);
    EXPECT_TRUE(text.ok()) << (text.ok() ? "" : text.error().message());
    std::vector<uint8_t> code_bytes = text.ok() ? *text : std::vector<uint8_t>{};
    for (unsigned i = 0; i < 8; ++i) {
      const auto w = st_var(8 + i, i, i == 7);
      code_bytes.insert(code_bytes.end(), w.begin(), w.end());
    }
    code_bytes.insert(code_bytes.end(), {0x88, 0x00});  // stop
    EXPECT_EQ(usc_put(code_bytes), at);
    return usc_put(vertex_word_list(holder_va, at, 32));
  }

  // The PPP update in Mesa's word order (cmdstream/ppp_order.h): depth and
  // stencil open, one viewport mapping clip space onto the target (y
  // down), 4 smooth varying words, no culling, the fragment shader with
  // the colour's CF bindings.
  std::vector<uint8_t> ppp_update() {
    varyings::Interface iface;
    iface.varyings.push_back({"color", 4, 32, varyings::Interp::smooth});
    auto report = varyings::make_report(iface);
    EXPECT_TRUE(report.ok()) << (report.ok() ? "" : report.error().message());
    if (!report.ok()) return {};
    const PppWords open = open_words();
    PppRecord r;
    r.header.fragment_control = r.header.fragment_front_face = r.header.fragment_front_stencil = true;
    r.header.fragment_back_face = r.header.fragment_back_stencil = true;
    r.header.viewport = r.header.output_select = r.header.varying_counts_32 = r.header.cull = true;
    r.header.fragment_shader = true;
    r.header.viewport_count = 1;
    cs::FragmentControl control{};
    control.unk_1 = true;
    const float hw = render.width_px / 2.0f, hh = render.height_px / 2.0f;
    std::vector<uint8_t> bindings(report->binding_words.size() * 4);
    std::memcpy(bindings.data(), report->binding_words.data(), bindings.size());
    cs::FragmentShaderWord0 fs0{};
    fs0.cf_binding_count = report->bindings.bindings.size();
    cs::FragmentShaderWord1 fs1{};
    fs1.pipeline = words(code(kFragmentShader));
    cs::FragmentShaderWord2 fs2{};
    fs2.cf_bindings = usc_put(bindings, 4);
    cs::OutputSelect select{};
    select.varyings = true;
    cs::VaryingCounts counts{};
    counts.smooth = 4;
    r.add(control).add(open.front).add(open.front_stencil).add(open.back).add(open.back_stencil);
    r.add(cs::ViewportControl{}).add(viewport(hw, hw, hh, hh));
    r.add(select).add(counts).add(cs::Cull{});
    r.add(fs0).add(fs1).add(fs2).add(cs::FragmentShaderWord3{});
    return r.bytes();
  }

  // A VDM stream drawing `vertices` as `prim`: PPP State, VDM State, Index
  // List, Stream Terminate.
  void vdm_stream(const std::vector<Vertex>& vertices, cs::Primitive prim) {
    const uint32_t vs = vertex_program(vertices);
    const std::vector<uint8_t> update = ppp_update();
    const uint64_t update_va = kUsc + usc_put(update, 16);
    std::vector<uint8_t> s;
    cs::PppState p;
    p.pointer_hi = update_va >> 32;
    p.pointer_lo = uint32_t(update_va);
    p.size_words = update.size() / 4;
    append(s, p);
    cs::VdmState h;
    h.vertex_shader_word_0_present = h.vertex_shader_word_1_present = h.vertex_outputs_present = true;
    append(s, h);
    cs::VdmStateVertexShaderWord0 w0;
    w0.uniform_register_count = 64;
    append(s, w0);
    cs::VdmStateVertexShaderWord1 w1;
    w1.pipeline = vs;
    append(s, w1);
    cs::VdmStateVertexOutputs o;
    o.output_count_1 = o.output_count_2 = 8;
    append(s, o);
    while (s.size() % 8) s.push_back(0);  // VDM State blocks are padded to 8 bytes
    cs::IndexList l;
    l.primitive = prim;
    l.index_count_present = l.instance_count_present = l.start_present = true;
    append(s, l);
    push_u32(s, uint32_t(vertices.size()));
    push_u32(s, 1);
    push_u32(s, 0);
    append(s, cs::VdmStreamTerminate{});
    render.vdm_ctrl_stream_base = kUsc + usc_put(s, 16);
  }

  // Both halves of the command on one executor, as the kmd calls them.
  struct Outcome {
    bool vertex = false, fragment = false;
    GpuFault vertex_fault, fragment_fault;
  };
  Outcome submit(GpuExecutor& gpu) {
    Outcome o;
    kmd::FirmwareCommand v = cmd;
    v.queue = kmd::FirmwareQueue::vertex;
    o.vertex = gpu.execute(v, &o.vertex_fault);
    o.fragment = gpu.execute(cmd, &o.fragment_fault);
    return o;
  }
  static GpuExecutor make_gpu() {
    GpuOptions options;
    options.threads = 2;
    options.fixed_function = texture_unit_factory();
    return GpuExecutor(options);
  }
};

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
