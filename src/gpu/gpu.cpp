// The GPU's units tied to the kmd's firmware queues: the compute queue's
// executor is the CDM, its fixed-function hook the texture unit (which hands
// image writes to the PBE).
#include "gpu/gpu.h"

namespace agx::gpu {

FixedFunctionFactory texture_unit_factory() {
  return [](const Bindings& b) -> std::unique_ptr<usc::FixedFunction> {
    return std::make_unique<TextureHook>(*b.memory, b.state);
  };
}

std::shared_ptr<kmd::Executor> make_default_executor() {
  CdmOptions options;
  options.fixed_function = texture_unit_factory();
  return std::make_shared<CdmExecutor>(std::move(options));
}

}  // namespace agx::gpu
