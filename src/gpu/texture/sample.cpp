// Texel fetch and filtering. The hardware's filter precision and LOD
// rounding are not public, so these follow the Vulkan specification,
// chapter "Image Operations": wrapping ("Wrapping Operation"), cube face
// selection ("Cube Map Face Selection and Transformations"), LOD
// ("Scale Factor Operation, LOD Operation and Image Level(s) Selection"),
// filtering ("Texel Filtering") with 8 bits of sub-texel precision, depth
// comparison before filtering and gather's texel order.
#include <algorithm>
#include <bit>
#include <cmath>
#include <memory>

#include "gpu/texture/texture_internal.h"

namespace agx::gpu {
namespace {



Texel swizzle(const Texel& mem, const std::array<Swizzle, 4>& sw, bool integer) {
  Texel out;
  for (int i = 0; i < 4; ++i) {
    switch (sw[i]) {
      case Swizzle::one: out.c[i] = integer ? 1u : f2u(1.0f); break;
      case Swizzle::zero: out.c[i] = 0; break;
      default: out.c[i] = mem.c[static_cast<unsigned>(sw[i])]; break;
    }
  }
  return out;
}

Texel border_texel(const SamplerView& s, const TexelFormat& fmt) {
  const uint32_t one = fmt.integer() ? 1u : f2u(1.0f);
  switch (s.border) {
    case BorderColour::transparent_black: return Texel{{0, 0, 0, 0}};
    case BorderColour::opaque_black: return Texel{{0, 0, 0, one}};
    case BorderColour::opaque_white: return Texel{{one, one, one, one}};
    case BorderColour::custom: return decode_border(fmt, s.border_words);
  }
  return Texel{};
}

// floor() as an int that stays far from overflow (texel coordinates beyond
// 2^28 wrap or clamp like any other out-of-range coordinate); NaN gives 0.
int floor_to_int(float v) {
  if (!(v == v)) return 0;
  constexpr float kLimit = float(1 << 28);
  return int(std::floor(std::clamp(v, -kLimit, kLimit)));
}

int mirror(int a) { return a >= 0 ? a : -(1 + a); }
int pmod(int a, int b) {
  int m = a % b;
  return m < 0 ? m + b : m;
}

// Vulkan "Wrapping Operation" on an integer texel coordinate; false when the
// texel is the border.
bool wrap_index(int& i, int size, Wrap w) {
  switch (w) {
    case Wrap::repeat: i = pmod(i, size); return true;
    case Wrap::mirrored_repeat: i = (size - 1) - mirror(pmod(i, 2 * size) - size); return true;
    case Wrap::clamp_to_edge: i = std::clamp(i, 0, size - 1); return true;
    case Wrap::mirrored_clamp_to_edge: i = std::clamp(mirror(i), 0, size - 1); return true;
    case Wrap::clamp_to_border:
    case Wrap::clamp_gl: return i >= 0 && i < size;
  }
  return true;
}

// The cube face of a direction and the face coordinates in [0, 1].
struct CubeCoord {
  uint32_t face;
  float s, t;
};
CubeCoord cube_face(float rx, float ry, float rz) {
  const float ax = std::fabs(rx), ay = std::fabs(ry), az = std::fabs(rz);
  float sc, tc, ma;
  uint32_t face;
  if (ax >= ay && ax >= az) {
    face = rx >= 0 ? 0 : 1;
    sc = rx >= 0 ? -rz : rz;
    tc = -ry;
    ma = ax;
  } else if (ay >= az) {
    face = ry >= 0 ? 2 : 3;
    sc = rx;
    tc = ry >= 0 ? rz : -rz;
    ma = ay;
  } else {
    face = rz >= 0 ? 4 : 5;
    sc = rz >= 0 ? rx : -rx;
    tc = -ry;
    ma = az;
  }
  if (ma == 0.0f) ma = 1.0f;
  return {face, 0.5f * (sc / ma + 1.0f), 0.5f * (tc / ma + 1.0f)};
}

// A texel just outside a cube face, seen through the neighbouring face:
// the texel centre becomes a direction and is projected again.
void cube_neighbour(uint32_t& face, int& i, int& j, int size) {
  const float sc = 2.0f * (float(i) + 0.5f) / float(size) - 1.0f;
  const float tc = 2.0f * (float(j) + 0.5f) / float(size) - 1.0f;
  float d[3];
  switch (face) {
    case 0: d[0] = 1; d[1] = -tc; d[2] = -sc; break;
    case 1: d[0] = -1; d[1] = -tc; d[2] = sc; break;
    case 2: d[0] = sc; d[1] = 1; d[2] = tc; break;
    case 3: d[0] = sc; d[1] = -1; d[2] = -tc; break;
    case 4: d[0] = sc; d[1] = -tc; d[2] = 1; break;
    default: d[0] = -sc; d[1] = -tc; d[2] = -1; break;
  }
  CubeCoord c = cube_face(d[0], d[1], d[2]);
  face = c.face;
  i = std::clamp(floor_to_int(c.s * float(size)), 0, size - 1);
  j = std::clamp(floor_to_int(c.t * float(size)), 0, size - 1);
}

bool compare_passes(CompareFunc f, float ref, float texel) {
  switch (f) {
    case CompareFunc::lequal: return ref <= texel;
    case CompareFunc::gequal: return ref >= texel;
    case CompareFunc::less: return ref < texel;
    case CompareFunc::greater: return ref > texel;
    case CompareFunc::equal: return ref == texel;
    case CompareFunc::not_equal: return ref != texel;
    case CompareFunc::always: return true;
    case CompareFunc::never: return false;
  }
  return false;
}

// Everything one texture_sample needs, resolved once.
struct Ctx {
  Ctx(TextureUnit& u, const TextureView& t, const SamplerView& s, const TexelFormat& f,
      const TextureUnit::Image& i)
      : unit(u), tex(t), sampler(s), fmt(f), img(i), border(border_texel(s, f)) {}
  TextureUnit& unit;
  const TextureView& tex;
  const SamplerView& sampler;
  const TexelFormat& fmt;
  const TextureUnit::Image& img;
  Texel border;  // memory channel order
  bool compare = false;
  float reference = 0.0f;
  bool cube = false;
  bool seamless = false;
  // The last block decoded (block-compressed formats).
  uint64_t block_off = ~uint64_t{0};
  std::unique_ptr<Texel[]> block;
};

// One texel in memory-channel order (after sRGB decode and comparison), with
// wrapping; (i, j, k) integer coordinates of absolute level `level`.
Result<Texel> fetch(Ctx& c, uint32_t level, int i, int j, int k, uint32_t layer, uint32_t face,
                    uint32_t sample) {
  const int w = int(c.img.width(level)), h = int(c.img.height(level));
  const int d = int(c.img.depth(level));
  const Dim dim = c.tex.dim;
  const bool pixel = c.sampler.pixel_coordinates;
  Texel t;
  bool inside = true;
  if (c.cube) {
    const bool out_i = i < 0 || i >= w, out_j = j < 0 || j >= h;
    if (c.seamless && out_i && out_j) {
      // A corner: the average of the three texels meeting there (Vulkan
      // "Cube Map Edge Handling").
      const int ic = std::clamp(i, 0, w - 1), jc = std::clamp(j, 0, h - 1);
      AGX_TRY(Texel a, fetch(c, level, ic, jc, 0, layer, face, sample));
      AGX_TRY(Texel b, fetch(c, level, ic, j, 0, layer, face, sample));
      AGX_TRY(Texel d, fetch(c, level, i, jc, 0, layer, face, sample));
      Texel avg;
      for (int k = 0; k < 4; ++k)
        avg.c[k] = f2u((u2f(a.c[k]) + u2f(b.c[k]) + u2f(d.c[k])) / 3.0f);
      return avg;
    }
    if (out_i || out_j) {
      if (c.seamless) {
        cube_neighbour(face, i, j, w);
      } else {
        i = std::clamp(i, 0, w - 1);
        j = std::clamp(j, 0, h - 1);
      }
    }
  } else {
    auto wrap_of = [&](int axis) {
      Wrap wr = c.sampler.wrap[axis];
      // Unnormalized coordinates only clamp (Vulkan: unnormalizedCoordinates).
      if (pixel && wr != Wrap::clamp_to_border && wr != Wrap::clamp_gl) wr = Wrap::clamp_to_edge;
      return wr;
    };
    inside = wrap_index(i, w, wrap_of(0));
    if (inside && dim != Dim::d1 && dim != Dim::d1_array) inside = wrap_index(j, h, wrap_of(1));
    else j = 0;
    if (inside && dim == Dim::d3) inside = wrap_index(k, d, wrap_of(2));
    else k = 0;
  }
  if (!inside) {
    t = c.border;
  } else {
    const uint32_t storage_layer =
        dim == Dim::d3 ? uint32_t(k) : (c.cube ? layer * 6 + face : layer);
    if (c.fmt.block != TexelFormat::Block::none) {
      const uint32_t bw = c.fmt.block_w, bh = c.fmt.block_h;
      const uint64_t off =
          c.img.offset_B(uint32_t(i) / bw, uint32_t(j) / bh, storage_layer, level, 0);
      if (off != c.block_off) {
        if (!c.block) c.block = std::make_unique<Texel[]>(bw * bh);
        if (c.fmt.block == TexelFormat::Block::pvrtc2 || c.fmt.block == TexelFormat::Block::pvrtc4) {
          // PVRTC words are decoded with their neighbours.
          AGX_CHECK(internal::decode_pvrtc_block_at(c.unit.memory(), c.img, level, storage_layer,
                                                    uint32_t(i) / bw, uint32_t(j) / bh, c.fmt,
                                                    c.block.get()));
        } else {
          uint8_t bytes[16];
          AGX_CHECK(internal::read_texel(c.unit.memory(), c.img, off, bytes, c.fmt.bytes));
          AGX_CHECK(internal::decode_block(c.fmt, bytes, c.block.get()));
        }
        c.block_off = off;
      }
      t = c.block[(uint32_t(j) % bh) * bw + uint32_t(i) % bw];
    } else {
      uint8_t bytes[16];
      if (c.img.metadata_levels == 0) {
        const uint64_t off =
            c.img.offset_B(uint32_t(i), uint32_t(j), storage_layer, level, sample);
        AGX_CHECK(internal::read_texel(c.unit.memory(), c.img, off, bytes, c.fmt.bytes));
      } else {
        AGX_CHECK(internal::fetch_texel(c.unit.memory(), c.img, uint32_t(i), uint32_t(j),
                                        storage_layer, level, sample, bytes));
      }
      t = decode_texel(c.fmt, bytes);
    }
  }
  if (c.compare) {
    float ref = c.reference;
    if (c.fmt.type == format::TextureType::Unorm) ref = std::clamp(ref, 0.0f, 1.0f);
    t.c[0] = f2u(compare_passes(c.sampler.compare_func, ref, u2f(t.c[0])) ? 1.0f : 0.0f);
  }
  return t;
}

float quantize_weight(float a) { return std::round(a * 256.0f) / 256.0f; }

// Catmull-Rom weights of the four texels i0-1 .. i0+2 at fraction a
// (Vulkan "Texel Cubic Filtering", the default cubic weights of
// VK_EXT_filter_cubic; the hardware's bicubic weights are not public).
std::array<float, 4> cubic_weights(float a) {
  const float a2 = a * a, a3 = a2 * a;
  return {0.5f * (-a3 + 2.0f * a2 - a), 0.5f * (3.0f * a3 - 5.0f * a2 + 2.0f),
          0.5f * (-3.0f * a3 + 4.0f * a2 + a), 0.5f * (a3 - a2)};
}

// Filtered value at one level (absolute), coordinates u, v, w in texels.
Result<std::array<float, 4>> filter_level(Ctx& c, uint32_t level, float u, float v, float w,
                                          uint32_t layer, uint32_t face, uint32_t sample,
                                          Filter filter, const std::array<int32_t, 3>& off) {
  const Dim dim = c.tex.dim;
  const bool has_y = dim != Dim::d1 && dim != Dim::d1_array;
  const bool has_z = dim == Dim::d3;
  std::array<float, 4> acc{};
  if (filter == Filter::nearest) {
    AGX_TRY(Texel t, fetch(c, level, floor_to_int(u) + off[0],
                           has_y ? floor_to_int(v) + off[1] : 0,
                           has_z ? floor_to_int(w) + off[2] : 0, layer, face, sample));
    for (int k = 0; k < 4; ++k) acc[k] = u2f(t.c[k]);
    return acc;
  }
  auto split = [](float x, int o, int& i0, float& a) {
    float f = x - 0.5f;
    if (!(f == f)) f = 0.0f;
    f = std::clamp(f, -float(1 << 28), float(1 << 28));
    float fl = std::floor(f);
    a = quantize_weight(f - fl);
    i0 = int(fl) + o;
    if (a >= 1.0f) {
      a = 0.0f;
      ++i0;
    }
  };
  int i0, j0 = 0, k0 = 0;
  float a, b = 0.0f, g = 0.0f;
  split(u, off[0], i0, a);
  if (has_y) split(v, off[1], j0, b);
  if (has_z) split(w, off[2], k0, g);
  if (filter == Filter::bicubic) {
    // 4 x 4 texels from (i0 - 1, j0 - 1); 3D images are refused earlier.
    const std::array<float, 4> wu = cubic_weights(a);
    const std::array<float, 4> wv = has_y ? cubic_weights(b) : std::array<float, 4>{0, 1, 0, 0};
    for (int dj = 0; dj < 4; ++dj)
      for (int di = 0; di < 4; ++di) {
        const float wt = wu[di] * wv[dj];
        if (wt == 0.0f) continue;
        AGX_TRY(Texel t,
                fetch(c, level, i0 - 1 + di, has_y ? j0 - 1 + dj : 0, 0, layer, face, sample));
        for (int k = 0; k < 4; ++k) acc[k] += wt * u2f(t.c[k]);
      }
    return acc;
  }
  const int nj = has_y ? 2 : 1, nk = has_z ? 2 : 1;
  for (int dk = 0; dk < nk; ++dk)
    for (int dj = 0; dj < nj; ++dj)
      for (int di = 0; di < 2; ++di) {
        const float wt = (di ? a : 1.0f - a) * (has_y ? (dj ? b : 1.0f - b) : 1.0f) *
                         (has_z ? (dk ? g : 1.0f - g) : 1.0f);
        if (wt == 0.0f) continue;
        AGX_TRY(Texel t, fetch(c, level, i0 + di, j0 + dj, k0 + dk, layer, face, sample));
        for (int k = 0; k < 4; ++k) acc[k] += wt * u2f(t.c[k]);
      }
  return acc;
}

Status check_view(const TextureView& tex, const TextureUnit::Image& img) {
  if (tex.first_level > tex.last_level || tex.last_level >= img.levels)
    return Error::decode("texture levels {}..{} outside the image's {} levels", tex.first_level,
                         tex.last_level, img.levels);
  if (is_cube(tex.dim) && tex.width_px != tex.height_px)
    return Error::decode("cube texture of {}x{}: cube faces are square", tex.width_px,
                         tex.height_px);
  if (is_ms(tex.dim) != (tex.samples > 1))
    return Error::decode("{} texture with {} samples", to_string(tex.dim), tex.samples);
  return {};
}

}  // namespace

Result<const TextureUnit::Resolved*> TextureUnit::resolve(const TextureView& tex) {
  if (resolved_ && resolved_->tex == tex) return resolved_.get();
  AGX_TRY(TexelFormat fmt, texel_format(tex.channels, tex.type, tex.srgb, tex.srgb_2_channel));
  AGX_TRY(const Image* img, image(tex));
  AGX_CHECK(check_view(tex, *img));
  if (!resolved_) resolved_ = std::make_unique<Resolved>();
  *resolved_ = Resolved{tex, fmt, img};
  return resolved_.get();
}

Result<Texel> TextureUnit::load(const TextureView& tex, const SamplerView& sampler,
                                const FetchCoord& at) {
  if (tex.null) return Texel{};
  AGX_TRY(const Resolved* resolved, resolve(tex));
  const TexelFormat& fmt = resolved->fmt;
  const Image* img = resolved->img;
  Ctx c(*this, tex, sampler, fmt, *img);
  c.cube = is_cube(tex.dim);
  const uint32_t q = tex.last_level - tex.first_level;
  const uint32_t level = tex.first_level + uint32_t(std::clamp<int32_t>(at.lod, 0, int32_t(q)));
  const uint32_t layers = is_array(tex.dim) ? tex.depth : 1;
  const uint32_t layer = std::min(at.layer, layers - 1);
  const uint32_t sample = std::min(at.sample, tex.samples - 1);
  Texel t;
  if (c.cube) {
    // Integer cube fetches address one face: out of range is the border.
    const int w = int(img->width(level));
    if (at.x < 0 || at.x >= w || at.y < 0 || at.y >= w || at.face > 5) {
      t = c.border;
    } else {
      AGX_TRY(t, fetch(c, level, at.x, at.y, 0, layer, at.face, sample));
    }
  } else {
    AGX_TRY(t, fetch(c, level, at.x, at.y, at.z, layer, 0, sample));
  }
  return swizzle(t, tex.swizzle, fmt.integer());
}

Result<Texel> TextureUnit::sample(const TextureView& tex, const SamplerView& sampler,
                                  const SampleRequest& rq) {
  if (tex.null) return Texel{};
  AGX_TRY(const Resolved* resolved, resolve(tex));
  const TexelFormat& fmt = resolved->fmt;
  const Image* img = resolved->img;
  if ((sampler.magnify == Filter::bicubic || sampler.minify == Filter::bicubic) &&
      tex.dim == Dim::d3)
    return Error::unsupported(
        "bicubic filtering of a 3D texture (VK_EXT_filter_cubic, whose weights the unit follows, "
        "filters 2D images only)");
  if (is_ms(tex.dim)) return Error::decode("texture_sample of a multisampled texture");
  Ctx c(*this, tex, sampler, fmt, *img);
  c.cube = is_cube(tex.dim);
  c.seamless = c.cube && !sampler.seamful_cube_maps;
  c.compare = rq.compare || sampler.compare_enable;
  c.reference = rq.reference;
  if (c.compare && fmt.integer()) return Error::decode("depth comparison on an integer texture");

  // Coordinates in [0, 1] (or texels with pixel_coordinates) and the face.
  float s = rq.coord[0], t = rq.coord[1], r = rq.coord[2];
  uint32_t face = 0;
  if (c.cube) {
    CubeCoord cc = cube_face(rq.coord[0], rq.coord[1], rq.coord[2]);
    face = cc.face;
    s = cc.s;
    t = cc.t;
  }
  const uint32_t layers = is_array(tex.dim) ? tex.depth : 1;
  const uint32_t layer = std::min(rq.layer, layers - 1);
  const uint32_t base = tex.first_level;
  const uint32_t q = tex.last_level - tex.first_level;
  const float wb = float(img->width(base)), hb = float(img->height(base)),
              db = float(img->depth(base));

  // LOD (Vulkan: lambda_base from the scale factors, then bias and clamps).
  const internal::Lod lod = internal::compute_lod(sampler, rq, face, c.cube, wb, hb, db);
  const float lambda = lod.lambda;
  const uint32_t aniso_n = lod.aniso_n;
  const std::array<float, 3> aniso_step = lod.aniso_step;

  const bool magnify = lambda <= 0.0f;
  const bool integer = fmt.integer();
  const Filter filter = integer ? Filter::nearest : (magnify ? sampler.magnify : sampler.minify);

  // Levels (Vulkan "Image Level(s) Selection").
  const float dprime = std::clamp(lambda, 0.0f, float(q));
  uint32_t lo = base, hi = base;
  float delta = 0.0f;
  MipFilter mip = integer && sampler.mip == MipFilter::linear ? MipFilter::nearest : sampler.mip;
  if (rq.gather >= 0 || sampler.pixel_coordinates) mip = MipFilter::none;
  if (mip == MipFilter::nearest) {
    lo = hi = base + internal::nearest_level(dprime);
    lo = hi = std::min(lo, base + q);
  } else if (mip == MipFilter::linear) {
    lo = base + uint32_t(std::floor(dprime));
    hi = std::min(lo + 1, base + q);
    delta = dprime - std::floor(dprime);
  }

  auto coords_at = [&](uint32_t level, float ss, float tt, float rr, float& u, float& v,
                       float& w) {
    const float W = float(img->width(level)), H = float(img->height(level)),
                D = float(img->depth(level));
    const bool norm = !sampler.pixel_coordinates;
    u = norm ? ss * W : ss;
    v = norm ? tt * H : tt;
    w = norm ? rr * D : rr;
    // GL clamp: the coordinate is clamped before filtering.
    if (sampler.wrap[0] == Wrap::clamp_gl) u = std::clamp(u, 0.0f, W);
    if (sampler.wrap[1] == Wrap::clamp_gl) v = std::clamp(v, 0.0f, H);
    if (sampler.wrap[2] == Wrap::clamp_gl) w = std::clamp(w, 0.0f, D);
  };

  // Gather: the four texels of a bilinear footprint, one component each.
  if (rq.gather >= 0) {
    if (tex.dim == Dim::d3 || tex.dim == Dim::d1 || tex.dim == Dim::d1_array)
      return Error::decode("texture gather on a {} texture", to_string(tex.dim));
    float u, v, w;
    coords_at(base, s, t, r, u, v, w);
    const int i0 = floor_to_int(u - 0.5f) + rq.offset[0];
    const int j0 = floor_to_int(v - 0.5f) + rq.offset[1];
    const int di[4] = {0, 1, 1, 0}, dj[4] = {1, 1, 0, 0};
    Texel out;
    const Swizzle sw = tex.swizzle[rq.gather];
    for (int k = 0; k < 4; ++k) {
      AGX_TRY(Texel tx, fetch(c, base, i0 + di[k], j0 + dj[k], 0, layer, face, 0));
      if (rq.gather_depth) {
        out.c[k] = tx.c[0];  // the depth channel itself (compared in fetch)
        continue;
      }
      Texel sv = swizzle(tx, {sw, sw, sw, sw}, integer);
      out.c[k] = sv.c[0];
    }
    return out;
  }

  auto level_value = [&](uint32_t level) -> Result<std::array<float, 4>> {
    std::array<float, 4> acc{};
    for (uint32_t n = 0; n < aniso_n; ++n) {
      float ss = s, tt = t, rr = r;
      if (aniso_n > 1) {
        const float f = (float(n) + 0.5f) / float(aniso_n) - 0.5f;
        ss += f * aniso_step[0];
        tt += f * aniso_step[1];
        rr += f * aniso_step[2];
      }
      float u, v, w;
      coords_at(level, ss, tt, rr, u, v, w);
      AGX_TRY(auto val, filter_level(c, level, u, v, w, layer, face, 0, filter, rq.offset));
      for (int k = 0; k < 4; ++k) acc[k] += val[k];
    }
    if (aniso_n > 1)
      for (float& x : acc) x /= float(aniso_n);
    return acc;
  };

  Texel mem;
  if (integer) {
    // Integer texels are never filtered: the nearest texel, bits intact.
    float u, v, w;
    coords_at(lo, s, t, r, u, v, w);
    AGX_TRY(mem, fetch(c, lo, floor_to_int(u) + rq.offset[0], floor_to_int(v) + rq.offset[1],
                       floor_to_int(w) + rq.offset[2], layer, face, 0));
  } else {
    AGX_TRY(auto a, level_value(lo));
    if (hi != lo && delta != 0.0f) {
      AGX_TRY(auto b, level_value(hi));
      const float dq = quantize_weight(delta);
      for (int k = 0; k < 4; ++k) a[k] = a[k] * (1.0f - dq) + b[k] * dq;
    }
    for (int k = 0; k < 4; ++k) mem.c[k] = f2u(a[k]);
  }
  return swizzle(mem, tex.swizzle, integer);
}

}  // namespace agx::gpu
