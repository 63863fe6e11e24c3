// Shared by the layout unit's .cpp files; never included outside src/layout.
#pragma once

#include "layout/layout.h"

namespace agx::layout::internal {

// Checks a request and returns the level count to allocate.
Result<uint32_t> validate(const Request& r);

// Fill level offsets, tiles and strides of one layer (miptree.cpp).
void lay_out_linear(Layout& l);
void lay_out_gpu(Layout& l);
void lay_out_twiddled(Layout& l);

// Metadata levels, offsets and layer stride (compression.cpp).
void lay_out_metadata(Layout& l);

// An error if `level` or `layer` is outside the image (address.cpp).
Status check_level_layer(const Layout& l, uint32_t level, uint32_t layer);

// Effective sample-grid size: 2x MSAA stores samples 1x2, 4x MSAA 2x2.
inline uint32_t effective_width_sa(uint32_t width_px, uint32_t samples) {
  return width_px * (samples == 4 ? 2 : 1);
}
inline uint32_t effective_height_sa(uint32_t height_px, uint32_t samples) {
  return height_px * (samples >= 2 ? 2 : 1);
}

// Morton offset (in elements) of (x, y) inside a tile of 2^log2_w x 2^log2_h
// elements: the low min() bits of x and y interleave (x in even bits); the
// remaining bits of the longer axis sit above them.
inline uint64_t morton_in_tile(uint32_t x, uint32_t y, unsigned log2_w, unsigned log2_h);

}  // namespace agx::layout::internal

#include "util/morton.h"

namespace agx::layout::internal {

inline uint64_t morton_in_tile(uint32_t x, uint32_t y, unsigned log2_w, unsigned log2_h) {
  unsigned m = log2_w < log2_h ? log2_w : log2_h;
  uint32_t low_mask = (1u << m) - 1;
  uint64_t low = morton_interleave(x & low_mask, y & low_mask);
  uint64_t high = log2_w > log2_h ? (x >> m) : (y >> m);
  return low | (high << (2 * m));
}

}  // namespace agx::layout::internal
