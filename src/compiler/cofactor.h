// Determinant and inverse of a square matrix by cofactor expansion, for any
// scalar arithmetic: translate_matrix.cpp runs it on float IR values,
// translate_fp64_matrix.cpp on the fp64 sequences (fp64_lowering.h). A
// matrix is its scalars column after column (c * rows + r). `Arith` gives
//   T mul(T a, T b);                          a b
//   T neg(T a);                               -a
//   T recip(T a);                             1 / a
//   T diff_of_products(T a, T b, T c, T d);   a b - c d
//   T add_product(T acc, T a, T b, bool sub); acc + a b, or acc - a b
// Repeated minors come out as equal instruction sequences that CSE merges.
#pragma once

#include <cstddef>
#include <vector>

namespace agx::compiler::detail {

// The determinant of the square sub-matrix of m (`rows` rows) on rows rs and
// columns cs, expanded along its first row.
template <typename Arith, typename T>
T cofactor_minor(Arith& ar, const std::vector<T>& m, unsigned rows, const std::vector<unsigned>& rs,
                 const std::vector<unsigned>& cs) {
  auto at = [&](unsigned r, unsigned c) { return m[c * rows + r]; };
  if (rs.size() == 1) return at(rs[0], cs[0]);
  if (rs.size() == 2) return ar.diff_of_products(at(rs[0], cs[0]), at(rs[1], cs[1]), at(rs[1], cs[0]), at(rs[0], cs[1]));
  std::vector<unsigned> sub_rows(rs.begin() + 1, rs.end());
  T acc{};
  for (std::size_t k = 0; k < cs.size(); ++k) {
    std::vector<unsigned> sub_cols;
    for (std::size_t j = 0; j < cs.size(); ++j)
      if (j != k) sub_cols.push_back(cs[j]);
    T d = cofactor_minor(ar, m, rows, sub_rows, sub_cols);
    acc = k == 0 ? ar.mul(at(rs[0], cs[k]), d) : ar.add_product(acc, at(rs[0], cs[k]), d, k % 2 != 0);
  }
  return acc;
}

// The determinant of the n x n matrix m.
template <typename Arith, typename T>
T cofactor_determinant(Arith& ar, const std::vector<T>& m, unsigned n) {
  std::vector<unsigned> all(n);
  for (unsigned i = 0; i < n; ++i) all[i] = i;
  return cofactor_minor(ar, m, n, all, all);
}

// The inverse of the n x n matrix m whose determinant is det: the adjugate
// times 1 / det, inverse[c][r] = (-1)^(r+c) det(m without row c, column r) / det.
template <typename Arith, typename T>
std::vector<T> cofactor_inverse(Arith& ar, const std::vector<T>& m, unsigned n, T det) {
  T inv_det = ar.recip(det);
  std::vector<T> out;
  for (unsigned c = 0; c < n; ++c)
    for (unsigned r = 0; r < n; ++r) {
      std::vector<unsigned> rs, cs;
      for (unsigned i = 0; i < n; ++i) {
        if (i != c) rs.push_back(i);
        if (i != r) cs.push_back(i);
      }
      T cof = cofactor_minor(ar, m, n, rs, cs);
      if ((r + c) % 2) cof = ar.neg(cof);
      out.push_back(ar.mul(cof, inv_det));
    }
  return out;
}

}  // namespace agx::compiler::detail
