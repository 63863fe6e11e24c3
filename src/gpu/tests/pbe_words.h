// Test helper: a PBE descriptor for a test image, packed with the
// cmdstream tables as Mesa's pack_pbe does (hk_image_view.c): level-0 size,
// the first layer's address; a stride for linear images, else the level
// and layer ranges.
#pragma once

#include <vector>

#include "cmdstream/cmdstream.h"
#include "texture_helpers.h"

namespace agx::gpu::test {

// The fields a Texture and a PBE descriptor of the image share: dimension,
// layout, format, identity swizzle, level-0 size.
template <class D>
void shared_descriptor_fields(D& d, const TestImage& img, cmdstream::TextureDimension dim, cmdstream::Layout layout) {
  d.dimension = dim;
  d.layout = layout;
  d.channels = img.pbe.channels;
  d.type = img.pbe.type;
  d.swizzle_r = cmdstream::Channel::kR;
  d.swizzle_g = cmdstream::Channel::kG;
  d.swizzle_b = cmdstream::Channel::kB;
  d.swizzle_a = cmdstream::Channel::kA;
  d.width = img.pbe.width_px;
  d.height = img.pbe.height_px;
}

inline std::vector<uint8_t> pbe_words(const TestImage& img, cmdstream::TextureDimension dim, cmdstream::Layout layout) {
  cmdstream::Pbe p;
  shared_descriptor_fields(p, img, dim, layout);
  p.buffer = img.va;
  p.unk_mipmapped = img.pbe.mipmapped;
  if (layout == cmdstream::Layout::kLinear) {
    p.stride = img.layout.linear_stride_B - 4;
  } else {
    p.levels = img.pbe.levels;
    p.layers = img.pbe.layers;
    p.page_aligned_layers = img.pbe.page_aligned_layers;
  }
  auto b = cmdstream::pack(p);
  EXPECT_TRUE(b.ok()) << (b.ok() ? "" : b.error().message());
  return b.ok() ? *b : std::vector<uint8_t>(24);
}

}  // namespace agx::gpu::test
