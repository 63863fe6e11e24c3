// The PBE (pixel back end) image-write path of the software GPU:
// image_write stores one texel per lane through a PBE descriptor, with
// format conversion (normalized rounding, sRGB encode, small floats) into
// any layout the `layout` unit describes.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
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
  bool flip_vertical = false;  // rows are written bottom-up
  bool rotate_90 = false;      // the written image is turned (pbe_destination)
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

// Where a write of pixel (x, y) lands in a level of width_px x height_px
// (the image in memory: the descriptor's Width and Height with the level's
// minification), after "Flip vertical" and "Rotate 90"; nullopt when it
// lands outside. Rotate 90 is our choice (its direction is not public): the
// image written is the source turned 90 degrees clockwise, so the source is
// height_px wide and width_px high and its pixel (x, y) goes to
// (width_px - 1 - y, x). Flip vertical applies first, to the source rows.
// The one place both live (pbe_rotate.cpp).
std::optional<std::array<uint32_t, 2>> pbe_destination(const PbeView& pbe, uint32_t width_px,
                                                       uint32_t height_px, int32_t x, int32_t y);

// Writes one texel. Coordinates outside the level are dropped (robust
// writes); a write to unmapped memory is a fault Error naming the address.
Status pbe_write(TextureUnit& unit, const PbeView& pbe, const PbeWrite& write,
                 Rounding rounding = Rounding::nearest_even);

}  // namespace agx::gpu
