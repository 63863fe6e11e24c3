// GLSL sampling functions -> texture_sample (docs/compiler.md, "Texture
// sampling"): texture / textureLod / textureGrad / textureProj* / their
// Offset forms, shadow lookups, textureGather* (shadow included),
// textureQueryLod, and the queries textureSize(t, lod) and
// textureQueryLevels.
//
// How the operands are packed follows Mesa's AGX backend
// (bminor/mesa-mesa src/asahi/compiler/agx_nir_lower_texture.c
// lower_regular_texture, agx_compile.c agx_emit_tex): the array layer is
// rounded to nearest even, clamped to [0, layers - 1] and passed as the
// 16-bit half after the coordinates; a shadow reference is the 32-bit O
// register, the packed offset (4-bit x, y, z nibbles) the 16-bit half
// after it (or O alone); gathers set q6 to the component, and shadow
// gathers are compare + gather of r; textureGatherOffsets is four gathers
// (nir_lower_tex lower_tg4_offsets); explicit LODs and biases are fp16.
#include <algorithm>

#include <fmt/format.h>

#include "compiler/math_builder.h"
#include "compiler/translate.h"

namespace agx::compiler::detail {

using Kind = spirv::Type::Kind;
using IrOp = agx::compiler::Op;
using Group = spirv::Module::DerivativeGroup;

namespace {

// SPIR-V image operand bits ("Image Operands"), in operand order.
constexpr uint32_t kBias = 0x1, kLod = 0x2, kGrad = 0x4, kConstOffset = 0x8, kOffset = 0x10,
                   kConstOffsets = 0x20, kSample = 0x40, kMinLod = 0x80;
// Operand bits without operands that change nothing here (SignExtend,
// ZeroExtend, Nontemporal).
constexpr uint32_t kHarmless = 0x1000 | 0x2000 | 0x4000;

// Coordinates a sampling instruction reads before the layer.
unsigned space_coords(ImageDim d) {
  switch (d) {
    case ImageDim::d1: case ImageDim::d1_array: return 1;
    case ImageDim::d3: case ImageDim::cube: case ImageDim::cube_array: return 3;
    default: return 2;
  }
}
bool arrayed(ImageDim d) { return d == ImageDim::d1_array || d == ImageDim::d2_array || d == ImageDim::cube_array; }
// The extents textureSize reports before the layer count.
unsigned extent_count(ImageDim d) {
  switch (d) {
    case ImageDim::d1: case ImageDim::d1_array: case ImageDim::buffer: return 1;
    case ImageDim::d3: return 3;
    default: return 2;
  }
}

}  // namespace

Result<uint32_t> Translator::image_size_uniform(ImageBinding& img, const spirv::Inst& in) {
  if (dynamic_image_)
    return unsupported(in, "the size of an image array element picked at run time (size queries, array layers, "
                           "rectangle coordinates need each element's own uniforms; index with a constant)");
  return size_uniform_of(img, in);
}

Result<uint32_t> Translator::size_uniform_of(ImageBinding& img, const spirv::Inst& in) {
  if (img.size_uniform == UINT32_MAX) {
    if (abi_.uniform_count + 4 > 256)
      return unsupported(in, fmt::format("no uniform registers left for the size of image '{}'", img.name));
    img.size_uniform = abi_.uniform_count;
    abi_.uniform_count += 4;
  }
  return img.size_uniform;
}

Result<TexOperands> Translator::texture_operands(const spirv::Inst& in, size_t at) {
  const auto& w = in.w;
  TexOperands t;
  if (at >= w.size()) return t;
  const uint32_t mask = w[at++];
  t.mask = mask;
  const uint32_t known = kBias | kLod | kGrad | kConstOffset | kOffset | kConstOffsets | kMinLod | kHarmless;
  if (mask & ~known) return unsupported(in, fmt::format("texture lookup with image operands 0x{:x}", mask));
  auto next = [&]() -> Result<uint32_t> {
    if (at >= w.size()) return Error::decode("{}: image operands run past the instruction", o_.file_name);
    return w[at++];
  };
  auto vector = [&](uint32_t id) -> Result<std::vector<Src>> {
    AGX_TRY(auto v, get(id, in));
    if (v->kind != TVal::Kind::data) return unsupported(in, "an image operand that is not a value");
    return v->c;
  };
  if (mask & kBias) {
    AGX_TRY(uint32_t id, next());
    AGX_TRY(t.bias, scalar(id, in));
  }
  if (mask & kLod) {
    AGX_TRY(uint32_t id, next());
    AGX_TRY(t.lod, scalar(id, in));
  }
  if (mask & kGrad) {
    AGX_TRY(uint32_t dx, next());
    AGX_TRY(uint32_t dy, next());
    AGX_TRY(t.ddx, vector(dx));
    AGX_TRY(t.ddy, vector(dy));
  }
  if (mask & (kConstOffset | kOffset)) {
    if ((mask & kConstOffset) && (mask & kOffset)) return unsupported(in, "both ConstOffset and Offset");
    AGX_TRY(uint32_t id, next());
    AGX_TRY(t.offset, vector(id));
  }
  if (mask & kConstOffsets) {
    AGX_TRY(uint32_t id, next());
    AGX_TRY(t.offsets, vector(id));
    if (t.offsets.size() != 8) return unsupported(in, "ConstOffsets that are not four 2-component offsets");
    for (const Src& s : t.offsets)
      if (!s.is_imm()) return unsupported(in, "ConstOffsets that are not constants");
  }
  if (mask & kSample) return unsupported(in, "texture lookup with a sample index");
  if (mask & kMinLod) {
    AGX_TRY(uint32_t id, next());
    AGX_TRY(t.min_lod, scalar(id, in));
  }
  return t;
}

// The packed offset: 4-bit two's-complement x, y, z nibbles (Mesa packs
// nir_tex_src_offset so); an immediate when every component is constant.
Src Translator::packed_offset(const std::vector<Src>& offset, unsigned count) {
  bool constant = true;
  uint32_t imm = 0;
  for (unsigned i = 0; i < count && i < offset.size(); ++i) {
    if (!offset[i].is_imm()) constant = false;
    else imm |= (static_cast<uint32_t>(offset[i].imm) & 0xF) << (4 * i);
  }
  if (constant) return Src::val(b_.def(IrOp::mov, {Src::immediate(imm)}));
  Src packed;
  for (unsigned i = 0; i < count && i < offset.size(); ++i) {
    Src nib = b_.binary(IrOp::iand, offset[i], Src::immediate(0xF));
    if (i) nib = b_.binary(IrOp::ishl, nib, Src::immediate(4 * i));
    packed = i ? b_.binary(IrOp::ior, packed, nib) : nib;
  }
  if (!packed.is_value()) packed = Src::val(b_.def(IrOp::mov, {packed}));
  return packed;
}

// An fp16 value in the low half of a 32-bit register (the float unit
// rounds to f16 when it writes a 16-bit half).
Src Translator::fp16_word(Src x) {
  if (x.is_imm() && x.imm == 0) return Src::val(b_.def(IrOp::mov, {Src::immediate(0)}));
  Src h = Src::val(b_.def(IrOp::fadd, {x, Src::immediate(0x80000000u)}, 16), 16);
  Src zero = Src::val(b_.def(IrOp::mov, {Src::immediate(0)}, 16), 16);
  return Src::val(b_.def(IrOp::collect, {h, zero}, 16, 2), 32);
}

// The array layer of a lookup (Mesa lower_regular_texture): rounded to
// nearest even, negative to 0, at most the layer count - 1 (from the size
// uniforms), as a 32-bit word whose low half the hardware reads.
Result<Src> Translator::texture_layer(Src layer, ImageBinding& img, const spirv::Inst& in) {
  MathBuilder m(b_);
  Src r = m.max(Src::val(b_.def(IrOp::rint, {layer})), Src::immediate(0));
  Src u = Src::val(b_.def(IrOp::convert, {r}, 32, 1, static_cast<uint64_t>(Conv::f_to_u32)));
  AGX_TRY(uint32_t size, image_size_uniform(img, in));
  Src last = b_.binary(IrOp::isub, Src::uniform(size + extent_count(img.dim)), Src::immediate(1));
  return b_.select(Cond::ult, false, u, last, u, last);
}

Status Translator::texture_lookup(const spirv::Inst& in) {
  const auto& w = in.w;
  if (w.size() < 4) return Error::decode("{}: bad texture lookup", o_.file_name);
  const bool proj = in.op == SpvOp::OpImageSampleProjImplicitLod || in.op == SpvOp::OpImageSampleProjExplicitLod ||
                    in.op == SpvOp::OpImageSampleProjDrefImplicitLod || in.op == SpvOp::OpImageSampleProjDrefExplicitLod;
  const bool dref = in.op == SpvOp::OpImageSampleDrefImplicitLod || in.op == SpvOp::OpImageSampleDrefExplicitLod ||
                    in.op == SpvOp::OpImageSampleProjDrefImplicitLod || in.op == SpvOp::OpImageSampleProjDrefExplicitLod ||
                    in.op == SpvOp::OpImageDrefGather;
  const bool gather = in.op == SpvOp::OpImageGather || in.op == SpvOp::OpImageDrefGather;
  const bool query_lod = in.op == SpvOp::OpImageQueryLod;
  const bool implicit = in.op == SpvOp::OpImageSampleImplicitLod || in.op == SpvOp::OpImageSampleDrefImplicitLod ||
                        in.op == SpvOp::OpImageSampleProjImplicitLod || in.op == SpvOp::OpImageSampleProjDrefImplicitLod;
  AGX_TRY(auto iv, get(w[2], in));
  if (iv->kind != TVal::Kind::image || iv->image >= abi_.images.size()) return unsupported(in, "sampling a non-image");
  ImageBinding& img = abi_.images[iv->image];
  if (img.kind != ImageBinding::Kind::sampled_image) return unsupported(in, "sampling a storage image");
  if (img.dim == ImageDim::buffer || img.dim == ImageDim::d2_ms || img.dim == ImageDim::d2_ms_array)
    return unsupported(in, fmt::format("sampling a {} texture (texelFetch reads them)", image_dim_name(img.dim)));
  const bool rect = texture_is_rect(w[2]);

  size_t at = 4;
  Src reference;
  uint32_t component = 0;
  if (dref || gather) {
    if (w.size() < 5) return Error::decode("{}: bad texture lookup", o_.file_name);
    if (dref) {
      AGX_TRY(reference, scalar(w[4], in));
    } else {
      AGX_TRY(Src comp, scalar(w[4], in));
      if (!comp.is_imm() || comp.imm > 3) return unsupported(in, "textureGather of a component that is not a constant 0-3");
      component = static_cast<uint32_t>(comp.imm);
    }
    at = 5;
  }
  TexOperands ops;
  if (!query_lod) { AGX_TRY(ops, texture_operands(in, at)); }

  // Coordinates (projected), then the layer.
  MathBuilder m(b_);
  AGX_TRY(auto cv, get(w[3], in));
  const unsigned space = space_coords(img.dim);
  const bool array = arrayed(img.dim);
  const unsigned count = space + (array ? 1 : 0);
  if (cv->kind != TVal::Kind::data || cv->c.size() < count + (proj ? 1 : 0))
    return unsupported(in, "texture coordinates of another shape");
  std::vector<Src> c(cv->c.begin(), cv->c.begin() + space);
  if (proj) {
    if (array || img.dim == ImageDim::cube) return unsupported(in, "a projective lookup of an array or cube texture");
    Src inv_q = m.rcp(cv->c[count]);
    for (Src& x : c) x = m.mul(x, inv_q);
    if (dref) reference = m.mul(reference, inv_q);  // Vulkan "Projection Operation" divides D_ref too
  }
  if (rect) {
    // sampler2DRect: texel coordinates, normalized by the size (the
    // sampler keeps normalized coordinates).
    AGX_TRY(uint32_t size, image_size_uniform(img, in));
    for (unsigned i = 0; i < c.size(); ++i) {
      Src extent = Src::val(b_.def(IrOp::convert, {Src::uniform(size + i)}, 32, 1, static_cast<uint64_t>(Conv::u32_to_f)));
      c[i] = m.div(c[i], extent);
    }
  }
  for (Src& x : c) x = m.apply(x);
  std::vector<Src> coord_words = c;
  if (array) {
    if (query_lod) {
      coord_words.push_back(Src::immediate(0));  // the LOD does not depend on the layer
    } else {
      AGX_TRY(Src layer, texture_layer(cv->c[count - 1], img, in));
      coord_words.push_back(layer);
    }
  }
  Src coords = Src::val(b_.def(IrOp::collect, coord_words, 32, static_cast<uint8_t>(coord_words.size())), 32);

  // The LOD operand and its mode.
  uint64_t flags = 0;
  AGX_TRY(Src lod, texture_lod(in, img, ops, c, TexLodKind{implicit, query_lod, gather, rect}, flags));

  // Compare reference and offset (O).
  std::vector<Src> o;
  if (dref) {
    flags |= kTexCompare;
    o.push_back(reference.is_value() ? m.apply(reference) : Src::val(b_.def(IrOp::mov, {reference})));
  }
  const bool has_offset = !ops.offset.empty();
  if (has_offset) {
    flags |= kTexOffset;
    o.push_back(packed_offset(ops.offset, space));
  }
  std::vector<Src> srcs = {coords, lod};
  if (o.size() == 2) srcs.push_back(Src::val(b_.def(IrOp::collect, o, 32, 2), 32));
  else if (o.size() == 1) srcs.push_back(o[0]);

  const uint32_t n = static_cast<uint32_t>(img.dim);
  // A separate sampler (OpSampledImage) or the texture's own.
  uint64_t base = image_imm(img.texture_state, n, iv->sampler_state != UINT32_MAX ? iv->sampler_state : img.sampler_state) | flags;
  {
    // An array element picked at run time: T and S from registers, after
    // the other sources of every texture_sample below.
    std::vector<Src> state;
    AGX_CHECK(dynamic_state_srcs(*iv, true, false, state, base, in));
    if (!state.empty()) {
      if (gather && !ops.offsets.empty()) return unsupported(in, "textureGatherOffsets of an image array element picked at run time");
      srcs.insert(srcs.end(), state.begin(), state.end());
    }
  }
  if (gather) {
    // Shadow gathers are compare + gather of r (Mesa agx_emit_tex).
    const uint64_t q6 = tex_gather(dref ? 2 : 2 + 4 * component);
    if (!ops.offsets.empty()) {
      // textureGatherOffsets: four gathers, component i of the result is
      // the (i0, j0) texel (w) of the gather at offsets[i].
      std::vector<Src> parts;
      for (unsigned i = 0; i < 4; ++i) {
        std::vector<Src> oi;
        if (dref) oi.push_back(o[0]);
        oi.push_back(packed_offset({ops.offsets[2 * i], ops.offsets[2 * i + 1]}, 2));
        std::vector<Src> si = {coords, lod};
        si.push_back(oi.size() == 2 ? Src::val(b_.def(IrOp::collect, oi, 32, 2), 32) : oi[0]);
        ValueId t = b_.def(IrOp::texture_sample, si, 32, 4, base | kTexOffset | q6);
        parts.push_back(Src::val(t, 32, 3));
      }
      ValueId all = b_.def(IrOp::collect, parts, 32, 4);
      return texel_result(in, all);
    }
    ValueId texel = b_.def(IrOp::texture_sample, srcs, 32, 4, base | q6);
    return texel_result(in, texel);
  }
  ValueId texel = b_.def(IrOp::texture_sample, srcs, 32, 4, base);
  return texel_result(in, texel);
}

// The LOD operand (D) of a lookup and its flags: the fragment quad's
// automatic LOD, gradients (the quad's or textureGrad's), or an explicit
// fp16 LOD.
Result<Src> Translator::texture_lod(const spirv::Inst& in, ImageBinding& img, const TexOperands& ops,
                                    const std::vector<Src>& c, TexLodKind k, uint64_t& flags) {
  MathBuilder m(b_);
  const unsigned space = static_cast<unsigned>(c.size());
  const bool implicit = k.implicit, query_lod = k.query_lod, gather = k.gather, rect = k.rect;
  Src lod;
  const bool grouped = m_.derivative_group != Group::none;
  auto gradients = [&](std::vector<Src> ddx, std::vector<Src> ddy, bool with_min) -> Result<Src> {
    if (ddx.size() < space || ddy.size() < space) return unsupported(in, "gradients of another shape");
    if (ops.mask & kBias) {
      // Mesa (lower_sampler_bias, txd): scaling both gradients by 2^bias
      // adds the bias to log2 of the scale factor.
      Src scale = m.exp2(ops.bias);
      for (unsigned i = 0; i < space; ++i) ddx[i] = m.mul(ddx[i], scale), ddy[i] = m.mul(ddy[i], scale);
    }
    if (rect) {
      AGX_TRY(uint32_t size, image_size_uniform(img, in));
      for (unsigned i = 0; i < space; ++i) {
        Src extent = Src::val(b_.def(IrOp::convert, {Src::uniform(size + i)}, 32, 1, static_cast<uint64_t>(Conv::u32_to_f)));
        Src inv = m.rcp(extent);
        ddx[i] = m.mul(ddx[i], inv), ddy[i] = m.mul(ddy[i], inv);
      }
    }
    std::vector<Src> g;
    for (unsigned i = 0; i < space; ++i) g.push_back(m.apply(ddx[i])), g.push_back(m.apply(ddy[i]));
    if (with_min) {
      g.push_back(fp16_word(ops.min_lod));
      flags |= kTexGradMin;
    }
    return Src::val(b_.def(IrOp::collect, g, 32, static_cast<uint8_t>(g.size())), 32);
  };
  const bool has_min = (ops.mask & kMinLod) != 0;
  if (o_.stage == Stage::fragment && (implicit || query_lod) && !has_min) {
    // The texture unit's automatic LOD from the quad's coordinates
    // (auto_lod), a bias added to it in fp16 (auto_lod_bias).
    flags |= kTexAutoLod;
    lod = (ops.mask & kBias) ? fp16_word(ops.bias) : Src::immediate(0);
  } else if (query_lod || (implicit && (grouped || o_.stage == Stage::fragment))) {
    // Gradients of the quad (a fragment lookup with MinLod: the hardware
    // has no automatic LOD with a minimum, so dfdx / dfdy feed lod_grad_min).
    if (!grouped && o_.stage != Stage::fragment)
      return unsupported(in, "textureQueryLod needs derivatives: a compute shader has them only in a derivative "
                             "group (GL_NV_compute_shader_derivatives)");
    std::vector<Src> ddx, ddy;
    for (const Src& x : c) {
      AGX_TRY(auto d, quad_derivatives(x, false, in));
      ddx.push_back(d.first);
      ddy.push_back(d.second);
    }
    AGX_TRY(lod, gradients(ddx, ddy, has_min));
  } else if (ops.mask & kGrad) {
    AGX_TRY(lod, gradients(ops.ddx, ops.ddy, has_min));
  } else {
    // An explicit LOD; implicit lookups outside a derivative group use the
    // base level (lambda_base = 0) plus the bias.
    Src l = (ops.mask & kLod) ? ops.lod : (ops.mask & kBias) ? ops.bias : Src::immediate(0);
    if (gather) l = Src::immediate(0);  // gathers read the base level
    if (has_min) l = m.max(l, ops.min_lod);
    lod = fp16_word(l);
  }
  if (query_lod) flags |= kTexQueryLod;
  return lod;
}

// Whether the sampled image behind `id` has SPIR-V dimension Rect.
bool Translator::texture_is_rect(uint32_t id) const {
  if (id >= vals_.size()) return false;
  uint32_t t = vals_[id].type;
  if (type(t).kind == Kind::sampled_image) t = type(t).elem;
  return type(t).kind == Kind::image && type(t).image_dim == spv::Dim::Rect;
}

// textureSize(t, lod) of a level other than 0: each extent >> lod, at
// least 1 (the layer count stays).
Status Translator::size_at_level(const spirv::Inst& in, ImageBinding& img, Src lod, TVal& out) {
  const unsigned n = components(in.w[0]);
  const unsigned extents = extent_count(img.dim);
  AGX_TRY(uint32_t size, image_size_uniform(img, in));
  for (unsigned i = 0; i < n; ++i) {
    Src s = Src::uniform(size + i);
    if (i < extents) {
      Src shifted = b_.binary(IrOp::ushr, s, lod);
      s = b_.select(Cond::ugt, false, shifted, Src::immediate(1), shifted, Src::immediate(1));
    }
    out.c.push_back(s);
  }
  return {};
}

// textureQueryLevels: the view's level count, from a uniform the runtime
// fills (ImageBinding::levels_uniform).
Status Translator::query_levels(const spirv::Inst& in) {
  const auto& w = in.w;
  if (w.size() < 3) return Error::decode("{}: bad OpImageQueryLevels", o_.file_name);
  AGX_TRY(auto v, get(w[2], in));
  if (v->kind != TVal::Kind::image || v->image >= abi_.images.size()) return unsupported(in, "level query of a non-image");
  ImageBinding& img = abi_.images[v->image];
  if (dynamic_image_) return unsupported(in, "textureQueryLevels of an image array element picked at run time");
  if (img.levels_uniform == UINT32_MAX) {
    if (abi_.uniform_count + 1 > 256)
      return unsupported(in, fmt::format("no uniform register left for the level count of image '{}'", img.name));
    img.levels_uniform = abi_.uniform_count++;
  }
  TVal out = TVal::data(w[0]);
  out.c.push_back(Src::uniform(img.levels_uniform));
  vals_[w[1]] = std::move(out);
  return {};
}

}  // namespace agx::compiler::detail
