// Linked as an object (agx_gpu_default) into the programs whose kmd Devices
// run on the software GPU: the shim library and the agx tool. Its static
// initializer makes the CDM executor the default of every Device created
// afterwards (kmd::default_device() included).
#include "gpu/gpu.h"

namespace {

[[maybe_unused]] const bool kRegistered = [] {
  agx::kmd::set_default_executor_factory(&agx::gpu::make_default_executor);
  return true;
}();

}  // namespace
