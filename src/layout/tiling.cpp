// CPU tile/detile between linear memory and a GPU-tiled or twiddled level.
//
// Each element's tiled offset is xoff[x] + yoff[y]: tile column and Morton x
// bits depend only on x, tile row and Morton y bits only on y, and the two
// never share bits. The 4-aligned interior of the rectangle moves in 4x4
// blocks, which are 16 consecutive elements in Morton order (four 2x2 quads)
// and four short rows in linear memory (bytes: 8x8 blocks, 64 consecutive
// bytes); 1, 2 and 4-byte elements shuffle with SSE2. Edges and small tail tiles (< 4 elements)
// move one element at a time. Blocks are visited tile by tile so the tiled side stays in cache.
#include <emmintrin.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "layout/internal.h"
#include "util/bits.h"

namespace agx::layout {
namespace {

struct Plan {
  uint32_t x0, y0, w, h;  // rectangle in elements
  uint32_t E;             // bytes per element
  uint64_t pitch_B;
  uint32_t tile_w, tile_h;
  std::vector<uint64_t> xoff, yoff;  // tiled byte offsets, relative to the level
};

void build_offsets(const Layout& l, uint32_t level, Plan& p) {
  const Tile t = l.tile_el[level];
  const unsigned lw = log2_floor(t.width_el), lh = log2_floor(t.height_el);
  const uint64_t tile_B = uint64_t{p.E} << (lw + lh);
  const uint64_t row_of_tiles_B = div_round_up(l.stride_el[level], t.width_el) * tile_B;
  p.xoff.resize(p.w);
  p.yoff.resize(p.h);
  for (uint32_t i = 0; i < p.w; ++i) {
    uint32_t x = p.x0 + i;
    p.xoff[i] =
        (x >> lw) * tile_B + internal::morton_in_tile(x & (t.width_el - 1), 0, lw, lh) * p.E;
  }
  for (uint32_t i = 0; i < p.h; ++i) {
    uint32_t y = p.y0 + i;
    p.yoff[i] = (y >> lh) * row_of_tiles_B +
                internal::morton_in_tile(0, y & (t.height_el - 1), lw, lh) * p.E;
  }
  p.tile_w = t.width_el;
  p.tile_h = t.height_el;
}

// One 4x4 block: 16 consecutive tiled elements <-> 4 linear rows of 4.
template <uint32_t E, bool kStore>
inline void block4(uint8_t* tiled, uint8_t* linear, uint64_t pitch) {
  if constexpr (E == 4) {
    auto* r0 = linear;
    auto* r1 = linear + pitch;
    auto* r2 = linear + 2 * pitch;
    auto* r3 = linear + 3 * pitch;
    auto* t = reinterpret_cast<__m128i*>(tiled);
    if constexpr (kStore) {
      __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r0));
      __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r1));
      __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r2));
      __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r3));
      _mm_storeu_si128(t + 0, _mm_unpacklo_epi64(a, b));
      _mm_storeu_si128(t + 1, _mm_unpackhi_epi64(a, b));
      _mm_storeu_si128(t + 2, _mm_unpacklo_epi64(c, d));
      _mm_storeu_si128(t + 3, _mm_unpackhi_epi64(c, d));
    } else {
      __m128i q0 = _mm_loadu_si128(t + 0), q1 = _mm_loadu_si128(t + 1);
      __m128i q2 = _mm_loadu_si128(t + 2), q3 = _mm_loadu_si128(t + 3);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(r0), _mm_unpacklo_epi64(q0, q1));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(r1), _mm_unpackhi_epi64(q0, q1));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(r2), _mm_unpacklo_epi64(q2, q3));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(r3), _mm_unpackhi_epi64(q2, q3));
    }
  } else if constexpr (E == 2) {
    // 32-bit lanes of a 16-byte half are [row0 c01, row1 c01, row0 c23, row1 c23];
    // swapping lanes 1 and 2 turns it into two 8-byte rows and back.
    for (int half = 0; half < 2; ++half) {
      auto* t = reinterpret_cast<__m128i*>(tiled + 16 * half);
      uint8_t* ra = linear + 2 * half * pitch;
      uint8_t* rb = ra + pitch;
      if constexpr (kStore) {
        __m128i rows = _mm_unpacklo_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(ra)),
                                          _mm_loadl_epi64(reinterpret_cast<const __m128i*>(rb)));
        _mm_storeu_si128(t, _mm_shuffle_epi32(rows, _MM_SHUFFLE(3, 1, 2, 0)));
      } else {
        __m128i rows = _mm_shuffle_epi32(_mm_loadu_si128(t), _MM_SHUFFLE(3, 1, 2, 0));
        _mm_storel_epi64(reinterpret_cast<__m128i*>(ra), rows);
        _mm_storel_epi64(reinterpret_cast<__m128i*>(rb), _mm_unpackhi_epi64(rows, rows));
      }
    }
  } else {
    // Quads of 2x2: two elements of a row are adjacent in the tile.
    for (uint32_t q = 0; q < 4; ++q) {
      uint32_t qx = (q & 1) * 2, qy = (q >> 1) * 2;
      for (uint32_t r = 0; r < 2; ++r) {
        uint8_t* lin = linear + (qy + r) * pitch + qx * E;
        uint8_t* til = tiled + (q * 4 + r * 2) * E;
        if constexpr (kStore)
          std::memcpy(til, lin, 2 * E);
        else
          std::memcpy(lin, til, 2 * E);
      }
    }
  }
}

// One 8x8 block of bytes: four 4x4 Morton blocks (16 B each: left-top,
// right-top, left-bottom, right-bottom) <-> 8 linear rows of 8 bytes. In a
// 4x4 block the 16-bit lanes are [r0 c01, r1 c01, r0 c23, r1 c23, r2 c01,
// r3 c01, r2 c23, r3 c23]; swapping lanes 1 and 2 of each half makes its
// 32-bit lanes the four rows (and back).
template <bool kStore>
inline void block8_bytes(uint8_t* tiled, uint8_t* linear, uint64_t pitch) {
  constexpr int kSwap = _MM_SHUFFLE(3, 1, 2, 0);
  auto rows_of = [](__m128i v) {
    return _mm_shufflehi_epi16(_mm_shufflelo_epi16(v, kSwap), kSwap);
  };
  auto* t = reinterpret_cast<__m128i*>(tiled);
  for (int half = 0; half < 2; ++half) {  // rows 0-3, then rows 4-7
    uint8_t* r = linear + 4 * half * pitch;
    if constexpr (kStore) {
      auto load2 = [&](int i) {
        return _mm_unpacklo_epi64(
            _mm_loadl_epi64(reinterpret_cast<const __m128i*>(r + i * pitch)),
            _mm_loadl_epi64(reinterpret_cast<const __m128i*>(r + (i + 1) * pitch)));
      };
      // [l0 r0 l1 r1] -> [l0 l1 r0 r1]; then left rows and right rows.
      __m128i s01 = _mm_shuffle_epi32(load2(0), kSwap), s23 = _mm_shuffle_epi32(load2(2), kSwap);
      _mm_storeu_si128(t + 2 * half, rows_of(_mm_unpacklo_epi64(s01, s23)));
      _mm_storeu_si128(t + 2 * half + 1, rows_of(_mm_unpackhi_epi64(s01, s23)));
    } else {
      __m128i left = rows_of(_mm_loadu_si128(t + 2 * half));
      __m128i right = rows_of(_mm_loadu_si128(t + 2 * half + 1));
      __m128i r01 = _mm_unpacklo_epi32(left, right), r23 = _mm_unpackhi_epi32(left, right);
      _mm_storel_epi64(reinterpret_cast<__m128i*>(r), r01);
      _mm_storel_epi64(reinterpret_cast<__m128i*>(r + pitch), _mm_unpackhi_epi64(r01, r01));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(r + 2 * pitch), r23);
      _mm_storel_epi64(reinterpret_cast<__m128i*>(r + 3 * pitch), _mm_unpackhi_epi64(r23, r23));
    }
  }
}

template <uint32_t E, bool kStore>
void copy_elements(const Plan& p, uint8_t* level, uint8_t* linear, uint32_t i0, uint32_t i1,
                   uint32_t j) {
  uint8_t* row = linear + j * p.pitch_B;
  const uint64_t yo = p.yoff[j];
  for (uint32_t i = i0; i < i1; ++i) {
    uint8_t* til = level + p.xoff[i] + yo;
    if constexpr (kStore)
      std::memcpy(til, row + uint64_t{i} * E, E);
    else
      std::memcpy(row + uint64_t{i} * E, til, E);
  }
}

template <uint32_t E, bool kStore>
void copy_rect(const Plan& p, uint8_t* level, uint8_t* linear) {
  // Bytes move in 8x8 blocks (64 B), larger elements in 4x4 blocks.
  constexpr uint32_t kBlock = E == 1 ? 8 : 4;
  // The block-aligned interior, relative to the rect origin.
  const uint32_t xa =
      static_cast<uint32_t>(std::min<uint64_t>(align_up(p.x0, kBlock), p.x0 + p.w)) - p.x0;
  const uint32_t ya =
      static_cast<uint32_t>(std::min<uint64_t>(align_up(p.y0, kBlock), p.y0 + p.h)) - p.y0;
  const uint32_t xb = std::max(xa, static_cast<uint32_t>(align_down(p.x0 + p.w, kBlock)) - p.x0);
  const uint32_t yb = std::max(ya, static_cast<uint32_t>(align_down(p.y0 + p.h, kBlock)) - p.y0);
  const bool blocks = p.tile_w >= kBlock && p.tile_h >= kBlock && xa < xb && ya < yb;
  if (!blocks) {
    for (uint32_t j = 0; j < p.h; ++j) copy_elements<E, kStore>(p, level, linear, 0, p.w, j);
    return;
  }
  for (uint32_t j = 0; j < ya; ++j) copy_elements<E, kStore>(p, level, linear, 0, p.w, j);
  for (uint32_t j = yb; j < p.h; ++j) copy_elements<E, kStore>(p, level, linear, 0, p.w, j);
  for (uint32_t j = ya; j < yb; ++j) {
    copy_elements<E, kStore>(p, level, linear, 0, xa, j);
    copy_elements<E, kStore>(p, level, linear, xb, p.w, j);
  }
  // Tile by tile over the interior.
  for (uint32_t yc = ya; yc < yb;) {
    uint32_t yc_end = std::min<uint32_t>(
        yb, static_cast<uint32_t>(align_down(p.y0 + yc, p.tile_h)) + p.tile_h - p.y0);
    for (uint32_t xc = xa; xc < xb;) {
      uint32_t xc_end = std::min<uint32_t>(
          xb, static_cast<uint32_t>(align_down(p.x0 + xc, p.tile_w)) + p.tile_w - p.x0);
      for (uint32_t j = yc; j < yc_end; j += kBlock) {
        uint8_t* tiled_row = level + p.yoff[j];
        uint8_t* lin_row = linear + j * p.pitch_B;
        for (uint32_t i = xc; i < xc_end; i += kBlock) {
          if constexpr (E == 1)
            block8_bytes<kStore>(tiled_row + p.xoff[i], lin_row + i, p.pitch_B);
          else
            block4<E, kStore>(tiled_row + p.xoff[i], lin_row + uint64_t{i} * E, p.pitch_B);
        }
      }
      xc = xc_end;
    }
    yc = yc_end;
  }
}

template <bool kStore>
void dispatch(const Plan& p, uint8_t* level, uint8_t* linear) {
  switch (p.E) {
    case 1:
      return copy_rect<1, kStore>(p, level, linear);
    case 2:
      return copy_rect<2, kStore>(p, level, linear);
    case 4:
      return copy_rect<4, kStore>(p, level, linear);
    case 8:
      return copy_rect<8, kStore>(p, level, linear);
    case 16:
      return copy_rect<16, kStore>(p, level, linear);
    case 32:
      return copy_rect<32, kStore>(p, level, linear);
    case 64:
      return copy_rect<64, kStore>(p, level, linear);
  }
}

Result<Plan> plan(const Layout& l, uint32_t level, uint32_t layer, size_t image_size_B,
                  size_t linear_size_B, uint64_t pitch_B, Rect r) {
  AGX_CHECK(internal::check_level_layer(l, level, layer));
  if (l.level_logically_compressed(level))
    return Error::unsupported("level {} is compressed by the GPU; the CPU cannot tile it", level);
  const auto& f = l.format();
  const uint32_t lw = l.level_width_px(level), lh = l.level_height_px(level);
  if (r.width_px == 0 || r.height_px == 0)
    return Error::invalid_argument("empty rectangle {}x{}", r.width_px, r.height_px);
  if (uint64_t{r.x_px} + r.width_px > lw || uint64_t{r.y_px} + r.height_px > lh)
    return Error::invalid_argument("rectangle {}x{} at ({}, {}) is outside level {} ({}x{} px)",
                                   r.width_px, r.height_px, r.x_px, r.y_px, level, lw, lh);
  if (r.x_px % f.block_width_px || r.y_px % f.block_height_px)
    return Error::invalid_argument("rectangle origin ({}, {}) is not aligned to {}x{} blocks",
                                   r.x_px, r.y_px, f.block_width_px, f.block_height_px);
  Plan p;
  p.E = l.bytes_per_element_B;
  p.pitch_B = pitch_B;
  p.x0 = r.x_px / f.block_width_px;
  p.y0 = r.y_px / f.block_height_px;
  p.w = static_cast<uint32_t>(div_round_up(r.x_px + r.width_px, f.block_width_px)) - p.x0;
  p.h = static_cast<uint32_t>(div_round_up(r.y_px + r.height_px, f.block_height_px)) - p.y0;
  const uint64_t row_B = uint64_t{p.w} * p.E;
  if (pitch_B < row_B)
    return Error::invalid_argument("linear pitch {} B is less than a row of the rectangle ({} B)",
                                   pitch_B, row_B);
  if ((p.h - 1) * pitch_B + row_B > linear_size_B)
    return Error::invalid_argument(
        "linear buffer of {} B is too small: {} rows of pitch {} B need {} B", linear_size_B, p.h,
        pitch_B, (p.h - 1) * pitch_B + row_B);
  const uint64_t level_end_B = uint64_t{layer} * l.layer_stride_B + l.level_offsets_B[level + 1];
  if (level_end_B > image_size_B)
    return Error::invalid_argument(
        "image buffer of {} B is too small: layer {} level {} ends at {} B", image_size_B, layer,
        level, level_end_B);
  if (l.request.tiling != Tiling::linear) {
    build_offsets(l, level, p);
    if (p.xoff.back() + p.yoff.back() + p.E > l.level_size_B(level))
      return Error::limit("rectangle reaches past level {}'s allocation", level);
  }
  return p;
}

template <bool kStore>
Status run(const Layout& l, uint32_t level, uint32_t layer, uint8_t* image, size_t image_size_B,
           uint8_t* linear, size_t linear_size_B, uint64_t pitch_B, Rect r) {
  AGX_TRY(Plan p, plan(l, level, layer, image_size_B, linear_size_B, pitch_B, r));
  uint8_t* level_base = image + uint64_t{layer} * l.layer_stride_B + l.level_offsets_B[level];
  if (l.request.tiling == Tiling::linear) {
    for (uint32_t j = 0; j < p.h; ++j) {
      uint8_t* img = level_base + uint64_t{p.y0 + j} * l.linear_stride_B + uint64_t{p.x0} * p.E;
      uint8_t* lin = linear + j * pitch_B;
      if constexpr (kStore)
        std::memcpy(img, lin, uint64_t{p.w} * p.E);
      else
        std::memcpy(lin, img, uint64_t{p.w} * p.E);
    }
    return {};
  }
  dispatch<kStore>(p, level_base, linear);
  return {};
}

}  // namespace

Rect level_rect(const Layout& l, uint32_t level) {
  return Rect{0, 0, l.level_width_px(level), l.level_height_px(level)};
}

Status tile(const Layout& l, uint32_t level, uint32_t layer, std::span<uint8_t> image,
            std::span<const uint8_t> linear, uint64_t pitch_B, Rect r) {
  // The store direction only reads `linear`.
  return run<true>(l, level, layer, image.data(), image.size(), const_cast<uint8_t*>(linear.data()),
                   linear.size(), pitch_B, r);
}

Status detile(const Layout& l, uint32_t level, uint32_t layer, std::span<const uint8_t> image,
              std::span<uint8_t> linear, uint64_t pitch_B, Rect r) {
  // The load direction only reads `image`.
  return run<false>(l, level, layer, const_cast<uint8_t*>(image.data()), image.size(),
                    linear.data(), linear.size(), pitch_B, r);
}

}  // namespace agx::layout
