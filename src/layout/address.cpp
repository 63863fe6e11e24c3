// Byte address of an element. GPU-tiled and twiddled levels: tiles in raster
// order, Morton order inside a tile (seed "Image layouts"; Mesa
// src/asahi/layout/layout.h). Linear: rows of linear_stride_B.
#include "layout/internal.h"
#include "util/bits.h"

namespace agx::layout {

uint64_t tiled_offset_el(const Layout& l, uint32_t level, uint32_t x_el, uint32_t y_el) {
  const Tile t = l.tile_el[level];
  const unsigned lw = log2_floor(t.width_el), lh = log2_floor(t.height_el);
  const uint64_t tiles_per_row = div_round_up(l.stride_el[level], t.width_el);
  const uint64_t tile_index = uint64_t{y_el >> lh} * tiles_per_row + (x_el >> lw);
  const uint64_t inside =
      internal::morton_in_tile(x_el & (t.width_el - 1), y_el & (t.height_el - 1), lw, lh);
  return (tile_index << (lw + lh)) + inside;
}

Status internal::check_level_layer(const Layout& l, uint32_t level, uint32_t layer) {
  if (level >= l.levels)
    return Error::invalid_argument("level {} out of range: the image has {} levels", level,
                                   l.levels);
  if (layer >= l.request.depth_px)
    return Error::invalid_argument("layer {} out of range: the image has {} layers", layer,
                                   l.request.depth_px);
  return {};
}

Result<uint64_t> element_address_B(const Layout& l, uint32_t x_px, uint32_t y_px, uint32_t layer,
                                   uint32_t level, uint32_t sample) {
  AGX_CHECK(internal::check_level_layer(l, level, layer));
  if (sample >= l.request.sample_count_sa)
    return Error::invalid_argument("sample {} out of range: the image has {} samples", sample,
                                   l.request.sample_count_sa);
  if (x_px >= l.level_width_px(level) || y_px >= l.level_height_px(level))
    return Error::invalid_argument("pixel ({}, {}) is outside level {} ({}x{} px)", x_px, y_px,
                                   level, l.level_width_px(level), l.level_height_px(level));
  const auto& f = l.format();
  const uint32_t x_el = x_px / f.block_width_px, y_el = y_px / f.block_height_px;
  const uint64_t base_B = uint64_t{layer} * l.layer_stride_B + l.level_offsets_B[level];
  const uint64_t sample_B = uint64_t{sample} * f.bytes_per_block_B;
  if (l.request.tiling == Tiling::linear)
    return base_B + uint64_t{y_el} * l.linear_stride_B + uint64_t{x_el} * l.bytes_per_element_B +
           sample_B;
  return base_B + tiled_offset_el(l, level, x_el, y_el) * l.bytes_per_element_B + sample_B;
}

}  // namespace agx::layout
