// Pixel formats of the AGX (G13) texture unit and PBE, by Gallium name.
//
// One table (formats.inc, with the hardware storage classes in channels.inc)
// gives, for every format: the cmdbuf.xml Channels and Texture Type codes,
// bytes per block, block size in pixels, depth/stencil status, whether it is
// block-compressed, and whether the PBE can render it (and with which ISA
// format alias).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "format/genxml_enums.h"
#include "util/result.h"

namespace agx::format {

// cmdbuf.xml enum "Channels" (7-bit field of the Texture and PBE descriptors).
// Codes from the one table of cmdbuf.xml enums, format/genxml_enums.h.
#define AGX_FORMAT_ENUM_VALUE(id, name, value) id = value,
enum class Channels : uint8_t { AGX_GENXML_ENUM_Channels(AGX_FORMAT_ENUM_VALUE) };

// cmdbuf.xml enum "Texture Type" (3-bit field).
enum class TextureType : uint8_t { AGX_GENXML_ENUM_TextureType(AGX_FORMAT_ENUM_VALUE) };
#undef AGX_FORMAT_ENUM_VALUE

// The subset formats load/store instructions and the PBE write with (Mesa
// src/asahi/layout/layout.h, "ail_isa_format"). None: not renderable.
enum class IsaFormat : uint8_t {
  None,
  I8,
  I16,
  I32,
  F16,
  U8NORM,
  S8NORM,
  U16NORM,
  S16NORM,
  RGB10A2,
  SRGBA8,
  RG11B10F,
  RGB9E5
};

// Row flags of formats.inc.
inline constexpr uint8_t kDepth = 1, kStencil = 2, kSeparateStencil = 4, kLowered = 8,
                         kBufferOnly = 16;

enum class Format : uint16_t {
#define AGX_FORMAT(name, ...) name,
#include "format/formats.inc"
#undef AGX_FORMAT
};

struct ChannelsInfo {
  const char* name;
  Channels code;
  uint8_t bytes_B;  // bytes per block (per texel for 1x1 blocks)
  uint8_t block_width_px;
  uint8_t block_height_px;
  bool block_compressed;
};

struct FormatInfo {
  const char* name;  // Gallium name without PIPE_FORMAT_
  Format format;
  Channels channels;
  TextureType type;
  IsaFormat isa;  // PBE/ISA alias, None if not renderable
  uint8_t bytes_per_block_B;
  uint8_t block_width_px;
  uint8_t block_height_px;
  bool depth, stencil;
  bool separate_stencil;  // Z32F_S8X24 / X32_S8X24: the S8 plane is separate
  bool block_compressed;  // ETC/EAC/ASTC/BC: an element is one block
  bool renderable;        // the PBE can write it (isa != None)
  bool lowered;           // must be lowered before use (Z24 -> Z32F + S8)
  bool buffer_only;       // only valid for texture buffers
  bool srgb;

  bool depth_or_stencil() const { return depth || stencil; }
  // Lossless compression is done by the PBE / ZLS (Mesa ail_can_compress).
  bool compressible() const { return (renderable || depth_or_stencil()) && !block_compressed; }
};

const FormatInfo& info(Format f);
const char* name(Format f);
std::span<const FormatInfo> all_formats();
std::span<const ChannelsInfo> all_channels();
Result<ChannelsInfo> channels_info(Channels c);
// Decodes a 7-bit Channels field value; unknown codes are an Error.
Result<ChannelsInfo> channels_from_code(uint32_t code);

const char* to_string(TextureType t);
const char* to_string(IsaFormat f);

// Finds a format by Gallium name: case-insensitive, with or without the
// PIPE_FORMAT_ prefix; common aliases (BC1_RGB = DXT1_RGB, BC7_UNORM =
// BPTC_RGBA_UNORM, ...) are accepted. Unknown names are a not_found Error
// listing the nearest names.
Result<Format> find_format(std::string_view name);

// Up to `max` known names closest to `name` (edit distance, then prefix).
std::vector<std::string> near_matches(std::string_view name, size_t max = 5);

// The number of components a texel of storage class `c` has, as Gallium's
// util_format_get_nr_components counts them for the formats stored in it
// (R5G6B5: 3, R8G8B8A8: 4, an X channel counts): read from the class's name
// in channels.inc, one component per channel letter (R, G, B, A) followed
// by its bit count. 0 for the YUV and block-compressed classes.
uint8_t component_count(const ChannelsInfo& c);

}  // namespace agx::format
