#include "runtime/image.h"

#include <cstring>

#include "cmdstream/cmdstream.h"

namespace agx::runtime {

namespace cs = agx::cmdstream;

Result<std::unique_ptr<Image>> Image::create(Device& device, const layout::Request& request, std::string label) {
  return create(device, ImageDim::d2, request, std::move(label));
}

namespace {

// What `dim` asks of a request (GL's rules for the image's shape).
Status check_shape(ImageDim dim, const layout::Request& r, const std::string& label) {
  const char* name = compiler::image_dim_name(dim);
  const bool ms = dim == ImageDim::d2_ms || dim == ImageDim::d2_ms_array;
  const bool one_layer = dim == ImageDim::d1 || dim == ImageDim::d2 || dim == ImageDim::d2_ms;
  if ((dim == ImageDim::d1 || dim == ImageDim::d1_array) && r.height_px != 1)
    return Error::invalid_argument("{}: a {} image is 1 texel high, not {}", label, name, r.height_px);
  if (one_layer && r.depth_px != 1)
    return Error::invalid_argument("{}: a {} image has one layer, not {}", label, name, r.depth_px);
  if (dim == ImageDim::cube || dim == ImageDim::cube_array) {
    if (r.width_px != r.height_px)
      return Error::invalid_argument("{}: cube faces are square, not {}x{}", label, r.width_px, r.height_px);
    if (r.depth_px % 6 != 0 || (dim == ImageDim::cube && r.depth_px != 6))
      return Error::invalid_argument("{}: a {} image has 6 faces per cube, not {} layers", label, name, r.depth_px);
  }
  if (ms != (r.sample_count_sa > 1))
    return Error::invalid_argument("{}: a {} image with {} samples", label, name, r.sample_count_sa);
  if (ms && r.levels != 1) return Error::invalid_argument("{}: multisampled images have one level", label);
  if (dim == ImageDim::buffer) return Error::invalid_argument("{}: buffer images are made by create_texel_buffer", label);
  return {};
}

}  // namespace

Result<std::unique_ptr<Image>> Image::create(Device& device, ImageDim dim, const layout::Request& request,
                                             std::string label) {
  AGX_CHECK(check_shape(dim, request, label));
  layout::Request r = request;
  r.mipmapped_z = dim == ImageDim::d3;  // the texture unit lays 3D chains out so
  return make(device, dim, r, 0, std::move(label));
}

Result<std::unique_ptr<Image>> Image::make(Device& device, ImageDim dim, const layout::Request& r, uint32_t texels,
                                           std::string label) {
  std::unique_ptr<Image> img(new Image());
  img->dim_ = dim;
  img->texels_ = texels;
  auto l = layout::make_layout(r);
  if (!l.ok()) return std::move(l).error().context(label);
  img->layout_ = std::move(l).value();
  AGX_TRY(img->buffer_, device.create_buffer(img->layout_.size_B, std::move(label)));
  return img;
}

Result<std::unique_ptr<Image>> Image::create_texel_buffer(Device& device, format::Format format, uint32_t texels,
                                                          std::string label) {
  constexpr uint32_t kRow_px = 1024;  // Mesa's buffer-texture width (docs/compiler.md)
  if (texels == 0) return Error::invalid_argument("{}: a texel buffer of 0 texels", label);
  const format::FormatInfo& f = format::info(format);
  if (f.block_width_px != 1 || f.block_height_px != 1)
    return Error::invalid_argument("{}: texel buffers of block-compressed {}", label, f.name);
  layout::Request r;
  r.format = format;
  r.width_px = kRow_px;
  r.height_px = (texels + kRow_px - 1) / kRow_px;
  r.tiling = layout::Tiling::linear;
  r.linear_stride_B = kRow_px * f.bytes_per_block_B;
  return make(device, ImageDim::buffer, r, texels, std::move(label));
}

uint32_t Image::layers() const {
  switch (dim_) {
    case ImageDim::d1_array: case ImageDim::d2_array: case ImageDim::d2_ms_array: case ImageDim::d3:
      return layout_.request.depth_px;
    case ImageDim::cube_array: return layout_.request.depth_px / 6;
    default: return 1;
  }
}

std::array<uint32_t, 4> Image::size_query() const {
  const uint32_t w = width_px(), h = height_px(), n = layers(), s = samples();
  switch (dim_) {
    case ImageDim::d1: return {w, 0, 0, s};
    case ImageDim::buffer: return {texels_, 0, 0, s};
    case ImageDim::d1_array: return {w, n, 0, s};
    case ImageDim::d2: case ImageDim::d2_ms: case ImageDim::cube: return {w, h, 0, s};
    case ImageDim::d2_array: case ImageDim::d2_ms_array: case ImageDim::d3: case ImageDim::cube_array:
      return {w, h, n, s};
  }
  return {w, h, 0, s};
}

Status Image::upload(std::span<const uint8_t> linear, uint64_t pitch_B, uint32_t level, uint32_t layer) {
  if (level >= layout_.levels) return Error::invalid_argument("{}: level {} of {}", buffer_->label(), level, layout_.levels);
  return layout::tile(layout_, level, layer, buffer_->host(), linear, pitch_B, layout::level_rect(layout_, level));
}

Status Image::download(std::span<uint8_t> linear, uint64_t pitch_B, uint32_t level, uint32_t layer) const {
  if (level >= layout_.levels) return Error::invalid_argument("{}: level {} of {}", buffer_->label(), level, layout_.levels);
  return layout::detile(layout_, level, layer, buffer_->host(), linear, pitch_B, layout::level_rect(layout_, level));
}

Status Image::check_descriptor_support() const {
  const auto& r = layout_.request;
  if (r.compressed) return Error::unsupported("{}: descriptors of compressed images", buffer_->label());
  if (r.tiling == layout::Tiling::linear && (dim_ != ImageDim::d2 && dim_ != ImageDim::buffer))
    return Error::unsupported("{}: descriptors of linear {} images (only 2D and buffer images may be linear)",
                              buffer_->label(), compiler::image_dim_name(dim_));
  if (r.tiling == layout::Tiling::linear && layout_.levels != 1)
    return Error::unsupported("{}: descriptors of linear images with {} levels", buffer_->label(), layout_.levels);
  return {};
}

namespace {

cs::Layout descriptor_layout(layout::Tiling t) {
  switch (t) {
    case layout::Tiling::twiddled: return cs::Layout::kTwiddled;
    case layout::Tiling::linear: return cs::Layout::kLinear;
    case layout::Tiling::gpu: break;
  }
  return cs::Layout::kGpu;
}

// The descriptor dimension of `dim`: cubes read or written through an
// image unit are 2D arrays of faces, buffer images 2D images (Mesa's
// lowering, which the compiler follows).
cs::TextureDimension descriptor_dim(ImageDim dim, bool storage) {
  switch (dim) {
    case ImageDim::d1: return cs::TextureDimension::k1D;
    case ImageDim::d1_array: return cs::TextureDimension::k1DArray;
    case ImageDim::d2: case ImageDim::buffer: return cs::TextureDimension::k2D;
    case ImageDim::d2_array: return cs::TextureDimension::k2DArray;
    case ImageDim::d2_ms: return cs::TextureDimension::k2DMultisampled;
    case ImageDim::d2_ms_array: return cs::TextureDimension::k2DArrayMultisampled;
    case ImageDim::d3: return cs::TextureDimension::k3D;
    case ImageDim::cube: return storage ? cs::TextureDimension::k2DArray : cs::TextureDimension::kCube;
    case ImageDim::cube_array: return storage ? cs::TextureDimension::k2DArray : cs::TextureDimension::kCubeArray;
  }
  return cs::TextureDimension::k2D;
}

// The words a Texture and a PBE descriptor (cmdbuf.xml) fill alike: the
// image's dimension, layout, format, identity swizzle, size and samples.
template <class Descriptor>
void fill_common(Descriptor& d, ImageDim dim, bool storage, const layout::Layout& l) {
  const auto& f = l.format();
  const auto& r = l.request;
  d.dimension = descriptor_dim(dim, storage);
  d.layout = descriptor_layout(r.tiling);
  d.channels = f.channels;
  d.type = f.type;
  d.swizzle_r = cs::Channel::kR;
  d.swizzle_g = cs::Channel::kG;
  d.swizzle_b = cs::Channel::kB;
  d.swizzle_a = cs::Channel::kA;
  d.width = r.width_px;
  d.height = r.height_px;
  d.unk_mipmapped = l.levels > 1;
  d.mode = cs::ImageMode::kNormal;
  d.srgb = f.srgb;
  if (r.sample_count_sa == 4) d.samples = cs::SampleCount::k4;
  else if (r.sample_count_sa == 2) d.samples = cs::SampleCount::k2;
}

std::array<uint32_t, 6> words_of(const std::vector<uint8_t>& bytes) {
  std::array<uint32_t, 6> w{};
  std::memcpy(w.data(), bytes.data(), 24);
  return w;
}

}  // namespace

Result<std::array<uint32_t, 6>> Image::texture_descriptor(bool storage) const {
  AGX_CHECK(check_descriptor_support());
  const auto& r = layout_.request;
  cs::Texture t;
  fill_common(t, dim_, storage, layout_);
  t.first_level = 0;
  t.last_level = layout_.levels - 1;
  t.address = buffer_->gpu_va();
  if (r.tiling == layout::Tiling::linear) {
    t.stride = layout_.linear_stride_B - 16;  // stored minus 16 (Mesa hk_image_view.c pack_texture)
  } else {
    // Layers; a cube sampled as a cube counts cubes (Mesa agx_pack_texture).
    const bool cubes = !storage && (dim_ == ImageDim::cube || dim_ == ImageDim::cube_array);
    t.depth = cubes ? r.depth_px / 6 : r.depth_px;
    t.page_aligned_layers = layout_.page_aligned_layers;
  }
  AGX_TRY(auto bytes, cs::pack(t));
  return words_of(bytes);
}

Result<std::array<uint32_t, 6>> Image::pbe_descriptor(uint32_t level) const {
  AGX_CHECK(check_descriptor_support());
  const auto& f = layout_.format();
  const auto& r = layout_.request;
  if (!f.renderable) return Error::unsupported("{}: format {} cannot be written by the PBE", buffer_->label(), f.name);
  if (level >= layout_.levels) return Error::invalid_argument("{}: level {} of {}", buffer_->label(), level, layout_.levels);
  cs::Pbe p;
  fill_common(p, dim_, true, layout_);
  p.buffer = buffer_->gpu_va();
  if (r.tiling == layout::Tiling::linear) {
    p.stride = layout_.linear_stride_B - 4;  // stored minus 4 (Mesa hk_image_view.c pack_pbe)
  } else {
    p.level = level;
    p.levels = layout_.levels;
    p.layers = r.depth_px;
    p.page_aligned_layers = layout_.page_aligned_layers;
  }
  AGX_TRY(auto bytes, cs::pack(p));
  return words_of(bytes);
}

}  // namespace agx::runtime
