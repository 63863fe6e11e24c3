// The texture unit's state: texture and sampler state registers (loaded by
// USC Texture / USC Sampler words), bindless descriptors, and a small cache
// of image geometries.
#include <algorithm>
#include <cstring>

#include "gpu/texture_internal.h"

namespace agx::gpu {

namespace {
constexpr size_t kImageCacheSize = 16;

Result<GpuVa> resolve(const std::vector<StateBinding>& bindings, uint32_t index, uint32_t stride_B,
                      const char* what) {
  // A later word loading the same register wins.
  for (auto it = bindings.rbegin(); it != bindings.rend(); ++it)
    if (index >= it->start && index - it->start < it->count)
      return it->buffer + uint64_t(index - it->start) * stride_B;
  return Error::invalid_argument("{} state register {} was not loaded by the launch", what, index);
}
}  // namespace

const char* to_string(Dim d) {
  static constexpr const char* kNames[] = {"1D",   "1D array", "2D",         "2D array",
                                           "2D MS", "3D",      "cube",       "cube array",
                                           "2D MS array"};
  return kNames[static_cast<unsigned>(d)];
}
bool is_array(Dim d) {
  return d == Dim::d1_array || d == Dim::d2_array || d == Dim::cube_array || d == Dim::d2_ms_array;
}
bool is_ms(Dim d) { return d == Dim::d2_ms || d == Dim::d2_ms_array; }
bool is_cube(Dim d) { return d == Dim::cube || d == Dim::cube_array; }

const char* to_string(ImageLayout l) {
  switch (l) {
    case ImageLayout::linear: return "linear";
    case ImageLayout::gpu: return "GPU-tiled";
    case ImageLayout::twiddled: return "twiddled";
    case ImageLayout::interchange: return "interchange";
  }
  return "?";
}

TextureUnit::TextureUnit(GpuMemory& memory, TextureState state)
    : memory_(memory), state_(std::move(state)) {}
TextureUnit::~TextureUnit() = default;

Result<GpuVa> TextureUnit::texture_register_va(uint32_t ts) const {
  return resolve(state_.textures, ts, kTextureDescriptor_B, "texture");
}

Result<TextureView> TextureUnit::texture_at(GpuVa va) {
  uint32_t words[kTextureDescriptor_B / 4];
  GpuFault fault;
  if (!memory_.read(va, words, sizeof words, GpuUnit::texture, &fault))
    return Error::fault("texture descriptor: {}", describe(fault));
  auto t = decode_texture(words);
  if (!t) return std::move(t).error().context(fmt::format("texture descriptor at 0x{:x}", va));
  return t;
}

Result<TextureView> TextureUnit::texture_at_register(uint32_t ts) {
  AGX_TRY(GpuVa va, texture_register_va(ts));
  return texture_at(va);
}

Result<SamplerView> TextureUnit::sampler_at_register(uint32_t ss) {
  const uint32_t stride =
      kSamplerDescriptor_B + (state_.extended_samplers ? kBorderDescriptor_B : 0);
  AGX_TRY(GpuVa va, resolve(state_.samplers, ss, stride, "sampler"));
  uint32_t words[(kSamplerDescriptor_B + kBorderDescriptor_B) / 4];
  GpuFault fault;
  if (!memory_.read(va, words, stride, GpuUnit::texture, &fault))
    return Error::fault("sampler descriptor: {}", describe(fault));
  auto s = decode_sampler(std::span<const uint32_t>(words, stride / 4), state_.extended_samplers);
  if (!s) return std::move(s).error().context(fmt::format("sampler state {} at 0x{:x}", ss, va));
  return s;
}

Result<const TextureUnit::Image*> TextureUnit::image(const TextureView& tex) {
  return internal_image(internal::image_desc(tex));
}

Result<const TextureUnit::Image*> TextureUnit::internal_image(const internal::ImageDesc& desc) {
  for (size_t i = images_.size(); i-- > 0;)
    if (images_[i]->desc == desc) return images_[i].get();
  AGX_TRY(auto img, internal::make_image(memory_, desc));
  if (images_.size() >= kImageCacheSize) images_.erase(images_.begin());
  images_.push_back(std::move(img));
  return images_.back().get();
}

}  // namespace agx::gpu
