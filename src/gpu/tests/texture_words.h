// Test helper: a Texture descriptor for a test image, packed with the
// cmdstream tables as Mesa's pack_texture does (hk_image_view.c), and a
// Sampler's words.
#pragma once

#include <vector>

#include "cmdstream/cmdstream.h"
#include "pbe_words.h"
#include "texture_helpers.h"

namespace agx::gpu::test {

inline std::vector<uint8_t> texture_words(const TestImage& img, cmdstream::TextureDimension dim,
                                          cmdstream::Layout layout) {
  cmdstream::Texture t;
  shared_descriptor_fields(t, img, dim, layout);
  t.first_level = 0;
  t.last_level = img.tex.last_level;
  t.address = img.va;
  t.unk_mipmapped = img.tex.mipmapped;
  t.srgb = img.tex.srgb;
  if (layout == cmdstream::Layout::kLinear) {
    t.stride = img.layout.linear_stride_B - 16;
  } else {
    t.depth = img.tex.depth;
    t.page_aligned_layers = img.tex.page_aligned_layers;
  }
  auto b = cmdstream::pack(t);
  EXPECT_TRUE(b.ok()) << (b.ok() ? "" : b.error().message());
  return b.ok() ? *b : std::vector<uint8_t>(24);
}

inline std::vector<uint8_t> sampler_words(const cmdstream::Sampler& s) {
  auto b = cmdstream::pack(s);
  EXPECT_TRUE(b.ok());
  return b.ok() ? *b : std::vector<uint8_t>(8);
}

}  // namespace agx::gpu::test
