// The PBE descriptor to the plain PbeView, through the cmdstream tables
// (the only place its bit positions live; the fields the Texture descriptor
// shares are read with the texture unit's helpers, texture/image.h). How the
// fields are filled is read from Mesa's drivers (bminor/mesa-mesa
// src/asahi/vulkan/hk_image_view.c pack_pbe,
// src/gallium/drivers/asahi/agx_state.c): linear strides are stored minus 4,
// linear layer strides minus 128; linear arrays put the layer count in
// "Depth (linear)" with "Extended" set.
#include "cmdstream/typed.h"
#include "gpu/pbe/pbe.h"
#include "gpu/texture/image.h"

namespace agx::gpu {

namespace cs = agx::cmdstream;

Result<PbeView> decode_pbe(std::span<const uint32_t> words) {
  AGX_TRY(cs::Pbe p, unpack_descriptor<cs::Pbe>(words, "PBE"));
  PbeView v;
  AGX_CHECK(decode_shared_fields(p, v));
  const cs::Channel sw[4] = {p.swizzle_r, p.swizzle_g, p.swizzle_b, p.swizzle_a};
  for (int k = 0; k < 4; ++k) {
    AGX_TRY(Swizzle s, swizzle_of(sw[k]));
    if (s == Swizzle::one || s == Swizzle::zero)
      return Error::decode("PBE swizzle {} names a constant", k);
    v.swizzle[k] = uint8_t(s);
  }
  v.buffer = p.buffer;
  v.level = uint32_t(p.level);
  v.flip_vertical = p.flip_vertical;
  v.rotate_90 = p.rotate_90;  // its direction is our choice: pbe_destination (rotate.cpp)
  if (v.layout == ImageLayout::linear) {
    v.linear_stride_B =
        uint32_t(linear_stride(words, field_row<cs::Pbe>(cs::PbeField::stride),
                                    {&field_row<cs::Pbe>(cs::PbeField::page_aligned_layers),
                                     &field_row<cs::Pbe>(cs::PbeField::srgb), &field_row<cs::Pbe>(cs::PbeField::extended)})) + 4;
    v.levels = 1;
    if (p.extended && is_array(v.dim)) {
      v.layers = uint32_t(p.depth_linear);
      v.linear_layer_stride_B = p.layer_stride_linear + 0x80;
    }
  } else {
    v.levels = uint32_t(p.levels);
    v.layers = uint32_t(p.layers);
    v.page_aligned_layers = p.page_aligned_layers;
  }
  if (v.compressed) v.acceleration_buffer = p.acceleration_buffer;
  return v;
}

ImageDesc image_desc(const PbeView& p) {
  ImageDesc d = common_image_desc(p);
  d.layers = p.layers;
  d.depth_px = p.dim == Dim::d3 ? p.layers : 1;
  d.mipmapped = p.mipmapped || p.levels > 1;
  d.base = p.buffer;
  return d;
}

}  // namespace agx::gpu
