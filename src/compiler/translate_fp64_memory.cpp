// Matrices of doubles in memory (dmat*): column-major or row-major with the
// block's MatrixStride (std140/std430: a dvec2 column 16 bytes, dvec3/4
// columns 32), loose uniforms with their columns packed (glUniformMatrix*dv
// order: 8 x rows bytes a column), shared memory naturally (dvec3 columns
// 32 bytes apart). Each scalar is two 32-bit words, low word first.
#include "compiler/translate.h"

namespace agx::compiler::detail {

using IrOp = agx::compiler::Op;

Result<MatrixLayout> Translator::double_matrix_layout(Ptr::Space space, uint32_t matrix_stride_B, bool row_major,
                                                      uint32_t mtype, const spirv::Inst& in) const {
  unsigned rows = matrix_rows(mtype);
  if (matrix_stride_B) {
    if (matrix_stride_B % 8) return unsupported(in, "dmat MatrixStride not a multiple of 8");
    return row_major ? MatrixLayout{8, matrix_stride_B} : MatrixLayout{matrix_stride_B, 8};
  }
  switch (space) {
    case Ptr::Space::push: return MatrixLayout{rows * 8, 8};
    case Ptr::Space::shared: case Ptr::Space::local: return MatrixLayout{rows == 3 ? 32u : rows * 8, 8};
    default: return unsupported(in, "dmat without a MatrixStride decoration");
  }
}

Result<Src> Translator::load_double_at(const Ptr& q, const spirv::Inst& in) {
  if (in_push_memory(q)) {  // the block in memory: as a buffer
    AGX_TRY(const Ptr m, memory_view(q, in));
    return load_double_at(m, in);
  }
  switch (q.space) {
    case Ptr::Space::push: {
      if (q.const_B % 4) return unsupported(in, "unaligned uniform access");
      if (q.terms.empty()) return Src::uniform(q.uniform + q.const_B / 4, 64);
      AGX_TRY(auto lo, push_word(q, 0, in));  // run-time indices: translate_push_dynamic.cpp
      AGX_TRY(auto hi, push_word(q, 4, in));
      return pack64(lo, hi);
    }
    case Ptr::Space::buffer: {
      AGX_TRY(auto idx, buffer_index(q, 4, in));
      return Src::val(pair_value(b_.def(IrOp::device_load, {buffer_base(q), idx}, 32, 2)), 64);
    }
    case Ptr::Space::shared: {
      AGX_TRY(auto addr, shared_address(q));
      return Src::val(pair_value(b_.def(IrOp::local_load, {addr}, 32, 2)), 64);
    }
    default: return unsupported(in, "double load from this storage class");
  }
}

Status Translator::store_double_at(const Ptr& q, Src v, const spirv::Inst& in) {
  Src d = Src::val(b_.def(IrOp::collect, {lo32(v), hi32(v)}, 32, 2));
  switch (q.space) {
    case Ptr::Space::buffer: {
      AGX_TRY(auto idx, buffer_index(q, 4, in));
      b_.emit(IrOp::device_store, {d, buffer_base(q), idx});
      return {};
    }
    case Ptr::Space::shared: {
      AGX_TRY(auto addr, shared_address(q));
      b_.emit(IrOp::local_store, {d, addr});
      return {};
    }
    default: return unsupported(in, "double store to a read-only or unsupported storage class");
  }
}

Status Translator::load_double_matrix(const spirv::Inst& in, const Ptr& p) {
  unsigned cols = type(p.type).count, rows = matrix_rows(p.type);
  AGX_TRY(auto lay, matrix_layout(p.space, p.matrix_stride_B, p.row_major, p.type, in));
  TVal out = TVal::data(in.w[0]);
  for (unsigned c = 0; c < cols; ++c)
    for (unsigned r = 0; r < rows; ++r) {
      Ptr q = p;
      q.const_B += c * lay.col_stride_B + r * lay.comp_stride_B;
      AGX_TRY(auto v, load_double_at(q, in));
      out.c.push_back(v);
    }
  vals_[in.w[1]] = std::move(out);
  return {};
}

Status Translator::store_double_matrix(const spirv::Inst& in, const Ptr& p, const std::vector<Src>& data) {
  unsigned cols = type(p.type).count, rows = matrix_rows(p.type);
  if (data.size() != cols * rows) return unsupported(in, "store of a value of another shape");
  AGX_TRY(auto lay, matrix_layout(p.space, p.matrix_stride_B, p.row_major, p.type, in));
  for (unsigned c = 0; c < cols; ++c)
    for (unsigned r = 0; r < rows; ++r) {
      Ptr q = p;
      q.const_B += c * lay.col_stride_B + r * lay.comp_stride_B;
      AGX_CHECK(store_double_at(q, data[c * rows + r], in));
    }
  return {};
}

// A dmat column reached through an access chain: its scalars
// comp_stride_B apart (8 column-major, the matrix stride row-major).
Status Translator::load_double_vector(const spirv::Inst& in, const Ptr& p) {
  unsigned n = components(in.w[0]);
  TVal out = TVal::data(in.w[0]);
  for (unsigned i = 0; i < n; ++i) {
    Ptr q = p;
    q.const_B += i * p.comp_stride_B;
    AGX_TRY(auto v, load_double_at(q, in));
    out.c.push_back(v);
  }
  vals_[in.w[1]] = std::move(out);
  return {};
}

Status Translator::store_double_vector(const spirv::Inst& in, const Ptr& p, const std::vector<Src>& data) {
  unsigned n = components(p.type);
  if (data.size() != n) return unsupported(in, "store of a value of another shape");
  for (unsigned i = 0; i < n; ++i) {
    Ptr q = p;
    q.const_B += i * p.comp_stride_B;
    AGX_CHECK(store_double_at(q, data[i], in));
  }
  return {};
}

}  // namespace agx::compiler::detail
