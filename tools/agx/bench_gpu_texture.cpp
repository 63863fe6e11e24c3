// `agx bench texture [--json]`: bilinear samples/s and texel loads/s of the
// texture unit on a 4096x4096 RGBA8 GPU-tiled image, beside a native C++
// loop doing the same work (unorm8 decode, clamp-to-edge, 8-bit-weight
// bilinear filtering; plain loads) on a linear copy of the image in the same
// run. Each figure is the best of several repetitions; results are summed
// and checked so no work is dropped.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <functional>
#include <vector>

#include "command.h"
#include "gpu/pbe/pbe.h"
#include "gpu/texture/texture.h"
#include "layout/layout.h"
#include "usc/usc.h"

namespace AGX_UNITY_ID {

using namespace agx;
using namespace agx::gpu;

constexpr uint32_t kSide_px = 4096;
constexpr uint32_t kSamples = 1 << 20;
constexpr int kRepetitions = 5;
constexpr GpuVa kImageVa = 0x1000000;

double best_per_s(size_t count, const std::function<void()>& work) {
  double best_s = 1e30;
  for (int i = 0; i < kRepetitions; ++i) {
    auto start = std::chrono::steady_clock::now();
    work();
    std::chrono::duration<double> d = std::chrono::steady_clock::now() - start;
    best_s = std::min(best_s, d.count());
  }
  return double(count) / best_s;
}

uint8_t texel_byte(uint32_t x, uint32_t y, uint32_t c) {
  return uint8_t(x * 7 + y * 13 + c * 71 + ((x ^ y) >> 3));
}

// The native reference: the same filter on a linear RGBA8 image.
float native_bilinear(const std::vector<uint8_t>& img, float s, float t) {
  const float u = s * kSide_px - 0.5f, v = t * kSide_px - 0.5f;
  const float fu = std::floor(u), fv = std::floor(v);
  const float a = std::round((u - fu) * 256.0f) / 256.0f, b = std::round((v - fv) * 256.0f) / 256.0f;
  const int i0 = int(fu), j0 = int(fv);
  auto at = [&](int i, int j, int c) {
    i = std::clamp(i, 0, int(kSide_px) - 1);
    j = std::clamp(j, 0, int(kSide_px) - 1);
    return float(img[(size_t(j) * kSide_px + size_t(i)) * 4 + c]) / 255.0f;
  };
  float sum = 0;
  for (int c = 0; c < 4; ++c)
    sum += (1 - a) * (1 - b) * at(i0, j0, c) + a * (1 - b) * at(i0 + 1, j0, c) +
           (1 - a) * b * at(i0, j0 + 1, c) + a * b * at(i0 + 1, j0 + 1, c);
  return sum;
}

int run_texture_bench(bool json) {
  auto layout = layout::make_layout({.format = format::Format::R8G8B8A8_UNORM,
                                     .width_px = kSide_px,
                                     .height_px = kSide_px,
                                     .tiling = layout::Tiling::gpu});
  if (!layout.ok()) cli::fail(layout.error());
  std::vector<uint8_t> linear(size_t(kSide_px) * kSide_px * 4);
  for (uint32_t y = 0; y < kSide_px; ++y)
    for (uint32_t x = 0; x < kSide_px; ++x)
      for (uint32_t c = 0; c < 4; ++c) linear[(size_t(y) * kSide_px + x) * 4 + c] = texel_byte(x, y, c);
  std::vector<uint8_t> tiled(layout->size_B);
  if (auto st = layout::tile(*layout, 0, 0, tiled, linear, kSide_px * 4, layout::level_rect(*layout, 0));
      !st.ok())
    cli::fail(st.error());
  usc::RegionMemory mem;
  if (auto st = mem.map(kImageVa, std::move(tiled)); !st.ok()) cli::fail(st.error());

  TextureView tex;
  tex.dim = Dim::d2;
  tex.layout = ImageLayout::gpu;
  tex.channels = format::Channels::R8G8B8A8;
  tex.type = format::TextureType::Unorm;
  tex.width_px = tex.height_px = kSide_px;
  tex.address = kImageVa;
  SamplerView bilinear;
  bilinear.magnify = bilinear.minify = Filter::linear;
  SamplerView txf;
  txf.wrap = {Wrap::clamp_to_border, Wrap::clamp_to_border, Wrap::clamp_to_border};
  TextureUnit unit(mem, {});

  std::vector<std::array<float, 2>> coords(kSamples);
  std::vector<std::array<int32_t, 2>> texels(kSamples);
  uint32_t h = 12345;
  for (uint32_t i = 0; i < kSamples; ++i) {
    h = h * 1664525u + 1013904223u;
    const float s = float(h >> 8) / float(1 << 24);
    h = h * 1664525u + 1013904223u;
    const float t = float(h >> 8) / float(1 << 24);
    coords[i] = {s, t};
    texels[i] = {int32_t(s * kSide_px), int32_t(t * kSide_px)};
  }

  double unit_sum = 0, native_sum = 0;
  const double sample_rate = best_per_s(kSamples, [&] {
    double sum = 0;
    SampleRequest rq;
    for (uint32_t i = 0; i < kSamples; ++i) {
      rq.coord = {coords[i][0], coords[i][1], 0};
      auto t = unit.sample(tex, bilinear, rq);
      if (!t.ok()) cli::fail(t.error());
      for (int c = 0; c < 4; ++c) sum += std::bit_cast<float>(t->c[c]);
    }
    unit_sum = sum;
  });
  const double native_sample_rate = best_per_s(kSamples, [&] {
    double sum = 0;
    for (uint32_t i = 0; i < kSamples; ++i) sum += native_bilinear(linear, coords[i][0], coords[i][1]);
    native_sum = sum;
  });
  if (std::fabs(unit_sum - native_sum) > 1e-3 * std::fabs(native_sum))
    cli::fail(fmt::format("texture bench: sums differ (unit {}, native {})", unit_sum, native_sum));

  uint64_t unit_bits = 0, native_bits = 0;
  const double load_rate = best_per_s(kSamples, [&] {
    uint64_t sum = 0;
    FetchCoord at;
    for (uint32_t i = 0; i < kSamples; ++i) {
      at.x = texels[i][0];
      at.y = texels[i][1];
      auto t = unit.load(tex, txf, at);
      if (!t.ok()) cli::fail(t.error());
      for (int c = 0; c < 4; ++c) sum += uint32_t(std::lround(std::bit_cast<float>(t->c[c]) * 255.0f));
    }
    unit_bits = sum;
  });
  const double native_load_rate = best_per_s(kSamples, [&] {
    uint64_t sum = 0;
    for (uint32_t i = 0; i < kSamples; ++i) {
      const size_t o = (size_t(texels[i][1]) * kSide_px + size_t(texels[i][0])) * 4;
      for (int c = 0; c < 4; ++c) sum += uint32_t(std::lround(float(linear[o + c]) / 255.0f * 255.0f));
    }
    native_bits = sum;
  });
  if (unit_bits != native_bits) cli::fail("texture bench: loaded texels differ from the image");

  if (json) {
    fmt::print(
        "{{\"image\": \"{}x{} R8G8B8A8_UNORM GPU-tiled\", \"samples\": {}, "
        "\"bilinear_samples_per_s\": {:.0f}, \"native_bilinear_samples_per_s\": {:.0f}, "
        "\"bilinear_ratio\": {:.4f}, \"texel_loads_per_s\": {:.0f}, "
        "\"native_texel_loads_per_s\": {:.0f}, \"load_ratio\": {:.4f}}}\n",
        kSide_px, kSide_px, kSamples, sample_rate, native_sample_rate,
        sample_rate / native_sample_rate, load_rate, native_load_rate, load_rate / native_load_rate);
    return 0;
  }
  fmt::print("texture bench: {}x{} R8G8B8A8_UNORM GPU-tiled, {} random coordinates, best of {}\n",
             kSide_px, kSide_px, kSamples, kRepetitions);
  fmt::print("{:<34} {:>14} {:>14} {:>10}\n", "", "unit /s", "native /s", "ratio");
  fmt::print("{:<34} {:>14.3e} {:>14.3e} {:>10.3f}\n", "bilinear samples (clamp to edge)",
             sample_rate, native_sample_rate, sample_rate / native_sample_rate);
  fmt::print("{:<34} {:>14.3e} {:>14.3e} {:>10.3f}\n", "texel loads", load_rate, native_load_rate,
             load_rate / native_load_rate);
  return 0;
}

cli::Bench kTextureBench{"texture",
                         "Texture unit bilinear samples/s and texel loads/s vs a native loop",
                         run_texture_bench};

}  // namespace AGX_UNITY_ID
