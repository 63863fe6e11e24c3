// PNG files (through Debian's libpng) of 8-bit RGBA, 8-bit grey and 16-bit
// grey images: what the tools write for render targets and depth buffers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "util/result.h"

namespace agx {

enum class PngFormat : uint8_t {
  rgba8,   // 4 bytes a pixel: R, G, B, A
  grey8,   // 1 byte a pixel
  grey16,  // 2 bytes a pixel, host order in Image::data (PNG stores big-endian)
};

struct PngImage {
  uint32_t width_px = 0, height_px = 0;
  PngFormat format = PngFormat::rgba8;
  std::vector<uint8_t> data;  // rows top to bottom, tightly packed
};

uint32_t png_bytes_per_pixel(PngFormat format);
const char* to_string(PngFormat format);

// Writes `image` to `path`. An empty or oversized image (more than 1<<24
// pixels a side), data of the wrong size or a file that cannot be written
// is an error naming the path.
Status write_png(const std::string& path, const PngImage& image);

// Reads a PNG of one of the three formats (as written by write_png: 8-bit
// RGBA, 8- or 16-bit grey, no palette); anything else is an error naming
// the path.
Result<PngImage> read_png(const std::string& path);

}  // namespace agx
