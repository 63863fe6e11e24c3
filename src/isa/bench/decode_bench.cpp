// Decode throughput over a random valid instruction stream, beside a
// reference measured in the same binary: a byte-sum pass over the same
// bytes (the least any decoder must do).
#include <benchmark/benchmark.h>

#include <numeric>

#include "isa/isa.h"

namespace {

const std::vector<uint8_t>& stream() {
  static const std::vector<uint8_t> s = agx::isa::random_stream(1 << 16, 42);
  return s;
}

void BM_Decode(benchmark::State& state) {
  const auto& s = stream();
  size_t instrs = 0;
  for (auto _ : state) {
    std::span<const uint8_t> rest(s);
    while (!rest.empty()) {
      auto in = agx::isa::decode(rest);
      benchmark::DoNotOptimize(in);
      rest = rest.subspan(in->length_B);
      ++instrs;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(instrs));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * s.size()));
}
BENCHMARK(BM_Decode);

void BM_ReferenceByteSum(benchmark::State& state) {
  const auto& s = stream();
  for (auto _ : state) {
    unsigned sum = std::accumulate(s.begin(), s.end(), 0u);
    benchmark::DoNotOptimize(sum);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * s.size()));
}
BENCHMARK(BM_ReferenceByteSum);

void BM_Disassemble(benchmark::State& state) {
  const auto& s = stream();
  auto in = agx::isa::decode(s);
  for (auto _ : state) benchmark::DoNotOptimize(agx::isa::disassemble(*in, 0));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Disassemble);

}  // namespace
