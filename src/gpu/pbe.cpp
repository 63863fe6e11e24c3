// The PBE's image writes: swizzle the source into memory-channel order,
// convert (normalized rounding, sRGB encode, half and small floats, shared
// exponent) and store into the level, layer and sample the descriptor and
// the instruction name. Out-of-range coordinates are dropped: Mesa maps
// out-of-bounds storage-image writes to out-of-range coordinates to get
// robustness2 behaviour from the hardware (src/asahi/compiler/
// agx_nir_lower_texture.c, lower_robustness).
#include <algorithm>
#include <bit>

#include "gpu/texture_internal.h"

namespace agx::gpu {

Status pbe_write(TextureUnit& unit, const PbeView& pbe, const PbeWrite& wr, Rounding rounding) {
  AGX_TRY(internal::TexelFormat fmt, internal::texel_format(pbe.channels, pbe.type, pbe.srgb, true));
  AGX_TRY(format::ChannelsInfo ci, format::channels_info(pbe.channels));
  if (ci.block_compressed || fmt.block != internal::TexelFormat::Block::none)
    return Error::decode("PBE descriptor with block-compressed format {}", ci.name);
  AGX_TRY(const TextureUnit::Image* img, unit.internal_image(internal::image_desc(pbe)));
  const uint32_t level = pbe.level + wr.lod;
  if (level >= img->levels) return {};  // a level the image does not have: dropped
  const uint32_t layers = pbe.dim == Dim::d3 ? img->depth(level) : pbe.layers;
  if (wr.layer >= layers || wr.sample >= pbe.samples) return {};
  const auto at = pbe_destination(pbe, img->width(level), img->height(level), wr.x, wr.y);
  if (!at) return {};
  const uint32_t x = (*at)[0], y = (*at)[1];
  Texel mem;
  for (unsigned k = 0; k < 4; ++k) mem.c[k] = wr.value[pbe.swizzle[k] & 3];
  uint8_t bytes[16];
  internal::encode_texel(fmt, mem, bytes, rounding);
  if (img->metadata_levels != 0)
    return internal::store_texel(unit.memory(), *img, x, y, wr.layer, level, wr.sample, bytes);
  const uint64_t off = img->offset_B(x, y, wr.layer, level, wr.sample);
  return internal::write_texel(unit.memory(), *img, off, bytes, fmt.bytes);
}

}  // namespace agx::gpu
