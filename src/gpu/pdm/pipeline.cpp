// FragmentPipeline: a render command's fragment half, its tiles on the
// worker pool, the first fault by tile index, and the occlusion results
// written once every tile is done (so they do not depend on the order the
// tiles ran in).
#include <atomic>
#include <mutex>

#include <fmt/format.h>

#include "gpu/pdm/pdm_internal.h"

namespace agx::gpu {

namespace {
constexpr uint64_t kDefaultFragmentStepLimit = 50'000'000;  // per SIMD group, as the CDM's
}  // namespace

struct FragmentPipeline::Impl {
  FragmentOptions options;
  ProgramCache programs;
  std::unique_ptr<WorkerPool> pool;
  std::vector<std::unique_ptr<pdm::Worker>> workers;
  uint64_t step_limit = 0;
  uint64_t partial_every = 0;  // FragmentOptions::partial_render_every, else AGX_GPU_PARTIAL_RENDER, else 0
  std::mutex run_mu;  // one command at a time
  std::mutex helper_mu;
  mutable std::mutex stats_mu;
  FragmentStats stats;

  Status write_visibility(const kmd::FirmwareCommand& cmd,
                          const std::map<std::pair<uint32_t, cmdstream::VisibilityMode>, uint64_t>& v,
                          GpuFault* where);
};

FragmentPipeline::FragmentPipeline(FragmentOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  const unsigned threads = impl_->options.threads ? impl_->options.threads : default_threads_from_env();
  impl_->step_limit =
      step_limit_from_env(impl_->options.step_limit, kDefaultFragmentStepLimit);
  impl_->partial_every = count_from_env("AGX_GPU_PARTIAL_RENDER", impl_->options.partial_render_every, 0);
  impl_->pool = std::make_unique<WorkerPool>(threads);
  for (unsigned w = 0; w < threads; ++w) impl_->workers.push_back(std::make_unique<pdm::Worker>());
}

FragmentPipeline::~FragmentPipeline() = default;

FragmentStats FragmentPipeline::stats() const {
  std::lock_guard g(impl_->stats_mu);
  return impl_->stats;
}

// Boolean queries get 1 when a sample passed (nothing otherwise); counting
// queries add the samples that passed to the 64-bit slot.
Status FragmentPipeline::Impl::write_visibility(
    const kmd::FirmwareCommand& cmd, const std::map<std::pair<uint32_t, cmdstream::VisibilityMode>, uint64_t>& v,
    GpuFault* where) {
  for (const auto& [key, count] : v) {
    const GpuVa va = cmd.render->isp_oclqry_base + uint64_t(key.first) * 8;
    uint64_t value = 1;
    if (key.second == cmdstream::VisibilityMode::kCounting) {
      AGX_CHECK(read_gpu(*cmd.memory, va, &value, 8, GpuUnit::isp, where));
      value += count;
    } else if (count == 0) {
      continue;
    }
    GpuFault f;
    if (!cmd.memory->write(va, &value, 8, GpuUnit::isp, &f)) {
      if (where) *where = f;
      return Error::fault("occlusion query {} at 0x{:x}: {}", key.first, va, describe(f));
    }
  }
  return {};
}

Status FragmentPipeline::run(const kmd::FirmwareCommand& cmd, const Scene& scene, GpuFault* where) {
  Impl& im = *impl_;
  std::lock_guard run_lock(im.run_mu);
  auto faulted = [&](Error e) {
    if (where && where->reason.empty()) {  // every fault has a reason, also errors that named no address
      where->unit = GpuUnit::pdm;
      where->reason = e.message();
    }
    std::lock_guard g(im.stats_mu);
    ++im.stats.faults;
    return e;
  };
  if (cmd.render == nullptr || cmd.memory == nullptr)
    return faulted(fail(where, 0, GpuUnit::pdm, Error::invalid_argument("not a render command (no render fields "
                                                                          "or memory)")));
  pdm::Command c;
  c.cmd = &cmd;
  c.render = cmd.render;
  c.scene = &scene;
  c.run.step_limit = im.step_limit;
  c.partial_every = im.partial_every;
  c.fixed_function = im.options.fixed_function;
  c.helper_header = cmd.render->fragment_helper.binary ? cmd.render->fragment_helper.data : 0;
  c.helper_mu = &im.helper_mu;
  if (Status st = pdm::prepare(c, im.programs, where); !st) return faulted(std::move(st).error());

  std::mutex mu;
  std::atomic<uint64_t> first_fault{UINT64_MAX};
  GpuFault fault;
  Error fault_error = Error::fault("no fault");
  std::map<std::pair<uint32_t, cmdstream::VisibilityMode>, uint64_t> visibility;
  FragmentStats add;
  const uint64_t per_layer = uint64_t(c.tiles_x) * c.tiles_y;
  im.pool->run(c.tiles(), [&](unsigned worker, uint64_t index) {
    if (index > first_fault.load(std::memory_order_relaxed)) return;
    pdm::Worker& w = *im.workers[worker];
    w.memory.inner = cmd.memory;
    pdm::Tile t;
    t.index = index;
    t.layer = uint32_t(index / per_layer);
    t.x0 = int32_t(index % per_layer % c.tiles_x * c.tile_w);
    t.y0 = int32_t(index % per_layer / c.tiles_x * c.tile_h);
    GpuFault f;
    Status st = pdm::run_tile(c, w, t, &f);
    std::lock_guard g(mu);
    if (!st) {
      if (index < first_fault.load()) {
        first_fault.store(index);
        fault = f;
        fault_error = std::move(st).error();
      }
      return;
    }
    ++add.tiles;
    add.primitives_binned += t.binned;
    add.quads_shaded += t.quads;
    add.samples_passed += t.passed;
    add.partial_renders += t.splits;
    for (const auto& [k, n] : t.visibility) visibility[k] += n;
  });
  if (first_fault.load() != UINT64_MAX) {
    if (where) *where = fault;
    return faulted(std::move(fault_error));
  }
  if (Status st = im.write_visibility(cmd, visibility, where); !st) return faulted(std::move(st).error());
  std::lock_guard g(im.stats_mu);
  ++im.stats.commands;
  im.stats.tiles += add.tiles;
  im.stats.primitives_binned += add.primitives_binned;
  im.stats.quads_shaded += add.quads_shaded;
  im.stats.samples_passed += add.samples_passed;
  im.stats.partial_renders += add.partial_renders;
  return {};
}

}  // namespace agx::gpu
