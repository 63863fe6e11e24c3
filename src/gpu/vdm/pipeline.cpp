// gpu::VertexPipeline: the vertex half of render commands.
#include <fmt/format.h>

#include "gpu/vdm/vdm_internal.h"

namespace agx::gpu {

struct VertexPipeline::Impl {
  explicit Impl(VertexOptions o) : engine(std::move(o)) {}
  detail::VertexEngine engine;
};

VertexPipeline::VertexPipeline(VertexOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
VertexPipeline::~VertexPipeline() = default;

Status VertexPipeline::run(const kmd::FirmwareCommand& cmd, Scene& scene, GpuFault* where) {
  detail::VertexEngine& e = impl_->engine;
  GpuFault local;
  if (!where) where = &local;
  if (!cmd.render || !cmd.memory) {
    e.counters.faults++;
    return fail(where, 0, GpuUnit::vdm,
                Error::invalid_argument("vertex half of command #{} without a render command or a VM",
                                        cmd.command_index));
  }
  std::lock_guard lock(e.run_mu);
  e.counters.commands++;
  detail::VdmRun run{cmd, scene, where};
  Status st = detail::walk_vdm_stream(e, run);
  if (st) return st;
  e.counters.faults++;
  Error error = std::move(st).error().context(fmt::format("vertex half of render command #{}", cmd.command_index));
  where->reason = error.message();
  return error;
}

VertexStats VertexPipeline::stats() const {
  const detail::VertexCounters& c = impl_->engine.counters;
  return {c.commands.load(),       c.draws.load(), c.vertices_shaded.load(), c.primitives_in.load(),
          c.primitives_out.load(), c.faults.load(), c.preshader_runs.load(), c.barriers.load()};
}

unsigned VertexPipeline::threads() const { return impl_->engine.pool->threads(); }

}  // namespace agx::gpu
