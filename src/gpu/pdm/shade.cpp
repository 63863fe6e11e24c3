// One primitive in one tile: scissor, coverage, depth (with bias and the
// scissor's depth clamp), the early or late depth / stencil test, and the
// fragment shader over the covered 2x2 quads, 8 quads a SIMD group
// (docs/gpu.md, "Fragment shaders").
#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "gpu/pdm/pdm_internal.h"

namespace agx::gpu::pdm {

namespace cs = cmdstream;

namespace {

struct Region {
  PixelRect rect;
  bool clamp = false;
  double min_z = 0, max_z = 1;
  double bias = 0;
};

template <class T>
Result<T> read_isp_word(GpuMemory& m, GpuVa va, const char* what, GpuFault* where) {
  uint8_t raw[T::kSize_B];
  AGX_CHECK(read_gpu(m, va, raw, sizeof raw, GpuUnit::isp, where));
  auto w = read_word<T>(raw);
  if (!w) return fail(where, va, GpuUnit::isp, std::move(w).error().context(what));
  return *w;
}

// The pixels the primitive may touch in this tile, and the depth
// adjustments of its draw.
Result<Region> region(const Command& c, const Tile& t, const ScenePrimitive& sp, const RasterPrimitive& r,
                      GpuFault* where) {
  const PppWords& ppp = c.scene->states[sp.state].ppp;
  Region g;
  const PixelRect tile{t.x0, t.y0, t.x0 + int32_t(c.tile_w), t.y0 + int32_t(c.tile_h)};
  const PixelRect target{0, 0, int32_t(c.render->width_px), int32_t(c.render->height_px)};
  g.rect = intersect(intersect(tile, target), r.bounds);
  GpuMemory& m = *c.cmd->memory;
  if (ppp.fragment_control.scissor_enable) {
    const GpuVa va = c.render->isp_scissor_base + uint64_t(ppp.depth_bias_scissor.scissor) * cs::Scissor::kSize_B;
    AGX_TRY(cs::Scissor s, read_isp_word<cs::Scissor>(m, va, "scissor", where));
    g.rect = intersect(g.rect, PixelRect{int32_t(s.min_x), int32_t(s.min_y), int32_t(s.max_x), int32_t(s.max_y)});
    g.clamp = true;
    g.min_z = double(s.min_z);
    g.max_z = double(s.max_z);
  }
  if (ppp.fragment_control.depth_bias_enable) {
    const GpuVa va =
        c.render->isp_dbias_base + uint64_t(ppp.depth_bias_scissor.depth_bias) * cs::DepthBias::kSize_B;
    AGX_TRY(cs::DepthBias b, read_isp_word<cs::DepthBias>(m, va, "depth bias", where));
    g.bias = depth_bias(b, r, c.render->flags & DRM_ASAHI_RENDER_DBIAS_IS_INT);
  }
  return g;
}

// The coefficient registers of the primitive for this tile's 32x32 block.
// Flat bindings take the scene's provoking vertex: the vertices rotate so
// that it sits where the first flat binding's shade model looks.
Result<std::vector<varyings::Coefficients>> coefficients(const Command& c, const Tile& t, const ScenePrimitive& sp,
                                                         const RasterPrimitive& r, const DrawShader& d) {
  const DrawState& ds = c.scene->states[sp.state];
  unsigned rotate = 0;
  if (sp.kind == PrimitiveKind::triangle)
    for (const varyings::CfBinding& b : d.bindings.bindings)
      if (varyings::is_flat(b.shade_model)) {
        rotate = (sp.provoking + 3 - varyings::provoking_vertex(b.shade_model) % 3) % 3;
        break;
      }
  varyings::Triangle tri;
  tri.primitive_id = sp.primitive_id;
  if (sp.kind == PrimitiveKind::point) {
    // The Object type of the face the point is drawn with says where t = 0
    // is (docs/gpu.md "Point sprites").
    const cmdstream::FragmentFace2& face = sp.front_facing ? ds.ppp.front_2 : ds.ppp.back_2;
    tri.sprite = varyings::PointSprite{r.x0, r.y0, 2 * r.half_width,
                                       face.object_type != cmdstream::ObjectType::kPointSpriteUv10};
  }
  for (unsigned i = 0; i < 3; ++i) {
    const unsigned from = (i + rotate) % 3;
    tri.v[i] = r.plane[from];
    const SceneVertex& v = c.scene->vertices[r.plane_vertex[from]];
    if (uint64_t(v.first_output) + ds.output_count > c.scene->outputs.size())
      return Error::invalid_argument("vertex {} outputs {}..{} past the scene's {} output words",
                                     r.plane_vertex[from], v.first_output, v.first_output + ds.output_count,
                                     c.scene->outputs.size());
    tri.outputs[i] = std::span(c.scene->outputs).subspan(v.first_output, ds.output_count);
  }
  return varyings::setup_coefficients(tri, ds.slots, d.bindings, unsigned(t.x0) / varyings::kTileSize_px,
                                      unsigned(t.y0) / varyings::kTileSize_px);
}

PrimitiveTest primitive_test(const Command& c, const ScenePrimitive& sp) {
  const PppWords& ppp = c.scene->states[sp.state].ppp;
  PrimitiveTest pt;
  pt.face = face_test(ppp, sp.front_facing);
  pt.format = c.zls.depth_format;
  pt.query = ppp.occlusion_query.index;
  pt.visibility = ppp.fragment_control.visibility_mode;
  return pt;
}

}  // namespace

Status shade_primitive(const Command& c, Worker& w, Tile& t, uint32_t index, GpuFault* where) {
  const ScenePrimitive& sp = c.scene->primitives[index];
  const RasterPrimitive& r = c.prims[index];
  const DrawShader& d = c.draws[sp.state];
  auto ctx = [&](Error e) {
    return std::move(e).context(fmt::format("primitive {} (draw state {}), tile at ({}, {}) layer {}", index,
                                            sp.state, t.x0, t.y0, t.layer));
  };
  auto g_or = region(c, t, sp, r, where);
  if (!g_or) return ctx(std::move(g_or).error());
  const Region& g = *g_or;
  if (g.rect.empty()) return {};
  PrimitiveTest pt = primitive_test(c, sp);
  // Coverage and depth per pixel of the tile (lanes read them back).
  const size_t n = size_t(c.tile_w) * c.tile_h;
  std::vector<uint32_t> cov(n, 0);
  std::vector<std::array<double, kMaxSamples>> depth(n);
  for (int32_t y = g.rect.y0; y < g.rect.y1; ++y)
    for (int32_t x = g.rect.x0; x < g.rect.x1; ++x) {
      const size_t i = size_t(y - t.y0) * c.tile_w + size_t(x - t.x0);
      cov[i] = coverage(r, x, y, c.positions);
      for (uint32_t s = 0; s < c.samples; ++s) {
        double z = depth_at(r, x + double(c.positions.at[s][0]), y + double(c.positions.at[s][1])) + g.bias;
        if (g.clamp) z = std::clamp(z, g.min_z, g.max_z);
        depth[i][s] = z;
      }
      // Early test (and every test of a draw without a fragment shader).
      if (!d.has_shader || d.early_z)
        for (uint32_t s = 0; s < c.samples; ++s)
          if ((cov[i] >> s & 1) && !test_sample(c, t, pt, uint32_t(x - t.x0), uint32_t(y - t.y0), s, depth[i][s]))
            cov[i] &= ~(1u << s);
    }
  if (!d.has_shader) return {};
  // The covered quads, in tile order.
  std::vector<std::array<uint32_t, 2>> quads;
  for (uint32_t qy = 0; qy < c.tile_h; qy += 2)
    for (uint32_t qx = 0; qx < c.tile_w; qx += 2) {
      const size_t i = size_t(qy) * c.tile_w + qx;
      if (cov[i] | cov[i + 1] | cov[i + c.tile_w] | cov[i + c.tile_w + 1]) quads.push_back({qx, qy});
    }
  if (quads.empty()) return {};
  auto cf = coefficients(c, t, sp, r, d);
  if (!cf) return fail(where, 0, GpuUnit::pdm, ctx(std::move(cf).error()));
  std::unique_ptr<usc::FixedFunction> ff = c.fixed_function ? c.fixed_function(d.shader.usc.bindings) : nullptr;
  FragmentHook hook(c, t);
  hook.coefficients = &*cf;
  hook.test = &pt;
  for (size_t first = 0, group = 0; first < quads.size(); first += 8, ++group) {
    uint32_t present = 0;
    for (unsigned l = 0; l < usc::kLanes; ++l) {
      const size_t q = first + l / 4;
      Lane& lane = hook.lanes[l];
      lane = Lane{};
      if (q >= quads.size()) continue;
      present |= 1u << l;
      lane.x = quads[q][0] + (l & 1);
      lane.y = quads[q][1] + (l >> 1 & 1);
      const size_t i = size_t(lane.y) * c.tile_w + lane.x;
      lane.coverage = lane.live = cov[i];
      lane.tested = d.early_z;
      lane.depth = depth[i];
    }
    t.quads += std::popcount(present) / 4;
    AGX_CHECK(run_group_for(c, w, t, d.shader, hook, present, unsigned(group), !sp.front_facing, ff.get(),
                            GroupName{nullptr, index}, where));
    hook.late_test(present);  // late Z: lanes that wrote nothing are tested at the end
  }
  return {};
}

}  // namespace agx::gpu::pdm
