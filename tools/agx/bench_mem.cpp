// `agx bench mem`: GB/s of translated GPU reads and writes through
// agx::mem::AddressSpace (64 KiB, 4 KiB and 16-byte accesses) beside memcpy
// of the same bytes at the same addresses in the same order, measured in the
// same run. Every pass touches every chunk of a 64 MiB buffer once, in a
// scattered order, and each method's result is checked byte for byte, so
// none of the work can be skipped and no method runs from a warm cache the
// others do not have.
#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <vector>

#include "command.h"
#include "mem/mem.h"

namespace AGX_UNITY_ID {

using Clock = std::chrono::steady_clock;

// Whole passes over the n chunks of a buffer (chunk k at position
// k * 2654435761 mod n: every chunk once per pass, since n is a power of two
// and the multiplier odd) until 0.25 s have gone by; returns GB/s.
template <typename F>
double gbps(uint64_t n, uint64_t chunk_B, F access) {
  uint64_t passes = 0;
  auto t0 = Clock::now();
  double s = 0;
  do {
    for (uint64_t k = 0; k < n; k++) access((k * 2654435761u) & (n - 1));
    passes++;
    s = std::chrono::duration<double>(Clock::now() - t0).count();
  } while (s < 0.25);
  return double(passes * n * chunk_B) / s / 1e9;
}

void expect_equal(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, const char* what, uint64_t chunk) {
  if (a != b) agx::cli::fail(fmt::format("bench mem: {} of {}-byte chunks did not move every byte", what, chunk));
}

int run(bool json) {
  const uint64_t size = 64ull << 20;  // 64 MiB bound as 4096 pages
  std::vector<uint8_t> backing(size), src(size), dst(size);
  for (uint64_t i = 0; i < size; i++) {
    backing[i] = uint8_t(i * 7 + 1);
    src[i] = uint8_t(i * 13 + 5);
  }
  const std::vector<uint8_t> pattern = backing;
  agx::mem::AddressSpace as;
  const agx::GpuVa base = 0x1'0000'0000;
  if (!as.map(base, backing.data(), size, agx::mem::kRead | agx::mem::kWrite)) agx::cli::fail("map failed");
  struct Row {
    const char* name;
    uint64_t chunk;
    double read, write, ref;
  };
  std::vector<Row> rows;
  for (uint64_t chunk : {uint64_t{65536}, uint64_t{4096}, uint64_t{16}}) {
    const uint64_t n = size / chunk;
    Row r{chunk == 65536 ? "64 KiB" : chunk == 4096 ? "4 KiB" : "16 B", chunk, 0, 0, 0};
    // Reads: GPU memory -> dst, through the translation.
    std::fill(dst.begin(), dst.end(), 0);
    r.read = gbps(n, chunk, [&](uint64_t k) {
      if (!as.read(base + k * chunk, dst.data() + k * chunk, chunk, agx::GpuUnit::usc, nullptr))
        agx::cli::fail("bench mem: a translated read faulted");
    });
    expect_equal(dst, pattern, "translated reads", chunk);
    // The reference: the same copies with memcpy.
    std::fill(dst.begin(), dst.end(), 0);
    r.ref = gbps(n, chunk, [&](uint64_t k) { std::memcpy(dst.data() + k * chunk, backing.data() + k * chunk, chunk); });
    expect_equal(dst, pattern, "memcpy", chunk);
    // Writes: src -> GPU memory, through the translation.
    r.write = gbps(n, chunk, [&](uint64_t k) {
      if (!as.write(base + k * chunk, src.data() + k * chunk, chunk, agx::GpuUnit::usc, nullptr))
        agx::cli::fail("bench mem: a translated write faulted");
    });
    expect_equal(backing, src, "translated writes", chunk);
    std::memcpy(backing.data(), pattern.data(), size);
    rows.push_back(r);
  }
  if (json) {
    std::string s = "{";
    for (size_t i = 0; i < rows.size(); i++)
      s += fmt::format("{}\"read_GBps_{}\": {:.2f}, \"write_GBps_{}\": {:.2f}, \"memcpy_GBps_{}\": {:.2f}",
                       i ? ", " : "", rows[i].chunk, rows[i].read, rows[i].chunk, rows[i].write, rows[i].chunk,
                       rows[i].ref);
    fmt::print("{}}}\n", s);
  } else {
    for (const Row& r : rows)
      fmt::print("{:>6} accesses: read {:6.2f} GB/s ({:.2f}x memcpy), write {:6.2f} GB/s ({:.2f}x memcpy), memcpy {:6.2f} GB/s\n",
                 r.name, r.read, r.read / r.ref, r.write, r.write / r.ref, r.ref);
  }
  return 0;
}

agx::cli::Bench kBench{"mem", "Translated GPU read/write GB/s vs memcpy", run};

}  // namespace AGX_UNITY_ID
