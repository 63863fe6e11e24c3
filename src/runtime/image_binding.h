// The texture and sampler state registers of a launch, filled as the
// compiler's ABI lays them out (docs/compiler.md, "Images and samplers"):
// each image uniform's Texture descriptor (and PBE descriptor for storage
// images) at the registers the ABI names, from the image bound to the unit
// the uniform's value selects, and the units' samplers.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cmdstream/cmdstream.h"
#include "compiler/compiler.h"
#include "runtime/image.h"

namespace agx::runtime {

// A texture unit's sampler state (`texparameter`). The defaults are what
// piglit's rgbw and integer textures set: nearest filters, clamp to edge,
// no mipmapping (X11Libre/mirror.fdo.piglit tests/util/piglit-util-gl.c).
struct SamplerParams {
  cmdstream::Wrap wrap_s = cmdstream::Wrap::kClampToEdge, wrap_t = cmdstream::Wrap::kClampToEdge,
                  wrap_r = cmdstream::Wrap::kClampToEdge;
  cmdstream::Filter minify = cmdstream::Filter::kNearest, magnify = cmdstream::Filter::kNearest;
  cmdstream::MipFilter mip = cmdstream::MipFilter::kNone;
  std::optional<std::array<float, 4>> border;  // GL_TEXTURE_BORDER_COLOR (default transparent black)
  std::optional<cmdstream::CompareFunc> compare;  // depth comparison (GL_COMPARE_REF_TO_TEXTURE)
  cmdstream::CompareFunc compare_func = cmdstream::CompareFunc::kLequal;  // GL_TEXTURE_COMPARE_FUNC
};
// `texparameter TARGET NAME VALUE...` applied to `p` (wrap_s/t/r, min,
// mag, border_color, compare_func); other names are an unsupported error.
Status apply_texparameter(SamplerParams& p, const std::string& name, const std::vector<std::string>& values);

struct BoundImage {
  const Image* image = nullptr;
  SamplerParams sampler;
};

struct StateDescriptors {
  std::vector<uint8_t> textures;  // ts0, ts1, ...: 24 bytes each
  std::vector<uint8_t> samplers;  // ss0, ss1, ...: 8 bytes each, or 24 (Sampler + Border) when extended
  bool extended_samplers = false; // a custom border colour needs the extended form
  // Uniforms the ABI asks for, as (first uniform, words): the size of
  // queried images (imageSize's components, zero-padded to 3, then the
  // sample count) and the texel addressing of images used with atomics.
  std::vector<std::pair<uint32_t, std::vector<uint32_t>>> uniforms;
};

// `image_for` returns the image (and its unit's sampler) bound for one of
// the ABI's images, or the error naming what is missing.
using ImageLookup = std::function<Result<BoundImage>(const compiler::ImageBinding&)>;
Result<StateDescriptors> bind_images(const compiler::Abi& abi, const ImageLookup& image_for);

// The sampler texel fetches use: nearest, clamp to a transparent black
// border, so out-of-range fetches read zero (Mesa's txf sampler,
// bminor/mesa-mesa src/asahi/lib/agx_helpers.h agx_pack_txf_sampler).
cmdstream::Sampler txf_sampler();

}  // namespace agx::runtime
