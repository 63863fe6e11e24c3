// Textures piglit's utilities generate, beyond rgbw (session.cpp):
// `texture miptree UNIT`, piglit_miptree_texture (X11Libre/mirror.fdo.piglit
// tests/util/piglit-util-gl.c): 8x8 RGBA with 4 levels, each level one solid
// colour of red, green, blue, white.
#include <cstring>

#include "runtime/session.h"

namespace agx::runtime {

Status Session::texture_miptree(const CmdTextureMiptree& t) {
  static constexpr uint8_t kLevelColour[4][4] = {
      {255, 0, 0, 255}, {0, 255, 0, 255}, {0, 0, 255, 255}, {255, 255, 255, 255}};
  constexpr uint32_t kSize_px = 8, kLevels = 4;
  layout::Request r;
  r.format = format::Format::R8G8B8A8_UNORM;
  r.width_px = kSize_px;
  r.height_px = kSize_px;
  r.levels = kLevels;
  r.tiling = layout::Tiling::gpu;
  AGX_TRY(auto img, Image::create(device_, r, fmt::format("texture {}", t.unit)));
  for (uint32_t level = 0; level < kLevels; ++level) {
    uint32_t size_px = kSize_px >> level;
    std::vector<uint8_t> texels(size_t(size_px) * size_px * 4);
    for (size_t i = 0; i < texels.size(); i += 4) std::memcpy(&texels[i], kLevelColour[level], 4);
    AGX_CHECK(img->upload(texels, uint64_t(size_px) * 4, level));
  }
  textures_[t.unit] = std::move(img);
  // piglit_miptree_texture's parameters: clamp to edge, NEAREST magnify,
  // NEAREST_MIPMAP_NEAREST minify.
  SamplerParams p;
  p.minify = p.magnify = cmdstream::Filter::kNearest;
  p.mip = cmdstream::MipFilter::kNearest;
  sampler_params_[t.unit] = p;
  return {};
}

}  // namespace agx::runtime
