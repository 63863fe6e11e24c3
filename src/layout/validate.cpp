// Which requests can be laid out. Restrictions: Mesa src/asahi/layout
// (layout.h comments and asserts) and the seed's "Strided linear" list.
#include <algorithm>

#include "layout/internal.h"
#include "util/bits.h"

namespace agx::layout::internal {
namespace {

Status check_sizes(const Request& r, const format::FormatInfo& f) {
  if (r.width_px == 0 || r.height_px == 0 || r.depth_px == 0)
    return Error::invalid_argument("zero size {}x{}x{}: every dimension must be at least 1",
                                   r.width_px, r.height_px, r.depth_px);
  uint32_t max_w = r.tiling == Tiling::linear ? kMaxLinearWidth_px : kMaxDimension_px;
  if (r.width_px > max_w)
    return Error::invalid_argument("width {} px exceeds the maximum {} px", r.width_px, max_w);
  if (r.height_px > kMaxDimension_px)
    return Error::invalid_argument("height {} px exceeds the maximum {} px", r.height_px,
                                   kMaxDimension_px);
  if (r.depth_px > kMaxDimension_px)
    return Error::invalid_argument("depth {} exceeds the maximum {}", r.depth_px, kMaxDimension_px);
  if (r.sample_count_sa != 1 && r.sample_count_sa != 2 && r.sample_count_sa != 4)
    return Error::invalid_argument("unsupported sample count {}: AGX supports 1, 2 or 4",
                                   r.sample_count_sa);
  if (r.sample_count_sa > 1 && f.block_compressed)
    return Error::invalid_argument("{} is block-compressed and cannot be multisampled", f.name);
  return {};
}

Status check_format(const format::FormatInfo& f) {
  if (f.lowered)
    return Error::unsupported("{} must be lowered to Z32_FLOAT + S8_UINT before it is laid out",
                              f.name);
  if (f.buffer_only)
    return Error::unsupported("{} is emulated for texture buffers only, not images", f.name);
  return {};
}

Status check_linear(const Request& r, const format::FormatInfo& f, uint32_t levels) {
  if (levels > 1)
    return Error::invalid_argument("linear images cannot be mipmapped ({} levels)", r.levels);
  if (r.sample_count_sa > 1) return Error::invalid_argument("linear images cannot be multisampled");
  if (f.block_compressed)
    return Error::invalid_argument("linear images cannot use block-compressed format {}", f.name);
  if (r.mipmapped_z && r.depth_px > 1)
    return Error::invalid_argument("3D images cannot be linear (only 1D, 2D and 2D arrays)");
  if (r.compressed) return Error::invalid_argument("compression needs a tiled layout, not linear");
  if (r.linear_stride_B != 0) {
    if (r.linear_stride_B % 16 != 0)
      return Error::invalid_argument("linear stride {} B is not a multiple of 16 B",
                                     r.linear_stride_B);
    uint64_t row_B = uint64_t{r.width_px} * f.bytes_per_block_B;
    if (r.linear_stride_B < row_B)
      return Error::invalid_argument("linear stride {} B is less than a row ({} B)",
                                     r.linear_stride_B, row_B);
  }
  return {};
}

Status check_compression(const Request& r, const format::FormatInfo& f) {
  if (f.block_compressed)
    return Error::invalid_argument("compression is not possible with block-compressed format {}",
                                   f.name);
  if (!f.compressible())
    return Error::invalid_argument(
        "compression needs a format the PBE can write or a depth/stencil format; {} is neither",
        f.name);
  if (r.writeable_image) return Error::invalid_argument("writeable images cannot be compressed");
  uint32_t w = effective_width_sa(r.width_px, r.sample_count_sa);
  uint32_t h = effective_height_sa(r.height_px, r.sample_count_sa);
  if (w < 16 || h < 16)
    return Error::invalid_argument(
        "compression needs at least 16x16 samples; {}x{} px at {} samples is {}x{}", r.width_px,
        r.height_px, r.sample_count_sa, w, h);
  return {};
}

}  // namespace

Result<uint32_t> validate(const Request& r) {
  const auto& f = format::info(r.format);
  AGX_CHECK(check_format(f));
  AGX_CHECK(check_sizes(r, f));
  if (r.tiling != Tiling::linear && r.linear_stride_B != 0)
    return Error::invalid_argument("a linear stride is only meaningful for linear tiling");
  uint32_t extent = std::max(r.width_px, r.height_px);
  if (r.mipmapped_z) extent = std::max(extent, r.depth_px);
  uint32_t full_chain = log2_floor(extent) + 1;
  if (r.levels == 0) return Error::invalid_argument("levels must be at least 1");
  if (r.levels > full_chain)
    return Error::invalid_argument(
        "{} levels requested but a {}x{}{} image has at most {}", r.levels, r.width_px, r.height_px,
        r.mipmapped_z ? fmt::format("x{} 3D", r.depth_px) : "", full_chain);
  // Hardware strides assume the whole chain (Mesa src/asahi/layout/layout.c).
  uint32_t levels = r.levels > 1 ? full_chain : 1;
  if (r.sample_count_sa > 1 && levels > 1)
    return Error::invalid_argument("multisampled images have a single level, not {}", r.levels);
  if (r.tiling == Tiling::linear) AGX_CHECK(check_linear(r, f, levels));
  if (r.compressed) AGX_CHECK(check_compression(r, f));
  AGX_TRY(Tile t, max_tile(f.bytes_per_block_B * r.sample_count_sa));
  (void)t;
  return levels;
}

}  // namespace agx::layout::internal
