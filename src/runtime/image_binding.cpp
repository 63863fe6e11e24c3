#include "runtime/image_binding.h"
#include "runtime/hardware.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "cmdstream/cmdstream.h"

namespace agx::runtime {

namespace cs = agx::cmdstream;

namespace {
using hw::kSamplerState_B;
using hw::kTextureState_B;

void put(std::vector<uint8_t>& table, uint32_t index, uint32_t size_B, const void* bytes) {
  if (table.size() < uint64_t(index + 1) * size_B) table.resize(uint64_t(index + 1) * size_B, 0);
  std::memcpy(table.data() + uint64_t(index) * size_B, bytes, size_B);
}
}  // namespace

namespace {

// Level 0's texel addressing for image atomics (docs/compiler.md): base
// address, tiles per row, log2 tile width and height, as
// layout::tiled_offset_el walks the level, then the layer stride in
// texels (array layers, cube faces, 3D slices).
Result<std::vector<uint32_t>> atomic_addressing(const Image& img, const std::string& name) {
  const layout::Layout& l = img.layout();
  if (l.request.tiling == layout::Tiling::linear || l.request.compressed || l.bytes_per_element_B != 4)
    return Error::unsupported("image '{}': atomics need a GPU-tiled or twiddled, uncompressed image of 32-bit texels",
                              name);
  const layout::Tile t = l.tile_el[0];
  const unsigned lw = unsigned(std::countr_zero(t.width_el)), lh = unsigned(std::countr_zero(t.height_el));
  if ((1u << lw) != t.width_el || (1u << lh) != t.height_el || (lw != lh && lw != lh + 1) || lh > 8)
    return Error::unsupported("image '{}': a {}x{} tile has no Morton form the shader's addressing covers", name,
                              t.width_el, t.height_el);
  const uint64_t va = img.gpu_va() + l.level_offsets_B[0];
  const uint32_t tiles_per_row = uint32_t((l.stride_el[0] + t.width_el - 1) / t.width_el);
  if (l.layer_stride_B % 4 != 0 || l.layer_stride_B / 4 > UINT32_MAX)
    return Error::unsupported("image '{}': a layer stride of {} B for atomics", name, l.layer_stride_B);
  return std::vector<uint32_t>{uint32_t(va), uint32_t(va >> 32), tiles_per_row, lw, lh, uint32_t(l.layer_stride_B / 4)};
}


// The Border words of a custom border colour in the image format's memory
// channel order: unorm channels as fixed point of their width, float ones
// as their bits, integers as they are (Mesa agx_pack_border; the gpu
// unit's docs/texture.md "border colours").
Result<cs::Border> border_words(const Image& img, const std::array<float, 4>& c) {
  const format::Format f = img.layout().request.format;
  std::array<uint32_t, 4> w{};
  if (f == format::Format::R8G8B8A8_UNORM) {
    for (int i = 0; i < 4; ++i) w[i] = uint32_t(std::lround(std::clamp(c[i], 0.0f, 1.0f) * 255.0f));
  } else if (f == format::Format::R32G32B32A32_FLOAT || f == format::Format::R32_FLOAT) {
    for (int i = 0; i < 4; ++i) w[i] = std::bit_cast<uint32_t>(c[i]);
  } else {
    return Error::unsupported("border_color of a {} texture is not supported (RGBA8 unorm, 32-bit float)",
                              format::name(f));
  }
  cs::Border b;
  b.channel_0 = w[0];
  b.channel_1 = w[1];
  b.channel_2 = w[2];
  b.channel_3 = w[3];
  return b;
}

template <class T>
void put_packed(std::vector<uint8_t>& table, uint64_t at_B, const T& value) {
  auto bytes = cs::pack(value);
  if (table.size() < at_B + T::kSize_B) table.resize(at_B + T::kSize_B, 0);
  if (bytes.ok()) std::memcpy(table.data() + at_B, bytes->data(), T::kSize_B);
}

}  // namespace

Status apply_texparameter(SamplerParams& p, const std::string& name, const std::vector<std::string>& v) {
  auto one = [&]() -> Result<std::string> {
    if (v.size() != 1) return Error::invalid_argument("texparameter {}: expected one value", name);
    return v[0];
  };
  if (name == "wrap_s" || name == "wrap_t" || name == "wrap_r") {
    AGX_TRY(std::string w, one());
    cs::Wrap mode;
    if (w == "repeat") mode = cs::Wrap::kRepeat;
    else if (w == "clamp_to_edge") mode = cs::Wrap::kClampToEdge;
    else if (w == "clamp_to_border") mode = cs::Wrap::kClampToBorder;
    else if (w == "mirrored_repeat") mode = cs::Wrap::kMirroredRepeat;
    else return Error::unsupported("texparameter {} {} is not supported", name, w);
    (name == "wrap_s" ? p.wrap_s : name == "wrap_t" ? p.wrap_t : p.wrap_r) = mode;
    return {};
  }
  if (name == "min" || name == "mag") {
    AGX_TRY(std::string f, one());
    cs::Filter filter;
    cs::MipFilter mip = cs::MipFilter::kNone;
    if (f == "nearest") filter = cs::Filter::kNearest;
    else if (f == "linear") filter = cs::Filter::kLinear;
    else if (name == "min" && f == "nearest_mipmap_nearest") filter = cs::Filter::kNearest, mip = cs::MipFilter::kNearest;
    else if (name == "min" && f == "linear_mipmap_nearest") filter = cs::Filter::kLinear, mip = cs::MipFilter::kNearest;
    else if (name == "min" && f == "nearest_mipmap_linear") filter = cs::Filter::kNearest, mip = cs::MipFilter::kLinear;
    else if (name == "min" && f == "linear_mipmap_linear") filter = cs::Filter::kLinear, mip = cs::MipFilter::kLinear;
    else return Error::unsupported("texparameter {} {} is not supported", name, f);
    if (name == "min") p.minify = filter, p.mip = mip;
    else p.magnify = filter;
    return {};
  }
  if (name == "border_color") {
    if (v.size() != 4) return Error::invalid_argument("texparameter border_color: expected 4 values");
    std::array<float, 4> c{};
    for (int i = 0; i < 4; ++i) {
      char* end = nullptr;
      c[i] = std::strtof(v[i].c_str(), &end);
      if (end == v[i].c_str() || *end) return Error::invalid_argument("texparameter border_color: '{}' is not a number", v[i]);
    }
    p.border = c;
    return {};
  }
  if (name == "compare_func") {
    // GL_TEXTURE_COMPARE_FUNC: the function of a depth texture's
    // comparison (piglit's shadow textures turn comparison on).
    AGX_TRY(std::string f, one());
    static const std::pair<const char*, cs::CompareFunc> kFuncs[] = {
        {"never", cs::CompareFunc::kNever},       {"less", cs::CompareFunc::kLess},
        {"equal", cs::CompareFunc::kEqual},       {"lequal", cs::CompareFunc::kLequal},
        {"greater", cs::CompareFunc::kGreater},   {"notequal", cs::CompareFunc::kNotEqual},
        {"gequal", cs::CompareFunc::kGequal},     {"always", cs::CompareFunc::kAlways}};
    for (const auto& [text, func] : kFuncs)
      if (f == text) {
        p.compare_func = func;
        if (p.compare) p.compare = func;
        return {};
      }
    return Error::unsupported("texparameter compare_func {} is not supported", f);
  }
  return Error::unsupported("texparameter {} is not supported (wrap_s/t/r, min, mag, border_color, compare_func)", name);
}

cs::Sampler txf_sampler() {
  cs::Sampler s;
  s.magnify = s.minify = cs::Filter::kNearest;
  s.mip_filter = cs::MipFilter::kNearest;
  s.wrap_s = s.wrap_t = s.wrap_r = cs::Wrap::kClampToBorder;
  s.border_colour = cs::BorderColour::kTransparentBlack;
  return s;
}

Result<StateDescriptors> bind_images(const compiler::Abi& abi, const ImageLookup& image_for) {
  StateDescriptors out;
  out.textures.assign(size_t(abi.texture_state_count) * kTextureState_B, 0);
  struct SamplerAt {
    uint32_t index;
    cs::Sampler sampler;
    cs::Border border;
  };
  std::vector<SamplerAt> samplers;
  if (!abi.samplers.empty())
    return Error::unsupported("separate sampler '{}': OpenGL has no separate samplers to bind (Vulkan GLSL only)",
                              abi.samplers[0].name);
  for (const compiler::ImageBinding& b : abi.images) {
    AGX_TRY(BoundImage bound, image_for(b));
    const Image* img = bound.image;
    if (img->dim() != b.dim)
      return Error::invalid_argument("image '{}': a {} uniform bound to a {} image", b.name,
                                     compiler::image_dim_name(b.dim), compiler::image_dim_name(img->dim()));
    const bool storage = b.kind == compiler::ImageBinding::Kind::storage_image;
    AGX_TRY(auto tex, img->texture_descriptor(storage));
    put(out.textures, b.texture_state, kTextureState_B, tex.data());
    if (b.pbe_state != UINT32_MAX) {
      AGX_TRY(auto pbe, img->pbe_descriptor());
      put(out.textures, b.pbe_state, kTextureState_B, pbe.data());
    }
    if (b.size_uniform != UINT32_MAX) {
      const auto size = img->size_query();
      out.uniforms.push_back({b.size_uniform, {size.begin(), size.end()}});
    }
    if (b.levels_uniform != UINT32_MAX) out.uniforms.push_back({b.levels_uniform, {img->layout().levels}});
    if (b.atomic_uniform != UINT32_MAX) {
      AGX_TRY(auto words, atomic_addressing(*img, b.name));
      out.uniforms.push_back({b.atomic_uniform, std::move(words)});
    }
    if (b.sampler_state != UINT32_MAX) {
      const SamplerParams& p = bound.sampler;
      SamplerAt at{b.sampler_state, {}, {}};
      at.sampler.wrap_s = p.wrap_s;
      at.sampler.wrap_t = p.wrap_t;
      at.sampler.wrap_r = p.wrap_r;
      at.sampler.minify = p.minify;
      at.sampler.magnify = p.magnify;
      at.sampler.mip_filter = p.mip;
      // GL's default GL_TEXTURE_MAX_LOD (1000) clamped to the field's
      // range: every level of a mipmapped texture can be chosen.
      at.sampler.maximum_lod = p.mip == cs::MipFilter::kNone ? 0.0f : 15.0f;
      if (p.compare) at.sampler.compare_enable = true, at.sampler.compare_func = *p.compare;
      if (p.border) {
        at.sampler.border_colour = cs::BorderColour::kCustom;
        AGX_TRY(at.border, border_words(*img, *p.border));
        out.extended_samplers = true;
      }
      samplers.push_back(at);
    }
  }
  if (abi.txf_sampler_state != UINT32_MAX) samplers.push_back({abi.txf_sampler_state, txf_sampler(), {}});
  // Compact: 8-byte Samplers; extended: each followed by its Border.
  const uint32_t stride_B = out.extended_samplers ? kSamplerState_B + uint32_t(cs::Border::kSize_B) : kSamplerState_B;
  out.samplers.assign(size_t(abi.sampler_state_count) * stride_B, 0);
  for (const SamplerAt& s : samplers) {
    put_packed(out.samplers, uint64_t(s.index) * stride_B, s.sampler);
    if (out.extended_samplers) put_packed(out.samplers, uint64_t(s.index) * stride_B + kSamplerState_B, s.border);
  }
  return out;
}

}  // namespace agx::runtime
