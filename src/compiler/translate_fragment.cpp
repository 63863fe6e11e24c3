// Fragment shaders (docs/compiler.md, "Fragment shaders"; the ABI of
// fragment.h): `in` variables become local variables filled at the top
// from coefficient registers the compiler assigns (cf0 = 1/W, then
// gl_FragCoord.z, the inputs by location, gl_PointCoord, gl_PrimitiveID);
// `out` variables are local variables whose words go to the fixed output
// registers at the end (reg_write), where the epilog reads them. Built-ins
// come from special registers (docs/gpu.md, "SIMD groups and special
// registers") or coefficient registers; discard is `sample_mask`.
#include <algorithm>

#include <fmt/format.h>

#include "compiler/translate.h"
#include "compiler/varying_types.h"

namespace agx::compiler {

const char* interpolation_name(Interpolation i) {
  switch (i) {
    case Interpolation::smooth: return "smooth";
    case Interpolation::flat: return "flat";
    case Interpolation::noperspective: return "noperspective";
  }
  return "?";
}

const char* interpolation_point_name(InterpolationPoint p) {
  switch (p) {
    case InterpolationPoint::center: return "center";
    case InterpolationPoint::centroid: return "centroid";
    case InterpolationPoint::sample: return "sample";
  }
  return "?";
}

namespace detail {

namespace {

using spv::BuiltIn;
using spv::StorageClass;
using Kind = spirv::Type::Kind;

constexpr uint32_t kAllSamples = 0xFF;
// Special registers (docs/gpu.md "SIMD groups and special registers";
// numbers of bminor/mesa-mesa src/asahi/compiler/agx_opcodes.py).
constexpr uint64_t kSrPixelX = 80, kSrPixelY = 81, kSrBackfacing = 62, kSrLayer = 2, kSrInputSampleMask = 124;

bool is_builtin(int32_t b, BuiltIn which) { return b == static_cast<int32_t>(which); }

// Output built-ins that are plain values left in registers.
bool register_output_builtin(int32_t b) {
  return is_builtin(b, BuiltIn::FragDepth) || is_builtin(b, BuiltIn::FragStencilRefEXT);
}

}  // namespace

bool Translator::fragment_io(uint32_t v) const {
  if (o_.stage != Stage::fragment) return false;
  const spirv::Variable& var = m_.variables[v];
  const int32_t b = m_.decorations[v].builtin;
  if (var.storage == StorageClass::Input) return b < 0;
  return var.storage == StorageClass::Output && (b < 0 || register_output_builtin(b));
}

// Registers and coefficient registers of a fragment shader: what it reads
// (cf assignment, in Abi::fragment) and the output registers kept out of
// allocation. Runs after setup_locals, which made the in/out locals.
Status Translator::setup_fragment() {
  if (o_.stage != Stage::fragment) return {};
  FragmentAbi& fa = abi_.fragment;
  fa.early_fragment_tests = m_.has_mode(spv::ExecutionMode::EarlyFragmentTests);
  fa.origin_lower_left = m_.has_mode(spv::ExecutionMode::OriginLowerLeft);
  fa.pixel_center_integer = m_.has_mode(spv::ExecutionMode::PixelCenterInteger);
  const std::vector<uint8_t> used = mentioned_ids();
  uint32_t last_rt = 0;
  bool any_colour = false;
  std::vector<uint32_t> inputs;
  for (uint32_t v : m_.globals) {
    const spirv::Variable& var = m_.variables[v];
    const spirv::Decorations& d = m_.decorations[v];
    if (!used[v] || (var.storage != StorageClass::Input && var.storage != StorageClass::Output)) continue;
    const int32_t b = d.builtin;
    if (var.storage == StorageClass::Output) {
      if (is_builtin(b, BuiltIn::FragDepth)) fa.writes_depth = true;
      else if (is_builtin(b, BuiltIn::FragStencilRefEXT)) fa.writes_stencil = true;
      else if (b >= 0) return Error::unsupported("{}: fragment output built-in {} is not supported", o_.file_name, b);
      else {
        if (d.component != 0)
          return Error::unsupported("{}: output '{}' has Component {} (whole vectors only)", o_.file_name, m_.names[v], d.component);
        if (d.location == UINT32_MAX) return Error::invalid_argument("{}: output '{}' has no Location", o_.file_name, m_.names[v]);
        if (d.index > 1 || (d.index == 1 && d.location != 0))
          return Error::unsupported("{}: output '{}': Index {} at Location {} (dual source is Location 0, Index 1)", o_.file_name,
                                    m_.names[v], d.index, d.location);
        const uint32_t rt = d.index == 1 ? 1 : d.location;
        if (rt >= 8) return Error::unsupported("{}: output '{}' at Location {} (render targets 0-7)", o_.file_name, m_.names[v], rt);
        fa.dual_source |= d.index == 1;
        fa.colour_outputs |= 1u << rt;
        last_rt = std::max(last_rt, rt);
        any_colour = true;
      }
      continue;
    }
    if (b < 0) {
      inputs.push_back(v);
      continue;
    }
    if (is_builtin(b, BuiltIn::FragCoord)) fa.reads_frag_coord = true;
    else if (is_builtin(b, BuiltIn::FrontFacing)) fa.reads_front_facing = true;
    else if (is_builtin(b, BuiltIn::PointCoord)) fa.reads_point_coord = true;
    else if (is_builtin(b, BuiltIn::SampleMask)) fa.reads_sample_mask = true;
    else if (is_builtin(b, BuiltIn::PrimitiveId)) fa.reads_primitive_id = true;
  }
  if (fa.dual_source && (fa.colour_outputs & ~3u))
    return Error::unsupported("{}: dual-source blending with more than one render target", o_.file_name);
  uint32_t next_cf = 1;  // cf0: W
  if (fa.reads_frag_coord) fa.z_cf = next_cf++;
  std::stable_sort(inputs.begin(), inputs.end(), [&](uint32_t a, uint32_t b) {
    return std::pair(m_.decorations[a].location, m_.decorations[a].component) <
           std::pair(m_.decorations[b].location, m_.decorations[b].component);
  });
  for (uint32_t v : inputs) AGX_CHECK(fragment_input(v, next_cf));
  if (fa.reads_point_coord) fa.point_coord_cf = next_cf, next_cf += 2;
  if (fa.reads_primitive_id) fa.primitive_id_cf = next_cf++;
  if (next_cf > 255) return Error::unsupported("{}: the inputs need {} coefficient registers (at most 255)", o_.file_name, next_cf);
  fa.cf_count = next_cf;
  // r0-r3 (depth r2, stencil r3l) and the colour registers of every
  // render target up to the last one written stay out of allocation.
  b_.function().first_free_half = 2 * FragmentAbi::colour_register(any_colour ? last_rt + 1 : 0);
  return {};
}

// One `in` variable: its coefficient registers, read at the top into its
// local words. A variable takes one FragmentInput per location
// (interface_elements: matrix columns, array elements, a double's two
// words, a dvec3 / dvec4's second location); doubles are flat (GLSL 4.60
// section 4.3.4: 64-bit fragment inputs must be flat), each word read with
// ldcf.
Status Translator::fragment_input(uint32_t v, uint32_t& next_cf) {
  const spirv::Decorations& d = m_.decorations[v];
  const uint32_t t = type(m_.variables[v].type).elem;
  const std::string name = m_.names[v].empty() ? fmt::format("%{}", v) : m_.names[v];
  if (d.location == UINT32_MAX) return Error::invalid_argument("{}: input '{}' has no Location", o_.file_name, name);
  AGX_TRY(auto elems, interface_elements(t, v));
  const Interpolation interp = d.flat ? Interpolation::flat : d.noperspective ? Interpolation::noperspective
                                                                             : Interpolation::smooth;
  if (const char* kind = flat_only_kind(m_, t); kind && !d.flat)
    return Error::invalid_argument("{}: {} input '{}' must be flat", o_.file_name, kind, name);
  const InterpolationPoint point = d.sample     ? InterpolationPoint::sample
                                   : d.centroid ? InterpolationPoint::centroid
                                                : InterpolationPoint::center;
  if (point == InterpolationPoint::sample)
    return Error::unsupported("{}: input '{}' is sample-qualified: sample-rate shading is not supported (no sample ID register, "
                              "docs/gpu.md)", o_.file_name, name);
  std::vector<LocalWord> words;
  for (size_t i = 0; i < elems.size(); ++i) {
    FragmentInput fi;
    fi.location = d.location + static_cast<uint32_t>(i);
    fi.component = d.component;
    fi.components = elems[i].comps;
    if (fi.component + fi.components > 4)
      return Error::invalid_argument("{}: input '{}' goes past component 3", o_.file_name, name);
    fi.interpolation = interp;
    fi.point = point;
    fi.cf = next_cf;
    next_cf += fi.components;
    const uint32_t at_point = point == InterpolationPoint::centroid ? 2 : 0;
    if (interp == Interpolation::flat) {
      // Flat coefficients are (0, 0, value): ldcf's C.
      for (uint32_t c = 0; c < fi.components; ++c)
        words.push_back({elems[i].off_B + 4 * c, Src::val(b_.def(Op::iter, {}, 32, 3, cf_imm(fi.cf + c, CfRead::ldcf)), 32, 2)});
    } else {
      const CfRead kind = interp == Interpolation::smooth ? CfRead::iterproj : CfRead::iter;
      const ValueId vec = b_.def(Op::iter, {}, 32, static_cast<uint8_t>(fi.components),
                                 cf_imm(fi.cf, kind, abi_.fragment.w_cf, at_point));
      for (uint32_t c = 0; c < fi.components; ++c)
        words.push_back({elems[i].off_B + 4 * c, Src::val(vec, 32, static_cast<uint8_t>(c))});
    }
    abi_.fragment.inputs.push_back(fi);
  }
  spirv::Inst at;
  at.op = spv::Op::OpVariable;
  at.w = {m_.variables[v].type, v, static_cast<uint32_t>(StorageClass::Input)};
  AGX_TRY(auto p, variable_pointer(v, at));
  return local_store_words(p, words, at);
}

// Component c of a fragment built-in input.
Result<Src> Translator::fragment_builtin(int32_t b, unsigned c, const spirv::Inst& in) {
  const FragmentAbi& fa = abi_.fragment;
  auto sr = [&](uint64_t n) { return Src::val(b_.def(Op::get_sr, {}, 32, 1, n)); };
  if (is_builtin(b, BuiltIn::FragCoord)) {
    if (c < 2) {
      Src pixel = Src::val(b_.def(Op::convert, {sr(c == 0 ? kSrPixelX : kSrPixelY)}, 32, 1, static_cast<uint64_t>(Conv::u32_to_f)));
      return fa.pixel_center_integer ? pixel : Src::val(b_.def(Op::fadd, {pixel, Src::float_immediate(0.5f)}));
    }
    // z: the Fragcoord Z binding; w: the iterated 1/W.
    return Src::val(b_.def(Op::iter, {}, 32, 1, cf_imm(c == 2 ? fa.z_cf : fa.w_cf, CfRead::iter)));
  }
  if (is_builtin(b, BuiltIn::FrontFacing))
    return b_.select(Cond::ueq, false, sr(kSrBackfacing), Src::immediate(0), Src::immediate(1), Src::immediate(0));
  if (is_builtin(b, BuiltIn::PointCoord)) {
    const ValueId pc = b_.def(Op::iter, {}, 32, 2, cf_imm(fa.point_coord_cf, CfRead::iter));
    return Src::val(pc, 32, static_cast<uint8_t>(c));
  }
  if (is_builtin(b, BuiltIn::PrimitiveId))
    return Src::val(b_.def(Op::iter, {}, 32, 3, cf_imm(fa.primitive_id_cf, CfRead::ldcf)), 32, 2);
  if (is_builtin(b, BuiltIn::SampleMask)) return sr(kSrInputSampleMask);
  if (is_builtin(b, BuiltIn::Layer)) return sr(kSrLayer);
  if (is_builtin(b, BuiltIn::SampleId) || is_builtin(b, BuiltIn::SamplePosition))
    return unsupported(in, "gl_SampleID / gl_SamplePosition: sample-rate shading is not supported (the GPU has no sample ID "
                           "register, docs/gpu.md)");
  return unsupported(in, fmt::format("fragment built-in {} is not supported", b));
}

// discard / demote: the lane's samples are killed; the lane itself runs
// on (a helper for its quad's derivatives) and its stores do nothing.
Status Translator::discard() {
  abi_.fragment.discards = true;
  b_.emit(Op::sample_mask, {Src::immediate(kAllSamples), Src::immediate(0)});
  return {};
}

// The end of the main shader: each output's words into its registers
// (missing colour components are 0, alpha 1).
Status Translator::finish_fragment() {
  if (o_.stage != Stage::fragment) return {};
  for (const Local& l : locals_) {
    const spirv::Variable& var = m_.variables[l.var];
    if (var.storage != StorageClass::Output) continue;
    const spirv::Decorations& d = m_.decorations[l.var];
    spirv::Inst at;
    at.op = spv::Op::OpVariable;
    at.w = {var.type, l.var, static_cast<uint32_t>(StorageClass::Output)};
    const spirv::Type& ty = type(l.type);
    const uint32_t scalar = ty.kind == Kind::vector ? ty.elem : l.type;
    if ((ty.kind != Kind::vector && ty.kind != Kind::float_ && ty.kind != Kind::int_) || type(scalar).width != 32)
      return Error::unsupported("{}: output '{}': only 32-bit scalars and vectors are supported", o_.file_name, m_.names[l.var]);
    std::vector<Src> words;
    if (l.registers) {  // the words themselves: no copy before the move into place
      for (ValueId w : l.words) words.push_back(Src::val(w));
    } else {
      AGX_TRY(auto p, variable_pointer(l.var, at));
      AGX_TRY(words, local_load(p, at));
    }
    if (register_output_builtin(d.builtin)) {
      const bool depth = is_builtin(d.builtin, BuiltIn::FragDepth);
      b_.emit(Op::reg_write, {words.at(0)}, 2 * (depth ? FragmentAbi::kDepthRegister : FragmentAbi::kStencilHalf / 2));
      continue;
    }
    const uint32_t rt = d.index == 1 ? 1 : d.location;
    const bool is_float = type(scalar).kind == Kind::float_;
    for (uint32_t c = 0; c < 4; ++c) {
      Src s = c < words.size() ? words[c] : Src::immediate(c == 3 ? (is_float ? 0x3F800000u : 1u) : 0u);
      b_.emit(Op::reg_write, {s}, 2 * (FragmentAbi::colour_register(rt) + c));
    }
  }
  return {};
}

}  // namespace detail
}  // namespace agx::compiler
