// Matrices of doubles (dmat*) -> IR: the products of translate_matrix.cpp
// with the fp64 sequences (fp64_lowering.h) for the scalar arithmetic. A
// matrix value is its scalars column after column (c * rows + r).
#include <spirv/unified1/GLSL.std.450.h>

#include "compiler/cofactor.h"
#include "compiler/matrix_products.h"
#include "compiler/fp64_lowering.h"
#include "compiler/translate.h"

namespace agx::compiler::detail {

using Kind = spirv::Type::Kind;

namespace {

// Double arithmetic for cofactor.h: the fp64 sequences, one division for
// the reciprocal.
class DoubleArith {
 public:
  explicit DoubleArith(Fp64& fp) : fp_(fp) {}
  Pair mul(Pair a, Pair c) { return fp_.mul(a, c); }
  Pair neg(Pair a) { return fp_.neg(a); }
  Pair recip(Pair a) { return fp_.div(Fp64::constant(1.0), a); }
  Pair diff_of_products(Pair a, Pair b, Pair c, Pair d) {
    Pair ab = fp_.mul(a, b);
    Pair cd = fp_.mul(c, d);
    return fp_.sub(ab, cd);
  }
  Pair add_product(Pair acc, Pair a, Pair b, bool sub) {
    Pair t = fp_.mul(a, b);
    return sub ? fp_.sub(acc, t) : fp_.add(acc, t);
  }

 private:
  Fp64& fp_;
};

}  // namespace

// GLSL.std.450 Determinant and MatrixInverse of dmat2/3/4: cofactor
// expansion, the inverse the adjugate times 1 / det (one division).
Status Translator::fp64_matrix_ext(const spirv::Inst& in) {
  const auto& w = in.w;
  AGX_CHECK(glsl_arity(in, w.size() - 4, 1));
  AGX_TRY(auto mv, get(w[4], in));
  uint32_t mt = mv->type;
  if (type(mt).kind != Kind::matrix || mv->kind != TVal::Kind::data) return unsupported(in, "determinant/inverse of a non-matrix");
  unsigned n = type(mt).count;
  if (matrix_rows(mt) != n || mv->c.size() != n * n) return unsupported(in, "determinant/inverse of a non-square matrix");
  Int64 x(b_);
  Fp64 fp(x);
  std::vector<Pair> m;
  for (const Src& s : mv->c) m.push_back({lo32(s), hi32(s)});
  DoubleArith ar(fp);
  Pair det = cofactor_determinant(ar, m, n);
  TVal out = TVal::data(w[0]);
  if (w[3] == GLSLstd450Determinant) {
    out.c.push_back(pack64(det.lo, det.hi));
  } else {
    for (const Pair& v : cofactor_inverse(ar, m, n, det)) out.c.push_back(pack64(v.lo, v.hi));
  }
  vals_[w[1]] = std::move(out);
  return {};
}

Status Translator::fp64_matrix(const spirv::Inst& in) {
  const auto& w = in.w;
  Int64 x(b_);
  Fp64 fp(x);
  auto operands = [&](size_t k) -> Status {
    if (w.size() < 2 + k) return Error::decode("{}: SPIR-V word {}: too few operands", o_.file_name, in.word_offset);
    return {};
  };
  auto data = [&](uint32_t id) -> Result<std::vector<Pair>> {
    AGX_TRY(auto v, get(id, in));
    if (v->kind != TVal::Kind::data || v->cmp) return unsupported(in, "matrix operand is not a double value");
    std::vector<Pair> out;
    for (const Src& s : v->c) out.push_back({lo32(s), hi32(s)});
    return out;
  };
  auto shape = [&](uint32_t id, unsigned& cols, unsigned& rows) -> Status {
    uint32_t t = vals_[id].type;
    if (type(t).kind != Kind::matrix) return unsupported(in, "matrix instruction on a non-matrix type");
    cols = type(t).count;
    rows = matrix_rows(t);
    return {};
  };
  // The two operands of OpVectorTimesMatrix (matrix word 3) and
  // OpMatrixTimesVector (matrix word 2) and the matrix's shape.
  auto vector_and_matrix = [&](size_t matrix_word, std::vector<Pair>& v, std::vector<Pair>& m, unsigned& cols,
                               unsigned& rows) -> Status {
    AGX_CHECK(operands(2));
    AGX_TRY(auto first, data(w[2]));
    AGX_TRY(auto second, data(w[3]));
    v = std::move(matrix_word == 3 ? first : second);
    m = std::move(matrix_word == 3 ? second : first);
    return shape(w[matrix_word], cols, rows);
  };
  // sum_j a[j] * b[j]
  auto dot = [&](const std::vector<Pair>& a, const std::vector<Pair>& b) { return fp64_dot(fp, a, b); };
  TVal out = TVal::data(w[0]);
  auto push = [&](Pair p) { out.c.push_back(pack64(p.lo, p.hi)); };
  switch (in.op) {
    case SpvOp::OpTranspose: {
      AGX_CHECK(operands(1));
      unsigned cols, rows;
      AGX_TRY(auto m, data(w[2]));
      AGX_CHECK(shape(w[2], cols, rows));
      if (m.size() != cols * rows) return unsupported(in, "OpTranspose operand shape");
      for (unsigned r = 0; r < rows; ++r)
        for (unsigned c = 0; c < cols; ++c) push(m[c * rows + r]);
      break;
    }
    case SpvOp::OpMatrixTimesScalar: {
      AGX_CHECK(operands(2));
      AGX_TRY(auto m, data(w[2]));
      AGX_TRY(auto k, dpair(w[3], in, 0));
      for (const Pair& p : m) push(fp.mul(p, k));
      break;
    }
    case SpvOp::OpVectorTimesMatrix: {
      unsigned cols, rows;
      std::vector<Pair> v, m;
      AGX_CHECK(vector_and_matrix(3, v, m, cols, rows));
      if (v.size() != rows || m.size() != cols * rows) return unsupported(in, "OpVectorTimesMatrix operand shapes");
      for (const Pair& p : vector_times_matrix(v, m, cols, rows, dot)) push(p);
      break;
    }
    case SpvOp::OpMatrixTimesVector: {
      unsigned cols, rows;
      std::vector<Pair> v, m;
      AGX_CHECK(vector_and_matrix(2, v, m, cols, rows));
      if (v.size() != cols || m.size() != cols * rows) return unsupported(in, "OpMatrixTimesVector operand shapes");
      for (const Pair& p : matrix_times_vector(m, v, cols, rows, dot)) push(p);
      break;
    }
    case SpvOp::OpMatrixTimesMatrix: {
      // A (k x rows) * B (cols x k): R[c][r] = sum_j A[j][r] B[c][j]
      AGX_CHECK(operands(2));
      unsigned ak, rows, cols, bk;
      AGX_TRY(auto a, data(w[2]));
      AGX_TRY(auto b, data(w[3]));
      AGX_CHECK(shape(w[2], ak, rows));
      AGX_CHECK(shape(w[3], cols, bk));
      if (ak != bk || a.size() != ak * rows || b.size() != cols * bk) return unsupported(in, "OpMatrixTimesMatrix operand shapes");
      for (const Pair& p : matrix_times_matrix(a, b, ak, rows, cols, dot)) push(p);
      break;
    }
    case SpvOp::OpOuterProduct: {
      // c (rows) x r (cols): R[j][i] = c[i] r[j]
      AGX_CHECK(operands(2));
      AGX_TRY(auto c, data(w[2]));
      AGX_TRY(auto r, data(w[3]));
      for (const Pair& rj : r)
        for (const Pair& ci : c) push(fp.mul(ci, rj));
      break;
    }
    default: return unsupported(in, "matrix operation on doubles");
  }
  vals_[w[1]] = std::move(out);
  return {};
}

}  // namespace agx::compiler::detail
