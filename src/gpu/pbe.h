// The PBE (pixel back end) image-write path of the software GPU:
// image_write stores one texel per lane through a PBE descriptor, with
// format conversion (normalized rounding, sRGB encode, small floats) into
// any layout the `layout` unit describes.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "gpu/texture.h"
#include "util/half.h"

namespace agx::gpu {

// The logical content of a PBE descriptor (24 B).
struct PbeView {
  Dim dim = Dim::d2;
  ImageLayout layout = ImageLayout::twiddled;
  format::Channels channels = format::Channels::R8G8B8A8;
  format::TextureType type = format::TextureType::Unorm;
  // swizzle[k]: the source component (0..3) stored in memory channel k.
  std::array<uint8_t, 4> swizzle{0, 1, 2, 3};
  uint32_t width_px = 1, height_px = 1;  // of level 0
  uint32_t samples = 1;
  GpuVa buffer = 0;       // the first layer, level 0
  uint32_t level = 0;     // the level written
  uint32_t levels = 1;    // levels of the image
  uint32_t layers = 1;    // layers (3D: slices)
  bool mipmapped = false;
  bool page_aligned_layers = false;
  bool srgb = false;
  bool compressed = false;
  bool sparse = false;
  uint32_t linear_stride_B = 0;
  uint64_t linear_layer_stride_B = 0;
  GpuVa acceleration_buffer = 0;
};

Result<PbeView> decode_pbe(std::span<const uint32_t> words);

// One texel to write: four source components as the registers hold them
// (float bits for unorm/snorm/float formats, integers for uint/sint).
struct PbeWrite {
  std::array<uint32_t, 4> value{};
  int32_t x = 0, y = 0;
  uint32_t layer = 0;  // array layer or 3D slice
  uint32_t sample = 0;
  uint32_t lod = 0;    // added to the descriptor's level
};

// Writes one texel. Coordinates outside the level are dropped (robust
// writes); a write to unmapped memory is a fault Error naming the address.
Status pbe_write(TextureUnit& unit, const PbeView& pbe, const PbeWrite& write,
                 Rounding rounding = Rounding::nearest_even);

}  // namespace agx::gpu
