// Private to src/gpu/pbe/: a PBE descriptor's target resolved once (texel
// format, image, level) for the writes of one instruction.
#pragma once

#include <optional>

#include "gpu/pbe/pbe.h"
#include "gpu/texture/image.h"

namespace agx::gpu {

// What every write of one instruction through one descriptor shares: the
// descriptor's texel format, the image in memory and the level written
// (nullopt: a level the image does not have, every write dropped), and the
// layers (or 3D slices) of that level.
struct PbeTarget {
  TexelFormat fmt;
  std::optional<ImageLevel> level;
  uint32_t layers = 1;
};
// Errors as pbe_write reports them: a format that cannot be written, an
// image the unit cannot lay out.
Result<PbeTarget> pbe_target(TextureUnit& unit, const PbeView& pbe, uint32_t lod);
// pbe_write through a resolved target (write.lod is the target's).
Status pbe_store(TextureUnit& unit, const PbeView& pbe, const PbeTarget& target, const PbeWrite& write,
                 Rounding rounding);
// The same with the texel already encoded (fmt.bytes bytes in memory-channel
// order): the drops (level, layer, sample, coordinates) and the store.
Status pbe_store_encoded(TextureUnit& unit, const PbeView& pbe, const PbeTarget& target, const PbeWrite& write,
                         const uint8_t* bytes);

}  // namespace agx::gpu
