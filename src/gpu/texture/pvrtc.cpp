// PVRTC1 decode (4 bpp 4x4 and 2 bpp 8x4 words), written from the Khronos
// Data Format Specification, "PVRTC Compressed Texture Image Formats"
// (KhronosGroup/DataFormat pvrtc.txt): colours A and B of each word are two
// low-resolution images, bilinearly upscaled across the neighbouring words
// (wrapping toroidally) and blended per pixel by the modulation data.
//
// What the specification does not say about AGX (no public format maps to
// the PVRTC classes) is decided in three functions below, each documented
// in docs/texture.md ("PVRTC"): pvrtc_block_offset_B (where a word lives),
// pvrtc_check_image (which sizes are accepted) and pvrtc_wrap (the
// neighbour of an edge word).
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

#include "gpu/texture/texture_internal.h"

namespace agx::gpu::internal {
namespace {

// One colour of a word as A4 R5 G5 B5 (the specification's "ARGB 4555"):
// 3- and 4-bit channels widen by bit replication, 3-bit alpha by a zero
// bit, opaque colours get alpha 0b1111.
using Argb = std::array<int, 4>;  // R, G, B, A
int widen(int v, int bits) {
  return bits == 4 ? (v << 1) | (v >> 3) : bits == 3 ? (v << 2) | (v >> 1) : v;
}
Argb colour_b(uint64_t w) {  // bits 48..63
  const unsigned c = unsigned(w >> 48) & 0xFFFF;
  if (c >> 15) return {int(c >> 10) & 31, int(c >> 5) & 31, int(c) & 31, 15};
  return {widen(int(c >> 8) & 15, 4), widen(int(c >> 4) & 15, 4), widen(int(c) & 15, 4),
          (int(c >> 12) & 7) << 1};
}
Argb colour_a(uint64_t w) {  // bits 33..47 (bit 32 is the modulation flag)
  const unsigned c = unsigned(w >> 32) & 0xFFFF;
  if (c >> 15) return {int(c >> 10) & 31, int(c >> 5) & 31, widen(int(c >> 1) & 15, 4), 15};
  return {widen(int(c >> 8) & 15, 4), widen(int(c >> 4) & 15, 4), widen(int(c >> 1) & 7, 3),
          (int(c >> 12) & 7) << 1};
}

// Modulation weights (of 8) of the 2-bit codes with M = 0 and M = 1.
constexpr int kWeights[2][4] = {{0, 3, 5, 8}, {0, 4, 4, 8}};

// The modulation of pixel (x, y) of a 2 bpp word in punch-through mode
// (M = 1) when the pixel has stored bits: the 2-bit code, or -1 when the
// pixel is one of the interpolated ones ((x + y) odd).
int stored_code_2bpp(uint32_t mod, unsigned x, unsigned y) {
  if ((x + y) & 1) return -1;
  const unsigned k = y * 4 + x / 2;  // stored pixels in order, two bits each
  if (k == 0) return (mod >> 1) & 1 ? 3 : 0;  // bit 0 is the mode flag
  if (k == 10 && (mod & 1)) return (mod >> 21) & 1 ? 3 : 0;  // bit 20 is flag F
  return int(mod >> (2 * k)) & 3;
}

// A pixel's weight (of 8) and whether it is punched through, for a pixel
// whose word stores its modulation (any 4 bpp pixel; 2 bpp pixels with
// M = 0 or (x + y) even).
struct Mod {
  int weight;
  bool punch;
};
Mod stored_mod(uint64_t w, bool two_bpp, unsigned x, unsigned y) {
  const uint32_t mod = uint32_t(w);
  const bool m = (w >> 32) & 1;
  int code;
  if (!two_bpp) {
    code = int(mod >> (2 * (y * 4 + x))) & 3;
  } else if (!m) {
    return {(mod >> (y * 8 + x)) & 1 ? 8 : 0, false};  // one bit: image A or B
  } else {
    code = std::max(stored_code_2bpp(mod, x, y), 0);  // callers ask for stored pixels only
  }
  return {kWeights[m][code], m && code == 2};
}

}  // namespace

// Our choice (docs/texture.md "PVRTC"): PVRTC words are the elements of the
// image's layout like any block format's (the `layout` unit's twiddled
// Morton order, GPU tiles, or rows for linear images). The specification's
// own order is `pvrtc_word_index`; to store words in that order instead,
// change this one function.
uint64_t pvrtc_block_offset_B(const TextureUnit::Image& img, uint32_t level, uint32_t layer,
                              uint32_t bx, uint32_t by) {
  return img.offset_B(bx, by, layer, level, 0);
}

// Our choice: the neighbour of an edge word wraps to the opposite side of
// the level (the specification's toroidal wrap), whatever the sampler's
// wrap modes, so every pixel decodes the same for every sampler.
uint32_t pvrtc_wrap(int64_t b, uint32_t n) {
  const int64_t m = b % int64_t(n);
  return uint32_t(m < 0 ? m + n : m);
}

// Our choice: PVRTC1 images have power-of-two sizes (the specification
// requires it); others are refused rather than guessed at.
Status pvrtc_check_image(const ImageDesc& d) {
  if (!std::has_single_bit(d.width_px) || !std::has_single_bit(d.height_px))
    return Error::unsupported(
        "PVRTC image {}x{}: PVRTC1 images have power-of-two width and height", d.width_px,
        d.height_px);
  return {};
}

uint64_t pvrtc_word_index(uint32_t bx, uint32_t by, uint32_t words_w, uint32_t words_h) {
  // The specification's "reflected Morton order": bits of Y and X
  // interleaved (Y in the lower bit of each pair) up to the smaller
  // dimension; the rest of the larger coordinate above them.
  const uint32_t min_dim = std::min(words_w, words_h);
  uint64_t index = 0;
  unsigned pairs = 0;
  for (uint32_t bit = 1; bit < min_dim; bit <<= 1, ++pairs)
    index |= uint64_t(((by & bit) ? 1u : 0u) | ((bx & bit) ? 2u : 0u)) << (2 * pairs);
  index |= uint64_t((bx | by) >> pairs) << (2 * pairs);
  return index;
}

void decode_pvrtc(const std::array<uint64_t, 9>& words, bool two_bpp,
                  std::array<std::array<uint8_t, 4>, 32>& out) {
  const int bw = two_bpp ? 8 : 4, bh = 4;
  auto word = [&](int dx, int dy) { return words[size_t((dy + 1) * 3 + dx + 1)]; };
  // Colours A and B of the 3x3 neighbourhood.
  std::array<Argb, 9> ca{}, cb{};
  for (size_t i = 0; i < 9; ++i) {
    ca[i] = colour_a(words[i]);
    cb[i] = colour_b(words[i]);
  }
  const uint64_t centre = word(0, 0);
  // The weight of pixel (x, y) relative to the centre word, which may lie
  // in a neighbouring word (2 bpp interpolation reads one pixel across).
  auto neighbour_weight = [&](int x, int y) {
    const int dx = x < 0 ? -1 : x >= bw ? 1 : 0, dy = y < 0 ? -1 : y >= bh ? 1 : 0;
    return stored_mod(word(dx, dy), two_bpp, unsigned(x - dx * bw), unsigned(y - dy * bh)).weight;
  };
  for (int y = 0; y < bh; ++y)
    for (int x = 0; x < bw; ++x) {
      // Bilinear upscale: the four colour samples around the pixel, samples
      // centred at (bw / 2, bh / 2) of their words.
      const int dxl = x < bw / 2 ? -1 : 0, dyl = y < bh / 2 ? -1 : 0;
      const int xr = x - bw / 2 - dxl * bw, yr = y - bh / 2 - dyl * bh;
      const int w00 = (bw - xr) * (bh - yr), w10 = xr * (bh - yr), w01 = (bw - xr) * yr,
                w11 = xr * yr;
      const size_t i00 = size_t((dyl + 1) * 3 + dxl + 1);
      const size_t i10 = i00 + 1, i01 = i00 + 3, i11 = i00 + 4;
      std::array<int, 4> img_a{}, img_b{};
      for (int k = 0; k < 4; ++k) {
        const int a = ca[i00][k] * w00 + ca[i10][k] * w10 + ca[i01][k] * w01 + ca[i11][k] * w11;
        const int b = cb[i00][k] * w00 + cb[i10][k] * w10 + cb[i01][k] * w01 + cb[i11][k] * w11;
        // To 8 bits: RGB are 5.4 (4 bpp) or 5.5 (2 bpp) fixed point, alpha
        // 4.4 or 4.5.
        auto to8 = [&](int c) {
          if (k < 3) return two_bpp ? c / 4 + c / 128 : c / 2 + c / 64;
          return two_bpp ? c / 2 + c / 32 : c + c / 16;
        };
        img_a[k] = to8(a);
        img_b[k] = to8(b);
      }
      // Modulation.
      Mod mod{0, false};
      const uint32_t m = uint32_t(centre);
      if (two_bpp && ((centre >> 32) & 1) && stored_code_2bpp(m, unsigned(x), unsigned(y)) < 0) {
        const int l = neighbour_weight(x - 1, y), r = neighbour_weight(x + 1, y);
        const int u = neighbour_weight(x, y - 1), d = neighbour_weight(x, y + 1);
        if (!(m & 1)) mod.weight = (l + r + u + d + 2) / 4;
        else if ((m >> 20) & 1) mod.weight = (u + d + 1) / 2;  // flag F: vertical
        else mod.weight = (l + r + 1) / 2;
      } else {
        mod = stored_mod(centre, two_bpp, unsigned(x), unsigned(y));
      }
      auto& px = out[size_t(y * bw + x)];
      for (int k = 0; k < 4; ++k)
        px[k] = uint8_t((img_a[k] * (8 - mod.weight) + img_b[k] * mod.weight) / 8);
      if (mod.punch) px[3] = 0;
    }
}

Status decode_pvrtc_block_at(GpuMemory& memory, const TextureUnit::Image& img, uint32_t level,
                             uint32_t layer, uint32_t bx, uint32_t by, const TexelFormat& f,
                             Texel* out) {
  const uint32_t bw = f.block_w, bh = f.block_h;
  // At least one word per level: a level smaller than a word is one word.
  const uint32_t nx = (img.width(level) + bw - 1) / bw, ny = (img.height(level) + bh - 1) / bh;
  std::array<uint64_t, 9> words{};
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      const uint32_t x = pvrtc_wrap(int64_t(bx) + dx, nx), y = pvrtc_wrap(int64_t(by) + dy, ny);
      uint8_t bytes[8];
      AGX_CHECK(read_texel(memory, img, pvrtc_block_offset_B(img, level, layer, x, y), bytes, 8));
      uint64_t w;
      std::memcpy(&w, bytes, 8);  // 64-bit little-endian words
      words[size_t((dy + 1) * 3 + dx + 1)] = w;
    }
  return decode_pvrtc_texels(f, words, out);
}

Status decode_pvrtc_texels(const TexelFormat& f, const std::array<uint64_t, 9>& words,
                           Texel* out) {
  std::array<std::array<uint8_t, 4>, 32> px{};
  decode_pvrtc(words, f.block == TexelFormat::Block::pvrtc2, px);
  const unsigned n = unsigned(f.block_w) * f.block_h;
  for (unsigned t = 0; t < n; ++t)
    for (int k = 0; k < 4; ++k) {
      // sRGB: the EOTF of R' / 255 at the end of the decode; A stays linear.
      const float v = float(px[t][k]) / 255.0f;
      out[t].c[k] = f2u(k < 3 && f.srgb[k] ? srgb_to_linear(v) : v);
    }
  return {};
}

}  // namespace agx::gpu::internal
