// Clipping in clip space (Sutherland-Hodgman, one plane at a time). A new
// vertex on an edge is found from the edge's inside end toward its outside
// end, so the two triangles sharing an edge get the same point. Its output
// words follow the plan: 32-bit floats and the two halves of 16-bit pairs
// interpolated linearly in clip space (noperspective ones linearly in
// window space), flat words from the provoking vertex (docs/gpu.md,
// "Clipping").
#include <cstring>

#include "gpu/ppp/ppp_internal.h"
#include "util/half.h"

namespace agx::gpu::detail {

namespace {

float as_float(uint32_t w) {
  float f;
  std::memcpy(&f, &w, sizeof f);
  return f;
}
uint32_t as_word(float f) {
  uint32_t w;
  std::memcpy(&w, &f, sizeof w);
  return w;
}

double distance(const ClipPlanes& planes, unsigned plane, std::span<const uint32_t> v) {
  const double x = as_float(v[0]), y = as_float(v[1]), z = as_float(v[2]), w = as_float(v[3]);
  switch (plane) {
    case 0: return w - planes.min_w;
    case 1: return kGuardBand * w + x;
    case 2: return kGuardBand * w - x;
    case 3: return kGuardBand * w + y;
    case 4: return kGuardBand * w - y;
    case 5: return z;
    case 6: return w - z;
    case kViewVolumePlane + 0: return w + x;
    case kViewVolumePlane + 1: return w - x;
    case kViewVolumePlane + 2: return w + y;
    case kViewVolumePlane + 3: return w - y;
    default: return as_float(v[planes.user[plane - 7]]);
  }
}

// The parameter along a -> b of the window position of a + t (b - a):
// x/w there is (1 - s) x_a/w_a + s x_b/w_b with s = t w_b / w(t). An edge
// with an end at w <= 0 has no window-space line (it passes through
// infinity): there s = t (a choice; GL leaves it undefined).
double window_parameter(std::span<const uint32_t> a, std::span<const uint32_t> b, double t) {
  const double wa = as_float(a[3]), wb = as_float(b[3]);
  const double w = wa + t * (wb - wa);
  if (!(wa > 0 && wb > 0 && w > 0)) return t;
  return t * wb / w;
}

double mix(double p, double q, double t) { return p + t * (q - p); }

uint32_t mix_pair(uint32_t a, uint32_t b, double t) {
  uint32_t w = 0;
  for (unsigned h = 0; h < 2; ++h) {
    const double p = half_to_float(static_cast<uint16_t>(a >> (16 * h)));
    const double q = half_to_float(static_cast<uint16_t>(b >> (16 * h)));
    w |= uint32_t{double_to_half(mix(p, q, t))} << (16 * h);
  }
  return w;
}

uint32_t mix_word(uint32_t a, uint32_t b, double t) {
  return as_word(static_cast<float>(mix(as_float(a), as_float(b), t)));
}

// Vertex a + t (b - a) by the plan's rules.
std::vector<uint32_t> between(std::span<const uint32_t> a, std::span<const uint32_t> b, double t,
                              const OutputPlan& plan, std::span<const uint32_t> provoking) {
  std::vector<uint32_t> out(plan.count);
  const double s = window_parameter(a, b, t);
  for (uint32_t i = 0; i < plan.count; ++i) {
    switch (plan.rules[i]) {
      case OutputRule::lerp32: out[i] = mix_word(a[i], b[i], t); break;
      case OutputRule::lerp16: out[i] = mix_pair(a[i], b[i], t); break;
      case OutputRule::linear32: out[i] = mix_word(a[i], b[i], s); break;
      case OutputRule::linear16: out[i] = mix_pair(a[i], b[i], s); break;
      case OutputRule::flat: out[i] = provoking[i]; break;
    }
  }
  return out;
}

}  // namespace

uint64_t outside(const ClipPlanes& planes, std::span<const uint32_t> words) {
  uint64_t mask = 0;
  for (unsigned p = 0; p < planes.count(); ++p) {
    if ((p == 5 || p == 6) && !planes.depth) continue;
    if (!(distance(planes, p, words) >= 0)) mask |= uint64_t{1} << p;  // NaN is outside
  }
  for (unsigned p = kViewVolumePlane; p < kViewVolumePlane + 4; ++p)
    if (!(distance(planes, p, words) >= 0)) mask |= uint64_t{1} << p;
  return mask;
}

void clip(ClipPolygon& poly, bool closed, const ClipPlanes& planes, uint64_t mask, const OutputPlan& plan,
          std::span<const uint32_t> provoking) {
  for (unsigned p = 0; p < planes.count() && !poly.empty(); ++p) {
    if (!(mask >> p & 1)) continue;
    ClipPolygon out;
    const size_t n = poly.size();
    const size_t edges = closed ? n : n - 1;
    std::vector<double> d(n);
    for (size_t i = 0; i < n; ++i) d[i] = distance(planes, p, poly[i].words);
    if (!closed && d[0] >= 0) out.push_back(poly[0]);
    for (size_t i = 0; i < edges; ++i) {
      const size_t j = (i + 1) % n;
      const bool in_i = d[i] >= 0, in_j = d[j] >= 0;
      if (closed && in_i) out.push_back(poly[i]);
      if (in_i != in_j) {
        // From the inside end toward the outside end.
        const size_t a = in_i ? i : j, b = in_i ? j : i;
        out.push_back({between(poly[a].words, poly[b].words, d[a] / (d[a] - d[b]), plan, provoking), true});
      }
      if (!closed && in_j) out.push_back(poly[j]);
    }
    poly = std::move(out);
    if (poly.size() < (closed ? 3u : 2u)) poly.clear();
  }
}

}  // namespace agx::gpu::detail
