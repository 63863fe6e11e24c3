// Tilebuffer layouts (the rules are listed in tilebuffer.h).
#include "tilebuffer/tilebuffer.h"

#include <algorithm>

namespace agx::tilebuffer {
namespace {

using format::IsaFormat;

bool packed(IsaFormat f) {
  return f == IsaFormat::RGB10A2 || f == IsaFormat::SRGBA8 || f == IsaFormat::RG11B10F ||
         f == IsaFormat::RGB9E5;
}

uint32_t align_up(uint32_t v, uint32_t a) {
  return (v + a - 1) / a * a;
}

// Bytes of one pixel of `f` in a record: one element per component of the
// logical format for the per-channel ISA formats, one word for the packed
// ones (Mesa agx_tilebuffer.c: the physical format's size, times the
// logical component count when the physical format has one component).
uint32_t pixel_B(format::Format f) {
  const format::FormatInfo& fi = format::info(f);
  const uint32_t align_B = isa_format_align_B(fi.isa);
  if (packed(fi.isa)) return align_B;
  auto channels = format::channels_info(fi.channels);
  return align_B * (channels.ok() ? format::component_count(*channels) : 1u);
}

}  // namespace

uint32_t isa_format_align_B(IsaFormat f) {
  switch (f) {
    case IsaFormat::None: return 0;
    case IsaFormat::I8:
    case IsaFormat::U8NORM:
    case IsaFormat::S8NORM: return 1;
    case IsaFormat::I16:
    case IsaFormat::F16:
    case IsaFormat::U16NORM:
    case IsaFormat::S16NORM: return 2;
    case IsaFormat::I32:
    case IsaFormat::RGB10A2:
    case IsaFormat::SRGBA8:
    case IsaFormat::RG11B10F:
    case IsaFormat::RGB9E5: return 4;
  }
  return 0;
}

TileSize select_tile_size(uint32_t pixel_B) {
  if (pixel_B * 32 * 32 <= kMaxTile_B) return {32, 32};
  if (pixel_B * 32 * 16 <= kMaxTile_B) return {32, 16};
  return {16, 16};
}

IsaFormat Layout::physical(uint32_t rt) const {
  return used(rt) ? format::info(*formats[rt]).isa : IsaFormat::None;
}

uint32_t Layout::size_B(uint32_t rt) const {
  return used(rt) ? pixel_B(*formats[rt]) : 0;
}

bool Layout::supports_mask(uint32_t rt) const {
  if (!used(rt) || spilled[rt]) return false;
  const IsaFormat f = physical(rt);
  return f != IsaFormat::RGB10A2 && f != IsaFormat::RG11B10F && f != IsaFormat::RGB9E5;
}

Result<Layout> build_layout(const RenderTargets& targets, uint32_t samples, bool layered) {
  if (samples != 1 && samples != 2 && samples != 4)
    return Error::invalid_argument("tilebuffer: {} samples per pixel (1, 2 or 4)", samples);
  Layout l;
  l.formats = targets;
  l.samples = samples;
  l.layered = layered;
  std::array<uint32_t, kMaxRenderTargets> order{};
  uint32_t n = 0;
  for (uint32_t rt = 0; rt < kMaxRenderTargets; ++rt) {
    if (!targets[rt]) continue;
    if (!format::info(*targets[rt]).renderable)
      return Error::invalid_argument("tilebuffer: render target {} has format {}, which the PBE cannot render",
                                     rt, format::name(*targets[rt]));
    order[n++] = rt;
  }
  // Descending alignment, stable: no padding between targets.
  std::stable_sort(order.begin(), order.begin() + n, [&](uint32_t a, uint32_t b) {
    return isa_format_align_B(l.physical(a)) > isa_format_align_B(l.physical(b));
  });
  uint32_t offset_B = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t rt = order[i];
    const uint32_t end_B = offset_B + l.size_B(rt);
    const bool fits = end_B <= kMaxSample_B && align_up(end_B, 8) * kMinTile_px * samples <= kMaxTile_B;
    if (fits) {
      l.offset_B[rt] = offset_B;
      offset_B = end_B;
    } else {
      l.spilled[rt] = true;
    }
  }
  if (samples > 1) offset_B = std::max(offset_B, 1u);  // MSAA needs a record
  l.sample_size_B = align_up(offset_B, 8);
  l.tile = select_tile_size(l.sample_size_B * samples);
  return l;
}

cmdstream::UscShared usc_shared(const Layout& layout) {
  cmdstream::UscShared w;
  w.uses_shared_memory = true;
  w.layout = layout.tile == TileSize{32, 32}   ? cmdstream::SharedLayout::k32x32
             : layout.tile == TileSize{32, 16} ? cmdstream::SharedLayout::k32x16
                                               : cmdstream::SharedLayout::k16x16;
  w.sample_stride_in_8_bytes = layout.sample_size_B / 8;
  w.sample_count = layout.samples;
  w.bytes_per_threadgroup = layout.total_B();
  return w;
}

cmdstream::UscShared usc_shared_without_tilebuffer() {
  cmdstream::UscShared w;
  w.uses_shared_memory = false;
  w.layout = cmdstream::SharedLayout::kVertexCompute;
  w.bytes_per_threadgroup = 65536;
  return w;
}

}  // namespace agx::tilebuffer
