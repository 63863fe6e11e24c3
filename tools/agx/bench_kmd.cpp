// `agx bench kmd`: empty compute submits per second on 1 and 4 queues, VM
// bind/unbind ops per second, each beside a reference doing the same work
// natively in the same run (see reference_submits_per_s and
// reference_bind_ops_per_s, and docs/kmd.md).
#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <deque>
#include <memory>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "command.h"
#include "kmd/kmd.h"
#include "mem/mem.h"

namespace AGX_UNITY_ID {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The reference: the same pipeline a SUBMIT goes through, done natively with
// nothing else. A submitting thread hands each job (a heap object, as the
// kmd's Job) to a dispatcher thread through a mutex-protected queue and a
// condition variable; the dispatcher hands it on the same way to a firmware
// thread, which completes it and signals completion under a mutex and a
// condition variable; the submitter waits only for the last completion, as
// the benchmark's submits do. No argument copying, checking, command
// parsing or syncobj bookkeeping: the ratio is what the kmd adds on top of
// the two thread handoffs and the completion signal every submit needs.
struct Handoff {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::unique_ptr<uint64_t>> jobs;
  bool closing = false;
  void push(std::unique_ptr<uint64_t> j) {
    {
      std::lock_guard g(mu);
      jobs.push_back(std::move(j));
    }
    cv.notify_one();
  }
  std::unique_ptr<uint64_t> pop() {
    std::unique_lock l(mu);
    cv.wait(l, [&] { return !jobs.empty() || closing; });
    if (jobs.empty()) return nullptr;
    auto j = std::move(jobs.front());
    jobs.pop_front();
    return j;
  }
  void close() {
    {
      std::lock_guard g(mu);
      closing = true;
    }
    cv.notify_all();
  }
};

// One user queue's pipeline natively: submitter -> dispatcher -> firmware.
struct Pipeline {
  Handoff to_dispatcher, to_firmware;
  std::mutex done_mu;
  std::condition_variable done_cv;
  uint64_t completed = 0, checksum = 0;
  std::thread dispatcher, firmware;
  Pipeline() {
    dispatcher = std::thread([this] {
      while (auto j = to_dispatcher.pop()) to_firmware.push(std::move(j));
      to_firmware.close();
    });
    firmware = std::thread([this] {
      while (auto j = to_firmware.pop()) {
        std::lock_guard g(done_mu);
        checksum += *j;
        completed++;
        done_cv.notify_all();
      }
    });
  }
  void submit_and_wait(uint64_t n) {
    for (uint64_t i = 1; i <= n; i++) to_dispatcher.push(std::make_unique<uint64_t>(i));
    std::unique_lock l(done_mu);
    done_cv.wait(l, [&] { return completed == n; });
  }
  ~Pipeline() {
    to_dispatcher.close();
    dispatcher.join();
    firmware.join();
  }
};

// `queues` pipelines, one submitting thread each, like submits_per_s.
double reference_submits_per_s(int queues, uint64_t per_queue) {
  std::vector<std::unique_ptr<Pipeline>> p;
  for (int i = 0; i < queues; i++) p.push_back(std::make_unique<Pipeline>());
  auto t0 = Clock::now();
  std::vector<std::thread> threads;
  for (int i = 0; i < queues; i++) threads.emplace_back([&, i] { p[i]->submit_and_wait(per_queue); });
  for (auto& t : threads) t.join();
  double s = seconds_since(t0);
  for (auto& q : p)
    if (q->checksum != per_queue * (per_queue + 1) / 2) agx::cli::fail("bench kmd: the reference pipeline lost a job");
  return double(queues) * per_queue / s;
}

// The bind reference: the same 64 one-page maps and 64 unmaps per round on
// the same page-table implementation (agx::mem::AddressSpace) directly, so
// the ratio is the cost of the VM_BIND ioctl layer (argument copies,
// checks, GEM lookup, locking) over the page-table work itself.
double reference_bind_ops_per_s() {
  const uint64_t page = 0x4000;
  std::vector<uint8_t> bo(64 * page);
  agx::mem::AddressSpace as;
  const int rounds = 4000;
  auto t0 = Clock::now();
  for (int r = 0; r < rounds; r++) {
    for (uint64_t i = 0; i < 64; i++)
      if (!as.map(0x1'0000'0000 + i * 97 * page, bo.data() + i * page, page, agx::mem::kRead | agx::mem::kWrite))
        agx::cli::fail("bench kmd: reference map failed");
    for (uint64_t i = 0; i < 64; i++)
      if (!as.unmap(0x1'0000'0000 + i * 97 * page, page)) agx::cli::fail("bench kmd: reference unmap failed");
  }
  return double(rounds) * 128 / seconds_since(t0);
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
  double ref1 = reference_submits_per_s(1, 200000);
  double ref4 = reference_submits_per_s(4, 50000);
  double s1 = submits_per_s(dev, 1, 200000);
  double s4 = submits_per_s(dev, 4, 50000);
  double ref_binds = reference_bind_ops_per_s();
  double binds = bind_ops_per_s(dev);
  if (json) {
    fmt::print("{{\"submits_per_s_1q\": {:.0f}, \"submits_per_s_4q\": {:.0f}, \"bind_ops_per_s\": {:.0f}, "
               "\"reference_submits_per_s_1q\": {:.0f}, \"reference_submits_per_s_4q\": {:.0f}, "
               "\"reference_bind_ops_per_s\": {:.0f}}}\n",
               s1, s4, binds, ref1, ref4, ref_binds);
  } else {
    fmt::print("reference submit pipeline/s, 1 queue:                  {:>12.0f}\n", ref1);
    fmt::print("empty compute submits/s, 1 queue:                      {:>12.0f}  ({:.2f}x reference)\n", s1, s1 / ref1);
    fmt::print("reference submit pipelines/s, 4 queues:                {:>12.0f}\n", ref4);
    fmt::print("empty compute submits/s, 4 queues:                     {:>12.0f}  ({:.2f}x reference)\n", s4, s4 / ref4);
    fmt::print("reference page-table map/unmap ops/s:                  {:>12.0f}\n", ref_binds);
    fmt::print("VM bind/unbind ops/s:                                  {:>12.0f}  ({:.2f}x reference)\n", binds,
               binds / ref_binds);
  }
  return 0;
}

agx::cli::Bench kBench{"kmd", "Submits/s on 1 and 4 queues and bind ops/s vs the same work done natively", run};

}  // namespace AGX_UNITY_ID
