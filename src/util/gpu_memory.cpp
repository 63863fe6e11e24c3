#include "util/gpu_memory.h"

#include <fmt/format.h>

namespace agx {

const char* to_string(Access access) { return access == Access::read ? "read" : "write"; }

const char* to_string(GpuUnit unit) {
  switch (unit) {
    case GpuUnit::usc: return "usc";
    case GpuUnit::cdm: return "cdm";
    case GpuUnit::vdm: return "vdm";
    case GpuUnit::ppp: return "ppp";
    case GpuUnit::isp: return "isp";
    case GpuUnit::pdm: return "pdm";
    case GpuUnit::pbe: return "pbe";
    case GpuUnit::texture: return "texture";
    case GpuUnit::firmware: return "firmware";
    case GpuUnit::host: return "host";
  }
  return "unknown";
}

std::string describe(const GpuFault& fault) {
  return fmt::format("{} of 0x{:016x} by {}: {}", to_string(fault.access), fault.va,
                     to_string(fault.unit), fault.reason);
}

}  // namespace agx
