// `agx bench mem`: GB/s of translated GPU reads and writes through
// agx::mem::AddressSpace (64 KiB and 4 KiB accesses, and 16-byte ones)
// beside memcpy of the same bytes, measured in the same run.
#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <vector>

#include "command.h"
#include "mem/mem.h"

namespace {

using Clock = std::chrono::steady_clock;

template <typename F>
double gbps(uint64_t bytes_per_call, F f) {
  uint64_t calls = 0;
  auto t0 = Clock::now();
  double s = 0;
  do {
    for (int i = 0; i < 64; i++) f(i);
    calls += 64;
    s = std::chrono::duration<double>(Clock::now() - t0).count();
  } while (s < 0.25);
  return double(calls * bytes_per_call) / s / 1e9;
}

int run(bool json) {
  const uint64_t size = 64ull << 20;  // 64 MiB bound as 4096 pages
  std::vector<uint8_t> backing(size, 1), dst(size);
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
    auto at = [&](int i) { return (uint64_t(i) * 2654435761u % n) * chunk; };
    Row r{chunk == 65536 ? "64 KiB" : chunk == 4096 ? "4 KiB" : "16 B", chunk, 0, 0, 0};
    r.read = gbps(chunk, [&](int i) { (void)as.read(base + at(i), dst.data() + at(i), chunk, agx::GpuUnit::usc, nullptr); });
    r.write = gbps(chunk, [&](int i) { (void)as.write(base + at(i), dst.data() + at(i), chunk, agx::GpuUnit::usc, nullptr); });
    r.ref = gbps(chunk, [&](int i) { std::memcpy(dst.data() + at(i), backing.data() + at(i), chunk); });
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

}  // namespace
