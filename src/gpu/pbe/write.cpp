// The PBE's image writes: swizzle the source into memory-channel order,
// convert (normalized rounding, sRGB encode, half and small floats, shared
// exponent) and store into the level, layer and sample the descriptor and
// the instruction name. Out-of-range coordinates are dropped: Mesa maps
// out-of-bounds storage-image writes to out-of-range coordinates to get
// robustness2 behaviour from the hardware (src/asahi/compiler/
// agx_nir_lower_texture.c, lower_robustness).
#include <algorithm>
#include <bit>

#include "gpu/pbe/pbe_internal.h"

namespace agx::gpu {

Result<PbeTarget> pbe_target(TextureUnit& unit, const PbeView& pbe, uint32_t lod) {
  PbeTarget t;
  AGX_TRY(t.fmt, texel_format(pbe.channels, pbe.type, pbe.srgb, true));
  AGX_TRY(format::ChannelsInfo ci, format::channels_info(pbe.channels));
  if (ci.block_compressed || t.fmt.block != TexelFormat::Block::none)
    return Error::decode("PBE descriptor with block-compressed format {}", ci.name);
  AGX_TRY(t.level, image_level(unit, image_desc(pbe), pbe.level + lod));
  if (t.level) t.layers = pbe.dim == Dim::d3 ? t.level->extent.depth_px : pbe.layers;
  return t;
}

Status pbe_store_encoded(TextureUnit& unit, const PbeView& pbe, const PbeTarget& t, const PbeWrite& wr,
                         const uint8_t* bytes) {
  if (!t.level) return {};  // a level the image does not have: dropped
  if (wr.layer >= t.layers || wr.sample >= pbe.samples) return {};
  const auto at = pbe_destination(pbe, t.level->extent.width_px, t.level->extent.height_px, wr.x, wr.y);
  if (!at) return {};
  return store_image_texel(unit, *t.level, t.fmt, (*at)[0], (*at)[1], wr.layer, wr.sample, bytes);
}

Status pbe_store(TextureUnit& unit, const PbeView& pbe, const PbeTarget& t, const PbeWrite& wr, Rounding rounding) {
  Texel mem;
  for (unsigned k = 0; k < 4; ++k) mem.c[k] = wr.value[pbe.swizzle[k] & 3];
  uint8_t bytes[16];
  encode_texel(t.fmt, mem, bytes, rounding);
  return pbe_store_encoded(unit, pbe, t, wr, bytes);
}

Status pbe_write(TextureUnit& unit, const PbeView& pbe, const PbeWrite& wr, Rounding rounding) {
  AGX_TRY(PbeTarget t, pbe_target(unit, pbe, wr.lod));
  return pbe_store(unit, pbe, t, wr, rounding);
}

}  // namespace agx::gpu
