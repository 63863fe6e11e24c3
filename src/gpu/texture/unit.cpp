// The texture unit's state: texture and sampler state registers (loaded by
// USC Texture / USC Sampler words), bindless descriptors, and a small cache
// of image geometries.
#include <algorithm>
#include <cstring>

#include "gpu/texture/texture_internal.h"

namespace agx::gpu {

namespace {
constexpr size_t kImageCacheSize = 16;

Result<const StateRegister*> loaded(const std::vector<StateRegister>& regs, uint32_t index, const char* what) {
  if (index < regs.size() && regs[index].loaded) return &regs[index];
  return Error::invalid_argument("{} state register {} was not loaded by the launch", what, index);
}
}  // namespace

Status load_states(GpuMemory& memory, const StateBinding& b, TextureState& state, GpuFault* fault) {
  const bool tex = b.kind == StateKind::texture;
  const char* what = tex ? "texture" : "sampler";
  const uint32_t declared = tex ? state.texture_registers : state.sampler_registers;
  if (uint64_t(b.start) + b.count > declared)
    return Error::decode("{} state registers {}..{} are beyond the {} the launch declares", what, b.start,
                         uint64_t(b.start) + b.count - 1, declared);
  const uint32_t stride_B = tex ? kTextureDescriptor_B
                                : kSamplerDescriptor_B + (state.extended_samplers ? kBorderDescriptor_B : 0);
  auto& regs = tex ? state.textures : state.samplers;
  if (regs.size() < b.start + b.count) regs.resize(b.start + b.count);
  for (uint32_t i = 0; i < b.count; ++i) {
    StateRegister& reg = regs[b.start + i];
    reg.words.fill(0);
    const GpuVa va = b.buffer + uint64_t(i) * stride_B;
    GpuFault f;
    if (!memory.read(va, reg.words.data(), stride_B, GpuUnit::cdm, &f)) {  // the CDM runs the word
      reg.loaded = false;
      Error e = Error::fault("{} state register {}: descriptor at 0x{:x}: {}", what, b.start + i, va, describe(f));
      if (fault) *fault = f, fault->reason = e.message();
      return e;
    }
    reg.loaded = true;
  }
  return {};
}

Status load_state_word(GpuMemory& memory, std::span<const uint8_t> word, TextureState& state, GpuFault* fault) {
  AGX_TRY(StateBinding b, parse_state_word(word));
  return load_states(memory, b, state, fault);
}

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

Result<std::span<const uint32_t, 6>> TextureUnit::texture_register(uint32_t ts) const {
  AGX_TRY(const StateRegister* r, loaded(state_.textures, ts, "texture"));
  return std::span<const uint32_t, 6>(r->words);
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
  AGX_TRY(auto words, texture_register(ts));
  auto t = decode_texture(words);
  if (!t) return std::move(t).error().context(fmt::format("texture state register {}", ts));
  return t;
}

Result<SamplerView> TextureUnit::sampler_at_register(uint32_t ss) {
  AGX_TRY(const StateRegister* r, loaded(state_.samplers, ss, "sampler"));
  const uint32_t stride_B = kSamplerDescriptor_B + (state_.extended_samplers ? kBorderDescriptor_B : 0);
  auto s = decode_sampler(std::span<const uint32_t>(r->words.data(), stride_B / 4), state_.extended_samplers);
  if (!s) return std::move(s).error().context(fmt::format("sampler state register {}", ss));
  return s;
}

Result<const TextureUnit::Image*> TextureUnit::image(const TextureView& tex) {
  return internal_image(image_desc(tex));
}

Result<const TextureUnit::Image*> TextureUnit::internal_image(const ImageDesc& desc) {
  for (size_t i = images_.size(); i-- > 0;)
    if (images_[i]->desc == desc) return images_[i].get();
  AGX_TRY(auto img, internal::make_image(memory_, desc));
  if (images_.size() >= kImageCacheSize) {
    images_.erase(images_.begin());
    resolved_.reset();  // it may name the image dropped
  }
  images_.push_back(std::move(img));
  return images_.back().get();
}

}  // namespace agx::gpu
