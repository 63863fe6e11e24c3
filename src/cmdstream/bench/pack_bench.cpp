// Table-driven pack/unpack of a CF binding against hand-written shifts of
// the same fields (the reference, measured in the same binary).
#include <benchmark/benchmark.h>

#include <chrono>

#include "cmdstream/cmdstream.h"

namespace agx::cmdstream {
namespace {

// Not const, and escaped before each use, so neither path folds to a constant.
uint64_t kBinding[] = {4, 7, 0, 12, 40};

uint32_t table_round_trip() {
  benchmark::DoNotOptimize(kBinding);
  uint32_t w = 0;
  uint64_t back[std::size(kCfBindingFields)];
  if (!pack_into(kCfBinding, kBinding, std::span<uint32_t>(&w, 1)).ok()) return 0;
  benchmark::DoNotOptimize(w);
  if (!unpack_into(kCfBinding, std::span<const uint32_t>(&w, 1), back).ok()) return 0;
  return uint32_t(back[kBaseSlot]);
}

// Reference: the bit positions of cmdbuf.xml's "CF binding" written out.
uint32_t native_round_trip() {
  benchmark::DoNotOptimize(kBinding);
  uint32_t w = uint32_t((kBinding[0] - 1) | kBinding[1] << 2 | kBinding[2] << 5 |
                        kBinding[3] << 8 | kBinding[4] << 16);
  benchmark::DoNotOptimize(w);
  return (w >> 8) & 0xFF;
}

void BM_TablePackUnpack(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(table_round_trip());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TablePackUnpack);

void BM_NativePackUnpack(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(native_round_trip());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_NativePackUnpack);

// Both alternating in one run: ratio_vs_native < 1 means the table costs
// that fraction of the hand-written speed.
void BM_TableVsNative(benchmark::State& state) {
  using Clock = std::chrono::steady_clock;
  Clock::duration table{}, native{};
  for (auto _ : state) {
    auto t0 = Clock::now();
    for (int r = 0; r < 256; ++r) benchmark::DoNotOptimize(table_round_trip());
    auto t1 = Clock::now();
    for (int r = 0; r < 256; ++r) benchmark::DoNotOptimize(native_round_trip());
    table += t1 - t0;
    native += Clock::now() - t1;
  }
  state.counters["ratio_vs_native"] = double(native.count()) / double(table.count());
}
BENCHMARK(BM_TableVsNative);

}  // namespace
}  // namespace agx::cmdstream
