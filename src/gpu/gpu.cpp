// The GPU's units tied to the kmd's firmware queues: the GpuExecutor runs
// compute on the CDM and render commands on the vertex and fragment halves,
// every shader with the texture unit as its fixed-function hook (which
// hands image writes to the PBE).
#include "gpu/gpu.h"

namespace agx::gpu {

FixedFunctionFactory texture_unit_factory() {
  return [](const Bindings& b) -> std::unique_ptr<usc::FixedFunction> {
    return std::make_unique<TextureHook>(*b.memory, b.state);
  };
}

std::shared_ptr<kmd::Executor> make_default_executor() {
  GpuOptions options;
  options.fixed_function = texture_unit_factory();
  return std::make_shared<GpuExecutor>(std::move(options));
}

}  // namespace agx::gpu
