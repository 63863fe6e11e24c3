// Iterating a perspective-correct varying over a 32x32 tile, against the
// same work done natively (planes of value/w and 1/w set up once from the
// barycentrics, then two plane evaluations and one division per pixel),
// measured in the same binary, built with the same flags, with both sums
// compared. Items are pixels.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <vector>

#include "varyings/varyings.h"

namespace agx::varyings {
namespace {

struct Bench {
  Interface iface{{{"s", 1, 32, Interp::smooth}}};
  VertexOutputLayout layout = *layout_vertex_outputs(iface);
  SlotMap slots = *remap(layout.output_select, layout);
  CfBindings b = *compile_time_bindings(slots, iface);
  std::vector<uint32_t> out[3];
  Triangle tri;
  std::vector<Coefficients> regs;
  Bench() {
    tri.v = {ScreenVertex{1, 2, 0, 1}, ScreenVertex{200, 9, 0, 2}, ScreenVertex{40, 180, 0, 3}};
    const float values[3] = {1.0f, 5.0f, -3.0f};
    for (int i = 0; i < 3; ++i) {
      out[i].assign(layout.output_count, 0);
      std::memcpy(&out[i][layout.find_varying(0)->index], &values[i], 4);
      tri.outputs[i] = out[i];
    }
    regs = *setup_coefficients(tri, slots, b, 0, 0);
  }
};

float iterate_tile(const Bench& k) {
  const Coefficients& w = k.regs[0];
  const Coefficients& s = k.regs[1];
  float sum = 0;
  for (unsigned y = 0; y < 32; ++y)
    for (unsigned x = 0; x < 32; ++x) sum += iterate_perspective(s, w, pixel_centre(x, y));
  return sum;
}

// Reference: the same per-pixel work natively. The triangle's planes of
// value/w and 1/w are set up once from its barycentric edge functions (as
// setup_coefficients runs once, outside the timed loop, for iter); each
// pixel then evaluates both planes with two fused multiply-adds each and
// divides once, exactly the operations iter does per pixel.
struct NativePlanes {
  float a[2], b[2], c[2];  // [0]: value / w, [1]: 1 / w
};
NativePlanes native_setup(const Bench& k) {
  const auto& v = k.tri.v;
  const double f[3] = {1.0, 5.0, -3.0};
  double area = double(v[1].x_px - v[0].x_px) * double(v[2].y_px - v[0].y_px) -
                double(v[2].x_px - v[0].x_px) * double(v[1].y_px - v[0].y_px);
  double pa[2] = {0, 0}, pb[2] = {0, 0}, pc[2] = {0, 0};
  for (int i = 0; i < 3; ++i) {
    // Barycentric l_i(x, y) = (alpha x + beta y + gamma) / area.
    const auto& a = v[(i + 1) % 3];
    const auto& c = v[(i + 2) % 3];
    double alpha = -double(c.y_px - a.y_px), beta = double(c.x_px - a.x_px);
    double gamma = -double(a.y_px) * beta - double(a.x_px) * alpha;
    double per[2] = {f[i] / double(v[i].w), 1.0 / double(v[i].w)};
    for (int p = 0; p < 2; ++p) {
      pa[p] += alpha / area * per[p];
      pb[p] += beta / area * per[p];
      pc[p] += gamma / area * per[p];
    }
  }
  NativePlanes n;
  for (int p = 0; p < 2; ++p) {
    n.a[p] = float(pa[p]);
    n.b[p] = float(pb[p]);
    n.c[p] = float(pc[p]);
  }
  return n;
}

float native_tile(const NativePlanes& n) {
  float sum = 0;
  for (unsigned y = 0; y < 32; ++y)
    for (unsigned x = 0; x < 32; ++x) {
      float px = float(x) + 0.5f, py = float(y) + 0.5f;
      float num = std::fma(px, n.a[0], std::fma(py, n.b[0], n.c[0]));
      float den = std::fma(px, n.a[1], std::fma(py, n.b[1], n.c[1]));
      sum += num / den;
    }
  return sum;
}

// Both sides' sums must agree (the same pixels and values) or the
// benchmark reports an error instead of a figure.
bool same_result(const Bench& k, const NativePlanes& n) {
  float a = iterate_tile(k), b = native_tile(n);
  return std::fabs(a - b) <= 1e-3f * std::max(1.0f, std::fabs(b));
}

void BM_IterateTile(benchmark::State& state) {
  Bench k;
  for (auto _ : state) benchmark::DoNotOptimize(iterate_tile(k));
  state.SetItemsProcessed(state.iterations() * 1024);
}
BENCHMARK(BM_IterateTile);

void BM_NativeBarycentricTile(benchmark::State& state) {
  Bench k;
  NativePlanes n = native_setup(k);
  if (!same_result(k, n)) state.SkipWithError("iter and the native reference disagree");
  for (auto _ : state) benchmark::DoNotOptimize(native_tile(n));
  state.SetItemsProcessed(state.iterations() * 1024);
}
BENCHMARK(BM_NativeBarycentricTile);

// Both in one run, alternating, so the ratio (> 1: iter is faster than
// the native reference) sees the same machine load.
void BM_IterateVsNative(benchmark::State& state) {
  Bench k;
  NativePlanes n = native_setup(k);
  if (!same_result(k, n)) state.SkipWithError("iter and the native reference disagree");
  using Clock = std::chrono::steady_clock;
  Clock::duration iter_time{}, native_time{};
  for (auto _ : state) {
    auto t0 = Clock::now();
    for (int r = 0; r < 16; ++r) benchmark::DoNotOptimize(iterate_tile(k));
    auto t1 = Clock::now();
    for (int r = 0; r < 16; ++r) benchmark::DoNotOptimize(native_tile(n));
    iter_time += t1 - t0;
    native_time += Clock::now() - t1;
  }
  state.counters["ratio_vs_native"] = double(native_time.count()) / double(iter_time.count());
}
BENCHMARK(BM_IterateVsNative);

}  // namespace
}  // namespace agx::varyings
