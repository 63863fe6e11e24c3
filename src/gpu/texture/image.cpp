// Image geometry for the texture unit and the PBE: which bytes hold a texel
// of a level, layer and sample, through the `layout` unit (GPU-tiled and
// twiddled levels) or the descriptor's strides (linear).
#include <algorithm>
#include <cstring>

#include "gpu/texture/texture_internal.h"

namespace agx::gpu::internal {
namespace {

uint32_t storage_layers(Dim dim, uint32_t depth) {
  if (dim == Dim::cube || dim == Dim::cube_array) return depth * 6;
  return depth;
}

// A format of the class, for the layout unit (which needs only its size).
Result<format::Format> representative(format::Channels c) {
  for (const format::FormatInfo& f : format::all_formats())
    if (f.channels == c && !f.lowered && !f.depth_or_stencil()) return f.format;
  AGX_TRY(format::ChannelsInfo ci, format::channels_info(c));
  return Error::unsupported("no format of class {} to lay out", ci.name);
}

}  // namespace

Result<std::unique_ptr<TextureUnit::Image>> make_image(GpuMemory& memory, const ImageDesc& d) {
  auto img = std::make_unique<TextureUnit::Image>();
  img->desc = d;
  AGX_TRY(format::ChannelsInfo ci, format::channels_info(d.channels));
  if (d.samples != 1 && d.samples != 2 && d.samples != 4)
    return Error::decode("image with {} samples (1, 2 or 4)", d.samples);
  if (d.layers == 0 || d.width_px == 0 || d.height_px == 0)
    return Error::decode("empty image {}x{} with {} layers", d.width_px, d.height_px, d.layers);
  img->bytes_per_sample_B = ci.bytes_B;
  img->bytes_per_element_B = ci.bytes_B * d.samples;
  const uint32_t bw = ci.block_width_px, bh = ci.block_height_px;
  if (d.channels == format::Channels::PVRTC_2BPP || d.channels == format::Channels::PVRTC_4BPP)
    AGX_CHECK(pvrtc_check_image(d));

  if (d.layout == ImageLayout::interchange)
    return Error::unsupported("the interchange image layout is not public");

  if (d.layout == ImageLayout::linear) {
    if (d.compressed) return Error::decode("compressed image with the linear layout");
    if (d.samples != 1 || d.mipmapped || d.dim == Dim::d3)
      return Error::decode("linear image with {} samples, {} levels or 3D: not a linear layout",
                           d.samples, d.mipmapped ? "several" : "one");
    const uint64_t row_B = uint64_t((d.width_px + bw - 1) / bw) * ci.bytes_B;
    if (d.linear_stride_B < row_B)
      return Error::decode("linear stride {} B is shorter than a row of {} B", d.linear_stride_B,
                           row_B);
    img->levels = 1;
    const uint64_t rows = (d.height_px + bh - 1) / bh;
    img->layer_stride_B = d.layers > 1 ? d.linear_layer_stride_B : d.linear_stride_B * rows;
    if (d.layers > 1 && img->layer_stride_B < d.linear_stride_B * rows)
      return Error::decode("linear layer stride {} B is shorter than a layer of {} B",
                           img->layer_stride_B, d.linear_stride_B * rows);
    img->size_B = img->layer_stride_B * (d.layers - 1) + d.linear_stride_B * rows;
    auto& xo = img->xoff[0];
    auto& yo = img->yoff[0];
    xo.resize((d.width_px + bw - 1) / bw);
    yo.resize(rows);
    for (size_t x = 0; x < xo.size(); ++x) xo[x] = x * img->bytes_per_element_B;
    for (size_t y = 0; y < yo.size(); ++y) yo[y] = y * uint64_t(d.linear_stride_B);
  } else {
    const bool ycbcr = d.channels == format::Channels::GBGR_422 ||
                       d.channels == format::Channels::BGRG_422;
    layout::Request r;
    r.width_px = d.width_px;
    if (ycbcr) {
      // No format of these classes to lay out: a level of 2x1-pixel 4-byte
      // elements is laid out as a plain 4-byte image half as wide (Metal
      // allows them only 2D, one level).
      if (d.mipmapped || d.dim != Dim::d2 || d.samples != 1 || d.compressed)
        return Error::decode("{} image: 2D, one level, one sample, uncompressed only (Metal)",
                             ci.name);
      r.format = format::Format::R32_UINT;
      r.width_px = (d.width_px + 1) / 2;
    } else {
      AGX_TRY(format::Format fmt, representative(d.channels));
      r.format = fmt;
    }
    r.height_px = d.height_px;
    r.depth_px = d.layers;
    r.levels = d.mipmapped ? layout::kMaxLevels : 1;
    r.sample_count_sa = d.samples;
    r.tiling = d.layout == ImageLayout::gpu ? layout::Tiling::gpu : layout::Tiling::twiddled;
    r.mipmapped_z = d.dim == Dim::d3;
    r.compressed = d.compressed;  // the body is laid out alike; metadata follows
    if (d.mipmapped) {
      // The full chain: as many levels as the largest dimension allows.
      uint32_t m = std::max(d.width_px, d.height_px);
      if (r.mipmapped_z) m = std::max(m, d.depth_px);
      r.levels = 1;
      while ((m >> r.levels) != 0) ++r.levels;
    }
    AGX_TRY(layout::Layout l, layout::make_layout(r));
    img->levels = l.levels;
    const uint64_t end_B = l.level_offsets_B[l.levels];
    img->layer_stride_B =
        d.page_aligned_layers ? (end_B + layout::kPage_B - 1) / layout::kPage_B * layout::kPage_B
                              : end_B;
    img->size_B = img->layer_stride_B * d.layers;
    for (uint32_t lv = 0; lv < l.levels; ++lv) {
      img->level_offset_B[lv] = l.level_offsets_B[lv];
      const uint32_t w_el = l.level_width_el(lv), h_el = l.level_height_el(lv);
      auto& xo = img->xoff[lv];
      auto& yo = img->yoff[lv];
      xo.resize(w_el);
      yo.resize(h_el);
      for (uint32_t x = 0; x < w_el; ++x)
        xo[x] = layout::tiled_offset_el(l, lv, x, 0) * img->bytes_per_element_B;
      for (uint32_t y = 0; y < h_el; ++y)
        yo[y] = layout::tiled_offset_el(l, lv, 0, y) * img->bytes_per_element_B;
    }
    if (d.compressed) AGX_CHECK(lay_out_compression(*img, l));
  }
  if (d.base + img->size_B < d.base)
    return Error::decode("image at 0x{:x} of {} B wraps the address space", d.base, img->size_B);
  img->host = memory.host_pointer(d.base, img->size_B, Access::write);
  img->host_writable = img->host != nullptr;
  if (img->host == nullptr) img->host = memory.host_pointer(d.base, img->size_B, Access::read);
  return img;
}

Status read_texel(GpuMemory& memory, const TextureUnit::Image& image, uint64_t offset_B,
                  uint8_t* out, uint32_t size_B) {
  if (image.host != nullptr) {
    std::memcpy(out, image.host + offset_B, size_B);
    return {};
  }
  GpuFault fault;
  if (!memory.read(image.desc.base + offset_B, out, size_B, GpuUnit::texture, &fault))
    return Error::fault("texture read: {}", describe(fault));
  return {};
}

Status write_texel(GpuMemory& memory, const TextureUnit::Image& image, uint64_t offset_B,
                   const uint8_t* in, uint32_t size_B) {
  if (image.host != nullptr && image.host_writable) {
    std::memcpy(image.host + offset_B, in, size_B);
    return {};
  }
  GpuFault fault;
  if (!memory.write(image.desc.base + offset_B, in, size_B, GpuUnit::pbe, &fault))
    return Error::fault("PBE write: {}", describe(fault));
  return {};
}

}  // namespace agx::gpu::internal

namespace agx::gpu {

ImageDesc image_desc(const TextureView& t) {
  ImageDesc d = common_image_desc(t);
  d.layers = t.dim == Dim::d3 ? t.depth : internal::storage_layers(t.dim, t.depth);
  d.depth_px = t.dim == Dim::d3 ? t.depth : 1;
  d.mipmapped = t.mipmapped || t.last_level > 0;
  d.base = t.address;
  return d;
}

Result<std::optional<ImageLevel>> image_level(TextureUnit& unit, const ImageDesc& desc, uint32_t level) {
  AGX_TRY(const TextureUnit::Image* img, unit.internal_image(desc));
  if (level >= img->levels) return std::optional<ImageLevel>();
  return std::optional<ImageLevel>(
      ImageLevel{img, level, LevelExtent{img->width(level), img->height(level), img->depth(level)}});
}

Status store_image_texel(TextureUnit& unit, const ImageLevel& t, const TexelFormat& fmt, uint32_t x, uint32_t y,
                         uint32_t layer, uint32_t sample, const uint8_t* bytes) {
  const TextureUnit::Image& img = *t.image;
  if (img.metadata_levels != 0)
    return internal::store_texel(unit.memory(), img, x, y, layer, t.level, sample, bytes);
  return internal::write_texel(unit.memory(), img, img.offset_B(x, y, layer, t.level, sample), bytes, fmt.bytes);
}

}  // namespace agx::gpu
