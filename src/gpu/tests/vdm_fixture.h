// Vertex half tests: one GPU memory region with a bump allocator, vertex
// shaders assembled with isa::assemble_program (st_var / st_var_final
// encoded from their fields), USC word lists, PPP updates and VDM streams
// packed through the cmdstream tables, and a VertexPipeline to run them.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "cmdstream/typed.h"
#include "gpu/ppp/ppp.h"
#include "gpu/vdm/vdm.h"
#include "isa/isa.h"
#include "usc/usc.h"

namespace agx::gpu::test {

namespace cs = cmdstream;

inline constexpr GpuVa kBase = 0x1'0000'0000;  // usc_exec_base too
inline constexpr size_t kRegion_B = 4 << 20;

template <class T>
void push(std::vector<uint8_t>& out, const T& v) {
  auto b = cs::pack(v);
  ASSERT_TRUE(b.ok()) << b.error().message();
  out.insert(out.end(), b->begin(), b->end());
}
inline void push_u32(std::vector<uint8_t>& out, uint32_t v) {
  for (unsigned i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
inline uint32_t bits(float f) {
  uint32_t w;
  std::memcpy(&w, &f, 4);
  return w;
}
inline float as_float(uint32_t w) {
  float f;
  std::memcpy(&f, &w, 4);
  return f;
}

// A PPP update: the header's words appended in record order by the caller.
struct PppRecord {
  cs::PppHeader header{};
  std::vector<uint8_t> words;
  template <class T>
  PppRecord& add(const T& v) {
    push(words, v);
    return *this;
  }
  std::vector<uint8_t> bytes() const {
    std::vector<uint8_t> b;
    push(b, header);
    b.insert(b.end(), words.begin(), words.end());
    return b;
  }
};

inline cs::Viewport viewport(float tx, float sx, float ty, float sy, float tz = 0, float sz = 1) {
  cs::Viewport v;
  v.translate_x = tx;
  v.scale_x = sx;
  v.translate_y = ty;
  v.scale_y = sy;
  v.translate_z = tz;
  v.scale_z = sz;
  return v;
}

// The st_var (or st_var_final) of register rN to output `slot`.
inline std::vector<uint8_t> st_var(unsigned reg, unsigned slot, bool final = false) {
  const std::pair<std::string_view, uint32_t> f[] = {{"u", 1}, {"r", reg}, {"It", 1}, {"I", slot}};
  auto e = isa::encode_fields(final ? isa::Opcode::st_var_final : isa::Opcode::st_var, f);
  EXPECT_TRUE(e.ok());
  return e ? std::vector<uint8_t>(e->span().begin(), e->span().end()) : std::vector<uint8_t>{};
}

// A vertex shader's USC word list: u0_u1 loaded from the 8 bytes at
// `holder` (the address of the shader's table), the code and its register
// halves at offsets from usc_exec_base, the preshader's when not 0.
inline std::vector<uint8_t> vertex_word_list(GpuVa holder, uint32_t code, unsigned halves, uint32_t preshader = 0) {
  std::vector<uint8_t> w;
  cs::UscUniform u;
  u.start_halfs = 0;
  u.size_halfs = 4;
  u.buffer = holder;
  push(w, u);
  cs::UscShader s;
  s.code = code;
  push(w, s);
  cs::UscRegisters r;
  r.register_count = halves;
  push(w, r);
  if (preshader) {
    cs::UscPreshader p;
    p.code = preshader;
    push(w, p);
  } else {
    push(w, cs::UscNoPreshader{});
  }
  return w;
}

class VertexTest : public ::testing::Test {
 public:
  void SetUp() override {
    ASSERT_TRUE(memory.map(kBase, std::vector<uint8_t>(kRegion_B)).ok());
    VertexOptions o;
    o.threads = 2;
    pipeline = std::make_unique<VertexPipeline>(std::move(o));
  }

  GpuVa put(const void* data, size_t size, size_t align = 64) {
    next_ = (next_ + align - 1) / align * align;
    const GpuVa va = kBase + next_;
    next_ += size;
    EXPECT_LE(next_, kRegion_B);
    GpuFault f;
    EXPECT_TRUE(memory.write(va, data, size, GpuUnit::host, &f)) << describe(f);
    return va;
  }
  GpuVa put(const std::vector<uint8_t>& b, size_t align = 64) { return put(b.data(), b.size(), align); }
  GpuVa put_words(const std::vector<uint32_t>& w, size_t align = 64) { return put(w.data(), 4 * w.size(), align); }

  // A vertex shader: `text`, then `tail` (encoded st_var words), then
  // stop; its word list loads u0_u1 with `table` and allocates `halves`
  // register halves. Returns the Pipeline (offset from usc_exec_base).
  uint32_t shader(const std::string& text, const std::vector<std::vector<uint8_t>>& tail, GpuVa table,
                  unsigned halves = 32, GpuVa preshader = 0) {
    next_ = (next_ + 63) / 64 * 64;
    const GpuVa at = kBase + next_;
    auto code = isa::assemble_program(text, at);
    EXPECT_TRUE(code.ok()) << code.error().message();
    std::vector<uint8_t> bytes = code ? *code : std::vector<uint8_t>{};
    for (const auto& t : tail) bytes.insert(bytes.end(), t.begin(), t.end());
    auto stop = isa::assemble_program("stop");
    bytes.insert(bytes.end(), stop->begin(), stop->end());
    const GpuVa code_va = put(bytes);
    const GpuVa holder = put(&table, 8, 8);
    return static_cast<uint32_t>(
        put(vertex_word_list(holder, static_cast<uint32_t>(code_va - kBase), halves,
                             preshader ? static_cast<uint32_t>(preshader - kBase) : 0)) -
        kBase);
  }

  // The standard vertex shader: vertex v's position is words 8v..8v+3 of
  // `table`; outputs: position, vertex ID (word 4), instance ID (word 5).
  uint32_t standard_shader(GpuVa table) {
    return shader(
        "iadd r7, r5, r5\niadd r7, r7, r7\niadd r7, r7, r7\n"
        "device_load 0, i32, x, r8, u0_u1, r7, unsigned\niadd r7, r7, 1\n"
        "device_load 0, i32, x, r9, u0_u1, r7, unsigned\niadd r7, r7, 1\n"
        "device_load 0, i32, x, r10, u0_u1, r7, unsigned\niadd r7, r7, 1\n"
        "device_load 0, i32, x, r11, u0_u1, r7, unsigned\nwait 0",
        {st_var(8, 0), st_var(9, 1), st_var(10, 2), st_var(11, 3), st_var(5, 4), st_var(6, 5, true)}, table);
  }
  // A table of positions (x, y, z, w per vertex, 8 words apart).
  GpuVa positions(const std::vector<std::array<float, 4>>& p) {
    std::vector<uint32_t> w(8 * p.size());
    for (size_t i = 0; i < p.size(); ++i)
      for (unsigned k = 0; k < 4; ++k) w[8 * i + k] = bits(p[i][k]);
    return put_words(w);
  }

  // The VDM State with the shader, `outputs` output words and a restart index.
  void vdm_state(std::vector<uint8_t>& s, uint32_t pipeline_offset, uint32_t outputs, uint32_t restart = 0xFFFFFFFF) {
    cs::VdmState h;
    h.restart_index_present = h.vertex_shader_word_0_present = h.vertex_shader_word_1_present = true;
    h.vertex_outputs_present = true;
    push(s, h);
    cs::VdmStateRestartIndex r;
    r.value = restart;
    push(s, r);
    cs::VdmStateVertexShaderWord0 w0;
    w0.uniform_register_count = 64;
    w0.preshader_register_count = 16;
    push(s, w0);
    cs::VdmStateVertexShaderWord1 w1;
    w1.pipeline = pipeline_offset;
    push(s, w1);
    cs::VdmStateVertexOutputs o;
    o.output_count_1 = o.output_count_2 = outputs;
    push(s, o);
    while (s.size() % 8) s.push_back(0);  // VDM State blocks are padded to 8 bytes
  }
  void ppp_state(std::vector<uint8_t>& s, const PppRecord& r) {
    const auto b = r.bytes();
    const GpuVa va = put(b);
    cs::PppState p;
    p.pointer_hi = va >> 32;
    p.pointer_lo = static_cast<uint32_t>(va);
    p.size_words = b.size() / 4;
    push(s, p);
  }
  // The PPP words of the standard shader (2 flat 32-bit words after the
  // position) with one viewport: a 100x100 target, y down.
  PppRecord standard_ppp(cs::Cull cull = {}) {
    PppRecord r;
    r.header.viewport = r.header.output_select = r.header.varying_counts_32 = r.header.cull = true;
    r.header.viewport_count = 1;
    cs::OutputSelect sel;
    sel.varyings = true;
    cs::VaryingCounts c;
    c.flat = 2;
    r.add(cs::ViewportControl{}).add(viewport(50, 50, 50, 50)).add(sel).add(c).add(cull);
    return r;
  }
  void draw(std::vector<uint8_t>& s, cs::Primitive prim, uint32_t count, uint32_t instances = 1, uint32_t start = 0) {
    cs::IndexList h;
    h.primitive = prim;
    h.index_count_present = h.instance_count_present = h.start_present = true;
    push(s, h);
    push_u32(s, count);
    push_u32(s, instances);
    push_u32(s, start);
  }
  void indexed(std::vector<uint8_t>& s, cs::Primitive prim, GpuVa buffer, cs::IndexSize size, uint32_t count,
               uint32_t size_B, uint32_t bias = 0, bool restart = false, uint32_t instances = 1) {
    cs::IndexList h;
    h.primitive = prim;
    h.index_buffer_hi = buffer >> 32;
    h.index_size = size;
    h.restart_enable = restart;
    h.index_buffer_present = h.index_count_present = h.instance_count_present = h.start_present = true;
    h.index_buffer_size_present = true;
    push(s, h);
    push_u32(s, static_cast<uint32_t>(buffer));
    push_u32(s, count);
    push_u32(s, instances);
    push_u32(s, bias);
    cs::IndexListBufferSize sz;
    sz.size = size_B;
    push(s, sz);
  }
  void terminate(std::vector<uint8_t>& s) { push(s, cs::VdmStreamTerminate{}); }

  // Runs the stream; returns whether it completed (a fault is in `fault`).
  bool run(const std::vector<uint8_t>& stream) {
    const GpuVa va = put(stream);
    render = {};
    render.vdm_ctrl_stream_base = va;
    kmd::FirmwareCommand cmd;
    cmd.queue = kmd::FirmwareQueue::vertex;
    cmd.render = &render;
    cmd.memory = &memory;
    cmd.usc_exec_base = kBase;
    scene = {};
    fault = {};
    Status st = pipeline->run(cmd, scene, &fault);
    if (!st) message = st.error().message();
    return st.ok();
  }

  // The vertex ID and instance ID a scene vertex carries (standard shader).
  uint32_t vid(uint32_t scene_vertex) const { return scene.outputs[scene.vertices[scene_vertex].first_output + 4]; }
  uint32_t iid(uint32_t scene_vertex) const { return scene.outputs[scene.vertices[scene_vertex].first_output + 5]; }
  std::vector<uint32_t> primitive_vids(size_t p) const {
    const ScenePrimitive& q = scene.primitives[p];
    const unsigned n = q.kind == PrimitiveKind::triangle ? 3 : q.kind == PrimitiveKind::line ? 2 : 1;
    std::vector<uint32_t> v;
    for (unsigned k = 0; k < n; ++k) v.push_back(vid(q.vertices[k]));
    return v;
  }

  usc::RegionMemory memory;
  std::unique_ptr<VertexPipeline> pipeline;
  drm_asahi_cmd_render render{};
  Scene scene;
  GpuFault fault;
  std::string message;

 private:
  size_t next_ = 0;
};

}  // namespace agx::gpu::test
