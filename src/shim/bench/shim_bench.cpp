// What the shim costs per call: an ioctl through agx::shim (descriptor
// lookup + kmd) beside the same ioctl straight into the kmd, and beside one
// real host ioctl syscall (FIONREAD on a pipe), the least a kernel DRM ioctl
// costs. Each benchmark reports `vs_host_syscall`: host syscall time / our
// time, measured in the same run (> 1: cheaper than a syscall).
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <benchmark/benchmark.h>

#include <chrono>

#include "agx/asahi_drm.h"
#include "kmd/kmd.h"
#include "shim/shim.h"
#include "shim/vfs.h"

namespace {

// Nanoseconds per real FIONREAD ioctl, over `n` calls.
double host_ioctl_ns(int n) {
  int fds[2];
  if (::pipe(fds) != 0) return 0;
  int avail = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; i++) ::ioctl(fds[0], FIONREAD, &avail);
  auto t1 = std::chrono::steady_clock::now();
  ::close(fds[0]);
  ::close(fds[1]);
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / n;
}

void report(benchmark::State& state, std::chrono::steady_clock::time_point t0) {
  const double ours_ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() /
      static_cast<double>(state.iterations());
  state.counters["vs_host_syscall"] = host_ioctl_ns(200000) / ours_ns;
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

void BM_ShimIoctlGetTime(benchmark::State& state) {
  int fd = agx::shim::open_at(AT_FDCWD, agx::shim::kRenderNodePath, O_RDWR | O_CLOEXEC, 0);
  drm_asahi_get_time t{};
  auto t0 = std::chrono::steady_clock::now();
  for (auto _ : state) benchmark::DoNotOptimize(agx::shim::ioctl_fd(fd, DRM_IOCTL_ASAHI_GET_TIME, &t));
  report(state, t0);
  agx::shim::close_fd(fd);
}
BENCHMARK(BM_ShimIoctlGetTime);

void BM_KmdIoctlGetTime(benchmark::State& state) {
  auto file = agx::kmd::open_file(agx::kmd::default_device());
  drm_asahi_get_time t{};
  auto t0 = std::chrono::steady_clock::now();
  for (auto _ : state) benchmark::DoNotOptimize(file->ioctl(DRM_IOCTL_ASAHI_GET_TIME, &t));
  report(state, t0);
}
BENCHMARK(BM_KmdIoctlGetTime);

// An ioctl on a descriptor that is not ours, with a node open: the shim's
// toll on the rest of the program.
void BM_ShimPassThroughIoctl(benchmark::State& state) {
  int node = agx::shim::open_at(AT_FDCWD, agx::shim::kRenderNodePath, O_RDWR | O_CLOEXEC, 0);
  int fds[2];
  if (::pipe(fds) != 0) return state.SkipWithError("pipe");
  int avail = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (auto _ : state) benchmark::DoNotOptimize(agx::shim::ioctl_fd(fds[0], FIONREAD, &avail));
  report(state, t0);
  ::close(fds[0]);
  ::close(fds[1]);
  agx::shim::close_fd(node);
}
BENCHMARK(BM_ShimPassThroughIoctl);

void BM_ShimOpenClose(benchmark::State& state) {
  auto t0 = std::chrono::steady_clock::now();
  for (auto _ : state)
    agx::shim::close_fd(agx::shim::open_at(AT_FDCWD, agx::shim::kRenderNodePath, O_RDWR | O_CLOEXEC, 0));
  report(state, t0);
}
BENCHMARK(BM_ShimOpenClose);

}  // namespace
