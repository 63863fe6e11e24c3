// Fuzzes layout requests with random parameters: every request is a layout
// or a clean error; a layout's element addresses stay inside it, and a
// (small) level survives a tile/detile round trip.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "layout/layout.h"

namespace {

struct Bytes {
  const uint8_t* p;
  size_t n;
  uint32_t take(unsigned bytes) {
    uint32_t v = 0;
    for (unsigned i = 0; i < bytes && n; ++i, ++p, --n) v |= uint32_t{*p} << (8 * i);
    return v;
  }
};

void check_layout(const agx::layout::Layout& l, Bytes& in) {
  using namespace agx::layout;
  if (l.size_B == 0 || l.level_offsets_B[l.levels] > l.layer_stride_B) __builtin_trap();
  for (uint32_t level = 0; level < l.levels; ++level) {
    uint32_t w = l.level_width_px(level), h = l.level_height_px(level);
    uint32_t layer = l.request.depth_px - 1;
    for (auto [x, y] : {std::pair{0u, 0u}, std::pair{w - 1, h - 1}, std::pair{w - 1, 0u}}) {
      auto a = element_address_B(l, x, y, layer, level, l.request.sample_count_sa - 1);
      if (!a.ok() || *a >= l.size_B) __builtin_trap();
    }
    if (element_address_B(l, w, 0, 0, level).ok()) __builtin_trap();
  }
  if (l.size_B > (1u << 18) || l.request.depth_px > 4) return;
  uint32_t level = in.take(1) % l.levels;
  if (l.level_logically_compressed(level)) return;
  const uint32_t E = l.bytes_per_element_B;
  const uint64_t pitch = uint64_t{l.level_width_el(level)} * E + in.take(1) % 3 * 16;
  std::vector<uint8_t> lin(pitch * l.level_height_el(level)), back(lin.size()), image(l.size_B);
  for (size_t i = 0; i < lin.size(); ++i) lin[i] = static_cast<uint8_t>(i * 7 + (i >> 8));
  Rect r = level_rect(l, level);
  if (!tile(l, level, 0, image, lin, pitch, r).ok()) __builtin_trap();
  if (!detile(l, level, 0, image, back, pitch, r).ok()) __builtin_trap();
  for (uint32_t y = 0; y < l.level_height_el(level); ++y)
    if (std::memcmp(&lin[y * pitch], &back[y * pitch], l.level_width_el(level) * E) != 0)
      __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace agx::layout;
  Bytes in{data, size};
  auto formats = agx::format::all_formats();
  Request r;
  r.format = formats[in.take(1) % formats.size()].format;
  r.width_px = in.take(2) % 20000;
  r.height_px = in.take(2) % 20000;
  r.depth_px = in.take(1) % 9;
  r.levels = in.take(1) % 18;
  r.sample_count_sa = in.take(1) % 6;
  uint32_t flags = in.take(1);
  r.tiling = static_cast<Tiling>(flags % 3);
  r.compressed = flags & 4;
  r.mipmapped_z = flags & 8;
  r.writeable_image = flags & 16;
  r.renderable = flags & 32;
  r.linear_stride_B = (flags & 64) ? in.take(2) : 0;
  auto l = make_layout(r);
  if (!l.ok()) {
    if (l.error().message().empty()) __builtin_trap();
    return 0;
  }
  check_layout(*l, in);
  return 0;
}
