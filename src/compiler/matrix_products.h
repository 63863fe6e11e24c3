// The products of SPIR-V's matrix instructions (specification 3.32.13) on
// column-major scalars (column c, row r at c * rows + r), for any scalar
// type: translate_matrix.cpp runs them on float IR values,
// translate_fp64_matrix.cpp on doubles. `dot(x, y)` is sum_j x[j] y[j]
// built in the caller's arithmetic; the operands' shapes are checked by the
// caller.
#pragma once

#include <vector>

namespace agx::compiler::detail {

// v (rows) * M (cols x rows): dot(v, M[c]) for each column c.
template <typename T, typename Dot>
std::vector<T> vector_times_matrix(const std::vector<T>& v, const std::vector<T>& m, unsigned cols, unsigned rows,
                                   Dot dot) {
  std::vector<T> out;
  for (unsigned c = 0; c < cols; ++c) out.push_back(dot(v, std::vector<T>(m.begin() + c * rows, m.begin() + (c + 1) * rows)));
  return out;
}

// M (cols x rows) * v (cols): dot(row r of M, v) for each row r.
template <typename T, typename Dot>
std::vector<T> matrix_times_vector(const std::vector<T>& m, const std::vector<T>& v, unsigned cols, unsigned rows,
                                   Dot dot) {
  std::vector<T> out;
  for (unsigned r = 0; r < rows; ++r) {
    std::vector<T> row;
    for (unsigned c = 0; c < cols; ++c) row.push_back(m[c * rows + r]);
    out.push_back(dot(row, v));
  }
  return out;
}

// A (k x rows) * B (cols x k): R[c][r] = dot(row r of A, B[c]).
template <typename T, typename Dot>
std::vector<T> matrix_times_matrix(const std::vector<T>& a, const std::vector<T>& b, unsigned k, unsigned rows,
                                   unsigned cols, Dot dot) {
  std::vector<T> out;
  for (unsigned c = 0; c < cols; ++c)
    for (unsigned r = 0; r < rows; ++r) {
      std::vector<T> row;
      for (unsigned j = 0; j < k; ++j) row.push_back(a[j * rows + r]);
      out.push_back(dot(row, std::vector<T>(b.begin() + c * k, b.begin() + (c + 1) * k)));
    }
  return out;
}

}  // namespace agx::compiler::detail
