// The PBE's image writes: swizzle the source into memory-channel order,
// convert (normalized rounding, sRGB encode, half and small floats, shared
// exponent) and store into the level, layer and sample the descriptor and
// the instruction name. Out-of-range coordinates are dropped: Mesa maps
// out-of-bounds storage-image writes to out-of-range coordinates to get
// robustness2 behaviour from the hardware (src/asahi/compiler/
// agx_nir_lower_texture.c, lower_robustness).
#include <algorithm>
#include <bit>

#include "gpu/pbe/pbe.h"
#include "gpu/texture/image.h"

namespace agx::gpu {

Status pbe_write(TextureUnit& unit, const PbeView& pbe, const PbeWrite& wr, Rounding rounding) {
  AGX_TRY(TexelFormat fmt, texel_format(pbe.channels, pbe.type, pbe.srgb, true));
  AGX_TRY(format::ChannelsInfo ci, format::channels_info(pbe.channels));
  if (ci.block_compressed || fmt.block != TexelFormat::Block::none)
    return Error::decode("PBE descriptor with block-compressed format {}", ci.name);
  const ImageDesc desc = image_desc(pbe);
  const uint32_t level = pbe.level + wr.lod;
  AGX_TRY(std::optional<LevelExtent> extent, image_level(unit, desc, level));
  if (!extent) return {};  // a level the image does not have: dropped
  const uint32_t layers = pbe.dim == Dim::d3 ? extent->depth_px : pbe.layers;
  if (wr.layer >= layers || wr.sample >= pbe.samples) return {};
  const auto at = pbe_destination(pbe, extent->width_px, extent->height_px, wr.x, wr.y);
  if (!at) return {};
  Texel mem;
  for (unsigned k = 0; k < 4; ++k) mem.c[k] = wr.value[pbe.swizzle[k] & 3];
  uint8_t bytes[16];
  encode_texel(fmt, mem, bytes, rounding);
  return store_image_texel(unit, desc, fmt, (*at)[0], (*at)[1], wr.layer, level, wr.sample, bytes);
}

}  // namespace agx::gpu
