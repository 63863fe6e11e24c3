// `agx bench isa [--json]`: decode throughput (instructions/s) over a random
// valid stream, beside a byte-sum pass over the same bytes in the same run.
#include <fmt/format.h>

#include <chrono>
#include <numeric>

#include "bench_timing.h"
#include "command.h"
#include "isa/isa.h"

namespace AGX_UNITY_ID {

using agx::cli::best_seconds;

int run(bool json) {
  constexpr size_t kCount = 200000;
  auto s = agx::isa::random_stream(kCount, 42);
  size_t decoded = 0;
  double decode_s = best_seconds(5, [&] {
    decoded = 0;
    std::span<const uint8_t> rest(s);
    while (!rest.empty()) {
      auto in = agx::isa::decode(rest);
      if (!in) return;
      rest = rest.subspan(in->length_B);
      ++decoded;
    }
  });
  if (decoded != kCount) {
    fmt::print(stderr, "agx bench isa: decoded {} of {} instructions\n", decoded, kCount);
    return 1;
  }
  size_t into = 0;
  agx::isa::Instr cached;
  double into_s = best_seconds(5, [&] {
    into = 0;
    std::span<const uint8_t> rest(s);
    while (!rest.empty() && agx::isa::decode_into(rest, 0, cached).ok()) {
      rest = rest.subspan(cached.length_B);
      ++into;
    }
  });
  if (into != kCount) return 1;
  volatile unsigned sink = 0;
  double sum_s = best_seconds(5, [&] { sink = std::accumulate(s.begin(), s.end(), 0u); });
  double ips = kCount / decode_s;
  double decode_Bps = s.size() / decode_s, sum_Bps = s.size() / sum_s;
  if (json) {
    fmt::print("{{\"unit\":\"isa\",\"instructions\":{},\"bytes\":{},\"decode_instructions_per_s\":{:.0f},"
               "\"decode_bytes_per_s\":{:.0f},\"reference\":\"byte_sum\",\"reference_bytes_per_s\":{:.0f},"
               "\"ratio_to_reference\":{:.4f},\"decode_into_instructions_per_s\":{:.0f}}}\n",
               kCount, s.size(), ips, decode_Bps, sum_Bps, decode_Bps / sum_Bps, kCount / into_s);
  } else {
    fmt::print("isa decode: {} instructions ({} bytes) of random valid code\n", kCount, s.size());
    fmt::print("  decode     {:8.1f} M instructions/s  {:8.1f} MB/s\n", ips / 1e6, decode_Bps / 1e6);
    fmt::print("  decode_into{:8.1f} M instructions/s (reusing one Instr)\n", kCount / into_s / 1e6);
    fmt::print("  byte sum   {:8.1f} MB/s (reference, same bytes)\n", sum_Bps / 1e6);
    fmt::print("  ratio      {:.4f} of the reference\n", decode_Bps / sum_Bps);
  }
  return 0;
}

agx::cli::Bench kBench{"isa", "Decode throughput of random AGX code vs a byte-sum pass", run};

}  // namespace AGX_UNITY_ID
