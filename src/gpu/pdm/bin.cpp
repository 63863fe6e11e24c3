// Binning: each primitive goes once into the list of every tile its
// bounding box touches, so a tile walks only its own list, in submission
// order (docs/gpu.md, "The fragment half").
#include <algorithm>

#include "gpu/pdm/pdm_internal.h"

namespace agx::gpu::pdm {

namespace {

// The tiles (of its layer) primitive i touches, as [tx0, tx1) x [ty0, ty1);
// false when none.
bool tile_range(const Command& c, uint32_t i, std::array<uint32_t, 4>& range) {
  const RasterPrimitive& r = c.prims[i];
  if (r.degenerate || c.scene->primitives[i].layer >= c.layers) return false;
  const PixelRect all{0, 0, int32_t(c.tiles_x * c.tile_w), int32_t(c.tiles_y * c.tile_h)};
  const PixelRect b = intersect(r.bounds, all);
  if (b.empty()) return false;
  range = {uint32_t(b.x0) / c.tile_w, uint32_t(b.y0) / c.tile_h, (uint32_t(b.x1) - 1) / c.tile_w + 1,
           (uint32_t(b.y1) - 1) / c.tile_h + 1};
  return true;
}

template <class Fn>
void for_each_tile(const Command& c, uint32_t i, Fn&& fn) {
  std::array<uint32_t, 4> t;
  if (!tile_range(c, i, t)) return;
  const uint64_t base = uint64_t(c.scene->primitives[i].layer) * c.tiles_x * c.tiles_y;
  for (uint32_t ty = t[1]; ty < t[3]; ++ty)
    for (uint32_t tx = t[0]; tx < t[2]; ++tx) fn(base + uint64_t(ty) * c.tiles_x + tx);
}

}  // namespace

// Two passes (count, then fill) into one array: the lists stay in
// submission order because primitives are placed in index order.
void bin_primitives(Command& c) {
  c.bin_start.assign(c.tiles() + 1, 0);
  for (uint32_t i = 0; i < c.prims.size(); ++i) for_each_tile(c, i, [&](uint64_t t) { ++c.bin_start[t + 1]; });
  for (uint64_t t = 0; t < c.tiles(); ++t) c.bin_start[t + 1] += c.bin_start[t];
  c.bins.resize(c.bin_start.back());
  std::vector<uint64_t> next(c.bin_start.begin(), c.bin_start.end() - 1);
  for (uint32_t i = 0; i < c.prims.size(); ++i) for_each_tile(c, i, [&](uint64_t t) { c.bins[next[t]++] = i; });
}

}  // namespace agx::gpu::pdm
