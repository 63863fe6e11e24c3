// Whole structs and arrays in memory: loads and stores of a composite
// value, OpCopyMemory and OpCopyLogical. A composite is moved scalar by
// scalar ("leaves"), each at the byte offset its type's layout gives:
// buffers and push constants by their Offset / ArrayStride / MatrixStride /
// RowMajor decorations (std140, std430: whatever glslang wrote), shared
// memory by the natural layout of natural_size_B. 64-bit integers are two
// 32-bit words, the low one first; 8/16-bit scalars are moved one element
// each with the i8/i16 memory formats (translate_small_memory.cpp), so the
// padding bytes between them are never written.
#include <functional>

#include <fmt/format.h>

#include "compiler/translate.h"

namespace agx::compiler::detail {

using Kind = spirv::Type::Kind;

namespace {
constexpr uint32_t kMaxLeaves = 4096;
}

Result<std::vector<MemoryLeaf>> Translator::composite_leaves(const Ptr& p, const spirv::Inst& in) {
  bool explicit_layout = p.space != Ptr::Space::shared;
  std::vector<MemoryLeaf> leaves;
  // mstride/row_major: the matrix layout of the enclosing struct member;
  // comp_B: the step between a vector's scalars (0: 4 bytes).
  std::function<Status(uint32_t, uint32_t, uint32_t, bool, uint32_t)> walk =
      [&](uint32_t t, uint32_t off, uint32_t mstride, bool row_major, uint32_t comp_B) -> Status {
    if (leaves.size() > kMaxLeaves) return unsupported(in, "a composite of more than 4096 scalars in one load or store");
    const spirv::Type& ty = type(t);
    if (ty.kind == Kind::struct_) {
      uint32_t noff = 0;
      for (size_t j = 0; j < ty.members.size(); ++j) {
        uint32_t mo;
        if (explicit_layout) {
          mo = j < ty.member_offsets.size() ? ty.member_offsets[j] : UINT32_MAX;
          if (mo == UINT32_MAX) return unsupported(in, "struct member without an Offset decoration");
        } else {
          uint32_t ma = 4;
          uint32_t ms = natural_size_B(ty.members[j], &ma);
          noff = (noff + ma - 1) / ma * ma;
          mo = noff;
          noff += ms;
        }
        uint32_t ms = j < ty.member_matrix_stride.size() ? ty.member_matrix_stride[j] : 0;
        bool rm = j < ty.member_row_major.size() && ty.member_row_major[j];
        AGX_CHECK(walk(ty.members[j], off + mo, ms, rm, 0));
      }
      return {};
    }
    if (ty.kind == Kind::array || ty.kind == Kind::vector) {
      uint32_t stride;
      if (ty.kind == Kind::vector) stride = comp_B ? comp_B : small_width(ty.elem) ? small_width(ty.elem) / 8 : std::max(4u, type(ty.elem).width / 8);
      else if (explicit_layout) { AGX_TRY(stride, explicit_array_stride_B(p, t, in)); }
      else stride = natural_stride_B(ty.elem);
      if (ty.count > kMaxLeaves) return unsupported(in, "a composite of more than 4096 scalars in one load or store");
      for (uint32_t i = 0; i < ty.count; ++i) AGX_CHECK(walk(ty.elem, off + i * stride, mstride, row_major, 0));
      return {};
    }
    if (ty.kind == Kind::matrix) {
      AGX_TRY(auto lay, matrix_layout(p.space, mstride, row_major, t, in));
      // A dmat's scalars are word pairs at the same places (matrix_layout
      // gives its MatrixStride / RowMajor or natural layout).
      uint32_t rows = matrix_rows(t), st = scalar_type(ty.elem);
      for (uint32_t c = 0; c < ty.count; ++c)
        for (uint32_t r = 0; r < rows; ++r) leaves.push_back({off + c * lay.col_stride_B + r * lay.comp_stride_B, st});
      return {};
    }
    if (ty.kind == Kind::bool_ || ((ty.kind == Kind::int_ || ty.kind == Kind::float_) && ty.width == 32) ||
        ((ty.kind == Kind::int_ || ty.kind == Kind::float_) && ty.width == 64) ||  // 64-bit: a word pair
        small_width(t)) {  // 8/16-bit: 1 or 2 bytes, moved alone (padding beside it untouched)
      leaves.push_back({off, t});
      return {};
    }
    if (ty.kind == Kind::other) return unsupported(in, "a composite containing an opaque type in a load or store");
    // glslang loads a sampler array of arrays level by level (OpLoad of
    // tex[1][0] before its [1]): images are not values of a composite here.
    if (ty.kind == Kind::image || ty.kind == Kind::sampled_image || ty.kind == Kind::sampler)
      return unsupported(in, "an array of samplers or images loaded whole (an array of arrays of samplers "
                             "indexed one level at a time) is not supported");
    return unsupported(in, fmt::format("a composite containing {}-bit members in a load or store", ty.width));
  };
  AGX_CHECK(walk(p.type, 0, p.matrix_stride_B, p.row_major, p.comp_stride_B));
  return leaves;
}

// The pointer to one 8/16-bit scalar of a composite.
Ptr Translator::small_leaf(const Ptr& p, const MemoryLeaf& leaf) const {
  Ptr q = p;
  q.const_B += leaf.off_B;
  q.type = leaf.type;
  q.comp_stride_B = q.matrix_stride_B = 0;
  q.row_major = false;
  return q;
}

// How many 8/16-bit leaves from `first` on are one vector in memory: the
// same type, each right after the last, at most 4 (one i8/i16 load or
// store of a register tuple in buffers and shared memory; push constants
// take them one by one anyway).
unsigned Translator::small_run(const Ptr& p, const std::vector<MemoryLeaf>& leaves, size_t first) const {
  if (p.space != Ptr::Space::buffer && p.space != Ptr::Space::shared) return 1;
  const uint32_t elem_B = small_width(leaves[first].type) / 8;
  unsigned n = 1;
  while (n < 4 && first + n < leaves.size() && leaves[first + n].type == leaves[first].type &&
         leaves[first + n].off_B == leaves[first].off_B + n * elem_B)
    ++n;
  return n;
}

Result<Src> Translator::load_word(const Ptr& p, uint32_t off_B, const spirv::Inst& in) {
  Ptr q = p;
  q.const_B += off_B;
  switch (p.space) {
    case Ptr::Space::push: return push_word(q, 0, in);  // translate_push_dynamic.cpp
    case Ptr::Space::buffer: {
      AGX_TRY(auto idx, buffer_index(q, 4, in));
      return Src::val(b_.def(agx::compiler::Op::device_load, {buffer_base(q), idx}));
    }
    case Ptr::Space::shared: {
      AGX_TRY(auto addr, shared_address(q));
      return Src::val(b_.def(agx::compiler::Op::local_load, {addr}));
    }
    default: return unsupported(in, "composite load from this storage class");
  }
}

Status Translator::store_word(const Ptr& p, uint32_t off_B, Src data, const spirv::Inst& in) {
  Ptr q = p;
  q.const_B += off_B;
  if (!data.is_value() || data.neg || data.abs) data = Src::val(b_.def(agx::compiler::Op::mov, {data}));
  switch (p.space) {
    case Ptr::Space::buffer: {
      AGX_TRY(auto idx, buffer_index(q, 4, in));
      b_.emit(agx::compiler::Op::device_store, {data, buffer_base(q), idx});
      return {};
    }
    case Ptr::Space::shared: {
      AGX_TRY(auto addr, shared_address(q));
      b_.emit(agx::compiler::Op::local_store, {data, addr});
      return {};
    }
    default: return unsupported(in, "composite store to a read-only or unsupported storage class");
  }
}

Result<std::vector<Src>> Translator::load_composite(const Ptr& p, const spirv::Inst& in) {
  AGX_TRY(auto leaves, composite_leaves(p, in));
  std::vector<Src> out;
  for (size_t i = 0; i < leaves.size(); ++i) {
    const MemoryLeaf& leaf = leaves[i];
    if (small_width(leaf.type)) {
      const unsigned run = small_run(p, leaves, i);
      AGX_TRY(auto c, load_small_values(in, small_leaf(p, leaf), leaf.type, run));
      out.insert(out.end(), c.begin(), c.end());
      i += run - 1;
      continue;
    }
    AGX_TRY(auto lo, load_word(p, leaf.off_B, in));
    if (type(leaf.type).width == 64) {
      AGX_TRY(auto hi, load_word(p, leaf.off_B + 4, in));
      out.push_back(pack64(lo, hi));
    } else {
      out.push_back(lo);
    }
  }
  return out;
}

Status Translator::store_composite(const spirv::Inst& in, const Ptr& p, const std::vector<Src>& data) {
  AGX_TRY(auto leaves, composite_leaves(p, in));
  if (leaves.size() != data.size()) return unsupported(in, "store of a value of another shape");
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (small_width(leaves[i].type)) {
      const unsigned run = small_run(p, leaves, i);
      AGX_CHECK(store_small(in, small_leaf(p, leaves[i]), std::vector<Src>(data.begin() + i, data.begin() + i + run), run));
      i += run - 1;
    } else if (type(leaves[i].type).width == 64) {
      AGX_CHECK(store_word(p, leaves[i].off_B, lo32(data[i]), in));
      AGX_CHECK(store_word(p, leaves[i].off_B + 4, hi32(data[i]), in));
    } else {
      AGX_CHECK(store_word(p, leaves[i].off_B, data[i], in));
    }
  }
  return {};
}

// OpCopyMemory target source: the source's scalars, stored one by one
// (local variables through translate_local.cpp: the same flattened order).
// OpCopyLogical: the same scalars under a type of another layout.
// OpCopyMemorySized: copy_sized below.
Status Translator::copy(const spirv::Inst& in) {
  const auto& w = in.w;
  if (in.op == spv::Op::OpCopyLogical) {
    if (w.size() < 3 || w[1] >= m_.bound) return Error::decode("{}: bad OpCopyLogical", o_.file_name);
    AGX_TRY(auto v, get(w[2], in));
    if (v->kind != TVal::Kind::data) return unsupported(in, "OpCopyLogical of a non-data value");
    TVal out = *v;
    out.type = w[0];
    vals_[w[1]] = std::move(out);
    return {};
  }
  const bool sized = in.op == spv::Op::OpCopyMemorySized;
  if (w.size() < (sized ? 3u : 2u)) return Error::decode("{}: bad {}", o_.file_name, sized ? "OpCopyMemorySized" : "OpCopyMemory");
  AGX_TRY(auto tv, get(w[0], in));
  AGX_TRY(auto sv, get(w[1], in));
  if (tv->kind != TVal::Kind::ptr || sv->kind != TVal::Kind::ptr) return unsupported(in, "OpCopyMemory of a non-pointer");
  const Ptr target = tv->ptr, source = sv->ptr;
  if (source.space == Ptr::Space::builtin || target.space == Ptr::Space::builtin)
    return unsupported(in, "OpCopyMemory of a built-in");
  if (sized) return copy_sized(in, target, source);
  std::vector<Src> data;
  if (source.space == Ptr::Space::local) {
    AGX_TRY(auto d, local_load(source, in));
    data = std::move(d);
  } else {
    AGX_TRY(auto d, load_composite(source, in));
    data = std::move(d);
  }
  if (target.space == Ptr::Space::local) return local_store(target, data, in);
  return store_composite(in, target, data);
}

// The bytes a pointer's type spans: the natural size in shared memory and
// local variables, the end of its last scalar under explicit layouts.
Result<uint32_t> Translator::pointee_extent_B(const Ptr& p, const spirv::Inst& in) {
  if (p.space == Ptr::Space::local || p.space == Ptr::Space::shared) return natural_size_B(p.type, nullptr, p.space == Ptr::Space::local);
  AGX_TRY(auto leaves, composite_leaves(p, in));
  uint32_t end = 0;
  for (const MemoryLeaf& l : leaves)
    end = std::max(end, l.off_B + (small_width(l.type) ? small_width(l.type) / 8 : std::max(4u, type(l.type).width / 8)));
  return end;
}

// OpCopyMemorySized (SPIR-V's Addresses capability, which OpenGL SPIR-V
// may declare): Size bytes from source to target, as memory, padding
// included: 32-bit word k of the source to word k of the target. The size
// must be a constant multiple of 4 within both pointers' types.
Status Translator::copy_sized(const spirv::Inst& in, const Ptr& target, const Ptr& source) {
  AGX_TRY(auto size, scalar(in.w[2], in));
  if (!size.is_imm()) return unsupported(in, "OpCopyMemorySized with a Size that is not a constant");
  if (size.imm % 4) return unsupported(in, fmt::format("OpCopyMemorySized of {} bytes (whole 32-bit words only)", size.imm));
  AGX_TRY(auto t_end, pointee_extent_B(target, in));
  AGX_TRY(auto s_end, pointee_extent_B(source, in));
  for (auto [end_B, what] : {std::pair{t_end, "target"}, std::pair{s_end, "source"}})
    if (size.imm > end_B)
      return unsupported(in, fmt::format("OpCopyMemorySized of {} bytes past the end of its {}-byte {} type", size.imm, end_B, what));
  // Local variables hold 8/16-bit scalars widened to words: their bytes
  // are not the memory image OpCopyMemorySized copies (the widened layout
  // is bigger exactly when the type has such scalars).
  for (const Ptr* q : {&target, &source})
    if (q->space == Ptr::Space::local && natural_size_B(q->type, nullptr, true) != natural_size_B(q->type, nullptr))
      return unsupported(in, "OpCopyMemorySized of a local variable with 8/16-bit members");
  const uint32_t n = static_cast<uint32_t>(size.imm / 4);
  std::vector<Src> words;
  if (source.space == Ptr::Space::local) {
    std::vector<uint32_t> offs;
    for (uint32_t k = 0; k < n; ++k) offs.push_back(4 * k);
    AGX_TRY(auto d, local_load_words(source, offs, in));
    words = std::move(d);
  } else {
    for (uint32_t k = 0; k < n; ++k) {
      AGX_TRY(auto v, load_word(source, 4 * k, in));
      words.push_back(v);
    }
  }
  if (target.space == Ptr::Space::local) {
    std::vector<LocalWord> out;
    for (uint32_t k = 0; k < n; ++k) out.push_back({4 * k, words[k]});
    return local_store_words(target, out, in);
  }
  for (uint32_t k = 0; k < n; ++k) AGX_CHECK(store_word(target, 4 * k, words[k], in));
  return {};
}

}  // namespace agx::compiler::detail
