#include "runtime/image.h"

#include <cstring>

#include "cmdstream/cmdstream.h"

namespace agx::runtime {

namespace cs = agx::cmdstream;

Result<std::unique_ptr<Image>> Image::create(Device& device, const layout::Request& request, std::string label) {
  std::unique_ptr<Image> img(new Image());
  auto l = layout::make_layout(request);
  if (!l.ok()) return std::move(l).error().context(label);
  img->layout_ = std::move(l).value();
  AGX_TRY(img->buffer_, device.create_buffer(img->layout_.size_B, std::move(label)));
  return img;
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
  if (r.depth_px != 1) return Error::unsupported("{}: descriptors of arrays and 3D images", buffer_->label());
  if (r.sample_count_sa != 1) return Error::unsupported("{}: descriptors of multisampled images", buffer_->label());
  if (r.compressed) return Error::unsupported("{}: descriptors of compressed images", buffer_->label());
  if (r.tiling == layout::Tiling::linear)
    return Error::unsupported("{}: descriptors of linear images (the stride encoding)", buffer_->label());
  return {};
}

namespace {

cs::Layout descriptor_layout(layout::Tiling t) {
  return t == layout::Tiling::twiddled ? cs::Layout::kTwiddled : cs::Layout::kGpu;
}

std::array<uint32_t, 6> words_of(const std::vector<uint8_t>& bytes) {
  std::array<uint32_t, 6> w{};
  std::memcpy(w.data(), bytes.data(), 24);
  return w;
}

}  // namespace

Result<std::array<uint32_t, 6>> Image::texture_descriptor() const {
  AGX_CHECK(check_descriptor_support());
  const auto& f = layout_.format();
  cs::Texture t;
  t.dimension = cs::TextureDimension::k2D;
  t.layout = descriptor_layout(layout_.request.tiling);
  t.channels = f.channels;
  t.type = f.type;
  t.swizzle_r = cs::Channel::kR;
  t.swizzle_g = cs::Channel::kG;
  t.swizzle_b = cs::Channel::kB;
  t.swizzle_a = cs::Channel::kA;
  t.width = layout_.request.width_px;
  t.height = layout_.request.height_px;
  t.first_level = 0;
  t.last_level = layout_.levels - 1;
  t.address = buffer_->gpu_va();
  t.unk_mipmapped = layout_.levels > 1;
  t.mode = cs::ImageMode::kNormal;
  t.srgb = f.srgb;
  t.depth = 1;
  t.page_aligned_layers = layout_.page_aligned_layers;
  AGX_TRY(auto bytes, cs::pack(t));
  return words_of(bytes);
}

Result<std::array<uint32_t, 6>> Image::pbe_descriptor(uint32_t level) const {
  AGX_CHECK(check_descriptor_support());
  const auto& f = layout_.format();
  if (!f.renderable) return Error::unsupported("{}: format {} cannot be written by the PBE", buffer_->label(), f.name);
  if (level >= layout_.levels) return Error::invalid_argument("{}: level {} of {}", buffer_->label(), level, layout_.levels);
  cs::Pbe p;
  p.dimension = cs::TextureDimension::k2D;
  p.layout = descriptor_layout(layout_.request.tiling);
  p.channels = f.channels;
  p.type = f.type;
  p.swizzle_r = cs::Channel::kR;
  p.swizzle_g = cs::Channel::kG;
  p.swizzle_b = cs::Channel::kB;
  p.swizzle_a = cs::Channel::kA;
  p.width = layout_.request.width_px;
  p.height = layout_.request.height_px;
  p.unk_mipmapped = layout_.levels > 1;
  p.mode = cs::ImageMode::kNormal;
  p.buffer = buffer_->gpu_va();
  p.level = level;
  p.levels = layout_.levels;
  p.layers = 1;
  p.page_aligned_layers = layout_.page_aligned_layers;
  p.srgb = f.srgb;
  AGX_TRY(auto bytes, cs::pack(p));
  return words_of(bytes);
}

}  // namespace agx::runtime
