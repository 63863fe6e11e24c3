#include "runtime/image_binding.h"

#include <bit>
#include <cstring>

#include "cmdstream/cmdstream.h"

namespace agx::runtime {

namespace cs = agx::cmdstream;

namespace {
constexpr uint32_t kTextureState_B = 24;
constexpr uint32_t kSamplerState_B = 8;

void put(std::vector<uint8_t>& table, uint32_t index, uint32_t size_B, const void* bytes) {
  if (table.size() < uint64_t(index + 1) * size_B) table.resize(uint64_t(index + 1) * size_B, 0);
  std::memcpy(table.data() + uint64_t(index) * size_B, bytes, size_B);
}
}  // namespace

namespace {
Result<std::array<uint8_t, 8>> sampler_bytes(const cs::Sampler& s) {
  AGX_TRY(auto bytes, cs::pack(s));
  std::array<uint8_t, 8> out{};
  std::memcpy(out.data(), bytes.data(), out.size());
  return out;
}
// Level 0's texel addressing for image atomics (docs/compiler.md): base
// address, tiles per row, log2 tile width and height, as
// layout::tiled_offset_el walks the level.
Result<std::vector<uint32_t>> atomic_addressing(const Image& img, const std::string& name) {
  const layout::Layout& l = img.layout();
  if (l.request.tiling == layout::Tiling::linear || l.request.compressed || l.bytes_per_element_B != 4)
    return Error::unsupported("image '{}': atomics need a GPU-tiled or twiddled, uncompressed image of 32-bit texels",
                              name);
  const layout::Tile t = l.tile_el[0];
  const unsigned lw = unsigned(std::countr_zero(t.width_el)), lh = unsigned(std::countr_zero(t.height_el));
  if ((1u << lw) != t.width_el || (1u << lh) != t.height_el || (lw != lh && lw != lh + 1) || lh > 8)
    return Error::unsupported("image '{}': a {}x{} tile has no Morton form the shader's addressing covers", name,
                              t.width_el, t.height_el);
  const uint64_t va = img.gpu_va() + l.level_offsets_B[0];
  const uint32_t tiles_per_row = uint32_t((l.stride_el[0] + t.width_el - 1) / t.width_el);
  return std::vector<uint32_t>{uint32_t(va), uint32_t(va >> 32), tiles_per_row, lw, lh};
}

}  // namespace

Result<std::array<uint8_t, 8>> unit_sampler_descriptor() {
  cs::Sampler s;
  s.magnify = s.minify = cs::Filter::kNearest;
  s.mip_filter = cs::MipFilter::kNone;
  s.wrap_s = s.wrap_t = s.wrap_r = cs::Wrap::kClampToEdge;
  return sampler_bytes(s);
}

Result<std::array<uint8_t, 8>> txf_sampler_descriptor() {
  cs::Sampler s;
  s.magnify = s.minify = cs::Filter::kNearest;
  s.mip_filter = cs::MipFilter::kNearest;
  s.wrap_s = s.wrap_t = s.wrap_r = cs::Wrap::kClampToBorder;
  s.border_colour = cs::BorderColour::kTransparentBlack;
  return sampler_bytes(s);
}

Result<StateDescriptors> bind_images(const compiler::Abi& abi, const ImageLookup& image_for) {
  StateDescriptors out;
  out.textures.assign(size_t(abi.texture_state_count) * kTextureState_B, 0);
  out.samplers.assign(size_t(abi.sampler_state_count) * kSamplerState_B, 0);
  for (const compiler::ImageBinding& b : abi.images) {
    if (b.dim != compiler::ImageDim::d2)
      return Error::unsupported("image '{}': binding {} images is not supported yet (2D)", b.name,
                                compiler::image_dim_name(b.dim));
    AGX_TRY(const Image* img, image_for(b));
    AGX_TRY(auto tex, img->texture_descriptor());
    put(out.textures, b.texture_state, kTextureState_B, tex.data());
    if (b.pbe_state != UINT32_MAX) {
      AGX_TRY(auto pbe, img->pbe_descriptor());
      put(out.textures, b.pbe_state, kTextureState_B, pbe.data());
    }
    if (b.size_uniform != UINT32_MAX)
      out.uniforms.push_back({b.size_uniform, {img->width_px(), img->height_px(), 0, 1}});
    if (b.atomic_uniform != UINT32_MAX) {
      AGX_TRY(auto words, atomic_addressing(*img, b.name));
      out.uniforms.push_back({b.atomic_uniform, std::move(words)});
    }
    if (b.sampler_state != UINT32_MAX) {
      AGX_TRY(auto s, unit_sampler_descriptor());
      put(out.samplers, b.sampler_state, kSamplerState_B, s.data());
    }
  }
  if (abi.txf_sampler_state != UINT32_MAX) {
    AGX_TRY(auto s, txf_sampler_descriptor());
    put(out.samplers, abi.txf_sampler_state, kSamplerState_B, s.data());
  }
  return out;
}

}  // namespace agx::runtime
