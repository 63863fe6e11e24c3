// Fragment-half tests: a render command over a hand-built Scene in a
// RegionMemory. Programs are assembled with isa::assemble_program into a
// USC window; USC word lists are packed with the cmdstream tables and the
// tilebuffer unit's Shared word; the render target is an image of the
// layout unit with a PBE descriptor (pbe_words.h); the varyings unit lays
// out vertex outputs and packs the CF bindings.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "cmdstream/cmdstream.h"
#include "gpu/gpu.h"
#include "gpu/isp/isp.h"
#include "gpu/pdm/pdm.h"
#include "isa/isa.h"
#include "pbe_words.h"
#include "texture_helpers.h"
#include "texture_words.h"
#include "tilebuffer/tilebuffer.h"

namespace agx::gpu::test {

namespace cs = agx::cmdstream;

// Whether pixel (x, y)'s centre is strictly inside the triangle (either
// winding): the reference for tests that put no centre on an edge.
inline bool centre_inside(double ax, double ay, double bx, double by, double cx, double cy, int x, int y) {
  const double px = x + 0.5, py = y + 0.5;
  auto e = [&](double x0, double y0, double x1, double y1) { return (x1 - x0) * (py - y0) - (y1 - y0) * (px - x0); };
  const double e0 = e(ax, ay, bx, by), e1 = e(bx, by, cx, cy), e2 = e(cx, cy, ax, ay);
  return (e0 > 0 && e1 > 0 && e2 > 0) || (e0 < 0 && e1 < 0 && e2 < 0);
}

class RenderTest : public ::testing::Test {
 public:
  static constexpr GpuVa kUsc = 0x1'0000'0000ull;      // usc_exec_base
  static constexpr uint32_t kUscSize = 1 << 20;
  static constexpr GpuVa kTarget = 0x2000'0000ull;
  static constexpr GpuVa kDepth = 0x3000'0000ull, kStencil = 0x3800'0000ull;
  static constexpr GpuVa kIsp = 0x4000'0000ull;        // scissors, depth biases, queries
  static constexpr GpuVa kPbeHeap = 0x5000'0000ull;

  usc::RegionMemory mem;
  TestImage target;
  tilebuffer::Layout tib;
  drm_asahi_cmd_render render{};
  kmd::FirmwareCommand cmd;
  Scene scene;
  uint32_t usc_used = 0;

  // A render target of `format` (w x h, `samples`), its tilebuffer layout
  // and the command's size fields.
  void target_of(const char* format, uint32_t w, uint32_t h, uint32_t samples = 1, uint32_t layers = 1) {
    ASSERT_TRUE(mem.map(kUsc, std::vector<uint8_t>(kUscSize, 0)).ok());
    ASSERT_TRUE(mem.map(kIsp, std::vector<uint8_t>(4096, 0)).ok());
    const format::Format f = *format::find_format(format);
    const bool array = layers > 1;
    target = make_test_image(mem, kTarget, f, layout::Tiling::twiddled,
                             samples > 1 ? Dim::d2_ms : array ? Dim::d2_array : Dim::d2, w, h, layers, 1, samples);
    std::vector<uint8_t> pbe = pbe_words(target,
                                         samples > 1 ? cs::TextureDimension::k2DMultisampled
                                         : array     ? cs::TextureDimension::k2DArray
                                                     : cs::TextureDimension::k2D,
                                         cs::Layout::kTwiddled);
    if (samples == 4) {  // the descriptor's Samples (2 unless set)
      auto p = cs::unpack<cs::Pbe>(pbe);
      ASSERT_TRUE(p.ok());
      p->samples = cs::SampleCount::k4;
      auto b = cs::pack(*p);
      ASSERT_TRUE(b.ok());
      pbe = *b;
    }
    ASSERT_TRUE(mem.map(kPbeHeap, pbe).ok());
    tilebuffer::RenderTargets rts{};
    rts[0] = f;
    auto l = tilebuffer::build_layout(rts, samples);
    ASSERT_TRUE(l.ok()) << l.error().message();
    tib = *l;
    render.width_px = uint16_t(w);
    render.height_px = uint16_t(h);
    render.layers = uint16_t(layers);
    render.samples = uint8_t(samples);
    render.sample_size_B = uint8_t(tib.sample_size_B);
    render.utile_width_px = uint8_t(tib.tile.width_px);
    render.utile_height_px = uint8_t(tib.tile.height_px);
    render.ppp_multisamplectl = default_multisamplectl(samples);
    render.isp_scissor_base = kIsp;
    render.isp_dbias_base = kIsp + 1024;
    render.isp_oclqry_base = kIsp + 2048;
    cmd.queue = kmd::FirmwareQueue::fragment;
    cmd.render = &render;
    cmd.memory = &mem;
    cmd.usc_exec_base = kUsc;
  }

  // Bytes in the USC window; returns their offset from usc_exec_base.
  uint32_t usc_put(const std::vector<uint8_t>& bytes, uint32_t align = 64) {
    usc_used = (usc_used + align - 1) / align * align;
    const uint32_t at = usc_used;
    EXPECT_LE(at + bytes.size(), kUscSize);
    GpuFault f;
    EXPECT_TRUE(mem.write(kUsc + at, bytes.data(), bytes.size(), GpuUnit::host, &f)) << describe(f);
    usc_used += uint32_t(bytes.size());
    return at;
  }
  uint32_t code(const std::string& text) {
    const uint32_t at = (usc_used + 63) / 64 * 64;
    auto bytes = isa::assemble_program(text, kUsc + at);
    EXPECT_TRUE(bytes.ok()) << (bytes.ok() ? "" : bytes.error().message()) << "\n" << text;
    std::vector<uint8_t> b = bytes.ok() ? *bytes : std::vector<uint8_t>{};
    b.insert(b.end(), {0x88, 0x00});  // stop
    return usc_put(b);
  }
  template <class T>
  static void append(std::vector<uint8_t>& out, const T& word) {
    auto b = cs::pack(word);
    EXPECT_TRUE(b.ok()) << (b.ok() ? "" : b.error().message());
    if (b.ok()) out.insert(out.end(), b->begin(), b->end());
  }
  // A fragment-side USC word list: ts0 = the target's PBE descriptor when
  // `pbe`, the tilebuffer's Shared word, the code, `halves` registers,
  // Fragment Properties when `properties`, No Preshader.
  uint32_t words(uint32_t code_at, bool pbe = false, uint32_t halves = 16,
                 std::optional<cs::UscFragmentProperties> properties = std::nullopt,
                 const std::vector<uint8_t>& state_words = {}, uint32_t spill_bucket = 0) {
    std::vector<uint8_t> w(state_words);
    if (pbe) {
      cs::UscTexture t{};
      t.start = 0;
      t.count = 1;
      t.buffer = kPbeHeap;
      append(w, t);
    }
    append(w, tilebuffer::usc_shared(tib));
    cs::UscShader s{};
    s.code = code_at;
    append(w, s);
    cs::UscRegisters r{};
    r.register_count = halves;
    r.spill_size = spill_bucket;
    append(w, r);
    if (properties) append(w, *properties);
    append(w, cs::UscNoPreshader{});
    return usc_put(w);
  }
  // bg / eot: the word list and a Counts rsrc_spec (one texture register
  // for the eot's PBE descriptor).
  drm_asahi_bg_eot tile_program(const std::string& text, bool pbe) {
    return tile_program_at(words(code(text), pbe), pbe ? 8 : 0);
  }
  // The tagged USC offset of the word list at `words_at` and its rsrc_spec.
  drm_asahi_bg_eot tile_program_at(uint32_t words_at, uint32_t texture_registers,
                                   cs::SamplerStates samplers = {}) {
    cs::Counts counts{};
    counts.texture_state_register_count = texture_registers;
    counts.sampler_state_register_count = samplers;
    auto b = cs::pack(counts);
    EXPECT_TRUE(b.ok());
    drm_asahi_bg_eot p{};
    p.usc = words_at | 4;
    if (b.ok()) std::memcpy(&p.rsrc_spec, b->data(), 4);
    return p;
  }

  // The usual programs: bg fills every pixel with an RGBA8 colour given as
  // floats, eot stores the tile through the PBE.
  static std::string fill_rgba(float r, float g, float b, float a) {
    return "mov_imm r0, " + std::to_string(f2u(r)) + ", 0b0\nmov_imm r1, " + std::to_string(f2u(g)) + ", 0b0\nmov_imm r2, " +
           std::to_string(f2u(b)) + ", 0b0\nmov_imm r3, " + std::to_string(f2u(a)) + ", 0b0\nst_tile r0_r1_r2_r3, u8norm, 0, xyzw, 0, 255, 0\n";
  }
  void clear_and_store(float r, float g, float b, float a) {
    render.bg = tile_program(fill_rgba(r, g, b, a), false);
    render.eot = store_program();
  }
  // The end-of-tile program storing the tile to the target through the PBE.
  drm_asahi_bg_eot store_program() {
    // 2D MS and arrays take a half after the coordinates (isa kTexSizes);
    // an array's layer is the first half of C, here the tile's layer (sr2).
    const std::string dim = render.samples > 1  ? "r4l_r4h_r5l_r5h_r6l, 0, ts0, tex_2d_ms"
                            : render.layers > 1 ? "r4l_r4h_r5l_r5h_r6l, 0, ts0, tex_2d_array"
                                                : "r4_r5, 0, ts0, tex_2d";
    return tile_program("get_sr r4, sr2\nmov_imm r3l, 0\nimage_write_block r3l, " + dim + ", rte, u8norm, 0, 9, 1\n",
                        true);
  }
  // Mesa's background program for a loaded attachment (single-sampled 2D
  // RGBA8 target): texture_load of the target at the pixel's coordinates
  // (sr80, sr81) through a Texture and a Sampler word (at kIsp + 3072), then
  // st_tile.
  drm_asahi_bg_eot reload_program() {
    constexpr GpuVa kTex = kIsp + 3072;
    std::vector<uint8_t> heap = texture_words(target, cs::TextureDimension::k2D, cs::Layout::kTwiddled);
    cs::Sampler txf{};
    txf.wrap_s = txf.wrap_t = txf.wrap_r = cs::Wrap::kClampToEdge;
    const std::vector<uint8_t> sampler = sampler_words(txf);
    heap.insert(heap.end(), sampler.begin(), sampler.end());
    GpuFault f;
    EXPECT_TRUE(mem.write(kTex, heap.data(), heap.size(), GpuUnit::host, &f)) << describe(f);
    std::vector<uint8_t> state;
    cs::UscTexture t{};
    t.count = 1;
    t.buffer = kTex;
    append(state, t);
    cs::UscSampler smp{};
    smp.count = 1;
    smp.buffer = kTex + 24;
    append(state, smp);
    const uint32_t words_at = words(code("get_sr r4, sr80\nget_sr r5, sr81\nmov_imm r6l, 0\n"
                                         "texture_load 0, 0b0000, 0b0, none, xyzw, 0b00, r0_r1_r2_r3, None, ts0, "
                                         "ss0, tex_2d, r4_r5, lod_min, r6l\nwait 0\n"
                                         "st_tile r0_r1_r2_r3, u8norm, 0, xyzw, 0, 255, 0\n"),
                                    false, 16, std::nullopt, state);
    return tile_program_at(words_at, 8, cs::SamplerStates::k4Compact);
  }
  // A fragment shader writing one RGBA8 colour to every live sample.
  static std::string colour(float r, float g, float b, float a) { return fill_rgba(r, g, b, a); }

  // RGBA8 of pixel (x, y) (sample s) of the target, as bytes.
  std::array<uint8_t, 4> pixel(int32_t x, int32_t y, uint32_t s = 0, uint32_t layer = 0) {
    auto at = layout::element_address_B(target.layout, uint32_t(x), uint32_t(y), layer, 0, s);
    EXPECT_TRUE(at.ok());
    std::array<uint8_t, 4> p{};
    GpuFault f;
    EXPECT_TRUE(mem.read(kTarget + (at.ok() ? *at : 0), p.data(), 4, GpuUnit::host, &f));
    return p;
  }

  // PPP words with no depth or stencil test (Always, no writes): the
  // defaults a draw starts from.
  static PppWords open_words() {
    PppWords w;
    for (cs::FragmentFace* f : {&w.front, &w.back}) {
      f->depth_function = cs::ZsFunc::kAlways;
      f->disable_depth_write = true;
    }
    for (cs::FragmentStencil* st : {&w.front_stencil, &w.back_stencil}) {
      st->compare = cs::ZsFunc::kAlways;
      st->read_mask = st->write_mask = 0xFF;
    }
    return w;
  }
  // The PPP words' fragment shader: present in the header, its USC word
  // list at `pipeline`, `count` CF bindings packed in `binding_words`.
  void set_fragment_shader(PppWords& w, uint32_t pipeline, const std::vector<uint32_t>& binding_words, size_t count) {
    cs::PppHeader h{};
    h.fragment_shader = true;
    auto hb = cs::pack(h);
    uint32_t bit = 0;
    if (hb.ok()) std::memcpy(&bit, hb->data(), 4);
    w.present |= bit;
    std::vector<uint8_t> bind(binding_words.size() * 4);
    std::memcpy(bind.data(), binding_words.data(), bind.size());
    w.fragment_shader_0.cf_binding_count = count;
    w.fragment_shader_1.pipeline = pipeline;
    w.fragment_shader_2.cf_bindings = usc_put(bind, 4);
  }
  uint32_t draw_spill_bucket = 0;  // the Registers word's Spill size of draw()'s shaders
  // A draw state whose fragment shader is `fs` over `iface`'s varyings
  // (no shader when `fs` is empty); returns its index.
  uint32_t draw(const std::string& fs, const varyings::Interface& iface, PppWords w = open_words(),
                std::optional<cs::UscFragmentProperties> properties = std::nullopt) {
    auto report = varyings::make_report(iface);
    EXPECT_TRUE(report.ok()) << (report.ok() ? "" : report.error().message());
    DrawState ds;
    if (!fs.empty() && report.ok())
      set_fragment_shader(w, words(code(fs), false, 16, properties, {}, draw_spill_bucket), report->binding_words,
                          report->bindings.bindings.size());
    ds.ppp = w;
    if (report.ok()) {
      ds.slots = report->slots;
      ds.output_count = report->layout.output_count;
    }
    scene.states.push_back(ds);
    return uint32_t(scene.states.size() - 1);
  }
  // A vertex at window (x, y), depth z, w = 1, with the varying words after
  // the 4 position words.
  uint32_t vertex(double x, double y, double z, const std::vector<float>& varyings = {}) {
    SceneVertex v;
    v.screen = {x, y, z, 1.0};
    v.first_output = uint32_t(scene.outputs.size());
    for (float f : {float(x), float(y), float(z), 1.0f}) scene.outputs.push_back(f2u(f));
    for (float f : varyings) scene.outputs.push_back(f2u(f));
    scene.vertices.push_back(v);
    return uint32_t(scene.vertices.size() - 1);
  }
  // A point (size px) or a line (width px) of `state`.
  void point_or_line(uint32_t state, PrimitiveKind kind, uint32_t a, uint32_t b, float size) {
    ScenePrimitive p;
    p.kind = kind;
    p.vertices = {a, b, 0};
    p.state = state;
    p.point_size_px = p.line_width_px = size;
    p.primitive_id = uint32_t(scene.primitives.size());
    scene.primitives.push_back(p);
  }
  void triangle(uint32_t state, uint32_t a, uint32_t b, uint32_t c, bool front = true, uint32_t layer = 0) {
    ScenePrimitive p;
    p.kind = PrimitiveKind::triangle;
    p.vertices = {a, b, c};
    p.front_facing = front;
    p.state = state;
    p.primitive_id = uint32_t(scene.primitives.size());
    p.layer = layer;
    scene.primitives.push_back(p);
  }

  // The depth (Z32_FLOAT or Z16_UNORM) and stencil buffers, laid out by the
  // layout unit, and zls_ctrl.
  layout::Layout depth_layout, stencil_layout;
  void zls(const cs::ZlsControl& c, float clear_depth, uint8_t clear_stencil) {
    auto lay = [&](format::Format f, cs::ZlsTiling t) {
      layout::Request q;
      q.format = f;
      q.width_px = render.width_px;
      q.height_px = render.height_px;
      q.depth_px = render.layers;
      q.sample_count_sa = render.samples;
      q.tiling = t == cs::ZlsTiling::kTwiddled ? layout::Tiling::twiddled : layout::Tiling::gpu;
      q.renderable = true;
      auto l = layout::make_layout(q);
      EXPECT_TRUE(l.ok()) << (l.ok() ? "" : l.error().message());
      return l.ok() ? *l : layout::Layout{};
    };
    const bool z16 = c.z_format == cs::ZlsFormat::k16;
    depth_layout = lay(z16 ? format::Format::Z16_UNORM : format::Format::Z32_FLOAT, c.z_store_tiling);
    stencil_layout = lay(format::Format::S8_UINT, c.s_store_tiling);
    if (mem.regions().count(kDepth) == 0) {
      EXPECT_TRUE(mem.map(kDepth, std::vector<uint8_t>(depth_layout.size_B, 0)).ok());
      EXPECT_TRUE(mem.map(kStencil, std::vector<uint8_t>(stencil_layout.size_B, 0)).ok());
    }
    render.depth.base = kDepth;
    render.stencil.base = kStencil;
    auto b = cs::pack(c);
    EXPECT_TRUE(b.ok());
    if (b.ok()) std::memcpy(&render.zls_ctrl, b->data(), 8);
    render.isp_bgobjdepth = z16 ? uint32_t(std::lround(clear_depth * 65535.0)) : f2u(clear_depth);
    render.isp_bgobjvals = 0x300 | clear_stencil;
  }
  template <class T>
  T at(GpuVa base, const layout::Layout& l, int32_t x, int32_t y, uint32_t s = 0) {
    auto off = layout::element_address_B(l, uint32_t(x), uint32_t(y), 0, 0, s);
    EXPECT_TRUE(off.ok());
    T v{};
    GpuFault f;
    EXPECT_TRUE(mem.read(base + (off.ok() ? *off : 0), &v, sizeof v, GpuUnit::host, &f));
    return v;
  }
  float depth_at(int32_t x, int32_t y, uint32_t s = 0) { return u2f(at<uint32_t>(kDepth, depth_layout, x, y, s)); }
  uint8_t stencil_at(int32_t x, int32_t y, uint32_t s = 0) { return at<uint8_t>(kStencil, stencil_layout, x, y, s); }
  // Two triangles covering [x0, x1) x [y0, y1) (integer edges: no pixel
  // centre on them) at depth z.
  // `varyings` gives each corner's varying words (none when empty).
  using VaryingsAt = std::function<std::vector<float>(double x, double y)>;
  void rect(uint32_t state, double x0, double y0, double x1, double y1, double z, bool front = true,
            const VaryingsAt& varyings = {}) {
    auto v = [&](double x, double y) { return vertex(x, y, z, varyings ? varyings(x, y) : std::vector<float>{}); };
    const uint32_t a = v(x0, y0), b = v(x1, y0), c = v(x0, y1), d = v(x1, y1);
    triangle(state, a, b, c, front);
    triangle(state, b, d, c, front);
  }
  template <class T>
  void put(GpuVa va, const T& word) {
    auto b = cs::pack(word);
    ASSERT_TRUE(b.ok());
    GpuFault f;
    ASSERT_TRUE(mem.write(va, b->data(), b->size(), GpuUnit::host, &f));
  }

  Status run(FragmentOptions o = {}) {
    if (!o.fixed_function) o.fixed_function = texture_unit_factory();
    FragmentPipeline pipeline(std::move(o));
    GpuFault where;
    Status st = pipeline.run(cmd, scene, &where);
    last_fault = where;
    last_stats = pipeline.stats();
    return st;
  }
  GpuFault last_fault;
  FragmentStats last_stats;
};

}  // namespace agx::gpu::test
