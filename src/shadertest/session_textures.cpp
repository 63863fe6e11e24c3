// Textures piglit's utilities generate, beyond rgbw (session.cpp):
// `texture miptree UNIT`, piglit_miptree_texture (X11Libre/mirror.fdo.piglit
// tests/util/piglit-util-gl.c): 8x8 RGBA with 4 levels, each level one solid
// colour of red, green, blue, white; and the shaped textures of
// shader_runner.c (1D, 3D, arrays, cubes, depth, `texture storage`).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "shadertest/session.h"

namespace agx::shadertest {

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
  AGX_TRY(auto img, runtime::Image::create(device_, r, fmt::format("texture {}", t.unit)));
  for (uint32_t level = 0; level < kLevels; ++level) {
    uint32_t size_px = kSize_px >> level;
    std::vector<uint8_t> texels(size_t(size_px) * size_px * 4);
    for (size_t i = 0; i < texels.size(); i += 4) std::memcpy(&texels[i], kLevelColour[level], 4);
    AGX_CHECK(img->upload(texels, uint64_t(size_px) * 4, level));
  }
  textures_[t.unit] = std::move(img);
  // piglit_miptree_texture's parameters: clamp to edge, NEAREST magnify,
  // NEAREST_MIPMAP_NEAREST minify.
  runtime::SamplerParams p;
  p.minify = p.magnify = cmdstream::Filter::kNearest;
  p.mip = cmdstream::MipFilter::kNearest;
  sampler_params_[t.unit] = p;
  return {};
}

namespace {

constexpr uint8_t kRed[4] = {255, 0, 0, 255}, kGreen[4] = {0, 255, 0, 255}, kBlue[4] = {0, 0, 255, 255},
                  kWhite[4] = {255, 255, 255, 255};

void append(std::vector<uint8_t>& out, const uint8_t (&c)[4]) { out.insert(out.end(), c, c + 4); }

// The image dimension of a shader_runner texture target.
Result<runtime::ImageDim> target_dim(const std::string& target) {
  if (target == "1D") return runtime::ImageDim::d1;
  if (target == "1DArray") return runtime::ImageDim::d1_array;
  if (target == "2D" || target == "Rect") return runtime::ImageDim::d2;
  if (target == "2DArray") return runtime::ImageDim::d2_array;
  if (target == "3D") return runtime::ImageDim::d3;
  if (target == "Cube") return runtime::ImageDim::cube;
  if (target == "CubeArray") return runtime::ImageDim::cube_array;
  return Error::unsupported("texture target {} is not supported (1D, 1DArray, 2D, 2DArray, 3D, Cube, CubeArray, Rect)",
                            target);
}

}  // namespace

Result<format::Format> gl_image_format(const std::string& n) {
  using F = format::Format;
  static const std::pair<const char*, F> kFormats[] = {
      {"GL_RGBA", F::R8G8B8A8_UNORM},      {"GL_RGBA8", F::R8G8B8A8_UNORM},
      {"GL_RGBA8I", F::R8G8B8A8_SINT},     {"GL_RGBA8UI", F::R8G8B8A8_UINT},
      {"GL_RGBA8_SNORM", F::R8G8B8A8_SNORM}, {"GL_R8", F::R8_UNORM},
      {"GL_RGBA16F", F::R16G16B16A16_FLOAT}, {"GL_R32F", F::R32_FLOAT},
      {"GL_RG32F", F::R32G32_FLOAT},        {"GL_RGBA32F", F::R32G32B32A32_FLOAT},
      {"GL_R32I", F::R32_SINT},             {"GL_R32UI", F::R32_UINT},
      {"GL_RG32I", F::R32G32_SINT},         {"GL_RG32UI", F::R32G32_UINT},
      {"GL_RGBA32I", F::R32G32B32A32_SINT}, {"GL_RGBA32UI", F::R32G32B32A32_UINT},
  };
  for (const auto& [name, f] : kFormats)
    if (n == name) return f;
  return Error::unsupported("image format {} is not supported (GL_RGBA8, GL_RGBA8I/UI, GL_RGBA8_SNORM, GL_R8, "
                            "GL_RGBA16F, GL_R32F, GL_RG32F, GL_RGBA32F, GL_R32I/UI, GL_RG32I/UI, GL_RGBA32I/UI)",
                            n);
}

std::vector<uint8_t> rgbw_1d_rgba8() {
  std::vector<uint8_t> out;
  for (const auto* c : {&kRed, &kGreen, &kBlue, &kWhite}) append(out, *c);
  return out;
}

std::vector<uint8_t> rgbw_3d_rgba8() {
  static constexpr uint8_t kYellow[4] = {255, 255, 0, 255}, kMagenta[4] = {255, 0, 255, 255},
                           kCyan[4] = {0, 255, 255, 255}, kBlack[4] = {0, 0, 0, 255};
  std::vector<uint8_t> out;
  for (const auto* c : {&kRed, &kGreen, &kBlue, &kWhite, &kYellow, &kMagenta, &kCyan, &kBlack}) append(out, *c);
  return out;
}

std::vector<uint8_t> array_layer_rgba8(uint32_t w, uint32_t h, uint32_t layer) {
  const uint8_t(&c)[4] = layer % 4 == 0 ? kRed : layer % 4 == 1 ? kGreen : layer % 4 == 2 ? kBlue : kWhite;
  std::vector<uint8_t> out;
  out.reserve(size_t(w) * h * 4);
  for (size_t i = 0; i < size_t(w) * h; ++i) append(out, c);
  return out;
}

Status Session::texture_shaped(const CmdTextureShaped& t) {
  using Kind = CmdTextureShaped::Kind;
  const std::string label = fmt::format("texture {}", t.unit);
  AGX_TRY(runtime::ImageDim dim, target_dim(t.target));
  layout::Request r;
  r.width_px = t.width_px;
  r.height_px = t.height_px;
  r.depth_px = t.depth;
  r.levels = t.levels;
  r.tiling = layout::Tiling::gpu;
  r.writeable_image = true;  // image stores
  r.format = format::Format::R8G8B8A8_UNORM;
  if (dim == runtime::ImageDim::cube) r.depth_px = 6;
  if (dim == runtime::ImageDim::cube_array && t.kind == Kind::storage && t.depth % 6 != 0)
    return Error::invalid_argument("{}: a cube array of {} layer-faces (a multiple of 6)", label, t.depth);
  if (t.kind == Kind::storage) {
    AGX_TRY(r.format, gl_image_format(t.format));
  } else if (t.kind == Kind::shadow) {
    AGX_TRY(r.format, format::find_format("Z32_FLOAT"));  // GL_DEPTH_COMPONENT
  }
  if (r.width_px > layout::kMaxDimension_px || r.height_px > layout::kMaxDimension_px || r.depth_px > 2048)
    return Error::invalid_argument("{}: {}x{}x{} is too large", label, r.width_px, r.height_px, r.depth_px);
  AGX_TRY(auto img, runtime::Image::create(device_, dim, r, label));
  const uint64_t pitch_B = uint64_t(t.width_px) * 4;
  runtime::SamplerParams p;  // nearest, clamp to edge: piglit's rgbw, array and depth textures
  switch (t.kind) {
    case Kind::rgbw:
      if (dim == runtime::ImageDim::d1) {
        AGX_CHECK(img->upload(rgbw_1d_rgba8(), pitch_B));
      } else if (dim == runtime::ImageDim::d3) {
        auto texels = rgbw_3d_rgba8();
        for (uint32_t z = 0; z < 2; ++z)
          AGX_CHECK(img->upload(std::span<const uint8_t>(texels).subspan(16 * z, 16), pitch_B, 0, z));
      } else {
        for (uint32_t l = 0; l < t.depth; ++l) AGX_CHECK(img->upload(array_layer_rgba8(t.width_px, t.height_px, l), pitch_B, 0, l));
      }
      break;
    case Kind::shadow: {
      // piglit_depth_texture: x / (w - 1) in every row and layer.
      std::vector<float> row(size_t(t.width_px) * t.height_px);
      for (uint32_t y = 0; y < t.height_px; ++y)
        for (uint32_t x = 0; x < t.width_px; ++x) row[size_t(y) * t.width_px + x] = float(x) / float(int(t.width_px) - 1);
      for (uint32_t l = 0; l < r.depth_px; ++l)
        AGX_CHECK(img->upload({reinterpret_cast<const uint8_t*>(row.data()), row.size() * 4}, pitch_B, 0, l));
      p.compare = cmdstream::CompareFunc::kGreater;  // GL_COMPARE_R_TO_TEXTURE, GL_GREATER
      break;
    }
    case Kind::junk:
      break;  // GL leaves the texels undefined; ours are zero
    case Kind::storage:
      // A texture object's defaults (GL 4.6 table 23.18): repeat, linear
      // magnification, NEAREST_MIPMAP_LINEAR minification.
      p.wrap_s = p.wrap_t = p.wrap_r = cmdstream::Wrap::kRepeat;
      p.magnify = cmdstream::Filter::kLinear;
      p.minify = cmdstream::Filter::kNearest;
      p.mip = cmdstream::MipFilter::kLinear;
      break;
  }
  textures_[t.unit] = std::move(img);
  sampler_params_[t.unit] = p;
  active_unit_ = t.unit;
  return {};
}

// `texture checkerboard UNIT LEVEL (W, H) (C0) (C1)`: shader_runner's
// piglit_checkerboard_texture(0, level, w, h, w / 2, h / 2, c0, c1)
// (X11Libre/mirror.fdo.piglit tests/shaders/shader_runner.c,
// tests/util/piglit-util-gl.c): squares of w/2 x h/2 texels, C1 where the
// square's row and column differ in parity, else C0, as GL_RGBA (RGBA8
// unorm); nearest filters, clamp to a (1, 0, 0, 1) border.
Status Session::texture_pattern(const CmdTexturePattern& t) {
  if (t.quads) return Error::unsupported("texture quads is not supported (texture checkerboard is)");
  if (t.level != 0)
    return Error::unsupported("texture checkerboard of level {}: a texture with only that level is incomplete in GL, "
                              "and the runner makes level 0 only", t.level);
  if (t.colors.size() != 2) return Error::invalid_argument("texture checkerboard: two colours");
  AGX_TRY(auto img, make_image(fmt::format("texture {}", t.unit), t.width_px, t.height_px));
  const uint32_t sq_w = std::max(t.width_px / 2, 1u), sq_h = std::max(t.height_px / 2, 1u);
  std::vector<uint8_t> texels;
  texels.reserve(size_t(t.width_px) * t.height_px * 4);
  for (uint32_t y = 0; y < t.height_px; ++y)
    for (uint32_t x = 0; x < t.width_px; ++x) {
      const std::array<float, 4>& c = t.colors[((y / sq_h) ^ (x / sq_w)) & 1];
      for (float v : c) texels.push_back(uint8_t(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)));
    }
  AGX_CHECK(img->upload(texels, uint64_t(t.width_px) * 4));
  textures_[t.unit] = std::move(img);
  runtime::SamplerParams p;
  p.wrap_s = p.wrap_t = cmdstream::Wrap::kClampToBorder;
  p.border = std::array<float, 4>{1, 0, 0, 1};
  sampler_params_[t.unit] = p;
  active_unit_ = t.unit;
  return {};
}

}  // namespace agx::shadertest
