// The primitive stage of one instance of a draw: assembly, trivial
// rejection, clipping, the viewport transform, culling, and the scene's
// vertices and primitives (docs/gpu.md, "The PPP"). Window coordinates:
// x_px = Translate X + Scale X * x / w (y and z alike, from the Viewport
// word the provoking vertex's viewport index selects); a triangle's facing
// is the sign of Vulkan's area a = -1/2 sum(x_i y_i+1 - x_i+1 y_i) in
// window coordinates (positive: counter-clockwise), as
// bminor/mesa-mesa src/asahi/vulkan/hk_cmd_draw.c passes Vulkan's front
// face to Cull's "Front face CCW".
#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "gpu/ppp/ppp_internal.h"

namespace agx::gpu {

namespace cs = cmdstream;
using cs::Cull;
using detail::Assembled;

namespace {

float as_float(uint32_t w) {
  float f;
  std::memcpy(&f, &w, sizeof f);
  return f;
}

class Stage {
 public:
  Stage(const PrimitiveInput& in, const OutputPlan& plan, Scene& scene)
      : in_(in), plan_(plan), scene_(scene), state_(scene.states[in.state]),
        shared_(in.outputs.size() / plan.count, {UINT32_MAX, 0}) {
    planes_.depth = state_.ppp.cull.depth_clip;
    const float w_clamp = state_.ppp.w_clamp.w_clamp;
    if (std::isfinite(w_clamp) && w_clamp > 0) planes_.min_w = w_clamp;
    planes_.user = plan.clip_distances;
    discard_ = state_.ppp.cull.rasterizer_discard || state_.ppp.cull_2.rasterizer_discard;
    line_width_ = line_width(state_.ppp.front);  // lines: the front face's
  }

  Result<PrimitiveCounts> run() {
    const unsigned provoking = detail::provoking_rule(state_.ppp.cull);
    size_t begin = 0;
    const size_t n = in_.elements.size();
    for (size_t i = 0; i <= n; ++i) {
      if (i < n && in_.elements[i] != kRestartElement) {
        if (in_.elements[i] >= shared_.size())
          return Error::decode("element {} names shaded vertex {} of {}", i, in_.elements[i], shared_.size());
        continue;
      }
      AGX_CHECK(detail::assemble_run(in_.topology, static_cast<uint32_t>(i - begin), provoking,
                                     [&](const Assembled& a) { return primitive(a, begin); }));
      begin = i + 1;
    }
    return counts_;
  }

 private:
  std::span<const uint32_t> words(uint32_t shaded) const {
    return in_.outputs.subspan(size_t{shaded} * plan_.count, plan_.count);
  }

  Status primitive(const Assembled& a, size_t run_begin) {
    const uint32_t id = static_cast<uint32_t>(counts_.in++);
    if (discard_) return {};
    std::array<uint32_t, 3> shaded{};
    for (unsigned k = 0; k < a.n; ++k) shaded[k] = in_.elements[run_begin + a.v[k]];
    const std::span<const uint32_t> provoking = words(shaded[a.provoking]);
    uint64_t all = ~uint64_t{0}, any = 0;
    for (unsigned k = 0; k < a.n; ++k) {
      const uint64_t m = detail::outside(planes_, words(shaded[k]));
      all &= m;
      any |= m;
    }
    if (all) return {};  // wholly outside one plane
    ScenePrimitive p = base(a, id, provoking);
    if (a.kind == PrimitiveKind::point) {
      if (any) return {};  // a point is kept or dropped by its centre
      if (!(p.point_size_px > 0)) return {};
      p.vertices[0] = shared_vertex(shaded[0], p.viewport);
      return add(p, 1);
    }
    const uint64_t clip_mask = any & ((uint64_t{1} << planes_.count()) - 1);
    if (!clip_mask) {
      if (a.kind != PrimitiveKind::triangle) {
        for (unsigned k = 0; k < a.n; ++k) p.vertices[k] = shared_vertex(shaded[k], p.viewport);
        return add(p, a.n);
      }
      std::vector<uint32_t> v;
      for (unsigned k = 0; k < 3; ++k) v.push_back(shared_vertex(shaded[k], p.viewport));
      return polygon(p, v, {false, false, false});
    }
    detail::ClipPolygon poly;
    for (unsigned k = 0; k < a.n; ++k) {
      auto w = words(shaded[k]);
      poly.push_back({std::vector<uint32_t>(w.begin(), w.end()), false});
    }
    const bool closed = a.kind == PrimitiveKind::triangle;
    detail::clip(poly, closed, planes_, clip_mask, plan_, provoking);
    if (poly.empty()) return {};
    // Every vertex of a clipped primitive carries the provoking vertex's
    // flat words, so any vertex may serve as the provoking one.
    std::vector<uint32_t> made;
    std::vector<bool> by_clipping;
    for (auto& v : poly) {
      for (uint32_t i = 0; i < plan_.count; ++i)
        if (plan_.rules[i] == OutputRule::flat) v.words[i] = provoking[i];
      made.push_back(new_vertex(v.words, p.viewport));
      by_clipping.push_back(v.made);
    }
    p.provoking = 0;
    if (!closed) {
      p.vertices = {made[0], made[1], 0};
      return add(p, 2);
    }
    return polygon(p, made, by_clipping);
  }

  const varyings::ScreenVertex& screen(uint32_t v) const { return scene_.vertices[v].screen; }

  // A triangle, or what clipping left of it (a convex polygon): facing
  // from its area, culling, then by the face's polygon mode its fan of
  // triangles (Fill), its edges (Line; edges on a clip plane only with Cull
  // 2's Draw clipped edges) or its vertices (Point).
  Status polygon(ScenePrimitive p, const std::vector<uint32_t>& v, const std::vector<bool>& made) {
    const size_t n = v.size();
    double area = 0;
    for (size_t k = 0; k < n; ++k) {
      const auto& s = screen(v[k]);
      const auto& t = screen(v[(k + 1) % n]);
      if (!std::isfinite(s.x_px) || !std::isfinite(s.y_px) || !std::isfinite(s.z)) return {};
      area += s.x_px * t.y_px - t.x_px * s.y_px;
    }
    area *= -0.5;
    if (area == 0) return {};  // covers no pixel
    const Cull& cull = state_.ppp.cull;
    p.front_facing = (area > 0) == cull.front_face_ccw;
    if (p.front_facing ? cull.cull_front : cull.cull_back) return {};
    const cs::FragmentFace& face = p.front_facing ? state_.ppp.front : state_.ppp.back;
    switch (face.polygon_mode) {
      case cs::PolygonMode::kFill:
        for (size_t k = 1; k + 1 < n; ++k) {
          p.vertices = {v[0], v[k], v[k + 1]};
          AGX_CHECK(add(p, 3));
        }
        return {};
      case cs::PolygonMode::kLine:
        p.kind = PrimitiveKind::line;
        p.line_width_px = line_width(face);
        for (size_t k = 0; k < n; ++k) {
          const size_t j = (k + 1) % n;
          if (made[k] && made[j] && !state_.ppp.cull_2.draw_clipped_edges) continue;
          p.vertices = {v[k], v[j], 0};
          AGX_CHECK(add(p, 2));
        }
        return {};
      case cs::PolygonMode::kPoint:
        p.kind = PrimitiveKind::point;
        for (size_t k = 0; k < n; ++k) {
          p.vertices = {v[k], 0, 0};
          if (plan_.point_size >= 0)
            p.point_size_px = as_float(scene_.outputs[scene_.vertices[v[k]].first_output + plan_.point_size]);
          if (p.point_size_px > 0) AGX_CHECK(add(p, 1));
        }
        return {};
    }
    return Error::decode("{} face's Polygon mode {} names no mode", p.front_facing ? "front" : "back",
                         static_cast<uint32_t>(face.polygon_mode));
  }

  // Fragment Face's Line width: 4:4 fixed point, minus one (Mesa's
  // agx_pack_line_width in src/asahi/lib/agx_helpers.h).
  static float line_width(const cs::FragmentFace& face) { return static_cast<float>(face.line_width + 1) / 16.0f; }

  ScenePrimitive base(const Assembled& a, uint32_t id, std::span<const uint32_t> provoking) const {
    ScenePrimitive p;
    p.kind = a.kind;
    p.provoking = a.provoking;
    p.state = in_.state;
    p.primitive_id = id;
    if (plan_.layer_viewport >= 0) {
      const uint32_t lv = provoking[static_cast<size_t>(plan_.layer_viewport)];
      p.layer = lv & 0xFFFF;
      p.viewport = lv >> 16;
      // A viewport index beyond the Viewport words in force uses viewport
      // 0 (our choice; the APIs leave it undefined).
      if (p.viewport >= state_.ppp.viewports.size()) p.viewport = 0;
    }
    if (plan_.point_size >= 0) p.point_size_px = as_float(provoking[static_cast<size_t>(plan_.point_size)]);
    p.line_width_px = line_width_;
    return p;
  }

  varyings::ScreenVertex transform(std::span<const uint32_t> v, uint32_t viewport) const {
    const cs::Viewport& vp = state_.ppp.viewports[viewport];
    const double w = as_float(v[3]);
    varyings::ScreenVertex s{vp.translate_x + vp.scale_x * (as_float(v[0]) / w),
                             vp.translate_y + vp.scale_y * (as_float(v[1]) / w),
                             vp.translate_z + vp.scale_z * (as_float(v[2]) / w), w};
    if (state_.ppp.cull.depth_clamp) {
      const double lo = std::min<double>(vp.translate_z, vp.translate_z + vp.scale_z);
      const double hi = std::max<double>(vp.translate_z, vp.translate_z + vp.scale_z);
      s.z = std::clamp(s.z, lo, hi);
    }
    return s;
  }

  uint32_t new_vertex(std::span<const uint32_t> v, uint32_t viewport) {
    SceneVertex sv{transform(v, viewport), static_cast<uint32_t>(scene_.outputs.size())};
    scene_.outputs.insert(scene_.outputs.end(), v.begin(), v.end());
    scene_.vertices.push_back(sv);
    return static_cast<uint32_t>(scene_.vertices.size() - 1);
  }

  // A shaded vertex enters the scene once per viewport it is seen through
  // (almost always once).
  uint32_t shared_vertex(uint32_t shaded, uint32_t viewport) {
    auto& [at, seen_through] = shared_[shaded];
    if (at != UINT32_MAX && seen_through == viewport) return at;
    at = new_vertex(words(shaded), viewport);
    seen_through = viewport;
    return at;
  }

  // Adds a primitive whose window coordinates are finite; a fan piece of
  // zero area is dropped.
  Status add(const ScenePrimitive& p, unsigned n) {
    for (unsigned k = 0; k < n; ++k) {
      const auto& s = screen(p.vertices[k]);
      if (!std::isfinite(s.x_px) || !std::isfinite(s.y_px) || !std::isfinite(s.z)) return {};
    }
    if (p.kind == PrimitiveKind::triangle) {
      const auto &a = screen(p.vertices[0]), &b = screen(p.vertices[1]), &c = screen(p.vertices[2]);
      if ((b.x_px - a.x_px) * (c.y_px - a.y_px) == (c.x_px - a.x_px) * (b.y_px - a.y_px)) return {};
    }
    scene_.primitives.push_back(p);
    counts_.out++;
    return {};
  }

  const PrimitiveInput& in_;
  const OutputPlan& plan_;
  Scene& scene_;
  const DrawState& state_;
  detail::ClipPlanes planes_;
  bool discard_ = false;
  float line_width_ = 1.0f;
  // Per shaded vertex: its scene vertex (UINT32_MAX: none yet) and the
  // viewport it was transformed for.
  std::vector<std::pair<uint32_t, uint32_t>> shared_;
  PrimitiveCounts counts_;
};

}  // namespace

Result<PrimitiveCounts> run_primitives(const PrimitiveInput& in, const OutputPlan& plan, Scene& scene) {
  if (in.state >= scene.states.size())
    return Error::invalid_argument("draw state {} of {}", in.state, scene.states.size());
  if (plan.count < 4 || plan.rules.size() != plan.count || in.outputs.size() % plan.count)
    return Error::invalid_argument("{} output words for vertices of {} words", in.outputs.size(), plan.count);
  const PppWords& ppp = scene.states[in.state].ppp;
  if (ppp.viewports.empty() && !ppp.cull.rasterizer_discard && !ppp.cull_2.rasterizer_discard)
    return Error::decode("a draw with no Viewport words in force (no PPP update has set them)");
  return Stage(in, plan, scene).run();
}

}  // namespace agx::gpu
