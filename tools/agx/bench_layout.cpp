// `agx bench tiling [--json]`: tile and detile of a 4096x4096 image with 4-
// and 16-byte texels, beside memcpy of the same number of bytes, measured in
// the same run. Each figure is the best of several repetitions.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <vector>

#include "bench_timing.h"
#include "command.h"
#include "layout/layout.h"

namespace AGX_UNITY_ID {

using agx::layout::Layout;
constexpr uint32_t kSide_px = 4096;
constexpr int kRepetitions = 5;

double best_GBps(size_t bytes, const std::function<void()>& work) {
  return static_cast<double>(bytes) / agx::cli::best_seconds(kRepetitions, work) / 1e9;
}

struct Figures {
  double memcpy_GBps, tile_GBps, detile_GBps;
};

Figures measure(agx::format::Format format, uint32_t bytes_per_texel) {
  auto layout =
      agx::layout::make_layout({.format = format, .width_px = kSide_px, .height_px = kSide_px});
  if (!layout.ok()) agx::cli::fail(layout.error());
  const size_t bytes = size_t{kSide_px} * kSide_px * bytes_per_texel;
  const uint64_t pitch_B = uint64_t{kSide_px} * bytes_per_texel;
  std::vector<uint8_t> linear(bytes), copy(bytes), image(layout->size_B);
  for (size_t i = 0; i < bytes; ++i) linear[i] = static_cast<uint8_t>(i * 131 + (i >> 12));
  std::memset(copy.data(), 1, copy.size());
  std::memset(image.data(), 1, image.size());
  const auto rect = agx::layout::level_rect(*layout, 0);
  Figures f{};
  f.memcpy_GBps = best_GBps(bytes, [&] { std::memcpy(copy.data(), linear.data(), bytes); });
  f.tile_GBps = best_GBps(bytes, [&] {
    if (auto st = agx::layout::tile(*layout, 0, 0, image, linear, pitch_B, rect); !st.ok())
      agx::cli::fail(st.error());
  });
  f.detile_GBps = best_GBps(bytes, [&] {
    if (auto st = agx::layout::detile(*layout, 0, 0, image, copy, pitch_B, rect); !st.ok())
      agx::cli::fail(st.error());
  });
  if (copy != linear) agx::cli::fail("tiling bench: detiled image differs from the original");
  return f;
}

int run_tiling_bench(bool json) {
  Figures f4 = measure(agx::format::Format::R8G8B8A8_UNORM, 4);
  Figures f16 = measure(agx::format::Format::R32G32B32A32_FLOAT, 16);
  if (json) {
    fmt::print(
        "{{\"image\": \"{}x{}\", \"memcpy_GBps\": {:.3f}, \"memcpy_256MiB_GBps\": {:.3f}, "
        "\"tile_4B_GBps\": {:.3f}, \"detile_4B_GBps\": {:.3f}, \"tile_16B_GBps\": {:.3f}, "
        "\"detile_16B_GBps\": {:.3f}, \"tile_4B_ratio\": {:.3f}, \"detile_4B_ratio\": {:.3f}, "
        "\"tile_16B_ratio\": {:.3f}, \"detile_16B_ratio\": {:.3f}}}\n",
        kSide_px, kSide_px, f4.memcpy_GBps, f16.memcpy_GBps, f4.tile_GBps, f4.detile_GBps,
        f16.tile_GBps, f16.detile_GBps, f4.tile_GBps / f4.memcpy_GBps,
        f4.detile_GBps / f4.memcpy_GBps, f16.tile_GBps / f16.memcpy_GBps,
        f16.detile_GBps / f16.memcpy_GBps);
    return 0;
  }
  fmt::print("tiling bench: {}x{} GPU-tiled level 0, best of {} runs\n", kSide_px, kSide_px,
             kRepetitions);
  fmt::print("{:<28} {:>8} {:>14}\n", "", "GB/s", "x memcpy");
  auto row = [](const char* what, double gbps, double ref) {
    fmt::print("{:<28} {:>8.2f} {:>14.2f}\n", what, gbps, gbps / ref);
  };
  row("memcpy 64 MiB", f4.memcpy_GBps, f4.memcpy_GBps);
  row("tile 4 B texels (64 MiB)", f4.tile_GBps, f4.memcpy_GBps);
  row("detile 4 B texels (64 MiB)", f4.detile_GBps, f4.memcpy_GBps);
  row("memcpy 256 MiB", f16.memcpy_GBps, f16.memcpy_GBps);
  row("tile 16 B texels (256 MiB)", f16.tile_GBps, f16.memcpy_GBps);
  row("detile 16 B texels (256 MiB)", f16.detile_GBps, f16.memcpy_GBps);
  return 0;
}

agx::cli::Bench kTilingBench{"tiling", "Tile/detile 4096x4096 images (4 and 16 B texels) vs memcpy",
                             run_tiling_bench};

}  // namespace AGX_UNITY_ID
