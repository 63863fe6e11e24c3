// The texture and sampler state registers of a launch, filled as the
// compiler's ABI lays them out (docs/compiler.md, "Images and samplers"):
// each image uniform's Texture descriptor (and PBE descriptor for storage
// images) at the registers the ABI names, from the image bound to the unit
// the uniform's value selects.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "compiler/compiler.h"
#include "runtime/image.h"

namespace agx::runtime {

struct StateDescriptors {
  std::vector<uint8_t> textures;  // ts0, ts1, ...: 24 bytes each
  std::vector<uint8_t> samplers;  // ss0, ss1, ...: 8 bytes each
  // Uniforms the ABI asks for, as (first uniform, words): the size of
  // queried images (imageSize's components, zero-padded to 3, then the
  // sample count) and the texel addressing of images used with atomics.
  std::vector<std::pair<uint32_t, std::vector<uint32_t>>> uniforms;
};

// `image_for` returns the image bound for one of the ABI's images (or the
// error naming what is missing).
using ImageLookup = std::function<Result<const Image*>(const compiler::ImageBinding&)>;
Result<StateDescriptors> bind_images(const compiler::Abi& abi, const ImageLookup& image_for);

// The sampler texel fetches use: nearest, clamp to a transparent black
// border, so out-of-range fetches read zero (Mesa's txf sampler,
// bminor/mesa-mesa src/asahi/lib/agx_helpers.h agx_pack_txf_sampler).
Result<std::array<uint8_t, 8>> txf_sampler_descriptor();
// A texture unit's sampler: what piglit's rgbw and integer textures set
// (nearest filters, clamp to edge, no mipmapping; X11Libre/mirror.fdo.piglit
// tests/util/piglit-util-gl.c); `texparameter` is not supported.
Result<std::array<uint8_t, 8>> unit_sampler_descriptor();

}  // namespace agx::runtime
