// Whole render commands for tests: a vertex shader reading position and
// colour from a table, a PPP update (depth/stencil open, one viewport, 4
// smooth varying words, a fragment shader interpolating the colour) and a
// VDM stream drawing the vertices, all in the RenderTest fixture's memory;
// submit() runs both halves on a GpuExecutor as the kmd calls them.
#pragma once

#include <algorithm>
#include <cmath>

#include "gpu/render/executor.h"
#include "pdm_fixture.h"
#include "vdm_fixture.h"

namespace agx::gpu::test {

// Vertex v's position is words 8v..8v+3 of the table at u0_u1, its colour
// words 8v+4..8v+7; outputs 0-3 the position, 4-7 the colour.
inline constexpr const char* kVertexShader =
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
inline constexpr const char* kFragmentShader =
    "iterproj r0_r1_r2_r3, cf1, cf0, center, 0b0, 0, 0, 0, 0, 0\n"
    "st_tile r0_r1_r2_r3, u8norm, 0, xyzw, 0, 255, 0\n";

using Vertex = std::array<float, 8>;  // clip-space x, y, z, w; r, g, b, a

inline uint8_t unorm8(float v) { return uint8_t(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)); }

class RenderCommandTest : public RenderTest {
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
  // List, Stream Terminate. With `indices`, the draw reads them as 16-bit
  // indices from a buffer of their own at kIndices.
  static constexpr GpuVa kIndices = 0x6000'0000ull;
  void vdm_stream(const std::vector<Vertex>& vertices, cs::Primitive prim, const std::vector<uint16_t>& indices = {}) {
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
    if (!indices.empty()) {
      std::vector<uint8_t> bytes(16384, 0);
      EXPECT_LE(indices.size() * 2, bytes.size());
      std::memcpy(bytes.data(), indices.data(), std::min(bytes.size(), indices.size() * 2));
      EXPECT_TRUE(mem.map(kIndices, std::move(bytes)).ok());
      l.index_buffer_hi = kIndices >> 32;
      l.index_size = cs::IndexSize::kU16;
      l.index_buffer_present = l.index_buffer_size_present = true;
    }
    append(s, l);
    if (!indices.empty()) push_u32(s, uint32_t(kIndices));
    push_u32(s, uint32_t(indices.empty() ? vertices.size() : indices.size()));
    push_u32(s, 1);
    push_u32(s, 0);  // the first vertex, or the index bias
    if (!indices.empty()) {
      cs::IndexListBufferSize size;
      size.size = uint32_t(indices.size() * 2 + 3) / 4 * 4;
      append(s, size);
    }
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

}  // namespace agx::gpu::test
