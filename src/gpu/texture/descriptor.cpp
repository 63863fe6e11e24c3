// Texture, Sampler, Border and PBE descriptors to the plain views, through
// the cmdstream tables (the only place their bit positions live). How the
// fields are filled is read from Mesa's drivers (bminor/mesa-mesa
// src/asahi/vulkan/hk_image_view.c pack_texture / pack_pbe,
// src/gallium/drivers/asahi/agx_state.c): linear strides are stored minus
// 16 (Texture) or minus 4 (PBE), linear layer strides minus 128; linear
// arrays put the layer count in "Depth (linear)" with "Extended" set.
#include <cstring>

#include "cmdstream/cmdstream.h"
#include "gpu/texture/image.h"

namespace agx::gpu {

namespace cs = agx::cmdstream;

Result<Dim> dim_of(cs::TextureDimension d) {
  switch (d) {
    case cs::TextureDimension::k1D: return Dim::d1;
    case cs::TextureDimension::k1DArray: return Dim::d1_array;
    case cs::TextureDimension::k2D: return Dim::d2;
    case cs::TextureDimension::k2DArray: return Dim::d2_array;
    case cs::TextureDimension::k2DMultisampled: return Dim::d2_ms;
    case cs::TextureDimension::k3D: return Dim::d3;
    case cs::TextureDimension::kCube: return Dim::cube;
    case cs::TextureDimension::kCubeArray: return Dim::cube_array;
    case cs::TextureDimension::k2DArrayMultisampled: return Dim::d2_ms_array;
  }
  return Error::decode("unknown texture dimension {}", uint32_t(d));
}

Result<ImageLayout> layout_of(cs::Layout l) {
  switch (l) {
    case cs::Layout::kLinear: return ImageLayout::linear;
    case cs::Layout::kTwiddled: return ImageLayout::twiddled;
    case cs::Layout::kGpu: return ImageLayout::gpu;
    case cs::Layout::kInterchange: return ImageLayout::interchange;
  }
  return Error::decode("unknown image layout {}", uint32_t(l));
}

Result<Swizzle> swizzle_of(cs::Channel c) {
  switch (c) {
    case cs::Channel::kR: return Swizzle::r;
    case cs::Channel::kG: return Swizzle::g;
    case cs::Channel::kB: return Swizzle::b;
    case cs::Channel::kA: return Swizzle::a;
    case cs::Channel::k1: return Swizzle::one;
    case cs::Channel::k0: return Swizzle::zero;
  }
  return Error::decode("unknown swizzle channel {}", uint32_t(c));
}

uint32_t samples_of(Dim dim, cs::SampleCount s) {
  if (!is_ms(dim)) return 1;
  return s == cs::SampleCount::k4 ? 4 : 2;
}

bool sparse_mode(cs::ImageMode m) {
  return m == cs::ImageMode::kSparse || m == cs::ImageMode::kSparseButProbablyNoCounters;
}

Status check_format(format::Channels c, format::TextureType t) {
  AGX_TRY(format::ChannelsInfo ci, format::channels_from_code(uint32_t(c)));
  (void)ci;
  if (uint32_t(t) > uint32_t(format::TextureType::XR))
    return Error::decode("unknown texture type {}", uint32_t(t));
  return {};
}

uint64_t linear_stride(std::span<const uint32_t> words, const cs::FieldDesc& f,
                       std::initializer_list<const cs::FieldDesc*> flags) {
  uint64_t raw = cs::get_raw(words.data(), f.start, f.size);
  for (const cs::FieldDesc* g : flags)
    if (g->start >= f.start && g->start < f.start + f.size) raw &= ~(uint64_t{1} << (g->start - f.start));
  return cs::decode_field(f, raw);
}

Result<StateBinding> parse_state_word(std::span<const uint8_t> word) {
  if (word.empty()) return Error::decode("empty USC word");
  const auto tag = cs::UscControl(word[0]);
  if (tag == cs::UscControl::kTexture) {
    AGX_TRY(cs::UscTexture w, cs::unpack<cs::UscTexture>(word));
    return StateBinding{StateKind::texture, uint32_t(w.start), uint32_t(w.count), w.buffer};
  }
  if (tag == cs::UscControl::kSampler) {
    AGX_TRY(cs::UscSampler w, cs::unpack<cs::UscSampler>(word));
    return StateBinding{StateKind::sampler, uint32_t(w.start), uint32_t(w.count), w.buffer};
  }
  return Error::decode("USC word with tag 0x{:02x} is neither a USC Texture nor a USC Sampler word", word[0]);
}

bool extended_sampler_states(uint32_t states) {
  const auto s = cs::SamplerStates(states);
  return s == cs::SamplerStates::k8Extended || s == cs::SamplerStates::k16Extended;
}

Result<TextureView> decode_texture(std::span<const uint32_t> words) {
  AGX_TRY(cs::Texture t, unpack_descriptor<cs::Texture>(words, "Texture"));
  TextureView v;
  AGX_CHECK(decode_shared_fields(t, v));
  AGX_TRY(v.swizzle[0], swizzle_of(t.swizzle_r));
  AGX_TRY(v.swizzle[1], swizzle_of(t.swizzle_g));
  AGX_TRY(v.swizzle[2], swizzle_of(t.swizzle_b));
  AGX_TRY(v.swizzle[3], swizzle_of(t.swizzle_a));
  v.first_level = uint32_t(t.first_level);
  v.last_level = uint32_t(t.last_level);
  v.address = t.address;
  v.srgb_2_channel = t.srgb_2_channel;
  if (v.layout == ImageLayout::linear) {
    v.linear_stride_B =
        uint32_t(linear_stride(words, field_row<cs::Texture>(cs::TextureField::stride),
                                    {&field_row<cs::Texture>(cs::TextureField::page_aligned_layers),
                                     &field_row<cs::Texture>(cs::TextureField::extended)})) + 16;
    if (t.extended && is_array(v.dim)) {
      v.depth = uint32_t(t.depth_linear);
      v.linear_layer_stride_B = t.layer_stride_linear + 0x80;
    }
  } else {
    v.depth = uint32_t(t.depth);
    v.page_aligned_layers = t.page_aligned_layers;
  }
  if (v.compressed) v.acceleration_buffer = t.acceleration_buffer;
  return v;
}

Result<SamplerView> decode_sampler(std::span<const uint32_t> words, bool with_border) {
  AGX_TRY(cs::Sampler s, cs::unpack<cs::Sampler>(bytes_of(words)));
  SamplerView v;
  v.min_lod = s.minimum_lod;
  v.max_lod = s.maximum_lod;
  v.max_anisotropy = uint32_t(s.maximum_anisotropy);
  auto filter = [](cs::Filter f) -> Result<Filter> {
    switch (f) {
      case cs::Filter::kNearest: return Filter::nearest;
      case cs::Filter::kLinear: return Filter::linear;
      case cs::Filter::kBicubic: return Filter::bicubic;
    }
    return Error::decode("unknown filter {}", uint32_t(f));
  };
  AGX_TRY(v.magnify, filter(s.magnify));
  AGX_TRY(v.minify, filter(s.minify));
  switch (s.mip_filter) {
    case cs::MipFilter::kNone: v.mip = MipFilter::none; break;
    case cs::MipFilter::kNearest: v.mip = MipFilter::nearest; break;
    case cs::MipFilter::kLinear: v.mip = MipFilter::linear; break;
    default: return Error::decode("unknown mip filter {}", uint32_t(s.mip_filter));
  }
  auto wrap = [](cs::Wrap w) -> Result<Wrap> {
    switch (w) {
      case cs::Wrap::kClampToEdge: return Wrap::clamp_to_edge;
      case cs::Wrap::kRepeat: return Wrap::repeat;
      case cs::Wrap::kMirroredRepeat: return Wrap::mirrored_repeat;
      case cs::Wrap::kClampToBorder: return Wrap::clamp_to_border;
      case cs::Wrap::kClampGl: return Wrap::clamp_gl;
      case cs::Wrap::kMirroredClampToEdge: return Wrap::mirrored_clamp_to_edge;
    }
    return Error::decode("unknown wrap mode {}", uint32_t(w));
  };
  AGX_TRY(v.wrap[0], wrap(s.wrap_s));
  AGX_TRY(v.wrap[1], wrap(s.wrap_t));
  AGX_TRY(v.wrap[2], wrap(s.wrap_r));
  v.pixel_coordinates = s.pixel_coordinates;
  switch (s.compare_func) {
    case cs::CompareFunc::kLequal: v.compare_func = CompareFunc::lequal; break;
    case cs::CompareFunc::kGequal: v.compare_func = CompareFunc::gequal; break;
    case cs::CompareFunc::kLess: v.compare_func = CompareFunc::less; break;
    case cs::CompareFunc::kGreater: v.compare_func = CompareFunc::greater; break;
    case cs::CompareFunc::kEqual: v.compare_func = CompareFunc::equal; break;
    case cs::CompareFunc::kNotEqual: v.compare_func = CompareFunc::not_equal; break;
    case cs::CompareFunc::kAlways: v.compare_func = CompareFunc::always; break;
    case cs::CompareFunc::kNever: v.compare_func = CompareFunc::never; break;
  }
  v.compare_enable = s.compare_enable;
  switch (s.border_colour) {
    case cs::BorderColour::kTransparentBlack: v.border = BorderColour::transparent_black; break;
    case cs::BorderColour::kOpaqueBlack: v.border = BorderColour::opaque_black; break;
    case cs::BorderColour::kOpaqueWhite: v.border = BorderColour::opaque_white; break;
    case cs::BorderColour::kCustom: v.border = BorderColour::custom; break;
  }
  v.seamful_cube_maps = s.seamful_cube_maps;
  if (v.border == BorderColour::custom) {
    if (!with_border || words.size() * 4 < kSamplerDescriptor_B + kBorderDescriptor_B)
      return Error::decode("custom border colour without an extended (Sampler + Border) heap");
    AGX_TRY(cs::Border b, cs::unpack<cs::Border>(bytes_of(words.subspan(kSamplerDescriptor_B / 4))));
    v.border_words = {uint32_t(b.channel_0), uint32_t(b.channel_1), uint32_t(b.channel_2),
                      uint32_t(b.channel_3)};
  }
  return v;
}

}  // namespace agx::gpu
