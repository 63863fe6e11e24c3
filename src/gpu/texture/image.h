// The texture unit's image memory, shared with the PBE (which writes the
// images the unit reads): descriptor fields to the views' enums, texel
// formats (decode and encode per cmdbuf.xml Channels class and Texture
// Type), what a descriptor says about an image in memory, and stores into
// an image's levels. The rest of the unit's internals are private
// (texture_internal.h).
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>

#include "cmdstream/typed.h"
#include "gpu/texture/texture.h"
#include "util/half.h"

namespace agx::gpu {

// ---- Descriptor fields (Texture and PBE descriptors; descriptor.cpp) ----

inline std::span<const uint8_t> bytes_of(std::span<const uint32_t> words) {
  return {reinterpret_cast<const uint8_t*>(words.data()), words.size_bytes()};
}
Result<Dim> dim_of(cmdstream::TextureDimension d);
Result<ImageLayout> layout_of(cmdstream::Layout l);
Result<Swizzle> swizzle_of(cmdstream::Channel c);
// A Channels class the format unit knows and a Texture Type it names.
Status check_format(format::Channels c, format::TextureType t);
// Samples of an image of dimension `dim` with the descriptor's Samples.
uint32_t samples_of(Dim dim, cmdstream::SampleCount s);
bool sparse_mode(cmdstream::ImageMode m);
// A linear stride field overlaps flag bits ("Page-aligned layers",
// "Extended", "sRGB") that Mesa sets beside it: the stride (its logical
// value) without the bits of `flags`, fields of the same struct.
uint64_t linear_stride(std::span<const uint32_t> words, const cmdstream::FieldDesc& stride,
                       std::initializer_list<const cmdstream::FieldDesc*> flags);
// Reads descriptor D (cmdstream::Texture or cmdstream::Pbe, 24 bytes) from
// `words`; fewer bytes are a decode error naming `what`.
template <class D>
Result<D> unpack_descriptor(std::span<const uint32_t> words, const char* what) {
  if (words.size() * 4 < D::kSize_B)
    return Error::decode("{} descriptor of {} bytes ({} needed)", what, words.size() * 4, D::kSize_B);
  return cmdstream::unpack<D>(bytes_of(words));
}
// The fields the Texture and PBE descriptors share, into a TextureView or
// PbeView: dimension, layout, format, size, samples and the mode flags.
template <class D, class View>
Status decode_shared_fields(const D& d, View& v) {
  AGX_TRY(v.dim, dim_of(d.dimension));
  AGX_TRY(v.layout, layout_of(d.layout));
  AGX_CHECK(check_format(d.channels, d.type));
  v.channels = d.channels;
  v.type = d.type;
  v.width_px = uint32_t(d.width);
  v.height_px = uint32_t(d.height);
  v.samples = samples_of(v.dim, d.samples);
  v.mipmapped = d.unk_mipmapped;
  v.compressed = d.compressed_1;
  v.sparse = sparse_mode(d.mode);
  v.srgb = d.srgb;
  return {};
}
// The table row of field `f` of typed struct T (f: T's field-index enum,
// so a wrong field does not compile).
template <class T, class E>
const cmdstream::FieldDesc& field_row(E f) {
  return cmdstream::desc_of<T>().fields[static_cast<size_t>(f)];
}

// ---- Texel formats (format.cpp) ----

// Texel channels travel as the bits of 32-bit floats.
inline uint32_t f2u(float f) { return std::bit_cast<uint32_t>(f); }
inline float u2f(uint32_t u) { return std::bit_cast<float>(u); }

// How a Channels class stores its channels: up to four fields, least
// significant bit first, in a little-endian element.
struct TexelFormat {
  format::Channels channels{};
  format::TextureType type{};
  enum class Kind : uint8_t {
    plain, r11g11b10, r9g9b9e5,
    xr10  // Texture Type XR: 10-bit extended-range codes (texture_xr.cpp)
  } kind = Kind::plain;
  uint8_t count = 0;                // channels stored
  std::array<uint8_t, 4> bits{};    // width of each channel
  std::array<uint8_t, 4> shift{};   // bit offset of each channel
  uint8_t bytes = 0;                // bytes per texel (per block)
  std::array<bool, 4> srgb{};       // channels stored in sRGB encoding
  // Block-compressed classes: the decoder and the block size in texels.
  enum class Block : uint8_t {
    none, bc1, bc2, bc3, bc4, bc5, bc6h, bc7, etc2_rgb8, etc2_rgb8a1, etc2_rgba8, eac_r11, eac_rg11, astc,
    gbgr422, bgrg422,  // 2x1 "blocks" of two pixels sharing R and B
    pvrtc2, pvrtc4     // PVRTC1 words, decoded with their neighbours (texture_pvrtc.cpp)
  } block = Block::none;
  uint8_t block_w = 1, block_h = 1;
  bool integer() const {
    return type == format::TextureType::Uint || type == format::TextureType::Sint;
  }
};

// The format of a texture or PBE descriptor; unsupported combinations (a
// block-compressed class, a type the class cannot hold) are an Error naming
// them.
Result<TexelFormat> texel_format(format::Channels channels, format::TextureType type, bool srgb,
                                 bool srgb_2_channel);

// Decodes `bytes` (fmt.bytes of them) into memory-channel order; channels
// the class lacks read 0, except the fourth which reads 1. sRGB channels are
// decoded to linear.
Texel decode_texel(const TexelFormat& fmt, const uint8_t* bytes);
// Encodes memory-channel-order values into fmt.bytes bytes.
void encode_texel(const TexelFormat& fmt, const Texel& value, uint8_t* bytes, Rounding rounding);
// A custom border (one 32-bit word per memory channel) as a texel.
Texel decode_border(const TexelFormat& fmt, const std::array<uint32_t, 4>& words);

// The sRGB transfer curves of IEC 61966-2-1 on [0, 1], in double and
// unclamped (the XR formats mirror them for negative values).
double srgb_eotf(double v);
double srgb_oetf(double l);
float srgb_to_linear(float c);  // the sRGB EOTF
float linear_to_srgb(float l);  // its inverse
float ufloat_to_float(uint32_t bits, unsigned mantissa_bits);  // 11/10-bit floats
uint32_t float_to_ufloat(float f, unsigned mantissa_bits);
std::array<float, 3> rgb9e5_to_float(uint32_t word);
uint32_t float_to_rgb9e5(const std::array<float, 3>& rgb);

// ---- Images in memory (image.cpp) ----

// What both descriptors say about an image in memory.
struct ImageDesc {
  Dim dim = Dim::d2;
  ImageLayout layout = ImageLayout::twiddled;
  format::Channels channels{};
  uint32_t width_px = 1, height_px = 1;
  uint32_t layers = 1;  // storage layers: array layers, 6 per cube, 3D slices
  uint32_t depth_px = 1;  // 3D: slices at level 0 (minified per level)
  uint32_t samples = 1;
  bool mipmapped = false;
  bool page_aligned_layers = false;
  bool compressed = false;
  bool sparse = false;
  GpuVa base = 0;
  uint32_t linear_stride_B = 0;
  uint64_t linear_layer_stride_B = 0;
  GpuVa acceleration_buffer = 0;  // compressed: the first layer's metadata
  bool operator==(const ImageDesc&) const = default;
};

ImageDesc image_desc(const TextureView& t);
// The fields a texture view and a PBE view name alike (image_desc of each).
template <class View>
ImageDesc common_image_desc(const View& v) {
  ImageDesc d;
  d.dim = v.dim;
  d.layout = v.layout;
  d.channels = v.channels;
  d.width_px = v.width_px;
  d.height_px = (v.dim == Dim::d1 || v.dim == Dim::d1_array) ? 1 : v.height_px;
  d.samples = v.samples;
  d.page_aligned_layers = v.page_aligned_layers;
  d.compressed = v.compressed;
  d.sparse = v.sparse;
  d.linear_stride_B = v.linear_stride_B;
  d.linear_layer_stride_B = v.linear_layer_stride_B;
  d.acceleration_buffer = v.compressed ? v.acceleration_buffer : 0;
  return d;
}


// Level `level` of an image as the unit lays it out, resolved once for
// many texel stores (the PBE stores a whole tile through one): its size in
// texels (depth_px: slices of a 3D level, else 1) and the unit's address
// tables. nullopt when the image has fewer levels; an image the unit
// cannot lay out is an error naming why. The target stays valid while the
// unit holds the image (until 16 other images were resolved on it: its
// image cache; resolve again per instruction).
struct LevelExtent {
  uint32_t width_px = 1, height_px = 1, depth_px = 1;
};
struct ImageLevel {
  const TextureUnit::Image* image = nullptr;
  uint32_t level = 0;
  LevelExtent extent;
};
Result<std::optional<ImageLevel>> image_level(TextureUnit& unit, const ImageDesc& desc, uint32_t level);
// Stores one texel's bytes (encode_texel's, fmt.bytes of them) of a sample
// at a coordinate inside the level, through the compression metadata when
// the level has some; a write to unmapped memory is a fault Error naming
// the address.
Status store_image_texel(TextureUnit& unit, const ImageLevel& target, const TexelFormat& fmt, uint32_t x,
                         uint32_t y, uint32_t layer, uint32_t sample, const uint8_t* bytes);

}  // namespace agx::gpu
