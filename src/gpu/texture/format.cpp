// Texel decode and encode per Channels class and Texture Type.
//
// Channel widths and order: the bit layouts of the Gallium formats each
// Channels class stores (Mesa src/util/format/u_format.csv, paired with the
// classes by src/asahi/layout/formats.c): channels least significant bit
// first. Conversions: the Vulkan specification, "Fixed-Point Data
// Conversions" (unorm c / (2^b - 1), snorm max(c / (2^(b-1) - 1), -1)),
// "Unsigned 11-Bit / 10-Bit Floating-Point Numbers", "Shared exponent" (the
// E5B9G9R9 format) and the sRGB transfer functions of the Khronos Data
// Format Specification.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <string_view>

#include "format/compression.h"
#include "gpu/texture/texture_internal.h"

namespace agx::gpu {

using namespace internal;

namespace {

using format::Channels;
using format::TextureType;

struct ClassLayout {
  Channels channels;
  TexelFormat::Kind kind;
  uint8_t count;
  std::array<uint8_t, 4> bits;
  // Bit offset of each channel; empty: packed in order from bit 0.
  std::array<uint8_t, 4> shift{};
  bool explicit_shift = false;
};

constexpr ClassLayout kLayouts[] = {
    {Channels::R8, TexelFormat::Kind::plain, 1, {8}},
    {Channels::R16, TexelFormat::Kind::plain, 1, {16}},
    {Channels::R8G8, TexelFormat::Kind::plain, 2, {8, 8}},
    {Channels::R5G6B5, TexelFormat::Kind::plain, 3, {5, 6, 5}},
    {Channels::R4G4B4A4, TexelFormat::Kind::plain, 4, {4, 4, 4, 4}},
    {Channels::R5G5B5A1, TexelFormat::Kind::plain, 4, {5, 5, 5, 1}},
    // No Gallium format maps to A1R5G5B5 (Mesa has none). Inferred, not
    // verified on hardware: the class names its channels least significant
    // bit first as every mapped class does (R5G5B5A1 holds R5G5B5A1_UNORM,
    // alpha in bit 15), and Metal's public A1BGR5Unorm stores alpha in bit 0
    // then three 5-bit colours; so R, G, B are bits 1-5, 6-10, 11-15 and A
    // is bit 0, output as R, G, B, A like the other classes.
    {Channels::A1R5G5B5, TexelFormat::Kind::plain, 4, {5, 5, 5, 1}, {1, 6, 11, 0}, true},
    {Channels::R32, TexelFormat::Kind::plain, 1, {32}},
    {Channels::R16G16, TexelFormat::Kind::plain, 2, {16, 16}},
    {Channels::R11G11B10, TexelFormat::Kind::r11g11b10, 3, {11, 11, 10}},
    {Channels::R10G10B10A2, TexelFormat::Kind::plain, 4, {10, 10, 10, 2}},
    {Channels::R9G9B9E5, TexelFormat::Kind::r9g9b9e5, 3, {9, 9, 9}},
    {Channels::R8G8B8A8, TexelFormat::Kind::plain, 4, {8, 8, 8, 8}},
    {Channels::R32G32, TexelFormat::Kind::plain, 2, {32, 32}},
    {Channels::R16G16B16A16, TexelFormat::Kind::plain, 4, {16, 16, 16, 16}},
    {Channels::R32G32B32_EMULATED, TexelFormat::Kind::plain, 3, {32, 32, 32}},
    {Channels::R32G32B32A32, TexelFormat::Kind::plain, 4, {32, 32, 32, 32}},
};


// Bits [shift, shift + bits) of a little-endian element of up to 16 bytes.
uint32_t get_bits(const uint8_t* padded, unsigned shift, unsigned bits) {
  uint64_t v;
  std::memcpy(&v, padded + shift / 8, 8);
  v >>= shift % 8;
  return bits == 32 ? uint32_t(v) : uint32_t(v & ((uint64_t{1} << bits) - 1));
}
void put_bits(uint8_t* padded, unsigned shift, unsigned bits, uint32_t value) {
  uint64_t v;
  std::memcpy(&v, padded + shift / 8, 8);
  const uint64_t mask = (bits == 32 ? 0xFFFFFFFFull : ((uint64_t{1} << bits) - 1)) << (shift % 8);
  v = (v & ~mask) | ((uint64_t{value} << (shift % 8)) & mask);
  std::memcpy(padded + shift / 8, &v, 8);
}

std::array<float, 256> make_srgb_table() {
  std::array<float, 256> t{};
  for (int i = 0; i < 256; ++i) {
    const double c = double(i) / 255.0;
    t[i] = float(c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4));
  }
  return t;
}
const std::array<float, 256>& srgb_table() {
  static const std::array<float, 256> table = make_srgb_table();
  return table;
}

float round_mode(double v, Rounding r) {
  switch (r) {
    case Rounding::toward_zero: return float(std::trunc(v));
    case Rounding::toward_pos: return float(std::ceil(v));
    case Rounding::toward_neg: return float(std::floor(v));
    case Rounding::nearest_even: break;
  }
  return float(std::nearbyint(v));  // the default FP environment rounds to nearest even
}

const std::array<float, 256>& unorm8_table() {
  static const std::array<float, 256> table = [] {
    std::array<float, 256> t{};
    for (int i = 0; i < 256; ++i) t[i] = float(i) / 255.0f;
    return t;
  }();
  return table;
}

}  // namespace

static Result<TexelFormat> make_texel_format(Channels channels, TextureType type, bool srgb,
                                             bool srgb_2_channel);

double srgb_eotf(double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); }

double srgb_oetf(double l) { return l <= 0.0031308 ? l * 12.92 : 1.055 * std::pow(l, 1.0 / 2.4) - 0.055; }

float srgb_to_linear(float c) { return float(srgb_eotf(c)); }

float linear_to_srgb(float l) {
  if (!(l > 0.0f)) return 0.0f;  // also NaN
  if (l >= 1.0f) return 1.0f;
  return float(srgb_oetf(l));
}

float ufloat_to_float(uint32_t bits, unsigned mantissa_bits) {
  const uint32_t e = (bits >> mantissa_bits) & 31, m = bits & ((1u << mantissa_bits) - 1);
  if (e == 31) return m ? std::numeric_limits<float>::quiet_NaN() : INFINITY;
  if (e == 0) return std::ldexp(float(m), -14 - int(mantissa_bits));
  return std::ldexp(1.0f + float(m) / float(1u << mantissa_bits), int(e) - 15);
}

uint32_t float_to_ufloat(float f, unsigned mantissa_bits) {
  const uint32_t max_finite = (30u << mantissa_bits) | ((1u << mantissa_bits) - 1);
  if (std::isnan(f)) return (31u << mantissa_bits) | 1;
  if (!(f > 0.0f)) return 0;  // negative values and -0 become 0
  if (std::isinf(f)) return 31u << mantissa_bits;
  // Round to nearest even through a half-like conversion at this precision.
  int exp;
  std::frexp(f, &exp);  // f = m * 2^exp, m in [0.5, 1)
  int e = exp - 1 + 15;
  if (e < 1) e = 1;  // subnormal scale
  const double scale = std::ldexp(1.0, int(mantissa_bits) - (e - 15));
  double q = std::nearbyint(double(f) * scale);  // significand with the hidden bit
  uint64_t sig = uint64_t(q);
  if (sig >= (uint64_t{2} << mantissa_bits)) {  // rounding carried into the next binade
    sig >>= 1;
    ++e;
  }
  uint32_t out;
  if (sig < (uint64_t{1} << mantissa_bits))
    out = uint32_t(sig);  // subnormal (e stays 1 -> stored 0)
  else
    out = (uint32_t(e) << mantissa_bits) | uint32_t(sig & ((1u << mantissa_bits) - 1));
  return out > max_finite ? max_finite : out;  // Vulkan: overflow may give the largest finite
}

std::array<float, 3> rgb9e5_to_float(uint32_t word) {
  const int e = int(word >> 27);
  std::array<float, 3> out{};
  for (int i = 0; i < 3; ++i)
    out[i] = std::ldexp(float((word >> (9 * i)) & 511), e - 15 - 9);
  return out;
}

uint32_t float_to_rgb9e5(const std::array<float, 3>& rgb) {
  // Shared exponent encoding (EXT_texture_shared_exponent, as the Vulkan
  // specification restates it): N = 9, B = 15, Emax = 31.
  const float max_val = float(511) / 512.0f * std::ldexp(1.0f, 31 - 15);
  std::array<float, 3> c{};
  for (int i = 0; i < 3; ++i) {
    float v = rgb[i];
    c[i] = std::isnan(v) ? 0.0f : std::clamp(v, 0.0f, max_val);
  }
  const float cmax = std::max({c[0], c[1], c[2]});
  int exp_p = std::max(-15 - 1, int(std::floor(std::log2(cmax > 0 ? cmax : 1e-30f)))) + 1 + 15;
  if (cmax == 0.0f) exp_p = 0;
  exp_p = std::max(exp_p, 0);
  int max_s = int(std::floor(cmax / std::ldexp(1.0f, exp_p - 15 - 9) + 0.5f));
  if (max_s == 512) ++exp_p;
  uint32_t out = uint32_t(exp_p) << 27;
  for (int i = 0; i < 3; ++i) {
    uint32_t s = uint32_t(std::floor(c[i] / std::ldexp(1.0f, exp_p - 15 - 9) + 0.5f));
    out |= std::min(s, 511u) << (9 * i);
  }
  return out;
}

Result<TexelFormat> texel_format(Channels channels, TextureType type, bool srgb,
                                 bool srgb_2_channel) {
  // A small direct-mapped memo of valid formats (the texture unit asks for
  // the same one for every texel it filters).
  struct Entry {
    uint32_t key = ~0u;
    TexelFormat fmt;
  };
  thread_local std::array<Entry, 64> memo;
  const uint32_t key = uint32_t(channels) | uint32_t(type) << 8 | uint32_t(srgb) << 12 |
                       uint32_t(srgb_2_channel) << 13;
  Entry& e = memo[(key ^ (key >> 6)) & 63];
  if (e.key == key) return e.fmt;
  auto made = make_texel_format(channels, type, srgb, srgb_2_channel);
  if (made.ok()) {
    e.key = key;
    e.fmt = *made;
  }
  return made;
}

static Result<TexelFormat> make_texel_format(Channels channels, TextureType type, bool srgb,
                                             bool srgb_2_channel) {
  const ClassLayout* layout = nullptr;
  for (const ClassLayout& l : kLayouts)
    if (l.channels == channels) layout = &l;
  AGX_TRY(format::ChannelsInfo ci, format::channels_info(channels));
  if (layout == nullptr && ci.block_compressed) {
    using B = TexelFormat::Block;
    TexelFormat f;
    f.channels = channels;
    f.type = type;
    f.bytes = ci.bytes_B;
    f.block_w = ci.block_width_px;
    f.block_h = ci.block_height_px;
    f.count = 4;
    switch (channels) {
      case Channels::BC1: f.block = B::bc1; break;
      case Channels::BC2: f.block = B::bc2; break;
      case Channels::BC3: f.block = B::bc3; break;
      case Channels::BC4: f.block = B::bc4; break;
      case Channels::BC5: f.block = B::bc5; break;
      case Channels::BC6H:
      case Channels::BC6H_UFLOAT: f.block = B::bc6h; break;
      case Channels::BC7: f.block = B::bc7; break;
      case Channels::ETC2_RGB8: f.block = B::etc2_rgb8; break;
      case Channels::ETC2_RGB8A1: f.block = B::etc2_rgb8a1; break;
      case Channels::ETC2_RGBA8: f.block = B::etc2_rgba8; break;
      case Channels::EAC_R11: f.block = B::eac_r11; break;
      case Channels::EAC_RG11: f.block = B::eac_rg11; break;
      case Channels::PVRTC_2BPP: f.block = B::pvrtc2; break;
      case Channels::PVRTC_4BPP: f.block = B::pvrtc4; break;
      default:
        if (format::compression(channels) == format::Compression::astc) {
          f.block = B::astc;
          break;
        }
        return Error::unsupported(
            "texture format {}: no decoder for this block-compressed format yet", ci.name);
    }
    const bool signed_ok = f.block == B::bc4 || f.block == B::bc5 || f.block == B::eac_r11 ||
                           f.block == B::eac_rg11;
    const bool ok = (type == TextureType::Unorm && f.block != B::bc6h) || (type == TextureType::Snorm && signed_ok) ||
                    (type == TextureType::Float && (f.block == B::astc || f.block == B::bc6h));
    if (!ok)
      return Error::unsupported("texture format {} cannot hold type {}", ci.name,
                                format::to_string(type));
    if (srgb) {
      if (type != TextureType::Unorm || signed_ok)
        return Error::unsupported("sRGB on texture format {}", ci.name);
      f.srgb = {true, true, true, false};
    }
    return f;
  }
  if (channels == Channels::GBGR_422 || channels == Channels::BGRG_422) {
    // Two pixels in 32 bits sharing R and B (Metal's public gbgr422 /
    // bgrg422: bytes G0 B G1 R as YUY2, bytes B G0 R G1 as UYVY; no colour
    // space conversion; the shader sees (R, G, B, 1)). Unorm 8-bit only.
    if (type != TextureType::Unorm || srgb)
      return Error::unsupported("texture format {} holds 8-bit unorm only, not {}{}", ci.name,
                                format::to_string(type), srgb ? " sRGB" : "");
    TexelFormat f;
    f.channels = channels;
    f.type = type;
    f.bytes = ci.bytes_B;
    f.count = 3;
    f.block = channels == Channels::GBGR_422 ? TexelFormat::Block::gbgr422
                                              : TexelFormat::Block::bgrg422;
    f.block_w = 2;
    f.block_h = 1;
    return f;
  }
  if (layout == nullptr) {
    return Error::unsupported(
        "texture format {}: no public format maps to this class, its channel layout is unknown",
        ci.name);
  }
  if (type == TextureType::XR) return xr_texel_format(channels, srgb);
  TexelFormat f;
  f.channels = channels;
  f.type = type;
  f.kind = layout->kind;
  f.count = layout->count;
  f.bits = layout->bits;
  f.bytes = ci.bytes_B;
  unsigned shift = 0;
  for (unsigned i = 0; i < f.count; ++i) {
    f.shift[i] = layout->explicit_shift ? layout->shift[i] : uint8_t(shift);
    shift += f.bits[i];
    const unsigned b = f.bits[i];
    bool ok = true;
    if (layout->kind != TexelFormat::Kind::plain)
      ok = type == TextureType::Float;
    else if (type == TextureType::Float)
      ok = b == 16 || b == 32;
    else if (type == TextureType::Unorm || type == TextureType::Snorm)
      ok = b <= 16;
    if (!ok)
      return Error::unsupported("texture format {} cannot hold type {}", ci.name,
                                format::to_string(type));
  }
  if (srgb) {
    if (type != TextureType::Unorm || f.bits[0] != 8)
      return Error::unsupported("sRGB on texture format {} {}: only 8-bit unorm channels decode",
                                ci.name, format::to_string(type));
    // R, G, B are sRGB; alpha stays linear. A 2-channel format's second
    // channel is sRGB only with the "sRGB 2-channel" bit.
    for (unsigned i = 0; i < std::min<unsigned>(f.count, 3); ++i) f.srgb[i] = true;
    if (f.count == 2 && !srgb_2_channel) f.srgb[1] = false;
  }
  return f;
}

Texel decode_texel(const TexelFormat& f, const uint8_t* bytes) {
  if (f.kind == TexelFormat::Kind::plain && f.type == TextureType::Unorm && f.bits[0] == 8 &&
      f.block == TexelFormat::Block::none) {
    // 8-bit unorm channels (the common case): one table lookup each.
    const auto& lin = unorm8_table();
    const auto& srgb = srgb_table();
    Texel t;
    t.c = {0, 0, 0, f2u(1.0f)};
    for (unsigned i = 0; i < f.count; ++i)
      t.c[i] = f2u(f.srgb[i] ? srgb[bytes[i]] : lin[bytes[i]]);
    return t;
  }
  uint8_t padded[24] = {};
  std::memcpy(padded, bytes, f.bytes);
  Texel t;
  const bool integer = f.integer();
  t.c = {0, 0, 0, integer ? 1u : f2u(1.0f)};
  if (f.kind == TexelFormat::Kind::r9g9b9e5) {
    uint32_t w;
    std::memcpy(&w, padded, 4);
    auto rgb = rgb9e5_to_float(w);
    for (int i = 0; i < 3; ++i) t.c[i] = f2u(rgb[i]);
    return t;
  }
  for (unsigned i = 0; i < f.count; ++i) {
    const unsigned b = f.bits[i];
    const uint32_t raw = get_bits(padded, f.shift[i], b);
    uint32_t out = raw;
    if (f.kind == TexelFormat::Kind::r11g11b10) {
      out = f2u(ufloat_to_float(raw, b == 11 ? 6 : 5));
    } else if (f.kind == TexelFormat::Kind::xr10) {
      out = f2u(xr10_to_float(raw, f.srgb[i], i == 3));
    } else {
      switch (f.type) {
        case TextureType::Unorm:
          out = f.srgb[i] ? f2u(srgb_table()[raw]) : f2u(float(raw) / float((1u << b) - 1));
          break;
        case TextureType::Snorm: {
          int32_t s = int32_t(raw << (32 - b)) >> (32 - b);
          out = f2u(std::max(float(s) / float((1u << (b - 1)) - 1), -1.0f));
          break;
        }
        case TextureType::Uint: break;
        case TextureType::Sint: out = b == 32 ? raw : uint32_t(int32_t(raw << (32 - b)) >> (32 - b)); break;
        case TextureType::Float: out = b == 16 ? f2u(half_to_float(uint16_t(raw))) : raw; break;
        case TextureType::XR: break;  // Kind::xr10 above
      }
    }
    t.c[i] = out;
  }
  return t;
}

void encode_texel(const TexelFormat& f, const Texel& v, uint8_t* bytes, Rounding rounding) {
  uint8_t padded[24] = {};
  if (f.kind == TexelFormat::Kind::r9g9b9e5) {
    uint32_t w = float_to_rgb9e5({u2f(v.c[0]), u2f(v.c[1]), u2f(v.c[2])});
    std::memcpy(bytes, &w, 4);
    return;
  }
  for (unsigned i = 0; i < f.count; ++i) {
    const unsigned b = f.bits[i];
    const uint32_t in = v.c[i];
    uint32_t raw = in;
    if (f.kind == TexelFormat::Kind::r11g11b10) {
      raw = float_to_ufloat(u2f(in), b == 11 ? 6 : 5);
    } else if (f.kind == TexelFormat::Kind::xr10) {
      raw = float_to_xr10(u2f(in), f.srgb[i], i == 3, rounding);
    } else {
      switch (f.type) {
        case TextureType::Unorm: {
          float x = u2f(in);
          if (std::isnan(x)) x = 0.0f;
          x = std::clamp(x, 0.0f, 1.0f);
          if (f.srgb[i]) x = linear_to_srgb(x);
          raw = uint32_t(round_mode(double(x) * double((1u << b) - 1), rounding));
          break;
        }
        case TextureType::Snorm: {
          float x = u2f(in);
          if (std::isnan(x)) x = 0.0f;
          x = std::clamp(x, -1.0f, 1.0f);
          raw = uint32_t(int32_t(round_mode(double(x) * double((1u << (b - 1)) - 1), rounding)));
          break;
        }
        case TextureType::Uint:
        case TextureType::Sint: break;  // the low b bits are stored
        case TextureType::Float:
          raw = b == 16 ? float_to_half(u2f(in), rounding) : in;
          break;
        case TextureType::XR: break;  // Kind::xr10 above
      }
    }
    put_bits(padded, f.shift[i], b, raw);
  }
  std::memcpy(bytes, padded, f.bytes);
}

Texel decode_border(const TexelFormat& f, const std::array<uint32_t, 4>& words) {
  Texel t;
  const bool integer = f.integer();
  t.c = {0, 0, 0, integer ? 1u : f2u(1.0f)};
  for (unsigned i = 0; i < 4 && i < std::max<unsigned>(f.count, 1); ++i) {
    const uint32_t w = words[i];
    const unsigned b = f.kind == TexelFormat::Kind::plain ? f.bits[i] : 32;
    switch (f.type) {
      case TextureType::Unorm: {
        // sRGB channels keep the border linear, as 12-bit unorm.
        const unsigned bb = f.srgb[i] ? 12 : b;
        t.c[i] = f2u(float(w & ((1u << bb) - 1)) / float((1u << bb) - 1));
        break;
      }
      case TextureType::Snorm: {
        int32_t s = int32_t(w << (32 - b)) >> (32 - b);
        t.c[i] = f2u(std::max(float(s) / float((1u << (b - 1)) - 1), -1.0f));
        break;
      }
      case TextureType::Float:
        t.c[i] = (f.kind == TexelFormat::Kind::plain && b == 16)
                     ? f2u(half_to_float(uint16_t(w)))
                     : (f.kind == TexelFormat::Kind::plain ? w : f2u(half_to_float(uint16_t(w))));
        break;
      case TextureType::XR:
        // Our choice: an XR border word holds the channel's 10-bit code,
        // read without the sRGB transfer (borders are linear).
        t.c[i] = f2u(xr10_to_float(w, false, i == 3));
        break;
      default: t.c[i] = w; break;
    }
  }
  return t;
}

}  // namespace agx::gpu
