// Typed unpack (what an executor calls per packet) against the generic,
// table-walking unpack_into of the same bytes: both decode every field of
// a Texture descriptor and a CDM Launch Word 0, and both results are used.
#include <benchmark/benchmark.h>

#include <chrono>

#include "cmdstream/cmdstream.h"

namespace agx::cmdstream {
namespace {

// Not const, and escaped before each use, so neither path folds.
uint8_t kTextureBytes[24] = {0x82, 0xe1, 0x04, 0x28, 0x1f, 0x97, 0x82, 0xd7, 0x1d, 0x80, 0x73, 0x78,
                             0x27, 0xba, 0xac, 0x55, 0xdc, 0x83, 0xcf, 0x96, 0x2a, 0x04, 0x82, 0x7e};
uint8_t kLaunchBytes[4] = {0x14, 0x1c, 0x00, 0x08};

uint64_t typed_unpack() {
  benchmark::DoNotOptimize(kTextureBytes);
  benchmark::DoNotOptimize(kLaunchBytes);
  Texture t = *unpack<Texture>(kTextureBytes);
  CdmLaunchWord0 w = *unpack<CdmLaunchWord0>(kLaunchBytes);
  return t.width + t.height + t.address + uint64_t(t.channels) + w.uniform_register_count +
         uint64_t(w.mode);
}

uint64_t generic_unpack() {
  benchmark::DoNotOptimize(kTextureBytes);
  benchmark::DoNotOptimize(kLaunchBytes);
  uint64_t t[std::size(kTextureFieldRows)];
  uint64_t w[std::size(kCdmLaunchWord0FieldRows)];
  (void)unpack_into(kTexture, kTextureBytes, std::span(t, kTexture.fields.size()));
  (void)unpack_into(kCdmLaunchWord0, kLaunchBytes, std::span(w, kCdmLaunchWord0.fields.size()));
  using TF = TextureField;
  using WF = CdmLaunchWord0Field;
  return t[size_t(TF::width)] + t[size_t(TF::height)] + t[size_t(TF::address)] +
         t[size_t(TF::channels)] + w[size_t(WF::uniform_register_count)] + w[size_t(WF::mode)];
}

void BM_TypedUnpack(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(typed_unpack());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TypedUnpack);

void BM_GenericUnpack(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(generic_unpack());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_GenericUnpack);

// Both alternating in one run: ratio_vs_generic > 1 means the typed path is
// that many times faster than walking the table.
void BM_TypedVsGeneric(benchmark::State& state) {
  using Clock = std::chrono::steady_clock;
  Clock::duration typed{}, generic{};
  uint64_t check = 0;
  for (auto _ : state) {
    auto t0 = Clock::now();
    for (int r = 0; r < 256; ++r) check += typed_unpack();
    auto t1 = Clock::now();
    for (int r = 0; r < 256; ++r) check -= generic_unpack();
    typed += t1 - t0;
    generic += Clock::now() - t1;
  }
  if (check != 0) state.SkipWithError("typed and generic unpack disagree");
  state.counters["ratio_vs_generic"] = double(generic.count()) / double(typed.count());
}
BENCHMARK(BM_TypedVsGeneric);

}  // namespace
}  // namespace agx::cmdstream
