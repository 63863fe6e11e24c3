// Vertex shaders (Stage::vertex), with Mesa's vertex ABI (bminor/mesa-mesa
// src/asahi/compiler/README.md, "ABI"; src/asahi/lib/agx_abi.h):
//  - attribute L, component c arrives in r(8 + 4L + c), already converted
//    by the vertex prolog; the vertex ID is preloaded in r5 and the
//    0-based instance ID in r6;
//  - uniforms: n attribute base address pairs, n clamps, base vertex,
//    base instance, draw ID, then the shader's own (VertexAbi);
//  - outputs go to the vertex output words of the varyings unit's layout
//    (varyings::layout_vertex_outputs) with st_var, the last one
//    st_var_final (Mesa's agx_nir_lower_uvs.c stores each output once, at
//    the end of the shader, as we do here).
// Attributes and outputs are register locals (translate_local.cpp), so
// dynamic indexing, partial writes and writes under control flow need
// nothing of their own; the outputs' words are stored after the last block.
#include <algorithm>

#include <fmt/format.h>

#include "compiler/translate.h"

namespace agx::compiler {

const char* base_type_name(VertexAttribute::BaseType t) {
  switch (t) {
    case VertexAttribute::BaseType::float_: return "float";
    case VertexAttribute::BaseType::int_: return "int";
    case VertexAttribute::BaseType::uint_: return "uint";
    case VertexAttribute::BaseType::double_: return "double";
  }
  return "?";
}

}  // namespace agx::compiler

namespace agx::compiler::detail {

using spv::StorageClass;
using Kind = spirv::Type::Kind;
using spv::BuiltIn;

bool Translator::vertex_local(uint32_t var) const {
  if (o_.stage != Stage::vertex) return false;
  const spirv::Variable& v = m_.variables[var];
  return (v.storage == StorageClass::Input && m_.decorations[var].builtin < 0) || v.storage == StorageClass::Output;
}

// One entry per location the type takes: scalars and vectors one,
// matrices one per column, arrays their element's entries per element
// (arrays of matrices and of arrays too, as GL and Vulkan count them).
// A 64-bit component takes two 32-bit components, low word first (Mesa
// splits 64-bit varyings into 32-bit pairs the same way: nir_lower_io's
// 64-bit splitting in bminor/mesa-mesa src/compiler/nir): a double or dvec2
// one location, a dvec3 or dvec4 two (its words past the fourth in a
// `spill` entry), as GL and Vulkan count locations. Offsets follow
// local_leaves' natural layout of the register local.
Result<std::vector<Translator::InterfaceElement>> Translator::interface_elements(uint32_t t, uint32_t var) const {
  const spirv::Type& ty = type(t);
  auto refuse = [&](std::string_view why) {
    return Error::unsupported("{}: interface variable %{}{}: {}", o_.file_name, var,
                              m_.names[var].empty() ? "" : " (" + m_.names[var] + ")", why);
  };
  auto words_of = [&](uint32_t s) -> uint32_t {  // 32-bit words of a scalar, 0: refused
    const spirv::Type& st = type(s);
    if (st.kind != Kind::float_ && st.kind != Kind::int_) return 0;
    return st.width == 32 ? 1 : st.width == 64 ? 2 : 0;
  };
  constexpr std::string_view kScalars = "only 32- and 64-bit int, uint and float types are supported";
  switch (ty.kind) {
    case Kind::int_: case Kind::float_: {
      const uint32_t w = words_of(t);
      if (w == 0) return refuse(kScalars);
      return std::vector<InterfaceElement>{{0, w, false}};
    }
    case Kind::vector: {
      const uint32_t w = words_of(ty.elem) * ty.count;
      if (w == 0) return refuse(kScalars);
      if (w <= 4) return std::vector<InterfaceElement>{{0, w, false}};
      return std::vector<InterfaceElement>{{0, 4, false}, {16, w - 4, true}};
    }
    case Kind::matrix: case Kind::array: {
      if (ty.count == 0) return refuse("an array without a size");
      // An element's own entries (a matrix's columns, an inner array's
      // elements) repeat at each element's offset: `mat2 m[3]` six locations.
      AGX_TRY(auto inner, interface_elements(ty.elem, var));
      // Varyings and vertex inputs take any nesting, one location after another.
      const uint32_t stride = natural_stride_B(ty.elem, true);
      std::vector<InterfaceElement> out;
      for (uint32_t i = 0; i < ty.count; ++i)
        for (const InterfaceElement& in : inner) out.push_back({i * stride + in.off_B, in.comps, in.spill});
      return out;
    }
    case Kind::struct_: {  // varyings: the members' locations in order, at their local offsets
      std::vector<InterfaceElement> out;
      uint32_t mo = 0;
      for (uint32_t m : ty.members) {
        uint32_t ma = 4;
        const uint32_t ms = natural_size_B(m, &ma, true);
        mo = (mo + ma - 1) / ma * ma;
        AGX_TRY(auto inner, interface_elements(m, var));
        for (const InterfaceElement& in : inner) out.push_back({mo + in.off_B, in.comps, in.spill});
        mo += ms;
      }
      if (out.empty()) return refuse("an empty structure");
      return out;
    }
    default: return refuse("only scalars, vectors, matrices, structures and arrays of them are supported");
  }
}

Status Translator::setup_vertex() {
  VertexAbi& va = abi_.vertex;
  vertex_id_ = Src::val(b_.def(Op::preload, {}, 32, 1, 2 * kVertexIdRegister));
  instance_id_ = Src::val(b_.def(Op::preload, {}, 32, 1, 2 * kInstanceIdRegister));
  uint32_t slots = 0;
  std::vector<uint8_t> taken(kMaxVertexAttributes, 0);  // locations read, a dvec3/dvec4's second too
  for (uint32_t v : m_.globals) {
    const spirv::Variable& var = m_.variables[v];
    const spirv::Decorations& d = m_.decorations[v];
    if (var.storage != StorageClass::Input || d.builtin >= 0) continue;
    if (d.location == UINT32_MAX)
      return Error::invalid_argument("{}: vertex input %{} ({}) has no Location", o_.file_name, v, m_.names[v]);
    const uint32_t pointee = type(var.type).elem;
    AGX_TRY(auto elems, interface_elements(pointee, v));
    uint32_t scalar = pointee;
    while (type(scalar).kind != Kind::int_ && type(scalar).kind != Kind::float_) scalar = type(scalar).elem;
    const bool wide = type(scalar).width == 64;
    if (wide && type(scalar).kind == Kind::int_)
      return Error::unsupported("{}: vertex input {}: 64-bit integer attributes are not supported", o_.file_name, m_.names[v]);
    const auto base = wide                              ? VertexAttribute::BaseType::double_
                      : type(scalar).kind == Kind::float_ ? VertexAttribute::BaseType::float_
                      : type(scalar).is_signed          ? VertexAttribute::BaseType::int_
                                                        : VertexAttribute::BaseType::uint_;
    for (size_t i = 0; i < elems.size(); ++i) {
      const uint32_t loc = d.location + static_cast<uint32_t>(i), comps = d.component + elems[i].comps;
      if (loc >= kMaxVertexAttributes || comps > 4)
        return Error::unsupported("{}: vertex input {} takes location {} component {} (locations 0-{}, 4 components)",
                                  o_.file_name, m_.names[v], loc, comps - 1, kMaxVertexAttributes - 1);
      if (taken[loc])
        return Error::unsupported("{}: two vertex inputs at location {} (Component packing is not supported)",
                                  o_.file_name, loc);
      taken[loc] = 1;
      if (elems[i].spill) continue;  // the registers of the attribute before
      const bool spills = i + 1 < elems.size() && elems[i + 1].spill;
      // A double attribute counts doubles: its words (both locations') / 2.
      const uint32_t n = wide ? (comps + (spills ? elems[i + 1].comps : 0)) / 2 : comps;
      va.attributes.push_back({loc, n, base});
      slots = std::max(slots, loc + 1);
    }
  }
  std::sort(va.attributes.begin(), va.attributes.end(),
            [](const VertexAttribute& a, const VertexAttribute& b) { return a.location < b.location; });
  va.attribute_slots = slots;
  va.address_uniform = 0;
  va.clamp_uniform = 2 * slots;
  va.base_vertex_uniform = 3 * slots;
  va.base_instance_uniform = 3 * slots + 1;
  va.draw_id_uniform = 3 * slots + 2;
  // Buffer base addresses are uniform pairs: the shader's own start even.
  va.first_shader_uniform = (3 * slots + 3 + 1) & ~1u;
  first_uniform_ = va.first_shader_uniform;
  return setup_vertex_outputs();
}

Status Translator::init_vertex_input(Local& l) {
  const spirv::Decorations& d = m_.decorations[l.var];
  AGX_TRY(auto elems, interface_elements(l.type, l.var));
  std::vector<ValueId> words((l.size_B + 3) / 4, kNoValue);
  for (size_t i = 0; i < elems.size(); ++i)
    for (uint32_t c = 0; c < elems[i].comps; ++c) {
      const unsigned reg = attribute_register(d.location + static_cast<uint32_t>(i), d.component + c);
      words[elems[i].off_B / 4 + c] = b_.def(Op::preload, {}, 32, 1, 2 * reg);
    }
  for (ValueId& w : words) {
    if (w != kNoValue) continue;  // padding between elements
    w = b_.function().new_value(32, 1, true);
    b_.def_into(w, Op::mov, {Src::immediate(0)});
  }
  l.words = std::move(words);
  return {};
}

std::optional<Src> Translator::vertex_builtin(int32_t builtin) {
  if (o_.stage != Stage::vertex) return std::nullopt;
  const VertexAbi& va = abi_.vertex;
  switch (static_cast<BuiltIn>(builtin)) {
    // r5 already includes the base vertex (Vulkan's VertexIndex, GL's gl_VertexID).
    case BuiltIn::VertexIndex: case BuiltIn::VertexId: return vertex_id_;
    // Vulkan's InstanceIndex counts from the base instance; GL's
    // gl_InstanceID (glslang -G: InstanceId) from 0.
    case BuiltIn::InstanceIndex: return b_.iadd(instance_id_, Src::uniform(va.base_instance_uniform));
    case BuiltIn::InstanceId: return instance_id_;
    case BuiltIn::BaseVertex: return Src::uniform(va.base_vertex_uniform);
    case BuiltIn::BaseInstance: return Src::uniform(va.base_instance_uniform);
    case BuiltIn::DrawIndex:  // a 16-bit uniform (agx_abi.h)
      return b_.binary(Op::iand, Src::uniform(va.draw_id_uniform), Src::immediate(0xFFFF));
    default: return std::nullopt;
  }
}

}  // namespace agx::compiler::detail
