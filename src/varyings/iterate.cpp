// Coefficient setup and the iterator. A coefficient register is <A, B, C>
// dotted with <x, y, 1>, x and y relative to the 32x32 tile's upper-left
// corner, pixel centres at +0.5; perspective-correct values divide by the
// iterated W register, which holds 1/w (Mesa src/asahi/compiler
// agx_nir_lower_interpolation.c; seed "Coefficient registers").
//
// Setup fits each plane in double precision and rounds A, B and C once to
// fp32 (the registers' width), so a value differs from the exact plane only
// by those roundings and the iterator's two fused multiply-adds.
#include <bit>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "util/half.h"
#include "varyings/varyings.h"

namespace agx::varyings {

namespace {

struct Plane {
  double a, b, c;  // c at the tile corner
};

Result<double> slot_value(const Triangle& tri, unsigned vertex, const Slot& slot, unsigned half) {
  switch (slot.source) {
    case SlotSource::w: return 1.0 / tri.v[vertex].w;
    case SlotSource::z: return tri.v[vertex].z;
    default: break;
  }
  std::span<const uint32_t> out = tri.outputs[vertex];
  if (slot.vertex_output >= out.size())
    return Error::invalid_argument("vertex {} has {} vertex outputs, a slot reads output {}",
                                   vertex, out.size(), slot.vertex_output);
  uint32_t word = out[slot.vertex_output];
  if (slot.source == SlotSource::pair16) return half_to_double(uint16_t(word >> (16 * half)));
  float f;
  std::memcpy(&f, &word, 4);
  return double(f);
}

Plane fit(const Triangle& tri, const std::array<double, 3>& f, double x0, double y0) {
  const auto& v = tri.v;
  double ex1 = v[1].x_px - v[0].x_px, ey1 = v[1].y_px - v[0].y_px;
  double ex2 = v[2].x_px - v[0].x_px, ey2 = v[2].y_px - v[0].y_px;
  double area2 = ex1 * ey2 - ex2 * ey1;
  double a = ((f[1] - f[0]) * ey2 - (f[2] - f[0]) * ey1) / area2;
  double b = (ex1 * (f[2] - f[0]) - ex2 * (f[1] - f[0])) / area2;
  return {a, b, f[0] + a * (x0 - v[0].x_px) + b * (y0 - v[0].y_px)};
}

// The point coordinate's component across the sprite: s = 0.5 + (x - x_c) /
// size, t = 0.5 +- (y - y_c) / size (y grows downwards in window
// coordinates), as planes relative to the tile corner (x0, y0).
Coefficients point_coord(const Triangle& tri, unsigned component, double x0, double y0) {
  if (!tri.sprite) return {};
  const PointSprite& p = *tri.sprite;
  const double inv = 1.0 / p.size_px;
  if (component == 0) return {float(inv), 0.0f, float(0.5 + (x0 - p.x_px) * inv)};
  const double sign = p.t_zero_at_top ? 1.0 : -1.0;
  return {0.0f, float(sign * inv), float(0.5 + sign * (y0 - p.y_px) * inv)};
}

Status check_triangle(const Triangle& tri) {
  for (unsigned i = 0; i < 3; ++i)
    if (!(tri.v[i].w > 0) || !std::isfinite(tri.v[i].w))
      return Error::invalid_argument("vertex {}: w = {} (must be positive; clip first)", i,
                                     tri.v[i].w);
  const auto& v = tri.v;
  double area2 = (v[1].x_px - v[0].x_px) * (v[2].y_px - v[0].y_px) -
                 (v[2].x_px - v[0].x_px) * (v[1].y_px - v[0].y_px);
  if (area2 == 0 || !std::isfinite(area2))
    return Error::invalid_argument("degenerate triangle (zero area)");
  if (tri.sprite && !(tri.sprite->size_px > 0 && std::isfinite(tri.sprite->size_px)))
    return Error::invalid_argument("point sprite of size {} (must be positive)", tri.sprite->size_px);
  return {};
}

}  // namespace

Result<std::vector<Coefficients>> setup_coefficients(const Triangle& tri, const SlotMap& slots,
                                                     const CfBindings& b, unsigned tile_x,
                                                     unsigned tile_y) {
  AGX_CHECK(check_triangle(tri));
  AGX_TRY(std::vector<CfContent> contents, coefficient_contents(b, slots));
  double x0 = double(tile_x) * kTileSize_px, y0 = double(tile_y) * kTileSize_px;
  std::vector<Coefficients> regs(contents.size());
  for (size_t r = 0; r < contents.size(); ++r) {
    const CfContent& c = contents[r];
    if (!c.bound) continue;
    if (c.source == CoefficientSource::kPrimitiveId) {
      regs[r] = {0.0f, 0.0f, std::bit_cast<float>(tri.primitive_id)};
      continue;
    }
    if (c.source == CoefficientSource::kPointCoord) {
      regs[r] = point_coord(tri, c.component, x0, y0);
      continue;
    }
    // A flat 32-bit word is the provoking vertex's bits, whatever they
    // are: integers and the halves of doubles are flat, and a float round
    // trip would quiet a signalling-NaN pattern.
    const Slot& slot = slots.slots[c.slot];
    if (is_flat(c.shade_model) && c.source == CoefficientSource::kVarying && slot.source == SlotSource::varying32) {
      const std::span<const uint32_t> out = tri.outputs[provoking_vertex(c.shade_model)];
      if (slot.vertex_output >= out.size())
        return Error::invalid_argument("cf{}: the provoking vertex has {} vertex outputs, a slot reads output {}", r,
                                       out.size(), slot.vertex_output);
      regs[r] = {0.0f, 0.0f, std::bit_cast<float>(out[slot.vertex_output])};
      continue;
    }
    std::array<double, 3> f{};
    if (c.source == CoefficientSource::kFragcoordZ) {
      for (unsigned i = 0; i < 3; ++i) f[i] = tri.v[i].z;
    } else if (c.source == CoefficientSource::kVarying) {
      for (unsigned i = 0; i < 3; ++i) {
        auto value = slot_value(tri, i, slot, c.half);
        if (!value.ok()) return std::move(value).error().context(fmt::format("cf{}", r));
        f[i] = *value;
      }
    } else {
      return Error::unsupported("cf{}: coefficient setup for source {} is not known publicly", r,
                                to_string(c.source));
    }
    if (is_flat(c.shade_model)) {
      regs[r] = {0.0f, 0.0f, float(f[provoking_vertex(c.shade_model)])};
      continue;
    }
    if (c.shade_model == ShadeModel::kPerspective)
      for (unsigned i = 0; i < 3; ++i) f[i] /= tri.v[i].w;
    Plane p = fit(tri, f, x0, y0);
    regs[r] = {float(p.a), float(p.b), float(p.c)};
  }
  return regs;
}

SamplePoint pixel_centre(unsigned px, unsigned py) { return {px, py, 0.5f, 0.5f}; }

SamplePoint sample_point(unsigned px, unsigned py, std::array<float, 2> pos) {
  return {px, py, pos[0], pos[1]};
}

SamplePoint centroid_point(unsigned px, unsigned py,
                           std::span<const std::array<float, 2>> positions, uint32_t coverage) {
  uint32_t all = positions.size() >= 32 ? ~0u : (1u << positions.size()) - 1;
  coverage &= all;
  if (coverage == all || coverage == 0) return pixel_centre(px, py);
  for (size_t s = 0; s < positions.size(); ++s)
    if (coverage & (1u << s)) return sample_point(px, py, positions[s]);
  return pixel_centre(px, py);
}

float iterate(const Coefficients& cf, SamplePoint p) {
  float x = float(p.px % kTileSize_px) + p.dx;
  float y = float(p.py % kTileSize_px) + p.dy;
  return std::fma(x, cf.a, std::fma(y, cf.b, cf.c));
}

float iterate_perspective(const Coefficients& cf, const Coefficients& w_cf, SamplePoint p) {
  return iterate(cf, p) / iterate(w_cf, p);
}

uint16_t iterate_f16(const Coefficients& cf, SamplePoint p) {
  return float_to_half(iterate(cf, p), Rounding::nearest_even);
}

uint16_t iterate_perspective_f16(const Coefficients& cf, const Coefficients& w_cf, SamplePoint p) {
  return float_to_half(iterate_perspective(cf, w_cf, p), Rounding::nearest_even);
}

}  // namespace agx::varyings
