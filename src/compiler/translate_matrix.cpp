// Matrices -> IR. A matrix value is its columns' scalars one after another
// (TVal::c, column-major: column c, row r at c * rows + r), so
// OpCompositeConstruct/Extract/Insert, OpPhi and OpSelect work on it as on
// any flattened composite; glslang writes +, -, negation, ==, != and
// matrixCompMult column by column with vector instructions. This file has
// the instructions that mix rows and columns (SPIR-V specification 3.32.13:
// OpTranspose, OpMatrixTimesScalar, OpVectorTimesMatrix,
// OpMatrixTimesVector, OpMatrixTimesMatrix, OpOuterProduct), GLSL.std.450
// Determinant and MatrixInverse (cofactor expansion), and where a matrix's
// scalars sit in memory (MatrixStride, RowMajor; the loose uniform layout of
// docs/compiler.md).
#include <spirv/unified1/GLSL.std.450.h>

#include <fmt/format.h>

#include "compiler/cofactor.h"
#include "compiler/matrix_products.h"
#include "compiler/translate.h"

namespace agx::compiler::detail {

using IrOp = agx::compiler::Op;
using Kind = spirv::Type::Kind;

namespace {

// Float arithmetic for cofactor.h: IR fmul/fmadd, source negation, rcp.
class FloatArith {
 public:
  explicit FloatArith(Builder& b) : b_(b) {}
  Src mul(Src a, Src c) { return Src::val(b_.def(IrOp::fmul, {a, c})); }
  Src neg(Src a) { a.neg = !a.neg; return a; }  // a source modifier, no instruction
  Src recip(Src a) { return Src::val(b_.def(IrOp::rcp, {a})); }
  // a b - c d as one fmadd: a b + -(c d)
  Src diff_of_products(Src a, Src b, Src c, Src d) { return Src::val(b_.def(IrOp::fmadd, {a, b, neg(mul(c, d))})); }
  Src add_product(Src acc, Src a, Src b, bool sub) { return Src::val(b_.def(IrOp::fmadd, {sub ? neg(a) : a, b, acc})); }

 private:
  Builder& b_;
};

}  // namespace

Result<MatrixLayout> Translator::matrix_layout(Ptr::Space space, uint32_t matrix_stride_B, bool row_major,
                                               uint32_t mtype, const spirv::Inst& in) const {
  unsigned rows = matrix_rows(mtype);
  if (type(scalar_type(type(mtype).elem)).width == 64) return double_matrix_layout(space, matrix_stride_B, row_major, mtype, in);
  if (type(scalar_type(type(mtype).elem)).width == 16) {
    // f16mat: 2-byte scalars (translate_small_memory.cpp moves each); the
    // natural layout is an array of f16vec columns, or of widened words in
    // local variables.
    if (matrix_stride_B) {
      if (matrix_stride_B % 2) return unsupported(in, "MatrixStride not a multiple of 2");
      return row_major ? MatrixLayout{2, matrix_stride_B} : MatrixLayout{matrix_stride_B, 2};
    }
    switch (space) {
      case Ptr::Space::push: return MatrixLayout{rows * 2, 2};
      case Ptr::Space::shared: return MatrixLayout{rows == 3 ? 8u : rows * 2, 2};
      case Ptr::Space::local: return MatrixLayout{rows == 3 ? 16u : rows * 4, 4};
      default: return unsupported(in, "matrix without a MatrixStride decoration");
    }
  }
  if (type(scalar_type(type(mtype).elem)).width != 32) return unsupported(in, "matrices of other than 16/32/64-bit floats");
  if (matrix_stride_B) {
    if (matrix_stride_B % 4) return unsupported(in, "MatrixStride not a multiple of 4");
    return row_major ? MatrixLayout{4, matrix_stride_B} : MatrixLayout{matrix_stride_B, 4};
  }
  switch (space) {
    case Ptr::Space::push: return MatrixLayout{rows * 4, 4};  // loose uniforms: columns packed
    case Ptr::Space::shared: case Ptr::Space::local:
      return MatrixLayout{rows == 3 ? 16u : rows * 4, 4};  // natural: vec3 columns 16-aligned
    default: return unsupported(in, "matrix without a MatrixStride decoration");
  }
}

Result<std::vector<Src>> Translator::load_vector_at(const Ptr& p, unsigned n, uint32_t comp_stride_B, const spirv::Inst& in) {
  if (in_push_memory(p)) {  // the block in memory: as a buffer
    AGX_TRY(const Ptr m, memory_view(p, in));
    return load_vector_at(m, n, comp_stride_B, in);
  }
  if (!comp_stride_B) comp_stride_B = 4;
  std::vector<Src> out;
  switch (p.space) {
    case Ptr::Space::push:
      for (unsigned i = 0; i < n; ++i) {
        AGX_TRY(auto u, push_word(p, i * comp_stride_B, in));
        out.push_back(u);
      }
      return out;
    case Ptr::Space::buffer:
      if (comp_stride_B == 4) {
        uint32_t shift = 0;
        AGX_TRY(auto idx, buffer_index(p, 4, in, &shift));
        ValueId d = b_.def(IrOp::device_load, {buffer_base(p), idx}, 32, static_cast<uint8_t>(n), shift);
        for (unsigned i = 0; i < n; ++i) out.push_back(Src::val(d, 32, static_cast<uint8_t>(i)));
        return out;
      }
      for (unsigned i = 0; i < n; ++i) {
        Ptr q = p;
        q.const_B += i * comp_stride_B;
        AGX_TRY(auto idx, buffer_index(q, 4, in));
        out.push_back(Src::val(b_.def(IrOp::device_load, {buffer_base(q), idx})));
      }
      return out;
    case Ptr::Space::shared:
      if (comp_stride_B == 4) {
        AGX_TRY(auto addr, shared_address(p));
        ValueId d = b_.def(IrOp::local_load, {addr}, 32, static_cast<uint8_t>(n));
        for (unsigned i = 0; i < n; ++i) out.push_back(Src::val(d, 32, static_cast<uint8_t>(i)));
        return out;
      }
      for (unsigned i = 0; i < n; ++i) {
        Ptr q = p;
        q.const_B += i * comp_stride_B;
        AGX_TRY(auto addr, shared_address(q));
        out.push_back(Src::val(b_.def(IrOp::local_load, {addr})));
      }
      return out;
    default: return unsupported(in, "load from this storage class");
  }
}

Status Translator::store_vector_at(const Ptr& p, const std::vector<Src>& data, uint32_t comp_stride_B, const spirv::Inst& in) {
  if (!comp_stride_B) comp_stride_B = 4;
  if (p.space != Ptr::Space::buffer && p.space != Ptr::Space::shared)
    return unsupported(in, "store to a read-only or unsupported storage class");
  // Packed: one store of the register tuple; strided: one per scalar.
  size_t parts = comp_stride_B == 4 ? 1 : data.size();
  for (size_t i = 0; i < parts; ++i) {
    Ptr q = p;
    q.const_B += static_cast<uint32_t>(i) * comp_stride_B;
    std::vector<Src> d = comp_stride_B == 4 ? data : std::vector<Src>{data[i]};
    if (d.size() == 1 && !d[0].is_value()) d[0] = Src::val(b_.def(IrOp::mov, {d[0]}));
    if (p.space == Ptr::Space::buffer) {
      uint32_t shift = 0;
      AGX_TRY(auto idx, buffer_index(q, 4, in, &shift));
      b_.emit(IrOp::device_store, {gather(b_, d), buffer_base(q), idx}, shift);
    } else {
      AGX_TRY(auto addr, shared_address(q));
      b_.emit(IrOp::local_store, {gather(b_, d), addr});
    }
  }
  return {};
}

Status Translator::load_matrix(const spirv::Inst& in, const Ptr& p, TVal& out) {
  unsigned cols = type(p.type).count, rows = matrix_rows(p.type);
  AGX_TRY(auto lay, matrix_layout(p.space, p.matrix_stride_B, p.row_major, p.type, in));
  out.c.assign(cols * rows, Src::immediate(0));
  if (lay.col_stride_B == 4 && lay.comp_stride_B != 4) {
    // Row-major: each row is a packed vector of `cols` scalars.
    for (unsigned r = 0; r < rows; ++r) {
      Ptr q = p;
      q.const_B += r * lay.comp_stride_B;
      AGX_TRY(auto row, load_vector_at(q, cols, 4, in));
      for (unsigned c = 0; c < cols; ++c) out.c[c * rows + r] = row[c];
    }
    return {};
  }
  for (unsigned c = 0; c < cols; ++c) {
    Ptr q = p;
    q.const_B += c * lay.col_stride_B;
    AGX_TRY(auto col, load_vector_at(q, rows, lay.comp_stride_B, in));
    for (unsigned r = 0; r < rows; ++r) out.c[c * rows + r] = col[r];
  }
  return {};
}

Status Translator::store_matrix(const spirv::Inst& in, const Ptr& p, const std::vector<Src>& data) {
  unsigned cols = type(p.type).count, rows = matrix_rows(p.type);
  if (data.size() != cols * rows) return unsupported(in, "store of a value of another shape");
  AGX_TRY(auto lay, matrix_layout(p.space, p.matrix_stride_B, p.row_major, p.type, in));
  if (lay.col_stride_B == 4 && lay.comp_stride_B != 4) {
    for (unsigned r = 0; r < rows; ++r) {
      Ptr q = p;
      q.const_B += r * lay.comp_stride_B;
      std::vector<Src> row;
      for (unsigned c = 0; c < cols; ++c) row.push_back(data[c * rows + r]);
      AGX_CHECK(store_vector_at(q, row, 4, in));
    }
    return {};
  }
  for (unsigned c = 0; c < cols; ++c) {
    Ptr q = p;
    q.const_B += c * lay.col_stride_B;
    std::vector<Src> col(data.begin() + c * rows, data.begin() + (c + 1) * rows);
    AGX_CHECK(store_vector_at(q, col, lay.comp_stride_B, in));
  }
  return {};
}

Status Translator::matrix_op(const spirv::Inst& in, bool& handled) {
  handled = true;
  const auto& w = in.w;
  auto operands = [&](size_t n) -> Status {
    if (w.size() < 2 + n || w[1] >= m_.bound) return Error::decode("{}: SPIR-V word {}: too few operands", o_.file_name, in.word_offset);
    return {};
  };
  auto data = [&](uint32_t id) -> Result<std::vector<Src>> {
    AGX_TRY(auto v, get(id, in));
    if (v->kind != TVal::Kind::data || v->cmp) return unsupported(in, "matrix operand is not a float value");
    const unsigned width = type(scalar_type(type(v->type).kind == Kind::matrix ? type(v->type).elem : v->type)).width;
    if (width != 32 && width != 16) return unsupported(in, "matrices of 64-bit floats (dmat) are not supported");
    return v->c;
  };
  // f16 matrices: widened halves; every product and sum is rounded to the
  // nearest half (SPIR-V's 16-bit OpFMul/OpFAdd), so no fmadd.
  const bool half = w.size() >= 3 && is_half(element_scalar(w[0]));
  auto shape = [&](uint32_t t, unsigned& cols, unsigned& rows) -> Status {
    if (type(t).kind != Kind::matrix) return unsupported(in, "matrix instruction on a non-matrix type");
    cols = type(t).count;
    rows = matrix_rows(t);
    return {};
  };
  auto fmul = [&](Src a, Src b) {
    Src p = Src::val(b_.def(IrOp::fmul, {a, b}));
    return half ? round_half(p) : p;
  };
  auto fma = [&](Src a, Src b, Src c) {
    if (half) return round_half(Src::val(b_.def(IrOp::fadd, {c, fmul(a, b)})));
    return Src::val(b_.def(IrOp::fmadd, {a, b, c}));
  };
  // sum_j x[j] y[j]: one fmul, then an fmadd a term
  auto dot = [&](const std::vector<Src>& x, const std::vector<Src>& y) {
    Src acc = fmul(x[0], y[0]);
    for (size_t j = 1; j < x.size(); ++j) acc = fma(x[j], y[j], acc);
    return acc;
  };
  TVal out;
  out.kind = TVal::Kind::data;
  switch (in.op) {
    case SpvOp::OpTranspose: {
      // R = M^T: R[r][c] = M[c][r]
      AGX_CHECK(operands(1));
      unsigned cols, rows;
      AGX_TRY(auto m, data(w[2]));
      AGX_CHECK(shape(vals_[w[2]].type, cols, rows));
      if (m.size() != cols * rows) return unsupported(in, "OpTranspose operand shape");
      for (unsigned r = 0; r < rows; ++r)
        for (unsigned c = 0; c < cols; ++c) out.c.push_back(m[c * rows + r]);
      break;
    }
    case SpvOp::OpMatrixTimesScalar: {
      AGX_CHECK(operands(2));
      AGX_TRY(auto m, data(w[2]));
      AGX_TRY(auto k, scalar(w[3], in));
      for (const Src& x : m) out.c.push_back(fmul(x, k));
      break;
    }
    case SpvOp::OpVectorTimesMatrix: {
      // v (rows) * M (cols x rows) = (dot(v, M[c]))_c
      AGX_CHECK(operands(2));
      unsigned cols, rows;
      AGX_TRY(auto v, data(w[2]));
      AGX_TRY(auto m, data(w[3]));
      AGX_CHECK(shape(vals_[w[3]].type, cols, rows));
      if (v.size() != rows || m.size() != cols * rows) return unsupported(in, "OpVectorTimesMatrix operand shapes");
      out.c = vector_times_matrix(v, m, cols, rows, dot);
      break;
    }
    case SpvOp::OpMatrixTimesVector: {
      // M (cols x rows) * v (cols) = (sum_c M[c][r] v[c])_r
      AGX_CHECK(operands(2));
      unsigned cols, rows;
      AGX_TRY(auto m, data(w[2]));
      AGX_TRY(auto v, data(w[3]));
      AGX_CHECK(shape(vals_[w[2]].type, cols, rows));
      if (v.size() != cols || m.size() != cols * rows) return unsupported(in, "OpMatrixTimesVector operand shapes");
      out.c = matrix_times_vector(m, v, cols, rows, dot);
      break;
    }
    case SpvOp::OpMatrixTimesMatrix: {
      // A (k x rows) * B (cols x k): R[c][r] = sum_j A[j][r] B[c][j]
      AGX_CHECK(operands(2));
      unsigned ak, rows, cols, bk;
      AGX_TRY(auto a, data(w[2]));
      AGX_TRY(auto bm, data(w[3]));
      AGX_CHECK(shape(vals_[w[2]].type, ak, rows));
      AGX_CHECK(shape(vals_[w[3]].type, cols, bk));
      if (ak != bk || a.size() != ak * rows || bm.size() != cols * bk) return unsupported(in, "OpMatrixTimesMatrix operand shapes");
      out.c = matrix_times_matrix(a, bm, ak, rows, cols, dot);
      break;
    }
    case SpvOp::OpOuterProduct: {
      // x (rows) outer y (cols): R[c][r] = x[r] y[c]
      AGX_CHECK(operands(2));
      AGX_TRY(auto x, data(w[2]));
      AGX_TRY(auto y, data(w[3]));
      for (const Src& yc : y)
        for (const Src& xr : x) out.c.push_back(fmul(xr, yc));
      break;
    }
    default:
      handled = false;
      return {};
  }
  out.type = w[0];
  if (out.c.size() != flat_count(w[0])) return unsupported(in, "matrix instruction result shape");
  vals_[w[1]] = std::move(out);
  return {};
}

// GLSL.std.450 Determinant and MatrixInverse of 2x2, 3x3, 4x4 matrices:
// cofactor expansion; the inverse is the adjugate times 1 / determinant
// (the inverse of a singular matrix is undefined in GLSL).
Status Translator::matrix_ext(const spirv::Inst& in) {
  const auto& w = in.w;
  if (w.size() < 5) return unsupported(in, "GLSL.std.450 operand count");
  AGX_TRY(auto mv, get(w[4], in));
  uint32_t mt = mv->type;
  if (type(mt).kind != Kind::matrix || mv->kind != TVal::Kind::data) return unsupported(in, "determinant/inverse of a non-matrix");
  unsigned n = type(mt).count;
  if (matrix_rows(mt) != n) return unsupported(in, "determinant/inverse of a non-square matrix");
  if (type(scalar_type(type(mt).elem)).width == 16) return unsupported(in, "determinant/inverse of 16-bit float matrices");
  if (type(scalar_type(type(mt).elem)).width != 32) return unsupported(in, "matrices of 64-bit floats (dmat) are not supported");
  const std::vector<Src> m = mv->c;
  if (m.size() != n * n) return unsupported(in, "matrix operand shape");
  FloatArith ar(b_);
  Src det = cofactor_determinant(ar, m, n);
  TVal out = TVal::data(w[0]);
  if (static_cast<GLSLstd450>(w[3]) == GLSLstd450Determinant)
    out.c.push_back(det);
  else
    out.c = cofactor_inverse(ar, m, n, det);
  vals_[w[1]] = std::move(out);
  return {};
}

}  // namespace agx::compiler::detail
