// The firmware's compute executor: kmd::Executor for the software GPU.
#include <fmt/format.h>

#include "gpu/cdm/cdm_internal.h"

namespace agx::gpu {

struct CdmExecutor::Impl {
  explicit Impl(CdmOptions o) : engine(std::move(o)) {}
  detail::Engine engine;
};

CdmExecutor::CdmExecutor(CdmOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
CdmExecutor::~CdmExecutor() = default;

bool CdmExecutor::execute(const kmd::FirmwareCommand& command, GpuFault* fault) {
  detail::Engine& e = impl_->engine;
  GpuFault local;
  GpuFault* where = fault ? fault : &local;
  if (!command.compute || command.queue != kmd::FirmwareQueue::compute) {
    e.counters.faults++;
    *where = {0, Access::read, command.queue == kmd::FirmwareQueue::fragment ? GpuUnit::pdm : GpuUnit::vdm,
              fmt::format("{} half of render command #{}: the CDM executes compute commands only (render "
                          "commands run on gpu::GpuExecutor, render/executor.h)",
                          kmd::to_string(command.queue), command.command_index)};
    return false;
  }
  if (!command.memory) {
    e.counters.faults++;
    *where = {0, Access::read, GpuUnit::cdm, "compute command without a VM"};
    return false;
  }
  e.counters.commands++;
  Status st = detail::run_stream(e, command, where);
  if (st) return true;
  e.counters.faults++;
  where->reason = fmt::format("compute command #{}: {}", command.command_index, st.error().message());
  return false;
}

CdmStats CdmExecutor::stats() const {
  const detail::Counters& c = impl_->engine.counters;
  return {c.commands.load(), c.launches.load(), c.threadgroups.load(), c.simdgroups.load(),
          c.preshader_runs.load(), c.barriers.load(), c.faults.load()};
}

unsigned CdmExecutor::threads() const { return impl_->engine.pool->threads(); }

unsigned default_threads() { return default_threads_from_env(); }

}  // namespace agx::gpu
