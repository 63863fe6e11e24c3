// Coverage: sample positions, triangle edge equations in fixed point with
// the top-left fill convention, lines as rectangles and points as squares
// (docs/gpu.md, "The ISP").
#include <algorithm>
#include <cmath>

#include "gpu/isp/isp.h"

namespace agx::gpu {

namespace {

constexpr double kSubpixel = double(1u << kSubpixelBits);
constexpr unsigned kSampleGrid = 16;  // ppp_multisamplectl positions are in 1/16 px

int64_t snap(double v) { return std::llround(v * kSubpixel); }

// Pixels a box of window coordinates may touch (its samples lie inside
// their pixel, so one pixel of margin is never needed beyond floor/ceil).
PixelRect box(double x0, double y0, double x1, double y1) {
  auto lo = [](double v) { return int32_t(std::clamp(std::floor(v), -1.0e9, 1.0e9)); };
  auto hi = [](double v) { return int32_t(std::clamp(std::ceil(v), -1.0e9, 1.0e9)) + 1; };
  return {lo(x0), lo(y0), hi(x1), hi(y1)};
}

bool finite(const varyings::ScreenVertex& v) {
  return std::isfinite(v.x_px) && std::isfinite(v.y_px) && std::isfinite(v.z);
}

Status setup_triangle(RasterPrimitive& r) {
  const auto& v = r.plane;
  std::array<int64_t, 3> x, y;
  for (unsigned i = 0; i < 3; ++i) {
    x[i] = snap(v[i].x_px);
    y[i] = snap(v[i].y_px);
  }
  const int64_t area = (x[1] - x[0]) * (y[2] - y[0]) - (y[1] - y[0]) * (x[2] - x[0]);
  if (area == 0) {
    r.degenerate = true;
    return {};
  }
  // Orient so the inside is where every edge function is positive.
  const int64_t sign = area > 0 ? 1 : -1;
  for (unsigned i = 0; i < 3; ++i) {
    const unsigned j = (i + 1) % 3;
    int64_t dx = (x[j] - x[i]) * sign, dy = (y[j] - y[i]) * sign;
    // E(p) = dx * (py - yi) - dy * (px - xi) = -dy * px + dx * py + c.
    int64_t c = dy * x[i] - dx * y[i];
    // Top-left rule (y down): a top edge runs right (dy == 0, dx > 0), a
    // left edge runs up (dy < 0). Samples exactly on other edges are out.
    const bool top_left = (dy == 0 && dx > 0) || dy < 0;
    if (!top_left) c -= 1;
    r.edge[i] = {-dy, dx, c};
  }
  // Depth plane through the three vertices (window pixels).
  const double ax = v[1].x_px - v[0].x_px, ay = v[1].y_px - v[0].y_px;
  const double bx = v[2].x_px - v[0].x_px, by = v[2].y_px - v[0].y_px;
  const double det = ax * by - ay * bx;
  const double az = v[1].z - v[0].z, bz = v[2].z - v[0].z;
  r.zx = (az * by - bz * ay) / det;
  r.zy = (bz * ax - az * bx) / det;
  r.zc = v[0].z - r.zx * v[0].x_px - r.zy * v[0].y_px;
  double lo_x = std::min({v[0].x_px, v[1].x_px, v[2].x_px}), hi_x = std::max({v[0].x_px, v[1].x_px, v[2].x_px});
  double lo_y = std::min({v[0].y_px, v[1].y_px, v[2].y_px}), hi_y = std::max({v[0].y_px, v[1].y_px, v[2].y_px});
  r.bounds = box(lo_x, lo_y, hi_x, hi_y);
  return {};
}

}  // namespace

Result<SamplePositions> decode_sample_positions(uint64_t ctrl, unsigned samples) {
  if (samples != 1 && samples != 2 && samples != 4)
    return Error::invalid_argument("{} samples per pixel: the render command allows 1, 2 or 4", samples);
  SamplePositions p;
  p.count = samples;
  for (unsigned s = 0; s < samples; ++s) {
    const unsigned byte = unsigned(ctrl >> (8 * s)) & 0xFF;
    p.at[s] = {float(byte & 0xF) / kSampleGrid, float(byte >> 4) / kSampleGrid};
  }
  return p;
}

uint64_t default_multisamplectl(unsigned samples) {
  switch (samples) {
    case 2: return 0x44cc;
    case 4: return 0xeaa26e26;
    default: return 0x88;
  }
}

PixelRect intersect(const PixelRect& a, const PixelRect& b) {
  return {std::max(a.x0, b.x0), std::max(a.y0, b.y0), std::min(a.x1, b.x1), std::min(a.y1, b.y1)};
}

Result<RasterPrimitive> setup_primitive(const Scene& scene, const ScenePrimitive& p) {
  RasterPrimitive r;
  r.kind = p.kind;
  const unsigned n = p.kind == PrimitiveKind::triangle ? 3 : p.kind == PrimitiveKind::line ? 2 : 1;
  std::array<varyings::ScreenVertex, 3> v{};
  for (unsigned i = 0; i < n; ++i) {
    if (p.vertices[i] >= scene.vertices.size())
      return Error::invalid_argument("primitive {} names vertex {} of {}", p.primitive_id, p.vertices[i],
                                     scene.vertices.size());
    v[i] = scene.vertices[p.vertices[i]].screen;
    r.plane_vertex[i] = p.vertices[i];
    if (!finite(v[i])) {
      r.degenerate = true;
      return r;
    }
  }
  if (p.kind == PrimitiveKind::triangle) {
    r.plane = v;
    AGX_CHECK(setup_triangle(r));
    return r;
  }
  // Lines and points: a plane constant across the line / over the point.
  r.plane_vertex[2] = r.plane_vertex[0];
  r.x0 = v[0].x_px;
  r.y0 = v[0].y_px;
  r.z0 = r.z1 = v[0].z;
  if (p.kind == PrimitiveKind::point) {
    r.plane_vertex[1] = r.plane_vertex[0];
    r.half_width = std::max(0.0, double(p.point_size_px)) / 2;
    r.degenerate = !(r.half_width > 0);
    r.plane = {v[0], v[0], v[0]};
    r.plane[1].x_px += 1;
    r.plane[2].y_px += 1;
    r.bounds = box(r.x0 - r.half_width, r.y0 - r.half_width, r.x0 + r.half_width, r.y0 + r.half_width);
    r.zc = v[0].z;
    return r;
  }
  r.x1 = v[1].x_px;
  r.y1 = v[1].y_px;
  r.z1 = v[1].z;
  r.half_width = std::max(0.0, double(p.line_width_px)) / 2;
  const double dx = r.x1 - r.x0, dy = r.y1 - r.y0, len = std::hypot(dx, dy);
  r.degenerate = !(len > 0) || !(r.half_width > 0);
  r.plane = {v[0], v[1], v[0]};
  if (!r.degenerate) {  // third vertex: off the line, perpendicular, same outputs as the first
    r.plane[2].x_px -= dy / len;
    r.plane[2].y_px += dx / len;
  }
  const double h = r.half_width;
  r.bounds = box(std::min(r.x0, r.x1) - h, std::min(r.y0, r.y1) - h, std::max(r.x0, r.x1) + h,
                 std::max(r.y0, r.y1) + h);
  return r;
}

uint32_t coverage(const RasterPrimitive& r, int32_t x, int32_t y, const SamplePositions& pos) {
  if (r.degenerate) return 0;
  uint32_t mask = 0;
  for (unsigned s = 0; s < pos.count; ++s) {
    const double sx = x + double(pos.at[s][0]), sy = y + double(pos.at[s][1]);
    bool in = false;
    if (r.kind == PrimitiveKind::triangle) {
      const int64_t px = int64_t(x) * int64_t(kSubpixel) + int64_t(pos.at[s][0] * kSubpixel);
      const int64_t py = int64_t(y) * int64_t(kSubpixel) + int64_t(pos.at[s][1] * kSubpixel);
      in = true;
      for (const auto& e : r.edge) in = in && e[0] * px + e[1] * py + e[2] >= 0;
    } else if (r.kind == PrimitiveKind::point) {
      // Half-open square: the left and top sides are in.
      in = sx >= r.x0 - r.half_width && sx < r.x0 + r.half_width && sy >= r.y0 - r.half_width &&
           sy < r.y0 + r.half_width;
    } else {
      // A rectangle along the segment: [0, length) along it, [-w/2, w/2)
      // across it.
      const double dx = r.x1 - r.x0, dy = r.y1 - r.y0, len = std::hypot(dx, dy);
      const double along = ((sx - r.x0) * dx + (sy - r.y0) * dy) / len;
      const double across = ((sy - r.y0) * dx - (sx - r.x0) * dy) / len;
      in = along >= 0 && along < len && across >= -r.half_width && across < r.half_width;
    }
    if (in) mask |= 1u << s;
  }
  return mask;
}

double depth_at(const RasterPrimitive& r, double x, double y) {
  if (r.kind == PrimitiveKind::triangle) return r.zx * x + r.zy * y + r.zc;
  if (r.kind == PrimitiveKind::point) return r.z0;
  const double dx = r.x1 - r.x0, dy = r.y1 - r.y0, len2 = dx * dx + dy * dy;
  const double t = len2 > 0 ? std::clamp(((x - r.x0) * dx + (y - r.y0) * dy) / len2, 0.0, 1.0) : 0.0;
  return r.z0 + (r.z1 - r.z0) * t;
}

double max_depth_slope(const RasterPrimitive& r) {
  if (r.kind != PrimitiveKind::triangle) return 0;
  return std::max(std::abs(r.zx), std::abs(r.zy));
}

}  // namespace agx::gpu
