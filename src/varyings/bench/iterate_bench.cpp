// Iterating a perspective-correct varying over a 32x32 tile, against the
// same work done natively from barycentrics (the reference, measured in the
// same binary). Items are pixels.
#include <benchmark/benchmark.h>

#include <chrono>
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

// Reference: native perspective-correct barycentric interpolation (edge
// functions per pixel), the same pixels and values.
float native_tile(const Bench& k) {
  const auto& v = k.tri.v;
  const float f[3] = {1.0f, 5.0f, -3.0f};
  float area = float((v[1].x_px - v[0].x_px) * (v[2].y_px - v[0].y_px) -
                     (v[2].x_px - v[0].x_px) * (v[1].y_px - v[0].y_px));
  float sum = 0;
  for (unsigned y = 0; y < 32; ++y)
    for (unsigned x = 0; x < 32; ++x) {
      float px = float(x) + 0.5f, py = float(y) + 0.5f, num = 0, den = 0;
      for (int i = 0; i < 3; ++i) {
        const auto& a = v[(i + 1) % 3];
        const auto& c = v[(i + 2) % 3];
        float l = (float(c.x_px - a.x_px) * (py - float(a.y_px)) -
                   float(c.y_px - a.y_px) * (px - float(a.x_px))) / area;
        num += l * f[i] / float(v[i].w);
        den += l / float(v[i].w);
      }
      sum += num / den;
    }
  return sum;
}

void BM_IterateTile(benchmark::State& state) {
  Bench k;
  for (auto _ : state) benchmark::DoNotOptimize(iterate_tile(k));
  state.SetItemsProcessed(state.iterations() * 1024);
}
BENCHMARK(BM_IterateTile);

void BM_NativeBarycentricTile(benchmark::State& state) {
  Bench k;
  for (auto _ : state) benchmark::DoNotOptimize(native_tile(k));
  state.SetItemsProcessed(state.iterations() * 1024);
}
BENCHMARK(BM_NativeBarycentricTile);

// Both in one run, alternating, so the ratio (> 1: iter is faster than
// the native reference) sees the same machine load.
void BM_IterateVsNative(benchmark::State& state) {
  Bench k;
  using Clock = std::chrono::steady_clock;
  Clock::duration iter_time{}, native_time{};
  for (auto _ : state) {
    auto t0 = Clock::now();
    for (int r = 0; r < 16; ++r) benchmark::DoNotOptimize(iterate_tile(k));
    auto t1 = Clock::now();
    for (int r = 0; r < 16; ++r) benchmark::DoNotOptimize(native_tile(k));
    iter_time += t1 - t0;
    native_time += Clock::now() - t1;
  }
  state.counters["ratio_vs_native"] = double(native_time.count()) / double(iter_time.count());
}
BENCHMARK(BM_IterateVsNative);

}  // namespace
}  // namespace agx::varyings
