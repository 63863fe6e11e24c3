// Draw tests on the in-process device: hand-assembled vertex and fragment
// programs following the graphics ABI (docs/compiler.md): the vertex
// program reads vertex (r5 + 3 x r6)'s clip-space position and colour
// from a table at u0_u1 and writes them to outputs 0-3 and 4-7 (the
// varyings unit's layout of one smooth vec4); the fragment program
// interpolates the colour (cf1.., W in cf0: compile-time bindings) and
// stores it to render target 0 (RGBA8 unorm).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "isa/isa.h"
#include "runtime/render_pass.h"

namespace agx::runtime::test {

inline uint32_t f2u(float f) { return std::bit_cast<uint32_t>(f); }

using Vertex = std::array<float, 8>;  // clip-space x, y, z, w; r, g, b, a

// t = r5 + 3 x r6; words 8t..8t+7 of the table into r8..r15.
inline std::string vertex_code() {
  std::string s = "iadd r7, r5, r6\niadd r7, r7, r6\niadd r7, r7, r6\n";
  for (int i = 0; i < 3; ++i) s += "iadd r7, r7, r7\n";
  for (int i = 0; i < 8; ++i) {
    if (i) s += "iadd r7, r7, 1\n";
    s += "device_load 0, i32, x, r" + std::to_string(8 + i) + ", u0_u1, r7, unsigned\n";
  }
  return s + "wait 0\n";
}

inline constexpr const char* kFragmentCode =
    "iterproj r0_r1_r2_r3, cf1, cf0, center, 0b0, 0, 0, 0, 0, 0\n"
    "st_tile r0_r1_r2_r3, u8norm, 0, xyzw, 0, 255, 0\n";

inline std::vector<uint8_t> assemble(const std::string& text) {
  auto code = isa::assemble_program(text);
  EXPECT_TRUE(code.ok()) << (code.ok() ? "" : code.error().message());
  return code.ok() ? *code : std::vector<uint8_t>{};
}

// st_var (st_var_final) of rN to output `slot`.
inline std::vector<uint8_t> st_var(unsigned reg, unsigned slot, bool final) {
  const std::pair<std::string_view, uint32_t> f[] = {{"u", 1}, {"r", reg}, {"It", 1}, {"I", slot}};
  auto e = isa::encode_fields(final ? isa::Opcode::st_var_final : isa::Opcode::st_var, f);
  EXPECT_TRUE(e.ok());
  return e.ok() ? std::vector<uint8_t>(e->span().begin(), e->span().end()) : std::vector<uint8_t>{};
}

inline uint8_t unorm8(float v) { return uint8_t(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)); }

class DrawTest : public ::testing::Test {
 protected:
  static constexpr uint32_t kW = 64, kH = 64;

  void SetUp() override {
    auto d = Device::open_in_process();
    ASSERT_TRUE(d.ok()) << d.error().message();
    dev = std::move(*d);
  }
  void TearDown() override {
    pipelines.clear();
    buffers.clear();
    images.clear();
    dev.reset();
  }

  Image* image(format::Format f) {
    layout::Request r;
    r.format = f;
    r.width_px = kW;
    r.height_px = kH;
    r.renderable = true;
    auto i = Image::create(*dev, ImageDim::d2, r, "attachment");
    EXPECT_TRUE(i.ok()) << (i.ok() ? "" : i.error().message());
    if (!i.ok()) return nullptr;
    images.push_back(std::move(*i));
    return images.back().get();
  }
  Buffer* buffer(const void* data, size_t size_B, const char* label) {
    auto b = dev->create_buffer(size_B, label);
    EXPECT_TRUE(b.ok()) << (b.ok() ? "" : b.error().message());
    if (!b.ok()) return nullptr;
    std::memcpy((*b)->host().data(), data, size_B);
    buffers.push_back(std::move(*b));
    return buffers.back().get();
  }

  // A pipeline drawing `vertices` (the table its vertex program reads).
  GraphicsPipelineDesc desc(const std::vector<Vertex>& vertices) {
    Buffer* table = buffer(vertices.data(), vertices.size() * sizeof(Vertex), "vertex table");
    GraphicsPipelineDesc d;
    d.vertex.code = assemble(vertex_code());
    for (unsigned i = 0; i < 8; ++i) {
      const auto w = st_var(8 + i, i, i == 7);
      d.vertex.code.insert(d.vertex.code.end(), w.begin(), w.end());
    }
    d.vertex.code.insert(d.vertex.code.end(), {0x88, 0x00});  // stop
    d.vertex.register_halves = 32;
    const uint64_t va = table ? table->gpu_va() : 0;
    d.vertex.uniforms = {uint32_t(va), uint32_t(va >> 32)};
    d.outputs.varyings.push_back({"color", 4, 32, varyings::Interp::smooth});
    d.fragment.code = assemble(kFragmentCode);
    d.fragment.code.insert(d.fragment.code.end(), {0x88, 0x00});
    d.fragment.register_halves = 16;
    return d;
  }
  const GraphicsPipeline* pipeline(GraphicsPipelineDesc d) {
    auto p = GraphicsPipeline::create(*dev, std::move(d));
    EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message());
    if (!p.ok()) return nullptr;
    pipelines.push_back(std::move(*p));
    return pipelines.back().get();
  }
  // A pass over `rt` cleared to black (and a depth / stencil attachment).
  std::unique_ptr<RenderPass> begin(Image* rt, Image* depth = nullptr, Image* stencil = nullptr) {
    RenderPassDesc d;
    d.label = "frame";
    d.colors.push_back({rt, LoadOp::clear, StoreOp::store, {0, 0, 0, f2u(1.0f)}});
    d.depth.image = depth;
    d.depth.clear = 1.0f;
    d.stencil.image = stencil;
    auto p = RenderPass::begin(*dev, d);
    EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message());
    return p.ok() ? std::move(*p) : nullptr;
  }
  // One pass over `rt` (cleared to black) drawing `vertices` with `p`.
  void draw_pass(Image* rt, const GraphicsPipeline& p, uint32_t vertices) {
    auto pass = begin(rt);
    ASSERT_TRUE(pass);
    ASSERT_TRUE(pass->bind_pipeline(p).ok());
    ASSERT_TRUE(pass->draw(vertices).ok());
    Status st = pass->end();
    ASSERT_TRUE(st.ok()) << st.error().message();
  }
  std::vector<uint8_t> pixels(const Image& img, uint32_t texel_B = 4) {
    std::vector<uint8_t> out(size_t(kW) * kH * texel_B);
    Status st = img.download(out, kW * texel_B);
    EXPECT_TRUE(st.ok()) << (st.ok() ? "" : st.error().message());
    return out;
  }
  static std::array<uint8_t, 4> at(const std::vector<uint8_t>& px, uint32_t x, uint32_t y) {
    const size_t i = (size_t(y) * kW + x) * 4;
    return {px[i], px[i + 1], px[i + 2], px[i + 3]};
  }
  // A triangle's vertices from window positions (the default viewport
  // maps clip x, y in -1..1 onto 0..64) with one colour.
  static Vertex vtx(float x_px, float y_px, std::array<float, 4> c, float z = 0.5f) {
    return {x_px / (kW / 2.0f) - 1, y_px / (kH / 2.0f) - 1, z, 1, c[0], c[1], c[2], c[3]};
  }
  // Two triangles covering [x0, x1) x [y0, y1) (6 vertices).
  static std::vector<Vertex> rect(float x0, float y0, float x1, float y1, std::array<float, 4> c, float z = 0.5f) {
    return {vtx(x0, y0, c, z), vtx(x1, y0, c, z), vtx(x0, y1, c, z),
            vtx(x1, y0, c, z), vtx(x1, y1, c, z), vtx(x0, y1, c, z)};
  }
  // Every pixel: `inside(x, y)`'s colour where it gives one, else black.
  template <class F>
  void expect_pixels(const std::vector<uint8_t>& px, F&& inside) {
    for (uint32_t y = 0; y < kH; ++y)
      for (uint32_t x = 0; x < kW; ++x) {
        const std::optional<std::array<uint8_t, 4>> want = inside(x, y);
        const std::array<uint8_t, 4> got = at(px, x, y);
        const std::array<uint8_t, 4> w = want ? *want : std::array<uint8_t, 4>{0, 0, 0, 255};
        for (unsigned k = 0; k < 4; ++k)
          ASSERT_LE(std::abs(int(got[k]) - int(w[k])), 1) << "pixel (" << x << ", " << y << ") component " << k;
      }
  }

  std::unique_ptr<Device> dev;
  std::vector<std::unique_ptr<Image>> images;
  std::vector<std::unique_ptr<Buffer>> buffers;
  std::vector<std::unique_ptr<GraphicsPipeline>> pipelines;
};

// Whether pixel (x, y)'s centre is strictly inside triangle abc (either winding).
inline bool centre_inside(std::array<float, 2> a, std::array<float, 2> b, std::array<float, 2> c, uint32_t x, uint32_t y) {
  const double px = x + 0.5, py = y + 0.5;
  auto e = [&](std::array<float, 2> p, std::array<float, 2> q) {
    return (double(q[0]) - p[0]) * (py - p[1]) - (double(q[1]) - p[1]) * (px - p[0]);
  };
  const double e0 = e(a, b), e1 = e(b, c), e2 = e(c, a);
  return (e0 > 0 && e1 > 0 && e2 > 0) || (e0 < 0 && e1 < 0 && e2 < 0);
}

}  // namespace agx::runtime::test
