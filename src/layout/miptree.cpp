// Level offsets, tiles and strides of one layer, and the whole-image sizes.
// Rules: docs/layout.md, from Mesa src/asahi/layout/layout.c checked against
// Metal's allocations (Mesa src/asahi/layout/tests).
#include <algorithm>

#include "layout/internal.h"
#include "util/bits.h"

namespace agx::layout {
namespace internal {
namespace {

uint32_t blocks_x(const format::FormatInfo& f, uint32_t px) {
  return static_cast<uint32_t>(div_round_up(px, f.block_width_px));
}
uint32_t blocks_y(const format::FormatInfo& f, uint32_t px) {
  return static_cast<uint32_t>(div_round_up(px, f.block_height_px));
}

// First level where either axis in blocks is narrower than the large tile.
uint32_t find_pot_level(const Layout& l, Tile tile) {
  const auto& f = l.format();
  uint32_t w_px = static_cast<uint32_t>(align_up(l.request.width_px, f.block_width_px));
  uint32_t h_px = static_cast<uint32_t>(align_up(l.request.height_px, f.block_height_px));
  uint32_t level = 0;
  while (blocks_x(f, w_px) >= tile.width_el && blocks_y(f, h_px) >= tile.height_el) {
    ++level;
    w_px = minify(w_px, 1);
    h_px = minify(h_px, 1);
  }
  return level;
}

// Tiles of large level l: level 0's tile count shifted by 2l, plus an extra
// column / row / corner when low bits of the level-0 counts were lost.
uint64_t large_level_tiles(uint64_t stx, uint64_t sty, uint32_t level, bool& extra_column) {
  uint64_t tiles = (stx * sty) >> (2 * level);
  uint64_t low = low_mask(level);
  extra_column = (stx & low) != 0;
  bool extra_row = (sty & low) != 0;
  if (extra_column) tiles += sty >> level;
  if (extra_row) tiles += stx >> level;
  if (extra_column && extra_row) tiles += 1;
  return tiles;
}

}  // namespace

void lay_out_linear(Layout& l) {
  const Request& r = l.request;
  uint64_t row_B = uint64_t{r.width_px} * l.bytes_per_element_B;
  l.linear_stride_B =
      r.linear_stride_B ? r.linear_stride_B : static_cast<uint32_t>(align_up(row_B, kCacheLine_B));
  l.stride_el[0] = l.linear_stride_B / l.bytes_per_element_B;
  l.level_offsets_B[0] = 0;
  l.level_offsets_B[1] = align_up(uint64_t{l.linear_stride_B} * r.height_px, kCacheLine_B);
  l.mip_tail_first_level = 1;  // no tail: linear images have one level
}

void lay_out_gpu(Layout& l) {
  const auto& f = l.format();
  const uint32_t B = l.bytes_per_element_B;
  const Tile large = *max_tile(B);
  const uint32_t pot_level = std::min(find_pot_level(l, large), l.levels);
  const uint64_t stx = div_round_up(l.width_el, large.width_el);
  const uint64_t sty = div_round_up(l.height_el, large.height_el);
  // Tail dimensions are rounded to powers of two once, at the tail start.
  uint32_t pot_w, pot_h;
  if (f.block_compressed) {
    pot_w = minify(static_cast<uint32_t>(next_pow2(l.width_el)), pot_level);
    pot_h = minify(static_cast<uint32_t>(next_pow2(l.height_el)), pot_level);
  } else {
    pot_w = static_cast<uint32_t>(next_pow2(minify(l.width_el, pot_level)));
    pot_h = static_cast<uint32_t>(next_pow2(minify(l.height_el, pot_level)));
  }
  uint64_t offset_B = 0;
  for (uint32_t level = 0; level < l.levels; ++level) {
    l.level_offsets_B[level] = offset_B;
    l.stride_el[level] = l.level_width_el(level);
    uint64_t size_B;
    if (level < pot_level) {
      bool extra_column;
      size_B = large_level_tiles(stx, sty, level, extra_column) * kPage_B;
      l.tile_el[level] = large;
      if (f.block_compressed && extra_column) l.stride_el[level] += 1;
    } else {
      uint32_t w = minify(pot_w, level - pot_level), h = minify(pot_h, level - pot_level);
      size_B = uint64_t{w} * h * B;
      uint32_t side =
          f.block_compressed
              ? static_cast<uint32_t>(next_pow2(std::min(w, h)))
              : static_cast<uint32_t>(next_pow2(minify(std::min(l.width_el, l.height_el), level)));
      l.tile_el[level] = Tile{side, side};
    }
    offset_B = align_up(offset_B + size_B, kCacheLine_B);
  }
  l.level_offsets_B[l.levels] = offset_B;
  l.mip_tail_first_level = pot_level;
  l.mip_tail_stride_B = align_up(offset_B - l.level_offsets_B[pot_level], kPage_B);
}

void lay_out_twiddled(Layout& l) {
  const auto& f = l.format();
  const uint32_t pot_w = static_cast<uint32_t>(next_pow2(l.width_el));
  const uint32_t pot_h = static_cast<uint32_t>(next_pow2(l.height_el));
  uint64_t offset_B = 0;
  for (uint32_t level = 0; level < l.levels; ++level) {
    l.level_offsets_B[level] = offset_B;
    uint32_t alloc_w = minify(pot_w, level), alloc_h = minify(pot_h, level);
    uint32_t logical_w =
        f.block_compressed ? alloc_w : static_cast<uint32_t>(next_pow2(minify(l.width_el, level)));
    uint32_t logical_h =
        f.block_compressed ? alloc_h : static_cast<uint32_t>(next_pow2(minify(l.height_el, level)));
    uint32_t side = std::min(logical_w, logical_h);
    l.tile_el[level] = Tile{side, side};
    l.stride_el[level] = logical_w;
    offset_B =
        align_up(offset_B + uint64_t{alloc_w} * alloc_h * l.bytes_per_element_B, kCacheLine_B);
  }
  l.level_offsets_B[l.levels] = offset_B;
  l.mip_tail_first_level = 0;
  l.mip_tail_stride_B = align_up(offset_B, kPage_B);
}

}  // namespace internal

namespace {

using internal::lay_out_gpu;
using internal::lay_out_linear;
using internal::lay_out_twiddled;

bool needs_page_aligned_layers(const Layout& l, uint64_t miptree_B) {
  const Request& r = l.request;
  if (r.tiling == Tiling::twiddled) return true;
  if (r.tiling == Tiling::linear) return false;
  if (r.writeable_image) return true;
  // ZLS and PBE give the layer stride of layered render targets in pages.
  if (r.renderable && r.depth_px > 1) return true;
  return l.levels > 1 && miptree_B > kPage_B && (r.depth_px > 1 || l.format().depth_or_stencil());
}

void lay_out_sparse(Layout& l) {
  constexpr uint64_t kFolio_B = 256ull * kPage_B;  // 4 MiB of image per folio
  constexpr uint64_t kFolioTable_B = 2048;         // 256 entries + 256 counters, 4 B each
  l.sparse_folios_per_layer = static_cast<uint32_t>(div_round_up(l.layer_stride_B, kFolio_B));
  l.sparse_table_size_B = uint64_t{l.sparse_folios_per_layer} * l.request.depth_px * kFolioTable_B;
}

}  // namespace

Result<Layout> make_layout(const Request& request) {
  AGX_TRY(uint32_t levels, internal::validate(request));
  Layout l;
  l.request = request;
  l.levels = levels;
  const auto& f = l.format();
  l.bytes_per_element_B = f.bytes_per_block_B * request.sample_count_sa;
  l.width_el = static_cast<uint32_t>(div_round_up(request.width_px, f.block_width_px));
  l.height_el = static_cast<uint32_t>(div_round_up(request.height_px, f.block_height_px));
  switch (request.tiling) {
    case Tiling::linear:
      lay_out_linear(l);
      break;
    case Tiling::gpu:
      lay_out_gpu(l);
      break;
    case Tiling::twiddled:
      lay_out_twiddled(l);
      break;
  }
  uint64_t miptree_B = l.level_offsets_B[l.levels];
  l.page_aligned_layers = needs_page_aligned_layers(l, miptree_B);
  l.layer_stride_B = l.page_aligned_layers ? align_up(miptree_B, kPage_B) : miptree_B;
  uint64_t body_B = l.layer_stride_B * request.depth_px;
  if (request.compressed) {
    internal::lay_out_metadata(l);
    l.metadata_offset_B = body_B;
  }
  l.size_B = align_up(body_B + l.metadata_layer_stride_B * request.depth_px, kCacheLine_B);
  lay_out_sparse(l);
  return l;
}

Result<Tile> max_tile(uint32_t bytes_per_element_B) {
  // One tile fills one 16 KiB page (seed "Image layouts"; 32 and 64 B rows for
  // MSAA from Mesa src/asahi/layout/layout.c).
  switch (bytes_per_element_B) {
    case 1:
      return Tile{128, 128};
    case 2:
      return Tile{128, 64};
    case 4:
      return Tile{64, 64};
    case 8:
      return Tile{64, 32};
    case 16:
      return Tile{32, 32};
    case 32:
      return Tile{32, 16};
    case 64:
      return Tile{16, 16};
  }
  return Error::unsupported("no AGX tile holds {}-byte elements (1, 2, 4, 8, 16, 32 or 64 B)",
                            bytes_per_element_B);
}

uint32_t Layout::level_width_px(uint32_t level) const {
  return minify(request.width_px, level);
}
uint32_t Layout::level_height_px(uint32_t level) const {
  return minify(request.height_px, level);
}
uint32_t Layout::level_width_el(uint32_t level) const {
  return static_cast<uint32_t>(div_round_up(level_width_px(level), format().block_width_px));
}
uint32_t Layout::level_height_el(uint32_t level) const {
  return static_cast<uint32_t>(div_round_up(level_height_px(level), format().block_height_px));
}

}  // namespace agx::layout
