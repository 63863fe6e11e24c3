// The PBE (pixel back end) image-write path of the software GPU:
// image_write stores one texel per lane through a PBE descriptor, with
// format conversion (normalized rounding, sRGB encode, small floats) into
// any layout the `layout` unit describes. The public header of src/gpu/pbe/;
// the PBE reads and writes images through the texture unit's image memory
// (gpu/texture/image.h).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>

#include "gpu/texture/texture.h"
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

Result<PbeView> decode_pbe(std::span<const uint32_t> words);  // descriptor.cpp
// What the descriptor says about the image in memory (texture/image.h).
ImageDesc image_desc(const PbeView& p);

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

// ---- image_write_block: a tile of local pixel storage to the image ----
//
// Tile memory (the tilebuffer; Metal's imageblocks) is the same on-chip
// storage as threadgroup memory. A tile is width_px x height_px pixels of
// `samples` samples; each sample has a record of sample_stride_B bytes
// holding every render target, one at each `offset_B` (bminor/mesa-mesa
// src/asahi/lib/agx_tilebuffer.c: the USC Shared word's "Sample stride in 8
// bytes", "Sample count" and tile-size Layout).
struct TileMemory {
  std::span<const uint8_t> bytes;
  uint32_t width_px = 0, height_px = 0;
  uint32_t samples = 1;
  uint32_t sample_stride_B = 0;
};

// Where sample `sample` of pixel (x, y) starts in tile memory. The order of
// pixels in the tilebuffer is not public; our choice, kept here alone:
// pixels row-major, a pixel's samples consecutive.
uint64_t tile_sample_offset_B(const TileMemory& tile, uint32_t x, uint32_t y, uint32_t sample);

// The ISA's memory format codes (the F field of image_write_block, as of
// device/threadgroup loads: dougallj/applegpu MEMORY_FORMATS, Mesa
// agx_format): how a render target sits in tile memory.
enum class TileFormat : uint8_t {
  i8 = 0, i16 = 1, i32 = 2, f16 = 3, u8norm = 4, s8norm = 5, u16norm = 6, s16norm = 7,
  rgb10a2 = 8, srgba8 = 10, rg11b10f = 12, rgb9e5 = 13, rg11b10f_rtz = 14, rgb9e5_rtz = 15
};
// The code's name ("u8norm"), or "" for the undefined codes 9 and 11.
const char* tile_format_name(uint32_t code);

// Bytes one pixel of a render target in tile format `code` takes for the
// PBE's format (Mesa agx_tilebuffer.c: one element per channel of the
// image's format for the per-element codes, one 32-bit word for rgb10a2,
// rg11b10f and rgb9e5). An undefined code, a PBE format that is not
// renderable or a pair that cannot hold each other is an error naming them.
Result<uint32_t> tile_pixel_B(uint32_t code, const PbeView& pbe);

// One image_write_block: the tile's pixels (render target at offset_B, in
// tile format `format`) go to the image at origin + (x, y), every sample of
// the tile to the same sample of the image, each through pbe_write (so the
// PBE's swizzle, conversion, flip, rotation and bounds apply as for
// image_write).
struct BlockWrite {
  uint32_t format = 0;   // TileFormat code
  uint32_t offset_B = 0;
  int32_t origin_x = 0, origin_y = 0;
  uint32_t layer = 0;
  uint32_t lod = 0;      // added to the descriptor's level
};
// Tile memory that runs out before the tile's last pixel is an
// invalid_argument error naming the byte range; nothing is written then.
Status pbe_write_block(TextureUnit& unit, const PbeView& pbe, const TileMemory& tile,
                       const BlockWrite& write, Rounding rounding = Rounding::nearest_even);

}  // namespace agx::gpu
