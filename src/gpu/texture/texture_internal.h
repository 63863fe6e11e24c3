// Private to src/gpu/texture/ (never included outside that folder): block
// decoders, image geometry (where each texel lives) and the LOD. What the
// PBE shares with the unit is in image.h.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <vector>

#include "gpu/texture/image.h"
#include "gpu/texture/texture.h"
#include "util/half.h"

namespace agx::gpu::internal {


// Decodes a whole block into block_w x block_h texels (row-major), in
// memory-channel order (sRGB decoded).
Status decode_block(const TexelFormat& fmt, const uint8_t* block, Texel* out);
// BC7: one block to 16 RGBA8 texels (texture_bc7.cpp).
void decode_bc7(const uint8_t* block, std::array<std::array<int, 4>, 16>& out);
// BPTC partitions shared by BC6H and BC7 (texture_bc7.cpp): the index of
// each texel (x + 4 y) read in texel order, `index_bits` wide but one bit
// shorter at each subset's anchor texel, and the subset the texel belongs to
// in partition `partition` of 1, 2 or 3 subsets; and the interpolation
// weight (of 64) of an index of 2, 3 or 4 bits.
class Bits;
struct BptcIndices {
  std::array<uint8_t, 16> subset{};
  std::array<uint32_t, 16> index{};
};
BptcIndices bptc_read_indices(Bits& bits, unsigned subsets, unsigned partition, unsigned index_bits);
unsigned bptc_weight(unsigned index_bits, unsigned index);
// BC6H: one block to 16 RGB texels (x + 4 y) as half-float bits; `is_signed`
// for the signed (SF16) form (texture_bc6h.cpp).
void decode_bc6h(const uint8_t* block, bool is_signed, std::array<std::array<uint16_t, 3>, 16>& out);
// PVRTC1 (texture_pvrtc.cpp). The texels of the word at the centre of a 3x3
// neighbourhood of 64-bit words (row-major, from the word up-left of it).
Status decode_pvrtc_texels(const TexelFormat& fmt, const std::array<uint64_t, 9>& words,
                           Texel* out);
// The same at 8 bits per channel (R, G, B, A; x + block_w * y) before sRGB.
void decode_pvrtc(const std::array<uint64_t, 9>& words, bool two_bpp,
                  std::array<std::array<uint8_t, 4>, 32>& out);
// The specification's reflected Morton index of word (bx, by) in a level of
// words_w x words_h words (powers of two).
uint64_t pvrtc_word_index(uint32_t bx, uint32_t by, uint32_t words_w, uint32_t words_h);
// Word x (or y) of a level n words across, for any neighbour index b.
uint32_t pvrtc_wrap(int64_t b, uint32_t n);
Status pvrtc_check_image(const ImageDesc& d);

// Texture Type XR (texture_xr.cpp): the format of an XR descriptor, and one
// 10-bit code to a shader value and back (`srgb`: the sRGB transfer with the
// sign mirrored; `alpha`: clamped to [0, 1]).
Result<TexelFormat> xr_texel_format(format::Channels channels, bool srgb);
float xr10_to_float(uint32_t code, bool srgb, bool alpha);
uint32_t float_to_xr10(float value, bool srgb, bool alpha, Rounding rounding);




// A compressed block's fields, least significant bit first (BC6H and BC7
// number a block's 128 bits from bit 0 of byte 0).
class Bits {
 public:
  explicit Bits(const uint8_t* b) : b_(b) {}
  uint32_t read(unsigned n) {
    uint32_t v = 0;
    for (unsigned i = 0; i < n; ++i, ++pos_) v |= uint32_t((b_[pos_ >> 3] >> (pos_ & 7)) & 1) << i;
    return v;
  }

 private:
  const uint8_t* b_;
  unsigned pos_ = 0;
};

}  // namespace agx::gpu::internal

namespace agx::gpu {

// An image's geometry: level sizes, and per level one offset per column and
// per row (a texel's offset is xoff[x] + yoff[y]: the tile column and Morton
// x bits depend only on x, the rest only on y).
struct TextureUnit::Image {
  ImageDesc desc;
  uint32_t bytes_per_element_B = 0;  // texel bytes x samples
  uint32_t bytes_per_sample_B = 0;
  uint32_t levels = 1;
  uint64_t layer_stride_B = 0;
  uint64_t size_B = 0;  // every layer
  std::array<uint64_t, layout::kMaxLevels> level_offset_B{};
  std::array<std::vector<uint64_t>, layout::kMaxLevels> xoff, yoff;
  uint8_t* host = nullptr;  // the whole image in host memory, when contiguous
  bool host_writable = false;
  // Lossless compression (texture_compression.cpp): levels below
  // `metadata_levels` have one 8-byte metadata word per 16x16-sample tile.
  uint32_t metadata_levels = 0;
  uint64_t metadata_layer_stride_B = 0;
  std::array<uint64_t, layout::kMaxLevels> metadata_level_offset_B{};
  uint8_t uncompressed_mode = 0;  // the subtile mode of plain (uncompressed) texels

  uint32_t width(uint32_t level) const { return std::max(1u, desc.width_px >> level); }
  uint32_t height(uint32_t level) const { return std::max(1u, desc.height_px >> level); }
  uint32_t depth(uint32_t level) const { return std::max(1u, desc.depth_px >> level); }
  // Byte offset of a texel from the image base; coordinates must be inside.
  uint64_t offset_B(uint32_t x, uint32_t y, uint32_t layer, uint32_t level,
                    uint32_t sample) const {
    return layer * layer_stride_B + level_offset_B[level] + xoff[level][x] + yoff[level][y] +
           uint64_t{sample} * bytes_per_sample_B;
  }
};

// A view resolved for load and sample (TextureUnit::resolve).
struct TextureUnit::Resolved {
  TextureView tex;
  TexelFormat fmt;
  const Image* img = nullptr;
};

namespace internal {
Result<std::unique_ptr<TextureUnit::Image>> make_image(GpuMemory& memory, const ImageDesc& desc);
// Reads / writes the bytes of one texel (fault Errors name the address).
Status read_texel(GpuMemory& memory, const TextureUnit::Image& image, uint64_t offset_B,
                  uint8_t* out, uint32_t size_B);
Status write_texel(GpuMemory& memory, const TextureUnit::Image& image, uint64_t offset_B,
                   const uint8_t* in, uint32_t size_B);
// The bytes of one texel (sample) at a coordinate inside the level, through
// the compression metadata when the level has some (texture_compression.cpp).
Status fetch_texel(GpuMemory& memory, const TextureUnit::Image& image, uint32_t x, uint32_t y,
                   uint32_t layer, uint32_t level, uint32_t sample, uint8_t* out);
// Stores one texel (sample); a compressed level's tile is first made plain
// (uncompressed) when it holds a solid colour.
Status store_texel(GpuMemory& memory, const TextureUnit::Image& image, uint32_t x, uint32_t y,
                   uint32_t layer, uint32_t level, uint32_t sample, const uint8_t* in);
// Fills the compression fields of a compressed image from its layout.
Status lay_out_compression(TextureUnit::Image& image, const layout::Layout& l);
// PVRTC: where word (bx, by) of a level and layer lives, and the texels of
// that word (read with its neighbours; texture_pvrtc.cpp).
uint64_t pvrtc_block_offset_B(const TextureUnit::Image& img, uint32_t level, uint32_t layer,
                              uint32_t bx, uint32_t by);
Status decode_pvrtc_block_at(GpuMemory& memory, const TextureUnit::Image& img, uint32_t level,
                             uint32_t layer, uint32_t bx, uint32_t by, const TexelFormat& f,
                             Texel* out);
// The LOD of a sample (texture_lod.cpp): lambda_prime = lambda_base plus the
// bias, lambda after the sampler's and the instruction's clamps; with
// anisotropy the sample count and step (major-axis derivatives of the
// normalized, or cube-face, coordinates). Cube derivatives are transformed
// to face derivatives first (face = the direction's face).
struct Lod {
  float lambda_prime = 0.0f, lambda = 0.0f;
  uint32_t aniso_n = 1;
  std::array<float, 3> aniso_step{};
};
Lod compute_lod(const SamplerView& sampler, const SampleRequest& rq, uint32_t cube_face, bool cube,
                float wb, float hb, float db);
// The (sc, tc, ma) of vector v on cube face `face` (Vulkan's table).
void cube_face_components(uint32_t face, const std::array<float, 3>& v, float& sc, float& tc,
                          float& ma);
// Nearest mip filtering's level offset for a clamped LOD d' (Vulkan).
uint32_t nearest_level(float dprime);
}  // namespace internal

}  // namespace agx::gpu
