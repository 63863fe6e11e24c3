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

#include "layout/layout.h"
#include "runtime/runtime.h"

namespace agx::runtime {

class Image {
 public:
  // A zero-filled image; the request's format, size, levels and tiling.
  static Result<std::unique_ptr<Image>> create(Device& device, const layout::Request& request, std::string label);

  const layout::Layout& layout() const { return layout_; }
  Buffer& buffer() { return *buffer_; }
  uint64_t gpu_va() const { return buffer_->gpu_va(); }
  uint32_t width_px() const { return layout_.request.width_px; }
  uint32_t height_px() const { return layout_.request.height_px; }

  // Whole (level, layer) from / to linear host memory, rows `pitch_B` apart.
  Status upload(std::span<const uint8_t> linear, uint64_t pitch_B, uint32_t level = 0, uint32_t layer = 0);
  Status download(std::span<uint8_t> linear, uint64_t pitch_B, uint32_t level = 0, uint32_t layer = 0) const;

  // The 24-byte descriptors of a 2D image (one layer, one sample, not
  // compressed, GPU-tiled or twiddled): sampled as a whole, written at
  // `level`. Other images are an unsupported error naming what.
  Result<std::array<uint32_t, 6>> texture_descriptor() const;
  Result<std::array<uint32_t, 6>> pbe_descriptor(uint32_t level = 0) const;

 private:
  Image() = default;
  Status check_descriptor_support() const;
  layout::Layout layout_;
  std::unique_ptr<Buffer> buffer_;
};

}  // namespace agx::runtime
