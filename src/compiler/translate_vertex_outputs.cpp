// Vertex shader outputs: which words the shader writes (Location variables,
// gl_Position / gl_PointSize / gl_ClipDistance / gl_Layer /
// gl_ViewportIndex, alone or in glslang's gl_PerVertex block), the
// varyings interface they make, its layout (varyings::layout_vertex_outputs)
// and, after the last block, one st_var per word written, the last
// st_var_final. The layer and the viewport index share one word: layer in
// the low 16 bits, viewport in the high 16 (docs/gpu.md, "The primitive
// stage"; bminor/mesa-mesa src/asahi/compiler/agx_nir_lower_uvs.c).
#include <algorithm>

#include <fmt/format.h>

#include "compiler/translate.h"
#include "compiler/varying_types.h"

namespace agx::compiler::detail {

using spv::StorageClass;
using Kind = spirv::Type::Kind;
using spv::BuiltIn;

namespace {

// Which members of block variable `var` the function reaches: through an
// access chain's first (constant) index, or all of them when the variable
// itself is loaded, stored or copied (its pointer operands only: literals
// elsewhere may equal its id).
std::vector<uint8_t> members_used(const spirv::Module& m, uint32_t var, size_t count) {
  std::vector<uint8_t> used(count, 0);
  auto at = [](const spirv::Inst& in, size_t i, uint32_t id) { return in.w.size() > i && in.w[i] == id; };
  for (const spirv::Block& blk : m.blocks)
    for (const spirv::Inst& in : blk.body) {
      bool whole = false;
      switch (in.op) {
        case spv::Op::OpAccessChain: case spv::Op::OpInBoundsAccessChain:
          if (!at(in, 2, var)) break;
          if (in.w.size() > 3 && in.w[3] < m.bound && m.is_constant[in.w[3]] && m.constants[in.w[3]].bits < count)
            used[m.constants[in.w[3]].bits] = 1;
          else whole = true;
          break;
        case spv::Op::OpLoad: whole = at(in, 2, var); break;
        case spv::Op::OpStore: whole = at(in, 0, var); break;
        case spv::Op::OpCopyMemory: case spv::Op::OpCopyMemorySized: whole = at(in, 0, var) || at(in, 1, var); break;
        default: break;
      }
      if (whole) std::fill(used.begin(), used.end(), 1);
    }
  return used;
}

}  // namespace

const char* flat_only_kind(const spirv::Module& m, uint32_t t) {
  if (t >= m.types.size()) return nullptr;
  const spirv::Type& ty = m.types[t];
  switch (ty.kind) {
    case Kind::int_: return "integer";
    case Kind::float_: return ty.width == 64 ? "64-bit" : nullptr;
    case Kind::struct_:
      for (uint32_t member : ty.members)
        if (const char* k = flat_only_kind(m, member)) return k;
      return nullptr;
    case Kind::vector: case Kind::matrix: case Kind::array: return flat_only_kind(m, ty.elem);
    default: return nullptr;
  }
}

Status Translator::vertex_builtin_output(uint32_t var, int32_t builtin, uint32_t off_B, uint32_t t,
                                         varyings::Interface& iface) {
  const uint32_t word = off_B / 4;
  auto taken = [&](OutputKind k) {
    return std::any_of(output_words_.begin(), output_words_.end(), [&](const OutputWord& w) { return w.kind == k; });
  };
  auto once = [&](OutputKind k, std::string_view name) -> Status {
    if (taken(k)) return Error::unsupported("{}: {} is written by two output variables", o_.file_name, name);
    return {};
  };
  switch (static_cast<BuiltIn>(builtin)) {
    case BuiltIn::Position:
      AGX_CHECK(once(OutputKind::position, "gl_Position"));
      if (type(t).kind != Kind::vector || type(t).count != 4)
        return Error::invalid_argument("{}: gl_Position is not a vec4", o_.file_name);
      for (uint32_t c = 0; c < 4; ++c) output_words_.push_back({var, word + c, OutputKind::position, c, 0});
      return {};
    case BuiltIn::PointSize:
      AGX_CHECK(once(OutputKind::point_size, "gl_PointSize"));
      iface.point_size = true;
      output_words_.push_back({var, word, OutputKind::point_size, 0, 0});
      return {};
    case BuiltIn::ClipDistance: {
      AGX_CHECK(once(OutputKind::clip_distance, "gl_ClipDistance"));
      const uint32_t n = type(t).kind == Kind::array ? type(t).count : 0;
      if (n == 0 || n > 8) return Error::unsupported("{}: gl_ClipDistance of {} elements (1 to 8)", o_.file_name, n);
      iface.clip_distances = n;
      for (uint32_t p = 0; p < n; ++p) output_words_.push_back({var, word + p, OutputKind::clip_distance, p, 0});
      return {};
    }
    case BuiltIn::CullDistance:
      return Error::unsupported("{}: gl_CullDistance is not supported (the vertex output layout has no cull distances)",
                                o_.file_name);
    case BuiltIn::Layer: case BuiltIn::ViewportIndex: {  // one word between them
      const bool layer = static_cast<BuiltIn>(builtin) == BuiltIn::Layer;
      const OutputKind kind = layer ? OutputKind::layer : OutputKind::viewport;
      AGX_CHECK(once(kind, layer ? "gl_Layer" : "gl_ViewportIndex"));
      iface.layer_viewport = true;
      output_words_.push_back({var, word, kind, 0, 0});
      return {};
    }
    default:
      return Error::unsupported("{}: vertex output built-in {} is not supported", o_.file_name, builtin);
  }
}

Status Translator::setup_vertex_outputs() {
  VertexAbi& va = abi_.vertex;
  varyings::Interface iface;
  for (uint32_t v : m_.globals) {
    const spirv::Variable& var = m_.variables[v];
    const spirv::Decorations& d = m_.decorations[v];
    if (var.storage != StorageClass::Output) continue;
    const uint32_t pointee = type(var.type).elem;
    const spirv::Type& pt = type(pointee);
    if (d.builtin >= 0) {
      AGX_CHECK(vertex_builtin_output(v, d.builtin, 0, pointee, iface));
      continue;
    }
    if (pt.kind == Kind::struct_ && !pt.member_builtins.empty()) {  // gl_PerVertex
      const std::vector<uint8_t> used = members_used(m_, v, pt.members.size());
      uint32_t off_B = 0;
      for (size_t i = 0; i < pt.members.size(); ++i) {
        uint32_t ma = 4;
        const uint32_t ms = natural_size_B(pt.members[i], &ma, true);
        off_B = (off_B + ma - 1) / ma * ma;
        const int32_t bi = i < pt.member_builtins.size() ? pt.member_builtins[i] : -1;
        if (used[i] && bi < 0) return Error::unsupported("{}: output block member {} is not a built-in", o_.file_name, i);
        if (used[i]) AGX_CHECK(vertex_builtin_output(v, bi, off_B, pt.members[i], iface));
        off_B += ms;
      }
      continue;
    }
    if (d.location == UINT32_MAX)
      return Error::invalid_argument("{}: vertex output %{} ({}) has no Location", o_.file_name, v, m_.names[v]);
    AGX_TRY(auto elems, interface_elements(pointee, v));
    // Integers and doubles are never interpolated: the fragment side reads
    // them flat (a double as its two words).
    const bool flat = d.flat || flat_only_kind(m_, pointee);
    const varyings::Interp interp = flat                                      ? varyings::Interp::flat
                                    : d.noperspective                         ? varyings::Interp::linear
                                                                              : varyings::Interp::smooth;
    for (size_t i = 0; i < elems.size(); ++i) {
      const uint32_t loc = d.location + static_cast<uint32_t>(i);
      if (std::find(va.output_locations.begin(), va.output_locations.end(), loc) != va.output_locations.end())
        return Error::unsupported("{}: two vertex outputs at location {} (Component packing is not supported)",
                                  o_.file_name, loc);
      if (d.component + elems[i].comps > 4)
        return Error::invalid_argument("{}: vertex output {} goes past component 3", o_.file_name, m_.names[v]);
      const auto index = static_cast<uint32_t>(iface.varyings.size());
      iface.varyings.push_back({fmt::format("location_{}", loc), d.component + elems[i].comps, 32, interp});
      va.output_locations.push_back(loc);
      for (uint32_t c = 0; c < elems[i].comps; ++c)
        output_words_.push_back({v, elems[i].off_B / 4 + c, OutputKind::varying, index, d.component + c});
    }
  }
  auto layout = varyings::layout_vertex_outputs(iface);
  if (!layout) return Error::unsupported("{}: vertex outputs: {}", o_.file_name, layout.error().message());
  va.outputs = std::move(iface);
  va.layout = std::move(*layout);
  return {};
}

Status Translator::store_vertex_outputs() {
  const varyings::VertexOutputLayout& layout = abi_.vertex.layout;
  auto range = [&](varyings::OutputKind kind, unsigned nth = 0) -> const varyings::OutputRange* {
    for (const varyings::OutputRange& r : layout.outputs)
      if (r.kind == kind && nth-- == 0) return &r;
    return nullptr;
  };
  auto word_of = [&](const OutputWord& w) -> Src {
    const int32_t li = local_index_[w.var];
    if (li < 0) return Src::immediate(0);  // never mentioned: 0
    return Src::val(locals_[static_cast<size_t>(li)].words[w.word]);
  };
  std::vector<std::pair<unsigned, Src>> stores;
  Src layer = Src::immediate(0), viewport = Src::immediate(0);
  for (const OutputWord& w : output_words_) {
    const varyings::OutputRange* r = nullptr;
    unsigned plus = 0;
    switch (w.kind) {
      case OutputKind::position: r = range(varyings::OutputKind::position); plus = w.index; break;
      case OutputKind::point_size: r = range(varyings::OutputKind::point_size); break;
      case OutputKind::clip_distance: r = range(varyings::OutputKind::clip_distance, w.index); break;
      case OutputKind::layer: layer = word_of(w); continue;
      case OutputKind::viewport: viewport = word_of(w); continue;
      case OutputKind::varying: r = layout.find_varying(static_cast<int>(w.index)); plus = w.comp; break;
    }
    if (!r) return Error::invalid_argument("{}: vertex output word without a place in the layout", o_.file_name);
    stores.push_back({r->index + plus, word_of(w)});
  }
  if (const varyings::OutputRange* r = range(varyings::OutputKind::layer_viewport)) {
    Src low = b_.binary(Op::iand, layer, Src::immediate(0xFFFF));
    stores.push_back({r->index, b_.binary(Op::ior, low, b_.binary(Op::ishl, viewport, Src::immediate(16)))});
  }
  // The position is always stored (0 where the shader leaves it).
  if (const varyings::OutputRange* r = range(varyings::OutputKind::position))
    for (unsigned c = 0; c < 4; ++c)
      if (std::none_of(stores.begin(), stores.end(), [&](const auto& s) { return s.first == r->index + c; }))
        stores.push_back({r->index + c, Src::immediate(0)});
  std::sort(stores.begin(), stores.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 0; i < stores.size(); ++i) {
    Src data = stores[i].second;
    if (!data.is_value()) data = Src::val(b_.def(Op::mov, {data}));
    b_.emit(Op::store_output, {data}, stores[i].first | (i + 1 == stores.size() ? 0x100u : 0u));
  }
  return {};
}

}  // namespace agx::compiler::detail
