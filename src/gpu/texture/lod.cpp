// The LOD of a texture_sample, and query_lod (Vulkan "Image Operations":
// "Scale Factor Operation, LOD Operation and Image Level(s) Selection" and
// "Cube Map Derivative Transformation").
#include <algorithm>
#include <cmath>

#include "gpu/texture/texture_internal.h"

namespace agx::gpu::internal {

void cube_face_components(uint32_t face, const std::array<float, 3>& v, float& sc, float& tc,
                          float& ma) {
  // Vulkan "Cube Map Face Selection": (sc, tc, rc) per major axis; ma is
  // the major component with the sign that makes it positive on that face.
  switch (face) {
    case 0: sc = -v[2], tc = -v[1], ma = v[0]; break;
    case 1: sc = v[2], tc = -v[1], ma = -v[0]; break;
    case 2: sc = v[0], tc = v[2], ma = v[1]; break;
    case 3: sc = v[0], tc = -v[2], ma = -v[1]; break;
    case 4: sc = v[0], tc = -v[1], ma = v[2]; break;
    default: sc = -v[0], tc = -v[1], ma = -v[2]; break;
  }
}

Lod compute_lod(const SamplerView& sampler, const SampleRequest& rq, uint32_t cube_face,
                bool cube, float wb, float hb, float db) {
  Lod out;
  float lambda_base;
  if (sampler.pixel_coordinates) {
    lambda_base = 0.0f;
  } else if (rq.explicit_lod) {
    lambda_base = rq.lod;
  } else {
    std::array<float, 3> ddx = rq.ddx, ddy = rq.ddy;
    if (cube) {
      // Derivatives of the direction become derivatives of the face
      // coordinates: d(s)/dx = 1/2 (dsc/dx |ma| - sc d|ma|/dx) / ma^2.
      float sc, tc, ma;
      cube_face_components(cube_face, rq.coord, sc, tc, ma);
      auto transform = [&](std::array<float, 3>& d) {
        float dsc, dtc, dma;
        cube_face_components(cube_face, d, dsc, dtc, dma);
        const float m2 = ma * ma == 0.0f ? 1.0f : ma * ma;
        d = {0.5f * (dsc * ma - sc * dma) / m2, 0.5f * (dtc * ma - tc * dma) / m2, 0.0f};
      };
      transform(ddx);
      transform(ddy);
    }
    const float sx[3] = {wb, hb, cube ? 0.0f : db};
    float px = 0, py = 0;
    for (int k = 0; k < 3; ++k) {
      px += (ddx[k] * sx[k]) * (ddx[k] * sx[k]);
      py += (ddy[k] * sx[k]) * (ddy[k] * sx[k]);
    }
    px = std::sqrt(px);
    py = std::sqrt(py);
    const float pmax = std::max(px, py), pmin = std::min(px, py);
    if (sampler.max_anisotropy > 1 && pmin > 0.0f) {
      const float ratio = std::ceil(pmax / pmin);
      out.aniso_n = ratio >= float(sampler.max_anisotropy) || !(ratio == ratio)
                        ? sampler.max_anisotropy
                        : std::max(1u, uint32_t(ratio));
      out.aniso_step = px >= py ? ddx : ddy;
    }
    lambda_base = std::log2(pmax / float(out.aniso_n));
  }
  out.lambda_prime = lambda_base + rq.bias;
  float lambda = std::clamp(out.lambda_prime, sampler.min_lod, sampler.max_lod);
  if (rq.has_min_lod) lambda = std::max(lambda, rq.min_lod);
  if (std::isnan(lambda)) lambda = 0.0f;
  out.lambda = lambda;
  return out;
}

uint32_t nearest_level(float dprime) {
  // Vulkan: d = d_base for d' <= 1/2, else ceil(d' + 1/2) - 1.
  return dprime <= 0.5f ? 0u : uint32_t(std::ceil(dprime + 0.5f)) - 1;
}

}  // namespace agx::gpu::internal

namespace agx::gpu {

Result<LodQuery> TextureUnit::query_lod(const TextureView& tex, const SamplerView& sampler,
                                        const SampleRequest& rq) {
  if (tex.null) return LodQuery{};
  AGX_TRY(const Image* img, image(tex));
  if (tex.first_level > tex.last_level || tex.last_level >= img->levels)
    return Error::decode("texture levels {}..{} outside the image's {} levels", tex.first_level,
                         tex.last_level, img->levels);
  if (is_ms(tex.dim)) return Error::decode("query_lod of a multisampled texture");
  const bool cube = is_cube(tex.dim);
  uint32_t face = 0;
  if (cube) {
    // The face of the direction: the major axis, ties to x then y.
    const float ax = std::fabs(rq.coord[0]), ay = std::fabs(rq.coord[1]),
                az = std::fabs(rq.coord[2]);
    if (ax >= ay && ax >= az) face = rq.coord[0] >= 0 ? 0 : 1;
    else if (ay >= az) face = rq.coord[1] >= 0 ? 2 : 3;
    else face = rq.coord[2] >= 0 ? 4 : 5;
  }
  const uint32_t base = tex.first_level;
  const internal::Lod lod =
      internal::compute_lod(sampler, rq, face, cube, float(img->width(base)),
                            float(img->height(base)), float(img->depth(base)));
  // GL 4.6 textureQueryLod: x is the level accessed relative to the base
  // (the clamped LOD in [0, q] when two levels are blended, the selected
  // level with nearest mip filtering, 0 without mipmapping); y is the
  // computed LOD relative to the base before the sampler's clamps.
  const float q = float(tex.last_level - tex.first_level);
  const float dprime = std::clamp(lod.lambda, 0.0f, q);
  LodQuery out;
  out.lambda = lod.lambda_prime;
  const bool integer = tex.type == format::TextureType::Uint || tex.type == format::TextureType::Sint;
  MipFilter mip = integer && sampler.mip == MipFilter::linear ? MipFilter::nearest : sampler.mip;
  if (sampler.pixel_coordinates) mip = MipFilter::none;
  switch (mip) {
    case MipFilter::none: out.level = 0.0f; break;
    case MipFilter::nearest: out.level = std::min(float(internal::nearest_level(dprime)), q); break;
    case MipFilter::linear: out.level = dprime; break;
  }
  return out;
}

}  // namespace agx::gpu
