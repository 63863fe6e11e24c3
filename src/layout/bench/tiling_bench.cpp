// Google Benchmark: tile/detile of a 2048x2048 level beside memcpy of the
// same bytes (the reference); compare the bytes_per_second counters.
// `agx bench tiling` prints the ratios directly.
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "layout/layout.h"

namespace {

using agx::format::Format;

constexpr uint32_t kSide_px = 2048;

Format format_of(int64_t bytes) {
  switch (bytes) {
    case 1:
      return Format::R8_UINT;
    case 2:
      return Format::R16_UINT;
    case 4:
      return Format::R32_UINT;
    case 8:
      return Format::R32G32_UINT;
    default:
      return Format::R32G32B32A32_UINT;
  }
}

void BM_Memcpy(benchmark::State& state) {
  const size_t bytes = size_t{kSide_px} * kSide_px * state.range(0);
  std::vector<uint8_t> a(bytes, 1), b(bytes, 2);
  for (auto _ : state) {
    std::memcpy(b.data(), a.data(), bytes);
    benchmark::DoNotOptimize(b.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}

template <bool kTile>
void BM_Tiling(benchmark::State& state) {
  const uint32_t E = static_cast<uint32_t>(state.range(0));
  auto l = agx::layout::make_layout(
      {.format = format_of(E), .width_px = kSide_px, .height_px = kSide_px});
  if (!l.ok()) return state.SkipWithError(l.error().message().c_str());
  const size_t bytes = size_t{kSide_px} * kSide_px * E;
  std::vector<uint8_t> linear(bytes, 1), image(l->size_B, 2);
  const auto rect = agx::layout::level_rect(*l, 0);
  for (auto _ : state) {
    auto st = kTile ? agx::layout::tile(*l, 0, 0, image, linear, uint64_t{kSide_px} * E, rect)
                    : agx::layout::detile(*l, 0, 0, image, linear, uint64_t{kSide_px} * E, rect);
    if (!st.ok()) return state.SkipWithError(st.error().message().c_str());
    benchmark::DoNotOptimize(image.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}

BENCHMARK(BM_Memcpy)->Arg(1)->Arg(4)->Arg(16);
BENCHMARK(BM_Tiling<true>)->Name("BM_Tile")->Arg(1)->Arg(2)->Arg(4)->Arg(8)->Arg(16);
BENCHMARK(BM_Tiling<false>)->Name("BM_Detile")->Arg(1)->Arg(2)->Arg(4)->Arg(8)->Arg(16);

}  // namespace
