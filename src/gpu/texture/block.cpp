// Block-compressed texel decode for sampling. BC1-BC3 through Debian's
// libsquish, ASTC (LDR, sRGB and HDR) through Debian's libastcenc (Arm's
// reference codec); BC4/BC5 (RGTC) and ETC2/EAC written here from the Khronos
// Data Format Specification ("RGTC Compressed Texture Image Formats", "ETC2
// Compressed Texture Image Formats"); BC7 in texture_bc7.cpp, BC6H in
// texture_bc6h.cpp.
#include <astcenc.h>
#include <squish.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>
#include <memory>

#include "gpu/texture/texture_internal.h"

namespace agx::gpu::internal {
namespace {

// RGTC: one channel from an 8-byte block; `sign` for the SNORM forms.
void rgtc_channel(const uint8_t* b, bool sign, float* out16) {
  float e0, e1;
  if (sign) {
    e0 = std::max(float(int8_t(b[0])), -127.0f) / 127.0f;
    e1 = std::max(float(int8_t(b[1])), -127.0f) / 127.0f;
  } else {
    e0 = float(b[0]) / 255.0f;
    e1 = float(b[1]) / 255.0f;
  }
  const bool six = sign ? int8_t(b[0]) <= int8_t(b[1]) : b[0] <= b[1];
  uint64_t bits = 0;
  for (int i = 0; i < 6; ++i) bits |= uint64_t(b[2 + i]) << (8 * i);
  for (int t = 0; t < 16; ++t) {
    const unsigned code = unsigned(bits >> (3 * t)) & 7;
    float v;
    if (code == 0) v = e0;
    else if (code == 1) v = e1;
    else if (!six) v = (float(8 - code) * e0 + float(code - 1) * e1) / 7.0f;
    else if (code < 6) v = (float(6 - code) * e0 + float(code - 1) * e1) / 5.0f;
    else v = code == 6 ? (sign ? -1.0f : 0.0f) : 1.0f;
    out16[t] = v;
  }
}

// ETC2 / EAC.
constexpr int kEtcModifiers[8][4] = {{2, 8, -2, -8},     {5, 17, -5, -17},   {9, 29, -9, -29},
                                     {13, 42, -13, -42}, {18, 60, -18, -60}, {24, 80, -24, -80},
                                     {33, 106, -33, -106}, {47, 183, -47, -183}};
constexpr int kEtcDistances[8] = {3, 6, 11, 16, 23, 32, 41, 64};
constexpr int kEacModifiers[16][8] = {
    {-3, -6, -9, -15, 2, 5, 8, 14},   {-3, -7, -10, -13, 2, 6, 9, 12},
    {-2, -5, -8, -13, 1, 4, 7, 12},   {-2, -4, -6, -13, 1, 3, 5, 12},
    {-3, -6, -8, -12, 2, 5, 7, 11},   {-3, -7, -9, -11, 2, 6, 8, 10},
    {-4, -7, -8, -11, 3, 6, 7, 10},   {-3, -5, -8, -11, 2, 4, 7, 10},
    {-2, -6, -8, -10, 1, 5, 7, 9},    {-2, -5, -8, -10, 1, 4, 7, 9},
    {-2, -4, -8, -10, 1, 3, 7, 9},    {-2, -5, -7, -10, 1, 4, 6, 9},
    {-3, -4, -7, -10, 2, 3, 6, 9},    {-1, -2, -3, -10, 0, 1, 2, 9},
    {-4, -6, -8, -9, 3, 5, 7, 8},     {-3, -5, -7, -9, 2, 4, 6, 8}};

int clamp255(int v) { return std::clamp(v, 0, 255); }
int ext4(int v) { return (v << 4) | v; }
int ext5(int v) { return (v << 3) | (v >> 2); }
int ext6(int v) { return (v << 2) | (v >> 4); }
int ext7(int v) { return (v << 1) | (v >> 6); }

uint64_t be64(const uint8_t* b) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = v << 8 | b[i];
  return v;
}

// ETC2 RGB block (8 bytes) to 16 RGBA texels (x + 4 y); `punch` selects the
// RGB8A1 interpretation (the "opaque" bit instead of the differential bit).
void etc2_rgb(const uint8_t* b, bool punch, std::array<std::array<int, 4>, 16>& out) {
  const uint64_t w = be64(b);
  const bool diff_bit = (w >> 33) & 1;
  const bool opaque = punch ? diff_bit : true;
  const bool differential = punch ? true : diff_bit;
  const uint32_t lsb = uint32_t(w), msb = uint32_t(w >> 32);
  auto pixel_index = [&](int x, int y) {
    const int i = x * 4 + y;
    return int(((lsb >> i) & 1) | (((lsb >> (16 + i)) & 1) << 1));
  };
  auto set = [&](int x, int y, int r, int g, int bb, int a) {
    out[x + 4 * y] = {clamp255(r), clamp255(g), clamp255(bb), a};
  };
  int r[2], g[2], bl[2];
  const int R = int(msb >> 27) & 31, dR = int((msb >> 24) & 7) << 29 >> 29;
  const int G = int(msb >> 19) & 31, dG = int((msb >> 16) & 7) << 29 >> 29;
  const int B = int(msb >> 11) & 31, dB = int((msb >> 8) & 7) << 29 >> 29;
  if (differential) {
    if (R + dR < 0 || R + dR > 31) {  // T mode
      const int r1 = ((msb >> 27) & 3) << 2 | ((msb >> 24) & 3);
      const int g1 = (msb >> 20) & 15, b1 = (msb >> 16) & 15;
      const int r2 = (msb >> 12) & 15, g2 = (msb >> 8) & 15, b2 = (msb >> 4) & 15;
      const int d = kEtcDistances[((msb >> 2) & 3) << 1 | (msb & 1)];
      const int c[4][3] = {{ext4(r1), ext4(g1), ext4(b1)},
                           {ext4(r2) + d, ext4(g2) + d, ext4(b2) + d},
                           {ext4(r2), ext4(g2), ext4(b2)},
                           {ext4(r2) - d, ext4(g2) - d, ext4(b2) - d}};
      for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 4; ++x) {
          const int p = pixel_index(x, y);
          if (!opaque && p == 2) set(x, y, 0, 0, 0, 0);
          else set(x, y, c[p][0], c[p][1], c[p][2], 255);
        }
      return;
    }
    if (G + dG < 0 || G + dG > 31) {  // H mode
      const int r1 = (msb >> 27) & 15;
      const int g1 = ((msb >> 24) & 7) << 1 | ((msb >> 20) & 1);
      const int b1 = ((msb >> 19) & 1) << 3 | ((msb >> 15) & 7);
      const int r2 = (msb >> 11) & 15, g2 = (msb >> 7) & 15, b2 = (msb >> 3) & 15;
      const int c1 = ext4(r1) << 16 | ext4(g1) << 8 | ext4(b1);
      const int c2 = ext4(r2) << 16 | ext4(g2) << 8 | ext4(b2);
      const int di = ((msb >> 2) & 1) << 2 | (msb & 1) << 1 | (c1 >= c2 ? 1 : 0);
      const int d = kEtcDistances[di];
      const int base[2][3] = {{ext4(r1), ext4(g1), ext4(b1)}, {ext4(r2), ext4(g2), ext4(b2)}};
      for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 4; ++x) {
          const int p = pixel_index(x, y);
          const int* cb = base[p >> 1];
          const int s = (p & 1) ? -d : d;
          if (!opaque && p == 2) set(x, y, 0, 0, 0, 0);
          else set(x, y, cb[0] + s, cb[1] + s, cb[2] + s, 255);
        }
      return;
    }
    if (B + dB < 0 || B + dB > 31) {  // planar mode
      const int ro = ext6(int(msb >> 25) & 63);
      const int go = ext7(int((msb >> 24) & 1) << 6 | int((msb >> 17) & 63));
      const int bo = ext6(int((msb >> 16) & 1) << 5 | int((msb >> 11) & 3) << 3 | int((msb >> 7) & 7));
      const int rh = ext6(int((msb >> 2) & 31) << 1 | int(msb & 1));
      const int gh = ext7(int(lsb >> 25) & 127);
      const int bh = ext6(int(lsb >> 19) & 63);
      const int rv = ext6(int(lsb >> 13) & 63);
      const int gv = ext7(int(lsb >> 6) & 127);
      const int bv = ext6(int(lsb) & 63);
      for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 4; ++x)
          set(x, y, (x * (rh - ro) + y * (rv - ro) + 4 * ro + 2) >> 2,
              (x * (gh - go) + y * (gv - go) + 4 * go + 2) >> 2,
              (x * (bh - bo) + y * (bv - bo) + 4 * bo + 2) >> 2, 255);
      return;
    }
    r[0] = ext5(R), g[0] = ext5(G), bl[0] = ext5(B);
    r[1] = ext5(R + dR), g[1] = ext5(G + dG), bl[1] = ext5(B + dB);
  } else {
    r[0] = ext4(int(msb >> 28) & 15), r[1] = ext4(int(msb >> 24) & 15);
    g[0] = ext4(int(msb >> 20) & 15), g[1] = ext4(int(msb >> 16) & 15);
    bl[0] = ext4(int(msb >> 12) & 15), bl[1] = ext4(int(msb >> 8) & 15);
  }
  const int table[2] = {int(msb >> 5) & 7, int(msb >> 2) & 7};
  const bool flip = msb & 1;
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) {
      const int sub = flip ? (y >= 2) : (x >= 2);
      const int p = pixel_index(x, y);
      // Pixel index: msb selects the sign, lsb the magnitude (0: small).
      const int msb_i = p >> 1, lsb_i = p & 1;
      if (!opaque && msb_i == 1 && lsb_i == 0) {
        set(x, y, 0, 0, 0, 0);
        continue;
      }
      int m = kEtcModifiers[table[sub]][lsb_i + 2 * msb_i];
      if (!opaque && msb_i == 0 && lsb_i == 0) m = 0;  // punch-through: index 0 is the base
      set(x, y, r[sub] + m, g[sub] + m, bl[sub] + m, 255);
    }
}

// EAC 11-bit channel (8 bytes) to 16 values in [0, 2047] (or signed
// [-1023, 1023]).
void eac11(const uint8_t* b, bool sign, std::array<int, 16>& out) {
  const uint64_t w = be64(b);
  const int base = sign ? int(int8_t(b[0])) : int(b[0]);
  const int mult = int(b[1] >> 4), table = b[1] & 15;
  for (int x = 0; x < 4; ++x)
    for (int y = 0; y < 4; ++y) {
      const int idx = int((w >> (45 - 3 * (x * 4 + y))) & 7);
      const int mod = kEacModifiers[table][idx];
      int v;
      if (sign) {
        int bb = std::max(base, -127);
        v = mult ? bb * 8 + mod * mult * 8 : bb * 8 + mod;
        v = std::clamp(v, -1023, 1023);
      } else {
        v = mult ? base * 8 + 4 + mod * mult * 8 : base * 8 + 4 + mod;
        v = std::clamp(v, 0, 2047);
      }
      out[x + 4 * y] = v;
    }
}

// EAC 8-bit alpha of ETC2 RGBA8.
void eac8(const uint8_t* b, std::array<int, 16>& out) {
  const uint64_t w = be64(b);
  const int base = b[0], mult = b[1] >> 4, table = b[1] & 15;
  for (int x = 0; x < 4; ++x)
    for (int y = 0; y < 4; ++y) {
      const int idx = int((w >> (45 - 3 * (x * 4 + y))) & 7);
      out[x + 4 * y] = clamp255(base + kEacModifiers[table][idx] * mult);
    }
}

struct AstcKey {
  astcenc_profile profile;
  unsigned bw, bh;
  bool operator<(const AstcKey& o) const {
    return std::tie(profile, bw, bh) < std::tie(o.profile, o.bw, o.bh);
  }
};
struct AstcFree {
  void operator()(astcenc_context* c) const { astcenc_context_free(c); }
};

Result<astcenc_context*> astc_context(astcenc_profile profile, unsigned bw, unsigned bh) {
  thread_local std::map<AstcKey, std::unique_ptr<astcenc_context, AstcFree>> cache;
  AstcKey key{profile, bw, bh};
  auto it = cache.find(key);
  if (it != cache.end()) return it->second.get();
  astcenc_config config;
  astcenc_error e = astcenc_config_init(profile, bw, bh, 1, ASTCENC_PRE_FASTEST,
                                        ASTCENC_FLG_DECOMPRESS_ONLY, &config);
  astcenc_context* ctx = nullptr;
  if (e == ASTCENC_SUCCESS) e = astcenc_context_alloc(&config, 1, &ctx);
  if (e != ASTCENC_SUCCESS)
    return Error::unsupported("ASTC {}x{}: the decoder refused it ({})", bw, bh,
                              astcenc_get_error_string(e));
  cache.emplace(key, std::unique_ptr<astcenc_context, AstcFree>(ctx));
  return ctx;
}

}  // namespace

Status decode_block(const TexelFormat& f, const uint8_t* b, Texel* out) {
  const unsigned n = unsigned(f.block_w) * f.block_h;
  auto unorm8 = [&](unsigned t, const std::array<int, 4>& v) {
    for (int k = 0; k < 4; ++k) {
      const float x = (k < 3 && f.srgb[k]) ? srgb_to_linear(float(v[k]) / 255.0f)
                                           : float(v[k]) / 255.0f;
      out[t].c[k] = f2u(x);
    }
  };
  switch (f.block) {
    case TexelFormat::Block::bc1:
    case TexelFormat::Block::bc2:
    case TexelFormat::Block::bc3: {
      const int flags = f.block == TexelFormat::Block::bc1   ? squish::kDxt1
                        : f.block == TexelFormat::Block::bc2 ? squish::kDxt3
                                                             : squish::kDxt5;
      squish::u8 rgba[64];
      squish::Decompress(rgba, b, flags);
      for (unsigned t = 0; t < 16; ++t)
        unorm8(t, {rgba[4 * t], rgba[4 * t + 1], rgba[4 * t + 2], rgba[4 * t + 3]});
      return {};
    }
    case TexelFormat::Block::bc4:
    case TexelFormat::Block::bc5: {
      const bool sign = f.type == format::TextureType::Snorm;
      float r[16], g[16];
      rgtc_channel(b, sign, r);
      const bool two = f.block == TexelFormat::Block::bc5;
      if (two) rgtc_channel(b + 8, sign, g);
      for (unsigned t = 0; t < 16; ++t)
        out[t].c = {f2u(r[t]), f2u(two ? g[t] : 0.0f), 0, f2u(1.0f)};
      return {};
    }
    case TexelFormat::Block::bc6h: {
      std::array<std::array<uint16_t, 3>, 16> px{};
      decode_bc6h(b, f.channels == format::Channels::BC6H, px);
      for (unsigned t = 0; t < 16; ++t)
        out[t].c = {f2u(half_to_float(px[t][0])), f2u(half_to_float(px[t][1])),
                    f2u(half_to_float(px[t][2])), f2u(1.0f)};
      return {};
    }
    case TexelFormat::Block::bc7: {
      std::array<std::array<int, 4>, 16> px{};
      decode_bc7(b, px);
      for (unsigned t = 0; t < 16; ++t) unorm8(t, px[t]);
      return {};
    }
    case TexelFormat::Block::etc2_rgb8:
    case TexelFormat::Block::etc2_rgb8a1:
    case TexelFormat::Block::etc2_rgba8: {
      std::array<std::array<int, 4>, 16> px{};
      const bool rgba = f.block == TexelFormat::Block::etc2_rgba8;
      etc2_rgb(rgba ? b + 8 : b, f.block == TexelFormat::Block::etc2_rgb8a1, px);
      if (rgba) {
        std::array<int, 16> a{};
        eac8(b, a);
        for (unsigned t = 0; t < 16; ++t) px[t][3] = a[t];
      }
      for (unsigned t = 0; t < 16; ++t) unorm8(t, px[t]);
      return {};
    }
    case TexelFormat::Block::eac_r11:
    case TexelFormat::Block::eac_rg11: {
      const bool sign = f.type == format::TextureType::Snorm;
      std::array<int, 16> r{}, g{};
      eac11(b, sign, r);
      const bool two = f.block == TexelFormat::Block::eac_rg11;
      if (two) eac11(b + 8, sign, g);
      auto conv = [&](int v) { return sign ? float(v) / 1023.0f : float(v) / 2047.0f; };
      for (unsigned t = 0; t < 16; ++t)
        out[t].c = {f2u(conv(r[t])), f2u(two ? conv(g[t]) : 0.0f), 0, f2u(1.0f)};
      return {};
    }
    case TexelFormat::Block::astc: {
      const bool hdr = f.type == format::TextureType::Float;
      const bool srgb = f.srgb[0];
      const astcenc_profile profile =
          hdr ? ASTCENC_PRF_HDR : srgb ? ASTCENC_PRF_LDR_SRGB : ASTCENC_PRF_LDR;
      AGX_TRY(astcenc_context * ctx, astc_context(profile, f.block_w, f.block_h));
      float texels[144 * 4];
      uint8_t texels8[144 * 4];
      void* slice = srgb ? static_cast<void*>(texels8) : static_cast<void*>(texels);
      astcenc_image image{f.block_w, f.block_h, 1, srgb ? ASTCENC_TYPE_U8 : ASTCENC_TYPE_F32,
                          &slice};
      const astcenc_swizzle swz{ASTCENC_SWZ_R, ASTCENC_SWZ_G, ASTCENC_SWZ_B, ASTCENC_SWZ_A};
      astcenc_error e = astcenc_decompress_image(ctx, b, 16, &image, &swz, 0);
      astcenc_decompress_reset(ctx);
      if (e != ASTCENC_SUCCESS)
        return Error::decode("ASTC block: {}", astcenc_get_error_string(e));
      for (unsigned t = 0; t < n; ++t) {
        if (srgb) unorm8(t, {texels8[4 * t], texels8[4 * t + 1], texels8[4 * t + 2], texels8[4 * t + 3]});
        else
          for (int k = 0; k < 4; ++k) out[t].c[k] = f2u(texels[4 * t + k]);
      }
      return {};
    }
    case TexelFormat::Block::gbgr422:
    case TexelFormat::Block::bgrg422: {
      const bool gbgr = f.block == TexelFormat::Block::gbgr422;
      const int r = gbgr ? b[3] : b[2], bl = gbgr ? b[1] : b[0];
      const int g0 = gbgr ? b[0] : b[1], g1 = gbgr ? b[2] : b[3];
      unorm8(0, {r, g0, bl, 255});
      unorm8(1, {r, g1, bl, 255});
      return {};
    }
    case TexelFormat::Block::pvrtc2:
    case TexelFormat::Block::pvrtc4: {
      // A word alone: the image of one word, every neighbour itself.
      uint64_t w;
      std::memcpy(&w, b, 8);
      std::array<uint64_t, 9> words;
      words.fill(w);
      return decode_pvrtc_texels(f, words, out);
    }
    case TexelFormat::Block::none: break;
  }
  return Error::unsupported("not a block-compressed format");
}

}  // namespace agx::gpu::internal
