// Images: a `layout` unit layout in a GPU buffer, uploads and downloads
// through the layout's tiling, and the Texture and PBE descriptors the
// texture unit and image writes read (packed with the cmdstream tables,
// bminor/mesa-mesa src/asahi/genxml/cmdbuf.xml "Texture" and "PBE").
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "compiler/compiler.h"
#include "layout/layout.h"
#include "runtime/runtime.h"

namespace agx::runtime {

// What an image is made for: GLSL's image and sampler dimensions (the
// compiler's, docs/compiler.md "Images and samplers").
using ImageDim = compiler::ImageDim;

class Image {
 public:
  // A zero-filled 2D image; the request's format, size, levels and tiling.
  static Result<std::unique_ptr<Image>> create(Device& device, const layout::Request& request, std::string label);
  // A zero-filled image of `dim`. request.depth_px is the layer count of
  // arrays, the slices of 3D images and 6 x the cubes of cube (array)
  // images; 1D images have height 1; multisampled ones take
  // request.sample_count_sa (2 or 4). Buffer images: use
  // create_texel_buffer. What does not fit `dim` is an invalid-argument
  // error naming it.
  static Result<std::unique_ptr<Image>> create(Device& device, ImageDim dim, const layout::Request& request,
                                               std::string label);
  // A texel buffer (GL buffer texture / imageBuffer) of `texels` texels of
  // `format`, stored linearly: texel i at byte i x the texel size. The
  // texture unit sees it as Mesa lays buffer textures out: a linear 2D
  // image 1024 texels wide (docs/compiler.md).
  static Result<std::unique_ptr<Image>> create_texel_buffer(Device& device, format::Format format, uint32_t texels,
                                                            std::string label);

  const layout::Layout& layout() const { return layout_; }
  Buffer& buffer() { return *buffer_; }
  uint64_t gpu_va() const { return buffer_->gpu_va(); }
  uint32_t width_px() const { return layout_.request.width_px; }
  uint32_t height_px() const { return layout_.request.height_px; }
  ImageDim dim() const { return dim_; }
  // Array layers (cube arrays: cubes; cubes: 1), 3D slices; else 1.
  uint32_t layers() const;
  uint32_t samples() const { return layout_.request.sample_count_sa; }
  uint32_t texels() const { return texels_; }  // texel buffers: the texel count
  // What imageSize / textureSize(t, 0) return, zero-padded to 3, then the
  // sample count (the compiler's size uniforms).
  std::array<uint32_t, 4> size_query() const;

  // Whole (level, layer) from / to linear host memory, rows `pitch_B` apart.
  Status upload(std::span<const uint8_t> linear, uint64_t pitch_B, uint32_t level = 0, uint32_t layer = 0);
  Status download(std::span<uint8_t> linear, uint64_t pitch_B, uint32_t level = 0, uint32_t layer = 0) const;

  // The 24-byte Texture and PBE descriptors, in Mesa's layout for the
  // image's dimension: sampled as a whole, written at `level`. With
  // `storage` (an image unit, not a sampler) cube (array) images are 2D
  // arrays of faces, as the compiler addresses them. Buffer images are
  // linear 2D images 1024 texels wide. Compressed images and linear images
  // other than one-level 2D ones are an unsupported error naming what.
  Result<std::array<uint32_t, 6>> texture_descriptor(bool storage = false) const;
  Result<std::array<uint32_t, 6>> pbe_descriptor(uint32_t level = 0) const;

 private:
  Image() = default;
  static Result<std::unique_ptr<Image>> make(Device& device, ImageDim dim, const layout::Request& request,
                                             uint32_t texels, std::string label);
  Status check_descriptor_support() const;
  layout::Layout layout_;
  std::unique_ptr<Buffer> buffer_;
  ImageDim dim_ = ImageDim::d2;
  uint32_t texels_ = 0;
};

}  // namespace agx::runtime
