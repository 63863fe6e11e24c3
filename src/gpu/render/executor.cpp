// The firmware queues tied to the units, and the scene handed from a render
// command's vertex half to its fragment half.
#include "gpu/render/executor.h"

#include <fmt/format.h>

namespace agx::gpu {

namespace {

// The options every unit takes alike (CdmOptions, VertexOptions,
// FragmentOptions); their own limits keep their defaults.
template <class Options>
Options unit_options(const GpuOptions& o) {
  Options p;
  p.threads = o.threads;
  p.step_limit = o.step_limit;
  p.fixed_function = o.fixed_function;
  return p;
}

}  // namespace

GpuExecutor::GpuExecutor(GpuOptions options)
    : cdm_(unit_options<CdmOptions>(options)),
      vertex_(unit_options<VertexOptions>(options)),
      fragment_(unit_options<FragmentOptions>(options)) {}

bool GpuExecutor::execute(const kmd::FirmwareCommand& command, GpuFault* fault) {
  if (command.queue == kmd::FirmwareQueue::compute) return cdm_.execute(command, fault);
  GpuFault local;
  GpuFault* where = fault ? fault : &local;
  const Key key{command.queue_id, command.submit_seqno, command.command_index};
  const char* half = command.queue == kmd::FirmwareQueue::vertex ? "vertex" : "fragment";
  if (!command.render || !command.memory) {
    *where = {0, Access::read, command.queue == kmd::FirmwareQueue::vertex ? GpuUnit::vdm : GpuUnit::pdm,
              fmt::format("{} half of render command #{} without a render command or a VM", half,
                          command.command_index)};
    return false;
  }
  if (command.queue == kmd::FirmwareQueue::vertex) {
    // The scene keeps what was binned before a fault: the fragment half
    // draws it, as the hardware would draw what the tiler wrote.
    auto scene = std::make_shared<Scene>();
    Status st = vertex_.run(command, *scene, where);
    {
      std::lock_guard lock(mu_);
      scenes_[key] = std::move(scene);
    }
    return bool(st);  // the reason already names the vertex half and the command
  }
  std::shared_ptr<const Scene> scene;
  {
    std::lock_guard lock(mu_);
    auto it = scenes_.find(key);
    if (it != scenes_.end()) {
      scene = std::move(it->second);
      scenes_.erase(it);
    }
  }
  if (!scene) scene = std::make_shared<Scene>();  // never bound: only bg/eot run
  Status st = fragment_.run(command, *scene, where);
  if (st) return true;
  where->reason = fmt::format("fragment half of render command #{}: {}", command.command_index, where->reason);
  return false;
}

GpuStats GpuExecutor::stats() const {
  GpuStats s{cdm_.stats(), vertex_.stats(), fragment_.stats(), 0};
  std::lock_guard lock(mu_);
  s.scenes_pending = scenes_.size();
  return s;
}

}  // namespace agx::gpu
