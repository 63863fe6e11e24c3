// Lossless compression (the "Compressed 1" images): what is public of the
// format, from Mesa src/asahi/layout/layout.h (AIL_COMP_* modes,
// ail_tile_mode_uncompressed, ail_effective_{width,height}_sa) and
// src/asahi/libagx/compression.cl (libagx_decompress, libagx_fast_clear):
//
// - The body is laid out as the uncompressed image of the same layout; a
//   metadata buffer (the descriptor's acceleration buffer, per layer and
//   level at the layout's metadata offsets) holds one 8-byte word per
//   16x16-sample tile, one mode byte per 8x4 subtile. Tiles are indexed
//   fully twiddled: the low bits of x and y interleaved (x in the even bits,
//   as nir_interleave_agx does) up to the smaller dimension in tiles
//   (rounded up to a power of two), then the rest of the larger coordinate.
// - Samples stretch the grid: 4 samples are 2x2 sample positions per pixel,
//   2 samples 1x2.
// - Mode "uncompressed" (0x1f, 0x3f, 0x7f, 0xff for 1, 2, 4, 8/16-byte
//   texels): the tile's texels are plain in the body. Mode 0x03 "solid": the
//   subtile is one colour, stored at the start of the tile in the body (the
//   tile's first texel; a fast clear writes it once per subtile).
//
// The other mode values (the compressed encodings themselves) are not
// public: a tile using one is an `unsupported` error naming the mode byte.
// Which byte of the word is which subtile is not public either, so a tile
// whose eight bytes differ is refused the same way; every tile the public
// paths produce (fast clear, decompress, this PBE) has eight equal bytes.
// Stores leave a tile uncompressed (a solid tile is expanded first), an
// encoding every reader accepts.
#include <algorithm>
#include <bit>
#include <cstring>

#include "gpu/texture/texture_internal.h"
#include "util/bits.h"

namespace agx::gpu::internal {
namespace {

constexpr uint8_t kSolidMode = 0x03;
constexpr uint32_t kTile_sa = 16;

uint32_t effective_width_sa(uint32_t px, uint32_t samples) { return px * (samples == 4 ? 2 : 1); }
uint32_t effective_height_sa(uint32_t px, uint32_t samples) { return px * (samples >= 2 ? 2 : 1); }

uint32_t interleave(uint32_t x, uint32_t y) {
  uint32_t v = 0;
  for (unsigned i = 0; i < 16; ++i)
    v |= ((x >> i) & 1u) << (2 * i) | ((y >> i) & 1u) << (2 * i + 1);
  return v;
}

struct TileRef {
  GpuVa word_va = 0;           // the tile's metadata word
  uint32_t x0_px = 0, y0_px = 0;  // the tile's first pixel
  uint32_t w_px = 0, h_px = 0;    // pixels the tile covers
};

TileRef tile_of(const TextureUnit::Image& img, uint32_t x, uint32_t y, uint32_t layer,
                uint32_t level, uint32_t sample) {
  const uint32_t s = img.desc.samples;
  // The sample's position in the stretched grid.
  uint32_t x_sa = x, y_sa = y;
  if (s == 4) {
    x_sa = 2 * x + (sample & 1);
    y_sa = 2 * y + (sample >> 1);
  } else if (s == 2) {
    y_sa = 2 * y + sample;
  }
  const uint32_t w_tl = uint32_t(div_round_up(effective_width_sa(img.width(level), s), kTile_sa));
  const uint32_t h_tl = uint32_t(div_round_up(effective_height_sa(img.height(level), s), kTile_sa));
  const uint32_t tx = x_sa / kTile_sa, ty = y_sa / kTile_sa;
  const uint32_t major = w_tl > h_tl ? tx : ty;
  const uint32_t bits = uint32_t(std::bit_width(std::min(w_tl, h_tl) - 1));
  const uint32_t mask = (1u << bits) - 1;
  const uint64_t index = interleave(tx & mask, ty & mask) + (uint64_t(major & ~mask) << bits);
  TileRef t;
  t.word_va = img.desc.acceleration_buffer + layer * img.metadata_layer_stride_B +
              img.metadata_level_offset_B[level] + index * 8;
  const uint32_t tw_px = s == 4 ? kTile_sa / 2 : kTile_sa;
  const uint32_t th_px = s >= 2 ? kTile_sa / 2 : kTile_sa;
  t.x0_px = tx * tw_px;
  t.y0_px = ty * th_px;
  t.w_px = std::min(tw_px, img.width(level) - t.x0_px);
  t.h_px = std::min(th_px, img.height(level) - t.y0_px);
  return t;
}

Result<uint64_t> read_word(GpuMemory& memory, GpuVa va) {
  uint64_t w = 0;
  GpuFault fault;
  if (!memory.read(va, &w, 8, GpuUnit::texture, &fault))
    return Error::fault("compression metadata read: {}", describe(fault));
  return w;
}

// The tile's mode, if its eight subtiles agree; else an error.
Result<uint8_t> tile_mode(const TextureUnit::Image& img, uint64_t word, const TileRef& t,
                          uint32_t layer, uint32_t level) {
  const uint8_t m = uint8_t(word);
  if (word != uint64_t{m} * 0x0101010101010101ull)
    return Error::unsupported(
        "compressed image: tile at pixel ({}, {}) of level {} layer {} mixes subtile modes "
        "(metadata 0x{:016x}); the subtile order is not public",
        t.x0_px, t.y0_px, level, layer, word);
  if (m != img.uncompressed_mode && m != kSolidMode)
    return Error::unsupported(
        "compressed image: tile at pixel ({}, {}) of level {} layer {} uses compression mode "
        "0x{:02x}; only the uncompressed (0x{:02x}) and solid (0x03) modes are public",
        t.x0_px, t.y0_px, level, layer, m, img.uncompressed_mode);
  return m;
}

}  // namespace

Status lay_out_compression(TextureUnit::Image& img, const layout::Layout& l) {
  switch (img.bytes_per_sample_B) {
    case 1: img.uncompressed_mode = 0x1f; break;
    case 2: img.uncompressed_mode = 0x3f; break;
    case 4: img.uncompressed_mode = 0x7f; break;
    case 8:
    case 16: img.uncompressed_mode = 0xff; break;
    default:
      return Error::decode("compressed image with {}-byte texels (1, 2, 4, 8 or 16)",
                           img.bytes_per_sample_B);
  }
  if (img.desc.acceleration_buffer == 0)
    return Error::decode("compressed image without an acceleration (metadata) buffer");
  img.metadata_levels = std::min(l.metadata_levels, img.levels);
  img.metadata_layer_stride_B = l.metadata_layer_stride_B;
  for (uint32_t lv = 0; lv < img.metadata_levels; ++lv)
    img.metadata_level_offset_B[lv] = l.metadata_level_offsets_B[lv];
  return {};
}

Status fetch_texel(GpuMemory& memory, const TextureUnit::Image& img, uint32_t x, uint32_t y,
                   uint32_t layer, uint32_t level, uint32_t sample, uint8_t* out) {
  const uint32_t size_B = img.bytes_per_sample_B;
  if (level >= img.metadata_levels)
    return read_texel(memory, img, img.offset_B(x, y, layer, level, sample), out, size_B);
  const TileRef t = tile_of(img, x, y, layer, level, sample);
  AGX_TRY(uint64_t word, read_word(memory, t.word_va));
  AGX_TRY(uint8_t mode, tile_mode(img, word, t, layer, level));
  if (mode == kSolidMode)
    return read_texel(memory, img, img.offset_B(t.x0_px, t.y0_px, layer, level, 0), out, size_B);
  return read_texel(memory, img, img.offset_B(x, y, layer, level, sample), out, size_B);
}

Status store_texel(GpuMemory& memory, const TextureUnit::Image& img, uint32_t x, uint32_t y,
                   uint32_t layer, uint32_t level, uint32_t sample, const uint8_t* in) {
  const uint32_t size_B = img.bytes_per_sample_B;
  if (level < img.metadata_levels) {
    const TileRef t = tile_of(img, x, y, layer, level, sample);
    AGX_TRY(uint64_t word, read_word(memory, t.word_va));
    AGX_TRY(uint8_t mode, tile_mode(img, word, t, layer, level));
    if (mode == kSolidMode) {
      // Expand the solid colour into every sample of the tile, then mark the
      // tile uncompressed.
      uint8_t colour[16];
      AGX_CHECK(read_texel(memory, img, img.offset_B(t.x0_px, t.y0_px, layer, level, 0), colour,
                           size_B));
      for (uint32_t py = t.y0_px; py < t.y0_px + t.h_px; ++py)
        for (uint32_t px = t.x0_px; px < t.x0_px + t.w_px; ++px)
          for (uint32_t s = 0; s < img.desc.samples; ++s)
            AGX_CHECK(write_texel(memory, img, img.offset_B(px, py, layer, level, s), colour,
                                  size_B));
      const uint64_t plain = uint64_t{img.uncompressed_mode} * 0x0101010101010101ull;
      GpuFault fault;
      if (!memory.write(t.word_va, &plain, 8, GpuUnit::pbe, &fault))
        return Error::fault("compression metadata write: {}", describe(fault));
    }
  }
  return write_texel(memory, img, img.offset_B(x, y, layer, level, sample), in, size_B);
}

}  // namespace agx::gpu::internal
