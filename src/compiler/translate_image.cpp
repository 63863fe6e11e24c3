// Image and sampler uniforms -> the texture unit and the PBE.
//
// Binding (docs/compiler.md, "Images and samplers"): the texture state
// registers follow Mesa's gallium driver (bminor/mesa-mesa
// src/gallium/drivers/asahi/agx_nir_lower_bindings.c): sampled textures
// first, one register each, then every storage image as two registers side
// by side, its Texture descriptor (reads and queries) and its PBE
// descriptor (writes). Sampler state registers follow the textures one to
// one; the sampler texel fetches use comes after them (Mesa's txf sampler,
// src/asahi/compiler/agx_compile.c agx_txf_sampler).
//
// imageStore is `image_write` with the four 32-bit channels: the PBE
// converts them to the bound image's format.
#include <algorithm>
#include <iterator>
#include <optional>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "compiler/translate.h"

namespace agx::compiler {

const char* image_dim_name(ImageDim d) {
  static constexpr const char* kNames[] = {"1d", "1d_array", "2d", "2d_array", "2d_ms",
                                           "3d", "cube", "cube_array", "2d_ms_array", "buffer"};
  const auto i = static_cast<size_t>(d);
  return i < std::size(kNames) ? kNames[i] : "?";
}

namespace detail {

using Kind = spirv::Type::Kind;
using IrOp = agx::compiler::Op;

namespace {

// Texture state registers the T operand reaches (8 bits) and sampler state
// registers a compute launch declares (CDM Launch Word 0: at most 16).
constexpr uint32_t kMaxTextureStates = 256;
constexpr uint32_t kMaxSamplerStates = 16;

// GLSL layout names of the SPIR-V image formats, in spv::ImageFormat order
// (KhronosGroup SPIR-V spec, "Image Format").
constexpr const char* kFormatNames[] = {
    "unknown",  "rgba32f",  "rgba16f",    "r32f",       "rgba8",        "rgba8_snorm", "rg32f",     "rg16f",
    "r11f_g11f_b10f", "r16f", "rgba16",   "rgb10_a2",   "rg16",         "rg8",         "r16",       "r8",
    "rgba16_snorm", "rg16_snorm", "rg8_snorm", "r16_snorm", "r8_snorm", "rgba32i",     "rgba16i",   "rgba8i",
    "r32i",     "rg32i",    "rg16i",      "rg8i",       "r16i",         "r8i",         "rgba32ui",  "rgba16ui",
    "rgba8ui",  "r32ui",    "rgb10_a2ui", "rg32ui",     "rg16ui",       "rg8ui",       "r16ui",     "r8ui"};

std::optional<ImageDim> dim_of(const spirv::Type& t) {
  switch (t.image_dim) {
    case spv::Dim::Dim1D: return t.arrayed ? ImageDim::d1_array : ImageDim::d1;
    case spv::Dim::Dim2D:
    case spv::Dim::Rect:
      if (t.multisampled) return t.arrayed ? ImageDim::d2_ms_array : ImageDim::d2_ms;
      return t.arrayed ? ImageDim::d2_array : ImageDim::d2;
    case spv::Dim::Dim3D: return ImageDim::d3;
    case spv::Dim::Cube: return t.arrayed ? ImageDim::cube_array : ImageDim::cube;
    case spv::Dim::Buffer: return ImageDim::buffer;
    default: return std::nullopt;
  }
}

// Coordinate components an image access names (the layer included).
unsigned coord_count(ImageDim d) {
  switch (d) {
    case ImageDim::d1: case ImageDim::buffer: return 1;
    case ImageDim::d1_array: case ImageDim::d2: case ImageDim::d2_ms: return 2;
    case ImageDim::d2_array: case ImageDim::d2_ms_array: case ImageDim::d3: case ImageDim::cube: return 3;
    case ImageDim::cube_array: return 4;
  }
  return 0;
}

bool is_array_dim(ImageDim d) {
  return d == ImageDim::d1_array || d == ImageDim::d2_array || d == ImageDim::cube_array || d == ImageDim::d2_ms_array;
}

}  // namespace

Status Translator::setup_images() {
  image_index_.assign(m_.bound, -1);
  // element: an array of images or samplers (`uniform sampler2D s[3]`)
  // gives one ImageBinding per element (array_size its length).
  struct Found { uint32_t var, binding; ImageBinding::Kind kind; uint32_t element = 0, array_size = 0; };
  std::vector<Found> found;
  std::vector<std::pair<SamplerBinding, uint32_t>> separate;  // separate samplers and their variables
  for (uint32_t v : m_.globals) {
    const spirv::Variable& var = m_.variables[v];
    if (var.storage != spv::StorageClass::UniformConstant) continue;
    uint32_t elem = type(var.type).elem, count = 0;
    if (type(elem).kind == Kind::array) {
      count = type(elem).count;
      elem = type(elem).elem;
    }
    const spirv::Type& t = type(elem);
    ImageBinding::Kind kind;
    if (t.kind == Kind::image) kind = t.sampled == 1 ? ImageBinding::Kind::sampled_image : ImageBinding::Kind::storage_image;
    else if (t.kind == Kind::sampled_image) kind = ImageBinding::Kind::sampled_image;
    else if (t.kind == Kind::sampler && !count && type(type(var.type).elem).kind == Kind::sampler) {
      // A separate sampler: its ss register after the textures' (below).
      const spirv::Decorations& d = m_.decorations[v];
      separate.push_back({SamplerBinding{d.set == UINT32_MAX ? 0 : d.set, d.binding == UINT32_MAX ? 0 : d.binding,
                                         m_.names[v], 0}, v});
      continue;
    } else continue;  // arrays of samplers: an error where used
    if (type(type(var.type).elem).kind == Kind::array && !count) continue;  // unsized: an error where used
    uint32_t b = m_.decorations[v].binding;
    b = b == UINT32_MAX ? 0 : b;
    // OpenGL: elements take consecutive binding points (units); Vulkan: one
    // binding, an array of descriptors.
    for (uint32_t i = 0; i < std::max(count, 1u); ++i)
      found.push_back({v, b + (o_.env == TargetEnv::opengl ? i : 0), kind, i, count});
  }
  // Sampled textures, then storage images; each in binding order.
  auto order = [](const Found& f) {
    return std::tuple(f.kind == ImageBinding::Kind::sampled_image ? 0 : 1, f.binding, f.element);
  };
  std::stable_sort(found.begin(), found.end(), [&](const Found& a, const Found& b) { return order(a) < order(b); });
  uint32_t textures = 0;
  for (const Found& f : found) textures += f.kind == ImageBinding::Kind::sampled_image;
  uint32_t next_texture = 0, next_image = textures;
  for (const Found& f : found) {
    uint32_t elem = type(m_.variables[f.var].type).elem;
    if (f.array_size) elem = type(elem).elem;
    const spirv::Type& t = type(elem).kind == Kind::sampled_image ? type(type(elem).elem) : type(elem);
    ImageBinding img;
    img.kind = f.kind;
    img.binding = f.binding;
    img.array_element = f.element;
    img.array_size = f.array_size;
    // An array's element as GL names it ("s[1]").
    img.name = f.array_size ? fmt::format("{}[{}]", m_.names[f.var], f.element) : m_.names[f.var];
    auto dim = dim_of(t);
    if (!dim)
      return Error::unsupported("{}: image '{}' has SPIR-V dimension {} (1D, 2D, 3D, cube, rect and buffer are supported)",
                                o_.file_name, img.name, static_cast<unsigned>(t.image_dim));
    img.dim = *dim;
    const auto format = static_cast<size_t>(t.image_format);
    img.format = format < std::size(kFormatNames) ? kFormatNames[format] : fmt::format("format {}", format);
    if (f.kind == ImageBinding::Kind::sampled_image) {
      img.texture_state = next_texture;
      img.sampler_state = next_texture;
      ++next_texture;
    } else {
      img.texture_state = next_image;
      img.pbe_state = next_image + 1;
      next_image += 2;
    }
    const auto index = static_cast<uint32_t>(abi_.images.size());
    if (f.array_size) {
      auto& elems = image_array_[f.var];
      if (elems.size() <= f.element) elems.resize(f.element + 1);
      elems[f.element] = index;
    } else {
      image_index_[f.var] = static_cast<int32_t>(index);
    }
    abi_.images.push_back(std::move(img));
  }
  abi_.texture_state_count = next_image;
  abi_.sampler_state_count = textures;
  // Separate samplers, in (set, binding) order, after the textures' own.
  std::stable_sort(separate.begin(), separate.end(), [](const auto& a, const auto& b) {
    return std::pair(a.first.set, a.first.binding) < std::pair(b.first.set, b.first.binding);
  });
  for (auto& [sb, var] : separate) {
    sb.sampler_state = abi_.sampler_state_count++;
    sampler_var_state_[var] = sb.sampler_state;
    abi_.samplers.push_back(sb);
  }
  if (abi_.texture_state_count > kMaxTextureStates)
    return Error::unsupported("{}: {} texture state registers for the images and textures (at most {})", o_.file_name,
                              abi_.texture_state_count, kMaxTextureStates);
  if (abi_.sampler_state_count > kMaxSamplerStates)
    return Error::unsupported("{}: {} samplers (at most {} sampler state registers)", o_.file_name,
                              abi_.sampler_state_count, kMaxSamplerStates);
  return {};
}

// An array element picked at run time: the texture instructions take the
// state register numbers from 16-bit registers (applegpu's T and S
// operands, Tt = 1 / St = 1; the texture unit reads them per lane, so a
// non-uniform index needs no loop). Elements laid out one after another
// (the usual case) give first + index; otherwise a select chain.
Status Translator::dynamic_state_srcs(const TVal& v, bool sampler, bool pbe, std::vector<Src>& srcs, uint64_t& imm,
                                      const spirv::Inst& in) {
  if (v.image_index.kind == Src::Kind::none) return {};
  auto number = [&](uint32_t fixed, auto field) -> Src {
    std::vector<uint32_t> states;
    for (uint32_t e : v.image_elems) states.push_back(fixed != UINT32_MAX ? fixed : abi_.images[e].*field);
    bool consecutive = true;
    for (size_t i = 0; i < states.size(); ++i) consecutive &= states[i] == states[0] + i;
    Src r;
    if (fixed != UINT32_MAX) r = Src::immediate(fixed);
    else if (consecutive) r = b_.binary(IrOp::iadd, v.image_index, Src::immediate(states[0]));
    else {
      std::vector<Src> choices;
      for (uint32_t s : states) choices.push_back(Src::immediate(s));
      r = select_by_index(v.image_index, choices);
    }
    // A register operand, whatever the folding left.
    return r.is_value() ? r : Src::val(b_.def(IrOp::mov, {r}));
  };
  for (uint32_t e : v.image_elems)
    if (abi_.images[e].kind != abi_.images[v.image].kind) return unsupported(in, "an image array of mixed kinds");
  srcs.push_back(number(UINT32_MAX, pbe ? &ImageBinding::pbe_state : &ImageBinding::texture_state));
  if (sampler) {
    // The texel-fetch sampler or a separate sampler is the same for every
    // element.
    uint32_t fixed = (imm >> 24 & 0xFF) == abi_.txf_sampler_state && abi_.txf_sampler_state != UINT32_MAX
                         ? abi_.txf_sampler_state : v.sampler_state;
    srcs.push_back(number(fixed, &ImageBinding::sampler_state));
  }
  imm |= kTexStateReg;
  return {};
}

Result<const ImageBinding*> Translator::image_of(uint32_t id, const spirv::Inst& in) {
  AGX_TRY(auto v, get(id, in));
  if (v->kind != TVal::Kind::image || v->image >= abi_.images.size())
    return unsupported(in, fmt::format("operand %{} is not an image", id));
  return &abi_.images[v->image];
}

// The integer coordinates of an image access as one vector value of 32-bit
// integers, in the order the texture instructions read them (x, y, z or
// layer), and the instruction's dimension `n`. As Mesa does, cube and cube
// array images are accessed as 2D arrays (layer = the GLSL face or
// layer-face coordinate) and buffer images as 2D images 1024 texels wide
// (x % 1024, x / 1024): their descriptors must be packed that way.
Result<Src> Translator::image_coords(uint32_t id, const ImageBinding& img, const spirv::Inst& in, uint32_t* n) {
  AGX_TRY(auto v, get(id, in));
  if (v->kind != TVal::Kind::data) return unsupported(in, "image coordinates are not a value");
  ImageDim dim = img.dim;
  unsigned count = coord_count(dim);
  if (dim == ImageDim::cube || dim == ImageDim::cube_array) dim = ImageDim::d2_array, count = 3;
  if (v->c.size() < count)
    return unsupported(in, fmt::format("{} image coordinates for a {} image", v->c.size(), image_dim_name(img.dim)));
  std::vector<Src> c(v->c.begin(), v->c.begin() + count);
  for (const Src& s : c)
    if (s.bits != 32) return unsupported(in, "image coordinates must be 32-bit integers");
  if (dim == ImageDim::buffer) {
    dim = ImageDim::d2;
    c = {b_.binary(IrOp::iand, c[0], Src::immediate(1023)), b_.binary(IrOp::ushr, c[0], Src::immediate(10))};
  }
  *n = static_cast<uint32_t>(dim);
  return Src::val(b_.def(IrOp::collect, c, 32, static_cast<uint8_t>(c.size())), 32);
}

Status Translator::image_write(const spirv::Inst& in) {
  const auto& w = in.w;
  if (w.size() < 3) return Error::decode("{}: bad OpImageWrite", o_.file_name);
  AGX_TRY(const ImageBinding* img, image_of(w[0], in));
  if (img->kind != ImageBinding::Kind::storage_image) return unsupported(in, "OpImageWrite to a sampled image");
  const bool ms = img->dim == ImageDim::d2_ms || img->dim == ImageDim::d2_ms_array;
  const uint32_t operands = w.size() > 3 ? w[3] : 0;
  if (operands != (ms ? static_cast<uint32_t>(spv::ImageOperandsMask::Sample) : 0u) || (ms && w.size() < 5))
    return unsupported(in, fmt::format("imageStore with image operands 0x{:x}", operands));
  uint32_t n = static_cast<uint32_t>(img->dim);
  Src coords;
  if (ms) {
    // x, y (32-bit), then the sample index in the low half of the next
    // register and, for arrays, the layer in its high half.
    AGX_TRY(auto cv, get(w[1], in));
    const unsigned count = img->dim == ImageDim::d2_ms ? 2 : 3;
    if (cv->kind != TVal::Kind::data || cv->c.size() < count) return unsupported(in, "image coordinates of another shape");
    AGX_TRY(Src sample, scalar(w[4], in));
    Src extra = b_.binary(IrOp::iand, sample, Src::immediate(0xFFFF));
    if (count == 3) extra = b_.binary(IrOp::ior, extra, b_.binary(IrOp::ishl, cv->c[2], Src::immediate(16)));
    coords = Src::val(b_.def(IrOp::collect, {cv->c[0], cv->c[1], extra}, 32, 3), 32);
  } else {
    AGX_TRY(coords, image_coords(w[1], *img, in, &n));
  }
  AGX_TRY(auto texel, get(w[2], in));
  if (texel->kind != TVal::Kind::data || texel->c.empty() || texel->c.size() > 4)
    return unsupported(in, "imageStore of a value that is not a scalar or a vector");
  std::vector<Src> data = texel->c;
  for (const Src& s : data)
    if (s.bits != 32) return unsupported(in, "imageStore of a non-32-bit value");
  while (data.size() < 4) data.push_back(Src::immediate(0));
  Src d = Src::val(b_.def(IrOp::collect, data, 32, 4), 32);
  std::vector<Src> srcs = {d, coords, Src::immediate(0)};
  uint64_t imm = image_imm(img->pbe_state, n);
  AGX_CHECK(dynamic_state_srcs(vals_[w[0]], false, true, srcs, imm, in));
  b_.emit(IrOp::image_write, std::move(srcs), imm);
  return {};
}

// The sampler texel fetches use, allocated after the units' samplers.
Result<uint32_t> Translator::txf_sampler(const spirv::Inst& in) {
  if (abi_.txf_sampler_state == UINT32_MAX) {
    if (abi_.sampler_state_count + 1 > kMaxSamplerStates)
      return unsupported(in, fmt::format("no sampler state register left for texel fetches (at most {})", kMaxSamplerStates));
    abi_.txf_sampler_state = abi_.sampler_state_count++;
  }
  return abi_.txf_sampler_state;
}

// The components of a texture instruction's 4-component result.
Status Translator::texel_result(const spirv::Inst& in, ValueId texel) {
  const unsigned n = components(in.w[0]);
  if (n == 0 || type(scalar_type(in.w[0])).width != 32) return unsupported(in, "texel result that is not a 32-bit scalar or vector");
  TVal out = TVal::data(in.w[0]);
  for (unsigned i = 0; i < n; ++i) out.c.push_back(Src::val(texel, 32, static_cast<uint8_t>(i)));
  vals_[in.w[1]] = std::move(out);
  return {};
}

// imageLoad (OpImageRead) and texelFetch (OpImageFetch): texture_load of
// the Texture descriptor with the texel-fetch sampler (Mesa reads images
// through the texture unit the same way).
Status Translator::image_read(const spirv::Inst& in) {
  const auto& w = in.w;
  if (w.size() < 4) return Error::decode("{}: bad image read", o_.file_name);
  AGX_TRY(const ImageBinding* img, image_of(w[2], in));
  const bool fetch = in.op == SpvOp::OpImageFetch;
  if (fetch != (img->kind == ImageBinding::Kind::sampled_image))
    return unsupported(in, fetch ? "texelFetch of a storage image" : "imageLoad of a sampled texture");
  if (img->dim == ImageDim::d2_ms || img->dim == ImageDim::d2_ms_array)
    return unsupported(in, "reading a multisampled image is not supported");
  if (fetch && (img->dim == ImageDim::cube || img->dim == ImageDim::cube_array))
    return unsupported(in, "texelFetch of a cube texture");
  Src lod = Src::immediate(0);
  std::vector<Src> offset;  // texelFetchOffset: added to the coordinates
  if (w.size() > 4) {
    const uint32_t operands = w[4];
    const uint32_t lod_bit = static_cast<uint32_t>(spv::ImageOperandsMask::Lod);
    const uint32_t offset_bits = static_cast<uint32_t>(spv::ImageOperandsMask::ConstOffset) |
                                 static_cast<uint32_t>(spv::ImageOperandsMask::Offset);
    if (operands != 0 && (!fetch || (operands & ~(lod_bit | offset_bits))))
      return unsupported(in, fmt::format("image read with image operands 0x{:x}", operands));
    AGX_TRY(TexOperands t, texture_operands(in, 4));  // translate_texture.cpp
    if (operands & lod_bit) lod = t.lod;
    offset = t.offset;
  }
  uint32_t n = 0;
  AGX_TRY(Src coords, image_coords(w[3], *img, in, &n));
  if (!offset.empty() && img->dim != ImageDim::buffer) {
    // Each integer coordinate plus its offset (the layer has none).
    const size_t k = std::min<size_t>(offset.size(), coord_count(img->dim) - (is_array_dim(img->dim) ? 1 : 0));
    std::vector<Src> parts;
    for (size_t i = 0; i < coord_count(img->dim); ++i) {
      Src ci = Src::val(coords.value, 32, static_cast<uint8_t>(i));
      parts.push_back(i < k ? b_.binary(IrOp::iadd, ci, offset[i]) : ci);
    }
    coords = Src::val(b_.def(IrOp::collect, parts, 32, static_cast<uint8_t>(parts.size())), 32);
  }
  AGX_TRY(uint32_t ss, txf_sampler(in));
  std::vector<Src> srcs = {coords, lod};
  uint64_t imm = image_imm(img->texture_state, n, ss);
  AGX_CHECK(dynamic_state_srcs(vals_[w[2]], true, false, srcs, imm, in));
  ValueId texel = b_.def(IrOp::texture_load, std::move(srcs), 32, 4, imm);
  return texel_result(in, texel);
}

// Sizes come from four uniforms per queried image that the runtime fills
// (the texture state registers cannot be read by the shader), appended
// after every other uniform.
Status Translator::image_query(const spirv::Inst& in) {
  const auto& w = in.w;
  if (w.size() < 3) return Error::decode("{}: bad image query", o_.file_name);
  AGX_TRY(auto v, get(w[2], in));
  if (v->kind != TVal::Kind::image || v->image >= abi_.images.size()) return unsupported(in, "image query of a non-image");
  ImageBinding& img = abi_.images[v->image];
  if (in.op == SpvOp::OpImageQuerySizeLod) {
    if (w.size() < 4) return Error::decode("{}: bad OpImageQuerySizeLod", o_.file_name);
    AGX_TRY(Src lod, scalar(w[3], in));
    if (!lod.is_imm() || lod.imm != 0) {
      TVal out = TVal::data(w[0]);
      AGX_CHECK(size_at_level(in, img, lod, out));  // translate_texture.cpp
      vals_[w[1]] = std::move(out);
      return {};
    }
  }
  // An array element picked at run time: every element's size uniforms,
  // the word selected by the index (select chains, as for buffers).
  std::vector<uint32_t> sizes;
  if (v->image_index.kind != Src::Kind::none) {
    for (uint32_t e : v->image_elems) {
      AGX_TRY(uint32_t u, size_uniform_of(abi_.images[e], in));
      sizes.push_back(u);
    }
  } else {
    AGX_TRY(uint32_t u, size_uniform_of(img, in));
    sizes.push_back(u);
  }
  const Src index = v->image_index;
  auto word = [&](uint32_t k) { return sizes.size() == 1 ? Src::uniform(sizes[0] + k) : select_uniform(index, sizes, k); };
  TVal out = TVal::data(w[0]);
  const unsigned n = components(w[0]);
  if (n == 0) return unsupported(in, "image query result that is not a scalar or a vector");
  if (in.op == SpvOp::OpImageQuerySamples) {
    out.c.push_back(word(3));
  } else {
    if (n > 3) return unsupported(in, "image size with more than 3 components");
    for (unsigned i = 0; i < n; ++i) out.c.push_back(word(i));
  }
  vals_[w[1]] = std::move(out);
  return {};
}

Status Translator::image_instruction(const spirv::Inst& in, bool& handled) {
  handled = true;
  const auto& w = in.w;
  // Whether the image operand is an array element picked at run time.
  const size_t image_at = in.op == SpvOp::OpImageWrite ? 0 : 2;
  dynamic_image_ = w.size() > image_at && w[image_at] < m_.bound && in.op != SpvOp::OpLoad && in.op != SpvOp::OpImage &&
                   vals_[w[image_at]].kind == TVal::Kind::image && vals_[w[image_at]].image_index.kind != Src::Kind::none;
  switch (in.op) {
    case SpvOp::OpAccessChain: case SpvOp::OpInBoundsAccessChain: {
      // An element of an array of images or samplers.
      if (w.size() < 3 || w[2] >= m_.bound || w[1] >= m_.bound || !m_.is_variable[w[2]]) break;
      auto arr = image_array_.find(w[2]);
      if (arr == image_array_.end()) break;
      if (w.size() != 4) return unsupported(in, "access chain into an array of images of another shape");
      AGX_TRY(Src idx, scalar(w[3], in));
      TVal v;
      v.kind = TVal::Kind::image;
      v.type = w[0];
      if (idx.is_imm()) {
        if (idx.imm >= arr->second.size())
          return unsupported(in, fmt::format("image array index {} out of range ({} elements)", idx.imm, arr->second.size()));
        v.image = arr->second[idx.imm];
      } else {
        v.image = arr->second[0];
        v.image_elems = arr->second;
        v.image_index = idx;
      }
      vals_[w[1]] = std::move(v);
      return {};
    }
    case SpvOp::OpLoad: {
      if (w.size() < 3 || w[2] >= m_.bound || w[1] >= m_.bound) break;
      if (!m_.is_variable[w[2]]) {
        // Through an access chain into an array of images.
        if (vals_[w[2]].kind != TVal::Kind::image) break;
        TVal v = vals_[w[2]];
        v.type = w[0];
        vals_[w[1]] = std::move(v);
        return {};
      }
      const spirv::Variable& var = m_.variables[w[2]];
      if (var.storage != spv::StorageClass::UniformConstant) break;
      const Kind k = type(type(var.type).elem).kind;
      if (k != Kind::image && k != Kind::sampled_image && k != Kind::sampler) break;
      if (auto sv = sampler_var_state_.find(w[2]); sv != sampler_var_state_.end()) {
        TVal v;  // a separate sampler: only its state register
        v.kind = TVal::Kind::image;
        v.type = w[0];
        v.image = UINT32_MAX;
        v.sampler_state = sv->second;
        vals_[w[1]] = std::move(v);
        return {};
      }
      if (image_index_[w[2]] < 0) return unsupported(in, "this image or sampler uniform is not supported");
      TVal v;
      v.kind = TVal::Kind::image;
      v.type = w[0];
      v.image = static_cast<uint32_t>(image_index_[w[2]]);
      vals_[w[1]] = std::move(v);
      return {};
    }
    case SpvOp::OpImageWrite: return image_write(in);
    case SpvOp::OpImageRead: case SpvOp::OpImageFetch: return image_read(in);
    case SpvOp::OpImageSampleImplicitLod: case SpvOp::OpImageSampleExplicitLod: case SpvOp::OpImageSampleDrefImplicitLod:
    case SpvOp::OpImageSampleDrefExplicitLod: case SpvOp::OpImageSampleProjImplicitLod: case SpvOp::OpImageSampleProjExplicitLod:
    case SpvOp::OpImageSampleProjDrefImplicitLod: case SpvOp::OpImageSampleProjDrefExplicitLod: case SpvOp::OpImageGather:
    case SpvOp::OpImageDrefGather: case SpvOp::OpImageQueryLod:
      return texture_lookup(in);  // translate_texture.cpp
    case SpvOp::OpImage: {
      // The image of a combined image-sampler: the same binding.
      if (w.size() < 3 || w[1] >= m_.bound) return Error::decode("{}: bad OpImage", o_.file_name);
      AGX_TRY(auto v, get(w[2], in));
      if (v->kind != TVal::Kind::image) return unsupported(in, "OpImage of a non-image");
      TVal out = *v;
      out.type = w[0];
      vals_[w[1]] = std::move(out);
      return {};
    }
    case SpvOp::OpImageQuerySize: case SpvOp::OpImageQuerySizeLod: case SpvOp::OpImageQuerySamples: return image_query(in);
    case SpvOp::OpImageQueryLevels: return query_levels(in);
    case SpvOp::OpImageTexelPointer: return texel_pointer(in);
    case SpvOp::OpSampledImage: {
      // sampler2D(t, s): the texture's state register with the separate
      // sampler's.
      if (w.size() < 4 || w[1] >= m_.bound) return Error::decode("{}: bad OpSampledImage", o_.file_name);
      AGX_TRY(auto tv, get(w[2], in));
      AGX_TRY(auto sv, get(w[3], in));
      if (tv->kind != TVal::Kind::image || tv->image >= abi_.images.size() ||
          abi_.images[tv->image].kind != ImageBinding::Kind::sampled_image)
        return unsupported(in, "OpSampledImage of something other than a sampled texture");
      if (sv->kind != TVal::Kind::image || sv->image != UINT32_MAX || sv->sampler_state == UINT32_MAX)
        return unsupported(in, "OpSampledImage with something other than a separate sampler");
      TVal out = *tv;
      out.type = w[0];
      out.sampler_state = sv->sampler_state;
      vals_[w[1]] = std::move(out);
      return {};
    }
    default: break;
  }
  handled = false;
  return {};
}

}  // namespace detail
}  // namespace agx::compiler
