// image_write_block: a tile of local pixel storage (the tilebuffer, or an
// imageblock in threadgroup memory) stored through a PBE descriptor.
//
// Public: the instruction stores "a block from local memory into a bound
// image ... the format is the format of the local memory (the source), the
// image format is specified in the PBE descriptor" (bminor/mesa-mesa
// src/compiler/nir/nir_intrinsics.py, block_image_store_agx); a render
// target's bytes in a sample's record and its element count
// (src/asahi/lib/agx_tilebuffer.c). Our choices (docs/texture.md, "Tile
// memory"): the order of pixels (tile_sample_offset_B), and how the raw
// codes hold float images (i16 as half floats: Mesa stores F16 render
// targets with code i16; i32 as float bits).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "gpu/pbe/pbe_internal.h"

namespace agx::gpu {
namespace {


bool packed_word(TileFormat f) {
  return f == TileFormat::rgb10a2 || f == TileFormat::rg11b10f || f == TileFormat::rgb9e5 ||
         f == TileFormat::rg11b10f_rtz || f == TileFormat::rgb9e5_rtz;
}

unsigned element_B(TileFormat f) {
  switch (f) {
    case TileFormat::i8: case TileFormat::u8norm: case TileFormat::s8norm: case TileFormat::srgba8:
      return 1;
    case TileFormat::i16: case TileFormat::f16: case TileFormat::u16norm: case TileFormat::s16norm:
      return 2;
    default: return 4;
  }
}

bool renderable(format::Channels c, format::TextureType t) {
  for (const format::FormatInfo& f : format::all_formats())
    if (f.channels == c && f.type == t && f.renderable) return true;
  return false;
}


// The pixel's components (source order, as image_write's registers hold
// them): float bits for unorm/snorm/float images, integers for uint/sint.
// Components the tile format does not hold read 0, the fourth 1.
std::array<uint32_t, 4> read_pixel(TileFormat f, const uint8_t* p, unsigned count, bool integer,
                                   bool is_signed) {
  std::array<uint32_t, 4> v{0, 0, 0, integer ? 1u : f2u(1.0f)};
  if (packed_word(f)) {
    uint32_t w = 0;
    std::memcpy(&w, p, 4);
    if (f == TileFormat::rgb10a2) {
      for (unsigned k = 0; k < 3; ++k) v[k] = f2u(float((w >> (10 * k)) & 0x3FF) / 1023.0f);
      v[3] = f2u(float(w >> 30) / 3.0f);
    } else if (f == TileFormat::rg11b10f || f == TileFormat::rg11b10f_rtz) {
      v[0] = f2u(ufloat_to_float(w & 0x7FF, 6));
      v[1] = f2u(ufloat_to_float((w >> 11) & 0x7FF, 6));
      v[2] = f2u(ufloat_to_float(w >> 22, 5));
    } else {
      const std::array<float, 3> rgb = rgb9e5_to_float(w);
      for (unsigned k = 0; k < 3; ++k) v[k] = f2u(rgb[k]);
    }
    return v;
  }
  const unsigned eb = element_B(f);
  for (unsigned k = 0; k < count; ++k) {
    uint32_t e = 0;
    std::memcpy(&e, p + k * eb, eb);
    const unsigned bits = 8 * eb;
    const int32_t se = int32_t(e << (32 - bits)) >> (32 - bits);
    switch (f) {
      case TileFormat::i8:
      case TileFormat::i16:
      case TileFormat::i32:
        if (integer) v[k] = is_signed ? uint32_t(se) : e;
        else v[k] = f == TileFormat::i16 ? f2u(half_to_float(uint16_t(e))) : e;
        break;
      case TileFormat::f16: v[k] = f2u(half_to_float(uint16_t(e))); break;
      case TileFormat::u8norm:
      case TileFormat::u16norm: v[k] = f2u(float(e) / float((1u << bits) - 1)); break;
      case TileFormat::s8norm:
      case TileFormat::s16norm:
        v[k] = f2u(std::max(-1.0f, float(se) / float((1 << (bits - 1)) - 1)));
        break;
      case TileFormat::srgba8: {
        const float c = float(e) / 255.0f;
        v[k] = f2u(k < 3 ? srgb_to_linear(c) : c);
        break;
      }
      default: break;
    }
  }
  return v;
}

// Tiles of one byte per component into images of one byte per channel (the
// common RGBA8 render targets): each stored byte depends on one tile byte
// only (plain formats encode their channels one by one), so the conversion
// is a table per channel, filled by the general path (read_pixel, the
// swizzle, encode_texel) for each of the 256 tile bytes: the same bits, 256
// conversions per channel instead of one per pixel.
struct ByteTable {
  unsigned count = 0;
  std::array<uint8_t, 4> source{};  // the tile byte each channel reads
  std::array<std::array<uint8_t, 256>, 4> out{};
};

bool byte_per_channel(TileFormat f, const TexelFormat& fmt) {
  if (packed_word(f) || element_B(f) != 1 || fmt.kind != TexelFormat::Kind::plain || fmt.bytes != fmt.count)
    return false;
  for (unsigned i = 0; i < fmt.count; ++i)
    if (fmt.bits[i] != 8 || fmt.shift[i] != 8 * i) return false;
  return fmt.count != 0;
}

ByteTable make_byte_table(TileFormat f, const PbeView& pbe, const TexelFormat& fmt, Rounding rounding) {
  ByteTable t;
  t.count = fmt.count;
  for (unsigned k = 0; k < t.count; ++k) {
    const unsigned s = pbe.swizzle[k] & 3u;
    t.source[k] = uint8_t(s < fmt.count ? s : 0);  // components past the tile's read constants
  }
  const bool is_signed = pbe.type == format::TextureType::Sint;
  for (unsigned e = 0; e < 256; ++e) {
    const uint8_t pixel[4] = {uint8_t(e), uint8_t(e), uint8_t(e), uint8_t(e)};
    const std::array<uint32_t, 4> v = read_pixel(f, pixel, fmt.count, fmt.integer(), is_signed);
    Texel mem;
    for (unsigned k = 0; k < 4; ++k) mem.c[k] = v[pbe.swizzle[k] & 3];
    uint8_t bytes[16];
    encode_texel(fmt, mem, bytes, rounding);
    for (unsigned k = 0; k < t.count; ++k) t.out[k][e] = bytes[k];
  }
  return t;
}

// The table of the last conversion asked for on this thread (every tile of
// a render target asks for the same one).
const ByteTable& byte_table(TileFormat f, const PbeView& pbe, const TexelFormat& fmt, Rounding rounding) {
  struct Key {
    TileFormat f;
    format::Channels channels;
    format::TextureType type;
    bool srgb;
    std::array<uint8_t, 4> swizzle;
    Rounding rounding;
    bool operator==(const Key&) const = default;
  };
  thread_local std::optional<std::pair<Key, ByteTable>> last;
  const Key key{f, pbe.channels, pbe.type, pbe.srgb, pbe.swizzle, rounding};
  if (!last || !(last->first == key)) last.emplace(key, make_byte_table(f, pbe, fmt, rounding));
  return last->second;
}

// The first pixel (sample, row, column order) whose bytes run past tile
// memory, as an error; none when the tile's last record fits.
Status check_tile_bytes(const TileMemory& tile, const BlockWrite& bw, uint32_t pixel_B) {
  const uint64_t last = tile_sample_offset_B(tile, tile.width_px - 1, tile.height_px - 1, tile.samples - 1);
  if (last + bw.offset_B + pixel_B <= tile.bytes.size()) return {};
  for (uint32_t s = 0; s < tile.samples; ++s)
    for (uint32_t y = 0; y < tile.height_px; ++y)
      for (uint32_t x = 0; x < tile.width_px; ++x) {
        const uint64_t at = tile_sample_offset_B(tile, x, y, s) + bw.offset_B;
        if (at + pixel_B > tile.bytes.size())
          return Error::invalid_argument(
              "image_write_block: pixel ({}, {}) sample {} of the {}x{} tile is bytes {}..{} of tile memory, "
              "which has {} (offset {}, {} bytes per pixel in {})",
              x, y, s, tile.width_px, tile.height_px, at, at + pixel_B - 1, tile.bytes.size(), bw.offset_B,
              pixel_B, tile_format_name(bw.format));
      }
  return {};
}

}  // namespace

uint64_t tile_sample_offset_B(const TileMemory& tile, uint32_t x, uint32_t y, uint32_t sample) {
  const uint64_t pixel = uint64_t(y) * tile.width_px + x;
  return (pixel * tile.samples + sample) * tile.sample_stride_B;
}

const char* tile_format_name(uint32_t code) {
  static constexpr const char* kNames[16] = {"i8",     "i16",    "i32",     "f16",
                                             "u8norm", "s8norm", "u16norm", "s16norm",
                                             "rgb10a2", "",      "srgba8",  "",
                                             "rg11b10f", "rgb9e5", "rg11b10f.rtz", "rgb9e5.rtz"};
  return code < 16 ? kNames[code] : "";
}

Result<uint32_t> tile_pixel_B(uint32_t code, const PbeView& pbe) {
  const char* name = tile_format_name(code);
  if (*name == '\0')
    return Error::decode("image_write_block: tile format {} is undefined (MEMORY_FORMATS defines 0-8, 10, 12-15)",
                         code);
  AGX_TRY(format::ChannelsInfo ci, format::channels_info(pbe.channels));
  if (!renderable(pbe.channels, pbe.type))
    return Error::invalid_argument("image_write_block: the PBE format {} {} is not renderable", ci.name,
                                   format::to_string(pbe.type));
  AGX_TRY(TexelFormat fmt, texel_format(pbe.channels, pbe.type, pbe.srgb, true));
  const auto f = static_cast<TileFormat>(code);
  const bool raw = f == TileFormat::i8 || f == TileFormat::i16 || f == TileFormat::i32;
  if (fmt.integer() && !raw)
    return Error::invalid_argument("image_write_block: tile format {} holds no integers for the {} {} image",
                                   name, ci.name, format::to_string(pbe.type));
  if (!fmt.integer() && f == TileFormat::i8)
    return Error::invalid_argument("image_write_block: tile format i8 with the {} {} image (8-bit colour is "
                                   "u8norm, s8norm or srgba8)",
                                   ci.name, format::to_string(pbe.type));
  return packed_word(f) ? 4u : element_B(f) * fmt.count;
}

Status pbe_write_block(TextureUnit& unit, const PbeView& pbe, const TileMemory& tile,
                       const BlockWrite& bw, Rounding rounding) {
  AGX_TRY(uint32_t pixel_B, tile_pixel_B(bw.format, pbe));
  AGX_TRY(TexelFormat fmt, texel_format(pbe.channels, pbe.type, pbe.srgb, true));
  if (tile.width_px == 0 || tile.height_px == 0 || tile.samples == 0)
    return Error::invalid_argument("image_write_block: empty tile ({}x{} pixels, {} samples)", tile.width_px,
                                   tile.height_px, tile.samples);
  // The whole tile must be there before anything is written.
  AGX_CHECK(check_tile_bytes(tile, bw, pixel_B));
  // One target for the tile: every pixel goes through pbe_store's drops and
  // conversion (or the byte table, which holds the same conversion).
  AGX_TRY(PbeTarget target, pbe_target(unit, pbe, bw.lod));
  if (!target.level) return {};  // a level the image does not have: every write dropped
  const auto f = static_cast<TileFormat>(bw.format);
  const bool is_signed = pbe.type == format::TextureType::Sint;
  const ByteTable* table = byte_per_channel(f, fmt) ? &byte_table(f, pbe, fmt, rounding) : nullptr;
  PbeWrite w;
  w.layer = bw.layer;
  w.lod = bw.lod;
  for (uint32_t s = 0; s < tile.samples; ++s)
    for (uint32_t y = 0; y < tile.height_px; ++y)
      for (uint32_t x = 0; x < tile.width_px; ++x) {
        const uint8_t* p = tile.bytes.data() + tile_sample_offset_B(tile, x, y, s) + bw.offset_B;
        w.x = int32_t(int64_t(bw.origin_x) + x);
        w.y = int32_t(int64_t(bw.origin_y) + y);
        w.sample = s;
        if (table) {
          uint8_t bytes[16];
          for (unsigned k = 0; k < table->count; ++k) bytes[k] = table->out[k][p[table->source[k]]];
          AGX_CHECK(pbe_store_encoded(unit, pbe, target, w, bytes));
        } else {
          w.value = read_pixel(f, p, fmt.count, fmt.integer(), is_signed);
          AGX_CHECK(pbe_store(unit, pbe, target, w, rounding));
        }
      }
  return {};
}

}  // namespace agx::gpu
