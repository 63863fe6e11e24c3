// `agx bench render`: a fixed scene (4096 triangles in 16 draws of their
// own colour over a 256x256 RGBA8 target) rendered through SUBMIT on the
// software GPU (GpuExecutor on 1 and on all worker threads), beside a
// native C++ rasterizer doing the same work in the same run: the same
// triangles on the same 1/256-pixel grid, the same coverage rule (pixel
// centres, top-left fill convention, docs/gpu.md "The ISP") and the same
// per-pixel colour write, on as many threads (bands of rows). The two
// images must be equal. Fill rate: fragments (covered pixels, overdraw
// included) per second; triangles per second.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include "bench_timing.h"
#include "cmdstream/cmdstream.h"
#include "command.h"
#include "gpu/gpu.h"
#include "gpu/isp/isp.h"
#include "kmd/kmd.h"
#include "runtime/compute_session.h"
#include "tilebuffer/tilebuffer.h"

namespace AGX_UNITY_ID {

namespace cs = agx::cmdstream;

constexpr uint32_t kW = 256, kH = 256, kTriangles = 4096, kDraws = 16;
constexpr int kRuns = 3;  // best of

template <class T>
T must(agx::Result<T> r, const char* what) {
  if (!r) agx::cli::fail(r.error().context(what));
  return std::move(*r);
}

// The scene: vertices in pixels on a 1/8-pixel grid (NDC and the viewport
// carry them exactly), draw d's colour.
struct Scene {
  std::vector<std::array<float, 2>> px;  // 3 per triangle
  std::array<std::array<float, 4>, kDraws> colour;
};

Scene make_scene() {
  Scene s;
  uint32_t seed = 12345;
  auto next = [&](uint32_t n) {
    seed = seed * 1664525u + 1013904223u;
    return (seed >> 8) % n;
  };
  for (uint32_t t = 0; t < kTriangles; ++t) {
    const float cx = float(next(kW * 8)) / 8, cy = float(next(kH * 8)) / 8;
    for (int k = 0; k < 3; ++k)
      s.px.push_back({std::clamp(cx + (float(next(48 * 8)) / 8 - 24), 0.0f, float(kW)),
                      std::clamp(cy + (float(next(48 * 8)) / 8 - 24), 0.0f, float(kH))});
  }
  for (uint32_t d = 0; d < kDraws; ++d)
    s.colour[d] = {float(d % 2), float(d / 2 % 2), float(d / 4 % 2), 1.0f};
  return s;
}

uint32_t rgba8(const std::array<float, 4>& c) {
  uint32_t w = 0;
  for (int k = 0; k < 4; ++k) w |= uint32_t(std::lround(std::clamp(c[k], 0.0f, 1.0f) * 255.0f)) << (8 * k);
  return w;
}

// ---- the native rasterizer ----

// Rasterizes triangles into rows [y0, y1) of `image`; returns the fragments.
uint64_t native_rows(const Scene& s, uint32_t y0, uint32_t y1, uint32_t* image) {
  uint64_t fragments = 0;
  for (uint32_t t = 0; t < kTriangles; ++t) {
    const uint32_t colour = rgba8(s.colour[t / (kTriangles / kDraws)]);
    int64_t x[3], y[3];
    for (int k = 0; k < 3; ++k) {
      x[k] = std::llround(double(s.px[3 * t + k][0]) * 256);
      y[k] = std::llround(double(s.px[3 * t + k][1]) * 256);
    }
    const int64_t area = (x[1] - x[0]) * (y[2] - y[0]) - (y[1] - y[0]) * (x[2] - x[0]);
    if (area == 0) continue;
    const int64_t sign = area > 0 ? 1 : -1;
    // Edge k from vertex k to k+1: e = A * px + B * py + C, sign-normalized;
    // a sample on the edge counts when the edge is top or left.
    int64_t A[3], B[3], C[3], bias[3];
    for (int k = 0; k < 3; ++k) {
      const int j = (k + 1) % 3;
      const int64_t dx = x[j] - x[k], dy = y[j] - y[k];
      A[k] = -dy * sign;
      B[k] = dx * sign;
      C[k] = (dy * x[k] - dx * y[k]) * sign;
      const bool top_left = dy == 0 ? dx * sign > 0 : -dy * sign > 0;
      bias[k] = top_left ? 0 : -1;
    }
    const int64_t minx = std::max<int64_t>(0, *std::min_element(x, x + 3) / 256);
    const int64_t maxx = std::min<int64_t>(kW - 1, *std::max_element(x, x + 3) / 256);
    const int64_t miny = std::max<int64_t>(y0, *std::min_element(y, y + 3) / 256);
    const int64_t maxy = std::min<int64_t>(int64_t(y1) - 1, *std::max_element(y, y + 3) / 256);
    for (int64_t py = miny; py <= maxy; ++py) {
      const int64_t sy = py * 256 + 128;
      for (int64_t px = minx; px <= maxx; ++px) {
        const int64_t sx = px * 256 + 128;
        bool in = true;
        for (int k = 0; k < 3 && in; ++k) in = A[k] * sx + B[k] * sy + C[k] + bias[k] >= 0;
        if (in) {
          image[py * kW + px] = colour;
          ++fragments;
        }
      }
    }
  }
  return fragments;
}

// Clears and draws the scene on `threads` threads; returns the fragments.
uint64_t native_draw(const Scene& s, unsigned threads, std::vector<uint32_t>& image) {
  const uint32_t clear = rgba8({0.0f, 0.0f, 0.0f, 1.0f});
  std::vector<uint64_t> counts(threads);
  std::vector<std::thread> pool;
  const uint32_t band = (kH + threads - 1) / threads;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      const uint32_t y0 = std::min(kH, t * band), y1 = std::min(kH, y0 + band);
      std::fill(image.begin() + y0 * kW, image.begin() + y1 * kW, clear);
      counts[t] = native_rows(s, y0, y1, image.data());
    });
  for (auto& t : pool) t.join();
  uint64_t total = 0;
  for (uint64_t c : counts) total += c;
  return total;
}

// ---- the emulated render: one render command through SUBMIT ----

constexpr const char* kColour =  // bg and fragment shader: u0-u3 to the tilebuffer
    "iadd r0, u0, 0\niadd r1, u1, 0\niadd r2, u2, 0\niadd r3, u3, 0\n"
    "st_tile r0_r1_r2_r3, u8norm, 0, xyzw, 0, 255, 0\nstop";
constexpr const char* kEot =  // the tile to the PBE descriptor in ts0
    "get_sr r4, sr2\nmov_imm r3l, 0\nimage_write_block r3l, r4_r5, 0, ts0, tex_2d, rte, u8norm, 0, 9, 1\nstop";
constexpr const char* kVertex =  // position = words 4v..4v+3 of u0_u1
    "iadd r7, r5, r5\niadd r7, r7, r7\n"
    "device_load 0, i32, x, r8, u0_u1, r7, unsigned\niadd r7, r7, 1\n"
    "device_load 0, i32, x, r9, u0_u1, r7, unsigned\niadd r7, r7, 1\n"
    "device_load 0, i32, x, r10, u0_u1, r7, unsigned\niadd r7, r7, 1\n"
    "device_load 0, i32, x, r11, u0_u1, r7, unsigned\nwait 0\n"
    "st_var 1, r8, 0\nst_var 1, r9, 1\nst_var 1, r10, 2\nst_var_final 1, r11, 3\nstop";

template <class T>
void push(std::vector<uint8_t>& out, const T& word) {
  auto b = must(cs::pack(word), "pack");
  out.insert(out.end(), b.begin(), b.end());
}
void push_u32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
}

class EmulatedRender {
 public:
  EmulatedRender(const Scene& s, unsigned threads) {
    agx::gpu::GpuOptions o;
    o.threads = threads;
    o.fixed_function = agx::gpu::texture_unit_factory();  // the PBE writes of the end-of-tile program
    device_.set_executor(std::make_shared<agx::gpu::GpuExecutor>(o));
    session_ = must(agx::runtime::ComputeSession::open(device_, 8 << 20), "open");
    tib_ = must(agx::tilebuffer::build_layout({agx::format::Format::R8G8B8A8_UNORM}, 1), "tilebuffer");
    target_ = must(session_->alloc(4ull * kW * kH, 16384), "alloc");
    build(s);
  }
  void run() {
    auto faults = session_->run_render(render_);
    if (!faults.ok()) agx::cli::fail(faults.error());
    if (*faults) agx::cli::fail("the render command faulted: " + session_->last_fault().reason);
  }
  const uint32_t* image() { return session_->host_as<uint32_t>(target_); }

 private:
  uint32_t usc(uint64_t va) const { return session_->usc_offset(va); }
  // A word list: uniforms (the colour or the vertex table) or the PBE in
  // ts0, the Shared word (the tilebuffer's, or none for the vertex shader).
  uint32_t words(const char* code, std::vector<uint32_t> uniforms, uint64_t pbe, bool fragment) {
    std::vector<uint8_t> w;
    if (!uniforms.empty()) {
      cs::UscUniform u;
      u.size_halfs = 2 * uniforms.size();
      u.buffer = must(session_->upload({reinterpret_cast<const uint8_t*>(uniforms.data()), 4 * uniforms.size()}), "up");
      push(w, u);
    }
    if (pbe) {
      cs::UscTexture t;
      t.count = 1;
      t.buffer = pbe;
      push(w, t);
    }
    if (fragment) push(w, agx::tilebuffer::usc_shared(tib_));
    cs::UscShader sh;
    sh.code = usc(must(session_->assemble(code), "assemble"));
    push(w, sh);
    cs::UscRegisters r;
    r.register_count = 32;
    push(w, r);
    push(w, cs::UscNoPreshader{});
    return usc(must(session_->upload(w), "upload"));
  }
  drm_asahi_bg_eot tile_program(const char* code, std::vector<uint32_t> colour, uint64_t pbe) {
    drm_asahi_bg_eot p{};
    p.usc = words(code, colour, pbe, true) | 4;
    cs::Counts k;
    k.uniform_register_count = colour.empty() ? 0 : 8;
    k.texture_state_register_count = pbe ? 8 : 0;
    auto b = must(cs::pack(k), "counts");
    std::memcpy(&p.rsrc_spec, b.data(), 4);
    return p;
  }
  uint64_t pbe() {
    cs::Pbe p;
    p.dimension = cs::TextureDimension::k2D;
    p.layout = cs::Layout::kLinear;
    p.channels = cs::Channels::R8G8B8A8;
    p.type = cs::TextureType::Unorm;
    p.swizzle_r = cs::Channel::kR;
    p.swizzle_g = cs::Channel::kG;
    p.swizzle_b = cs::Channel::kB;
    p.swizzle_a = cs::Channel::kA;
    p.width = kW;
    p.height = kH;
    p.buffer = target_;
    p.stride = kW * 4 - 4;  // stored minus 4 (Mesa's pack_pbe)
    return must(session_->upload(must(cs::pack(p), "pbe")), "upload");
  }
  uint64_t ppp_update(const std::vector<uint32_t>& colour, uint32_t* size_words);
  void build(const Scene& s);

  agx::kmd::Device device_;
  std::unique_ptr<agx::runtime::ComputeSession> session_;
  agx::tilebuffer::Layout tib_;
  uint64_t target_ = 0;
  drm_asahi_cmd_render render_{};
};

uint32_t f2u(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
std::vector<uint32_t> colour_uniforms(const std::array<float, 4>& c) {
  return {f2u(c[0]), f2u(c[1]), f2u(c[2]), f2u(c[3])};
}

// Depth and stencil tests Always without writes, one viewport (NDC onto
// the target), the position as the only output, the fragment shader.
uint64_t EmulatedRender::ppp_update(const std::vector<uint32_t>& colour, uint32_t* size_words) {
  std::vector<uint8_t> r;
  cs::PppHeader h;
  h.fragment_control = h.fragment_front_face = h.fragment_front_stencil = true;
  h.fragment_back_face = h.fragment_back_stencil = true;
  h.viewport = h.output_select = h.varying_counts_32 = h.cull = h.fragment_shader = true;
  h.viewport_count = 1;
  push(r, h);
  push(r, cs::FragmentControl{});
  cs::FragmentFace face;
  face.depth_function = cs::ZsFunc::kAlways;
  face.disable_depth_write = true;
  cs::FragmentStencil st;
  st.compare = cs::ZsFunc::kAlways;
  for (int side = 0; side < 2; ++side) {
    push(r, face);
    push(r, st);
  }
  push(r, cs::ViewportControl{});
  cs::Viewport v;
  v.translate_x = v.scale_x = kW / 2;
  v.translate_y = v.scale_y = kH / 2;
  v.scale_z = 1;
  push(r, v);
  push(r, cs::OutputSelect{});
  push(r, cs::VaryingCounts{});
  cs::Cull cull;
  cull.front_face_ccw = true;
  push(r, cull);
  cs::FragmentShaderWord0 w0;
  w0.uniform_register_count = 8;
  push(r, w0);
  cs::FragmentShaderWord1 w1;
  w1.pipeline = words(kColour, colour, 0, true);
  push(r, w1);
  cs::FragmentShaderWord2 w2;
  w2.cf_bindings = usc(must(session_->upload(must(cs::pack(cs::CfBindingHeader{}), "cf"), 4), "upload"));
  push(r, w2);
  push(r, cs::FragmentShaderWord3{});
  *size_words = uint32_t(r.size() / 4);
  return must(session_->upload(r), "upload");
}

void EmulatedRender::build(const Scene& s) {
  std::vector<uint32_t> table;
  for (const auto& p : s.px)
    for (float f : {p[0] / (kW / 2) - 1.0f, p[1] / (kH / 2) - 1.0f, 0.0f, 1.0f}) table.push_back(f2u(f));
  const uint64_t tva = must(session_->upload({reinterpret_cast<const uint8_t*>(table.data()), 4 * table.size()}), "up");
  std::vector<uint8_t> vdm;
  cs::VdmState h;
  h.vertex_shader_word_0_present = h.vertex_shader_word_1_present = h.vertex_outputs_present = true;
  push(vdm, h);
  cs::VdmStateVertexShaderWord0 w0;
  w0.uniform_register_count = 8;
  push(vdm, w0);
  cs::VdmStateVertexShaderWord1 w1;
  w1.pipeline = words(kVertex, {uint32_t(tva), uint32_t(tva >> 32)}, 0, false);
  push(vdm, w1);
  cs::VdmStateVertexOutputs o;
  o.output_count_1 = o.output_count_2 = 4;
  push(vdm, o);
  while (vdm.size() % 8) vdm.push_back(0);
  for (uint32_t d = 0; d < kDraws; ++d) {
    cs::PppState p;
    uint32_t size = 0;
    const uint64_t va = ppp_update(colour_uniforms(s.colour[d]), &size);
    p.pointer_hi = va >> 32;
    p.pointer_lo = uint32_t(va);
    p.size_words = size;
    push(vdm, p);
    cs::IndexList il;
    il.primitive = cs::Primitive::kTriangles;
    il.index_count_present = il.instance_count_present = il.start_present = true;
    push(vdm, il);
    push_u32(vdm, 3 * kTriangles / kDraws);
    push_u32(vdm, 1);
    push_u32(vdm, 3 * kTriangles / kDraws * d);
  }
  push(vdm, cs::VdmStreamTerminate{});
  render_.vdm_ctrl_stream_base = must(session_->upload(vdm), "upload");
  render_.width_px = kW;
  render_.height_px = kH;
  render_.layers = 1;
  render_.samples = 1;
  render_.sample_size_B = uint8_t(tib_.sample_size_B);
  render_.utile_width_px = uint8_t(tib_.tile.width_px);
  render_.utile_height_px = uint8_t(tib_.tile.height_px);
  render_.ppp_multisamplectl = agx::gpu::default_multisamplectl(1);
  render_.bg = tile_program(kColour, colour_uniforms({0.0f, 0.0f, 0.0f, 1.0f}), 0);
  render_.eot = tile_program(kEot, {}, pbe());
}

struct Figures {
  double emulated_s, native_s;
  uint64_t fragments;
};

// Best of kRuns of both on `threads` threads; the images must agree.
Figures measure(const Scene& s, unsigned threads) {
  EmulatedRender e(s, threads);
  std::vector<uint32_t> native(kW * kH);
  Figures f{};
  f.emulated_s = agx::cli::best_seconds(kRuns, [&] { e.run(); });
  f.native_s = agx::cli::best_seconds(kRuns, [&] { f.fragments = native_draw(s, threads, native); });
  for (uint32_t i = 0; i < kW * kH; ++i)
    if (e.image()[i] != native[i])
      agx::cli::fail(fmt::format("render bench: pixel ({}, {}) is {:08x} emulated, {:08x} native", i % kW, i / kW,
                                 e.image()[i], native[i]));
  return f;
}

int run(bool json) {
  const Scene s = make_scene();
  const unsigned n = agx::gpu::default_threads();
  const Figures one = measure(s, 1), all = measure(s, n);
  auto fill = [](double frags, double secs) { return frags / secs; };
  const double f1 = fill(one.fragments, one.emulated_s), nf1 = fill(one.fragments, one.native_s);
  const double fn = fill(all.fragments, all.emulated_s), nfn = fill(all.fragments, all.native_s);
  const double t1 = kTriangles / one.emulated_s, tn = kTriangles / all.emulated_s;
  const double nt1 = kTriangles / one.native_s, ntn = kTriangles / all.native_s;
  if (json) {
    fmt::print(
        "{{\"threads\": {}, \"triangles\": {}, \"fragments\": {}, \"fill_pixels_per_s_1t\": {:.4g}, "
        "\"native_fill_pixels_per_s_1t\": {:.4g}, \"fill_ratio_1t\": {:.4g}, \"triangles_per_s_1t\": {:.4g}, "
        "\"native_triangles_per_s_1t\": {:.4g}, \"fill_pixels_per_s_nt\": {:.4g}, "
        "\"native_fill_pixels_per_s_nt\": {:.4g}, \"fill_ratio_nt\": {:.4g}, \"triangles_per_s_nt\": {:.4g}, "
        "\"native_triangles_per_s_nt\": {:.4g}}}\n",
        n, kTriangles, one.fragments, f1, nf1, f1 / nf1, t1, nt1, fn, nfn, fn / nfn, tn, ntn);
  } else {
    fmt::print("{} triangles in {} draws, {}x{} RGBA8, {} fragments, through SUBMIT:\n", kTriangles, kDraws, kW, kH,
               one.fragments);
    fmt::print("  1 thread:  emulated {:.3g} pixels/s, {:.3g} triangles/s; native C++ {:.3g} pixels/s; ratio {:.3g}\n",
               f1, t1, nf1, f1 / nf1);
    fmt::print("  {} threads: emulated {:.3g} pixels/s, {:.3g} triangles/s; native C++ {:.3g} pixels/s; ratio {:.3g}\n",
               n, fn, tn, nfn, fn / nfn);
  }
  return 0;
}

agx::cli::Bench kBench{"render", "a fixed scene through SUBMIT on the GPU executor vs a native C++ rasterizer", run};

}  // namespace AGX_UNITY_ID
