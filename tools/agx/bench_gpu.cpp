// `agx bench compute`: SAXPY over 16M floats through SUBMIT on the software
// GPU (CDM executor on 1 and on all worker threads), beside a native C++
// SAXPY on the same number of threads in the same run; and empty dispatches
// per second (one-thread launches of a kernel that only stops).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include "command.h"
#include "gpu/gpu.h"
#include "runtime/compute_session.h"

namespace AGX_UNITY_ID {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

constexpr uint32_t kN = 16u << 20;        // floats
constexpr double kBytes = 12.0 * kN;     // read x and y, write y
constexpr int kRuns = 3;                 // best of

// The kernel of tests/c_client/kernels/saxpy.s: y[i] = a * x[i] + y[i], i < n.
constexpr const char* kSaxpy = R"(get_sr r1, sr80
if_icmp r0l, ult, r1, u5, 1
device_load 0, i32, x, r2, u0_u1, r1, unsigned
device_load 0, i32, x, r3, u2_u3, r1, unsigned
wait 0
fmadd32 r3, r2, u4, r3
device_store 0, i32, x, r3, u2_u3, r1, unsigned, 0
pop_exec r0l, 1
stop)";

template <class T>
T must(agx::Result<T> r, const char* what) {
  if (!r) agx::cli::fail(r.error().context(what));
  return std::move(*r);
}
void must(agx::Status s, const char* what) {
  if (!s) agx::cli::fail(s.error().context(what));
}

void fill(float* x, float* y) {
  for (uint32_t i = 0; i < kN; ++i) {
    x[i] = float(i % 1024) * 0.5f;
    y[i] = float(i % 31);
  }
}

// GB/s of the emulated SAXPY on `threads` workers; checks a sample.
double emulated_GBps(unsigned threads, double* checksum) {
  agx::kmd::Device device;
  agx::gpu::CdmOptions options;
  options.threads = threads;
  device.set_executor(std::make_shared<agx::gpu::CdmExecutor>(options));
  auto session = must(agx::runtime::ComputeSession::open(device, 2ull * 4 * kN + (1 << 20)), "open");
  uint64_t x = must(session->alloc(4ull * kN, 4096), "alloc"), y = must(session->alloc(4ull * kN, 4096), "alloc");
  agx::runtime::KernelLaunch k;
  k.code = must(session->assemble(kSaxpy), "assemble");
  k.register_halves = 8;
  const float a = 1.25f;
  uint32_t a_bits;
  std::memcpy(&a_bits, &a, 4);
  k.uniforms = {uint32_t(x), uint32_t(x >> 32), uint32_t(y), uint32_t(y >> 32), a_bits, kN};
  k.grid = {kN, 1, 1};
  k.local = {256, 1, 1};
  std::vector<uint8_t> stream;
  must(agx::runtime::push_launch(stream, *session, k, must(agx::runtime::upload_usc_words(*session, k), "words")), "launch");
  must(agx::runtime::push_cdm_barrier(stream), "barrier");
  must(agx::runtime::push_cdm_terminate(stream), "terminate");
  uint64_t sva = must(session->upload(stream), "upload");
  float* hx = session->host_as<float>(x);
  float* hy = session->host_as<float>(y);
  double best = 1e30;
  for (int r = 0; r < kRuns; ++r) {
    fill(hx, hy);
    auto t0 = Clock::now();
    size_t faults = must(session->run(sva, sva + stream.size()), "run");
    best = std::min(best, seconds_since(t0));
    if (faults) agx::cli::fail("the SAXPY kernel faulted: " + session->last_fault().reason);
  }
  for (uint32_t i = 0; i < kN; i += 4099)
    if (hy[i] != std::fmaf(a, float(i % 1024) * 0.5f, float(i % 31)))
      agx::cli::fail(fmt::format("emulated SAXPY: wrong y[{}]", i));
  *checksum += hy[kN - 1];
  return kBytes / best / 1e9;
}

double native_GBps(unsigned threads, double* checksum) {
  std::vector<float> x(kN), y(kN);
  const float a = 1.25f;
  double best = 1e30;
  for (int r = 0; r < kRuns; ++r) {
    fill(x.data(), y.data());
    auto t0 = Clock::now();
    std::vector<std::thread> pool;
    uint32_t chunk = (kN + threads - 1) / threads;
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        uint32_t lo = t * chunk, hi = std::min(kN, lo + chunk);
        float* __restrict py = y.data();
        const float* __restrict px = x.data();
        for (uint32_t i = lo; i < hi; ++i) py[i] = a * px[i] + py[i];
      });
    for (auto& t : pool) t.join();
    best = std::min(best, seconds_since(t0));
  }
  *checksum += y[kN - 1];
  return kBytes / best / 1e9;
}

double empty_dispatches_per_s() {
  agx::kmd::Device device;
  device.set_executor(std::make_shared<agx::gpu::CdmExecutor>());
  auto session = must(agx::runtime::ComputeSession::open(device, 4 << 20), "open");
  agx::runtime::KernelLaunch k;
  k.code = must(session->assemble("stop"), "assemble");
  k.register_halves = 8;
  k.grid = {1, 1, 1};
  uint64_t words = must(agx::runtime::upload_usc_words(*session, k), "words");
  const int launches = 2000;
  std::vector<uint8_t> stream;
  for (int i = 0; i < launches; ++i) {
    must(agx::runtime::push_launch(stream, *session, k, words), "launch");
    must(agx::runtime::push_cdm_barrier(stream), "barrier");
  }
  must(agx::runtime::push_cdm_terminate(stream), "terminate");
  uint64_t sva = must(session->upload(stream), "upload");
  double best = 1e30;
  for (int r = 0; r < kRuns; ++r) {
    auto t0 = Clock::now();
    if (must(session->run(sva, sva + stream.size()), "run")) agx::cli::fail("empty dispatch faulted");
    best = std::min(best, seconds_since(t0));
  }
  return launches / best;
}

int run(bool json) {
  unsigned n = agx::gpu::default_threads();
  double sink = 0;
  double e1 = emulated_GBps(1, &sink), n1 = native_GBps(1, &sink);
  double en = emulated_GBps(n, &sink), nn = native_GBps(n, &sink);
  double empty = empty_dispatches_per_s();
  if (json) {
    fmt::print(
        "{{\"threads\": {}, \"saxpy_GBps_1t\": {:.4g}, \"native_saxpy_GBps_1t\": {:.4g}, \"saxpy_ratio_1t\": {:.4g}, "
        "\"saxpy_GBps_nt\": {:.4g}, \"native_saxpy_GBps_nt\": {:.4g}, \"saxpy_ratio_nt\": {:.4g}, "
        "\"empty_dispatches_per_s\": {:.4g}}}\n",
        n, e1, n1, e1 / n1, en, nn, en / nn, empty);
  } else {
    fmt::print("SAXPY over {}M floats through SUBMIT (12 bytes per element):\n", kN >> 20);
    fmt::print("  1 thread:   emulated {:.3g} GB/s, native C++ {:.3g} GB/s, ratio {:.3g}\n", e1, n1, e1 / n1);
    fmt::print("  {} threads:  emulated {:.3g} GB/s, native C++ {:.3g} GB/s, ratio {:.3g}\n", n, en, nn, en / nn);
    fmt::print("empty dispatches: {:.3g} per second\n", empty);
  }
  return sink == 12345.678 ? 1 : 0;  // the results are used
}

agx::cli::Bench kBench{"compute", "SAXPY through SUBMIT on the CDM executor vs native C++; empty dispatches/s", run};

}  // namespace AGX_UNITY_ID
