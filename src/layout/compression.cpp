// Lossless-compression metadata: one 8-byte word per 16x16-sample tile, laid
// out fully twiddled (power-of-two padded), per level, per layer, after all
// layers' bodies. Rules: Mesa src/asahi/layout/layout.c and layout.h, checked
// against Metal's allocations (Mesa src/asahi/layout/tests, comp-twiddled.txt
// and msaa.txt).
#include <algorithm>

#include "layout/internal.h"
#include "util/bits.h"

namespace agx::layout {
namespace internal {

void lay_out_metadata(Layout& l) {
  const Request& r = l.request;
  uint32_t w =
      static_cast<uint32_t>(align_up(effective_width_sa(r.width_px, r.sample_count_sa), 16));
  uint32_t h =
      static_cast<uint32_t>(align_up(effective_height_sa(r.height_px, r.sample_count_sa), 16));
  const uint32_t extent0 = std::max(w, h);
  uint64_t offset_B = 0;
  uint32_t level = 0;
  for (; level < l.levels && minify(extent0, level) >= 16; ++level) {
    l.metadata_level_offsets_B[level] = offset_B;
    uint64_t tiles = div_round_up(next_pow2(w), 16) * div_round_up(next_pow2(h), 16);
    offset_B += align_up(tiles * 8, kCacheLine_B);
    w = static_cast<uint32_t>(div_round_up(w, 2));
    h = static_cast<uint32_t>(div_round_up(h, 2));
  }
  l.metadata_levels = level;
  l.metadata_layer_stride_B = offset_B;
}

}  // namespace internal

bool Layout::level_allocated_compressed(uint32_t level) const {
  return request.compressed && level < metadata_levels;
}

bool Layout::level_logically_compressed(uint32_t level) const {
  if (!request.compressed) return false;
  uint32_t w = internal::effective_width_sa(request.width_px, request.sample_count_sa);
  uint32_t h = internal::effective_height_sa(request.height_px, request.sample_count_sa);
  return minify(std::min(w, h), level) >= 16;
}

}  // namespace agx::layout
