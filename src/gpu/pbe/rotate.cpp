// Where a PBE write lands: "Flip vertical" and "Rotate 90" of the PBE
// descriptor (bminor/mesa-mesa src/asahi/genxml/cmdbuf.xml names both bits;
// Mesa sets neither, and what Rotate 90 does is not public). Our choice,
// kept in this one function: the image written is the source turned 90
// degrees clockwise. The descriptor's Width and Height stay those of the
// image in memory (they also give its layout: level sizes, tiling), so the
// source is height wide and width high.
#include "gpu/pbe/pbe.h"

namespace agx::gpu {

std::optional<std::array<uint32_t, 2>> pbe_destination(const PbeView& pbe, uint32_t width_px,
                                                       uint32_t height_px, int32_t x, int32_t y) {
  // The source's size: the destination's, turned when rotating.
  const int64_t src_w = pbe.rotate_90 ? height_px : width_px;
  const int64_t src_h = pbe.rotate_90 ? width_px : height_px;
  if (x < 0 || x >= src_w || y < 0 || y >= src_h) return std::nullopt;
  const int64_t sy = pbe.flip_vertical ? src_h - 1 - y : y;
  if (!pbe.rotate_90) return std::array<uint32_t, 2>{uint32_t(x), uint32_t(sy)};
  // Clockwise: the source's top row becomes the destination's right column.
  return std::array<uint32_t, 2>{uint32_t(src_h - 1 - sy), uint32_t(x)};
}

}  // namespace agx::gpu
