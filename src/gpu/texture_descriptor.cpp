// Texture, Sampler, Border and PBE descriptors to the plain views, through
// the cmdstream packet tables (bminor/mesa-mesa src/asahi/genxml/cmdbuf.xml).
// The tables are being written on the `cmdtable` branch; until they are
// merged every decode is an error naming that.
#include "gpu/pbe.h"

namespace agx::gpu {

namespace {
Error tables_missing(const char* what) {
  return Error::unsupported("{} descriptor: the cmdstream tables for it are not merged yet", what);
}
}  // namespace

Result<TextureView> decode_texture(std::span<const uint32_t>) { return tables_missing("Texture"); }
Result<SamplerView> decode_sampler(std::span<const uint32_t>, bool) {
  return tables_missing("Sampler");
}
Result<PbeView> decode_pbe(std::span<const uint32_t>) { return tables_missing("PBE"); }

}  // namespace agx::gpu
