// `agx bench kmd`: empty compute submits per second on 1 and 4 queues, VM
// bind/unbind ops per second, beside a reference measured in the same run:
// a mutex + condition-variable round trip between two threads.
#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "command.h"
#include "kmd/kmd.h"

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

double reference_roundtrips_per_s() {
  std::mutex mu;
  std::condition_variable cv;
  uint64_t ping = 0, pong = 0;
  const uint64_t n = 50000;
  std::thread other([&] {
    std::unique_lock l(mu);
    for (uint64_t i = 1; i <= n; i++) {
      cv.wait(l, [&] { return ping == i; });
      pong = i;
      cv.notify_all();
    }
  });
  auto t0 = Clock::now();
  {
    std::unique_lock l(mu);
    for (uint64_t i = 1; i <= n; i++) {
      ping = i;
      cv.notify_all();
      cv.wait(l, [&] { return pong == i; });
    }
  }
  double s = seconds_since(t0);
  other.join();
  return double(n) / s;
}

struct Ctx {
  std::unique_ptr<agx::kmd::File> file;
  uint32_t vm = 0;
};

int check(int rc, const char* what) {
  if (rc) agx::cli::fail(fmt::format("{} failed: {}", what, rc));
  return rc;
}

Ctx open_ctx(agx::kmd::Device& dev) {
  Ctx c{agx::kmd::open_file(dev)};
  drm_asahi_vm_create v{0x40'0000'0000, 0x40'2000'0000, 0, 0};
  check(c.file->ioctl(DRM_IOCTL_ASAHI_VM_CREATE, &v), "VM_CREATE");
  c.vm = v.vm_id;
  return c;
}

double submits_per_s(agx::kmd::Device& dev, int queues, int per_queue) {
  Ctx c = open_ctx(dev);
  std::vector<uint8_t> cmd(sizeof(drm_asahi_cmd_header) + sizeof(drm_asahi_cmd_compute), 0);
  drm_asahi_cmd_header h{DRM_ASAHI_CMD_COMPUTE, sizeof(drm_asahi_cmd_compute), DRM_ASAHI_BARRIER_NONE,
                         DRM_ASAHI_BARRIER_NONE};
  std::memcpy(cmd.data(), &h, sizeof h);
  std::vector<uint32_t> qs, done;
  for (int i = 0; i < queues; i++) {
    drm_asahi_queue_create q{0, c.vm, DRM_ASAHI_PRIORITY_MEDIUM, 0, 0};
    check(c.file->ioctl(DRM_IOCTL_ASAHI_QUEUE_CREATE, &q), "QUEUE_CREATE");
    qs.push_back(q.queue_id);
    drm_syncobj_create s{0, 0};
    check(c.file->ioctl(DRM_IOCTL_SYNCOBJ_CREATE, &s), "SYNCOBJ_CREATE");
    done.push_back(s.handle);
  }
  auto t0 = Clock::now();
  std::vector<std::thread> threads;
  for (int i = 0; i < queues; i++) {
    threads.emplace_back([&, i] {
      drm_asahi_sync out{DRM_ASAHI_SYNC_SYNCOBJ, done[i], 0};
      for (int k = 0; k < per_queue; k++) {
        drm_asahi_submit s{};
        s.cmdbuf = reinterpret_cast<uint64_t>(cmd.data());
        s.cmdbuf_size = uint32_t(cmd.size());
        s.queue_id = qs[i];
        if (k == per_queue - 1) {  // the last one signals completion
          s.syncs = reinterpret_cast<uint64_t>(&out);
          s.out_sync_count = 1;
        }
        check(c.file->ioctl(DRM_IOCTL_ASAHI_SUBMIT, &s), "SUBMIT");
      }
    });
  }
  for (auto& t : threads) t.join();
  drm_syncobj_wait w{reinterpret_cast<uint64_t>(done.data()), INT64_MAX, uint32_t(queues),
                     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, 0, 0};
  check(c.file->ioctl(DRM_IOCTL_SYNCOBJ_WAIT, &w), "SYNCOBJ_WAIT");
  return double(queues) * per_queue / seconds_since(t0);
}

double bind_ops_per_s(agx::kmd::Device& dev) {
  Ctx c = open_ctx(dev);
  const uint64_t page = 0x4000;
  drm_asahi_gem_create g{64 * page, 0, 0, 0, 0};
  check(c.file->ioctl(DRM_IOCTL_ASAHI_GEM_CREATE, &g), "GEM_CREATE");
  // Each ioctl: 64 one-page binds then 64 unbinds at scattered addresses.
  std::vector<drm_asahi_gem_bind_op> ops;
  for (uint64_t i = 0; i < 64; i++)
    ops.push_back({DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE, g.handle, i * page, page, 0x1'0000'0000 + i * 97 * page});
  for (uint64_t i = 0; i < 64; i++) ops.push_back({DRM_ASAHI_BIND_UNBIND, 0, 0, page, 0x1'0000'0000 + i * 97 * page});
  drm_asahi_vm_bind b{c.vm, uint32_t(ops.size()), sizeof ops[0], 0, reinterpret_cast<uint64_t>(ops.data())};
  const int rounds = 4000;
  auto t0 = Clock::now();
  for (int r = 0; r < rounds; r++) check(c.file->ioctl(DRM_IOCTL_ASAHI_VM_BIND, &b), "VM_BIND");
  return double(rounds) * ops.size() / seconds_since(t0);
}

int run(bool json) {
  agx::kmd::Device dev;
  double ref = reference_roundtrips_per_s();
  double s1 = submits_per_s(dev, 1, 200000);
  double s4 = submits_per_s(dev, 4, 50000);
  double binds = bind_ops_per_s(dev);
  if (json) {
    fmt::print("{{\"submits_per_s_1q\": {:.0f}, \"submits_per_s_4q\": {:.0f}, \"bind_ops_per_s\": {:.0f}, "
               "\"reference_roundtrips_per_s\": {:.0f}}}\n",
               s1, s4, binds, ref);
  } else {
    fmt::print("reference mutex+condvar round trips/s: {:>12.0f}\n", ref);
    fmt::print("empty compute submits/s, 1 queue:     {:>12.0f}  ({:.1f}x reference)\n", s1, s1 / ref);
    fmt::print("empty compute submits/s, 4 queues:    {:>12.0f}  ({:.1f}x reference)\n", s4, s4 / ref);
    fmt::print("VM bind/unbind ops/s:                 {:>12.0f}  ({:.1f}x reference)\n", binds, binds / ref);
  }
  return 0;
}

agx::cli::Bench kBench{"kmd", "Submits/s on 1 and 4 queues and bind ops/s vs a mutex+condvar round trip", run};

}  // namespace
