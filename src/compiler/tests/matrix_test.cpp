// Matrices and bool uniforms: GLSL compute kernels run on the usc emulator
// against the same arithmetic done in double in C++ (inverses by
// Gauss-Jordan elimination, determinants by LU, not the compiler's
// cofactor expansion).
#include <algorithm>
#include <bit>
#include <cmath>
#include <random>

#include "compiler/spirv_module.h"
#include "compiler/tests/buffer_words.h"
#include "compiler/tests/run_helpers.h"
#include "compiler/tests/mutation_rounds.h"

namespace agx::compiler::test {
namespace AGX_UNITY_ID {

// A column-major matrix in double: cols x rows, element (c, r).
struct Mat {
  unsigned cols = 0, rows = 0;
  std::vector<double> v;
  Mat(unsigned c, unsigned r) : cols(c), rows(r), v(c * r) {}
  double& at(unsigned c, unsigned r) { return v[c * rows + r]; }
  double at(unsigned c, unsigned r) const { return v[c * rows + r]; }
};

Mat mul(const Mat& a, const Mat& b) {  // a: k cols x rows, b: cols x k
  Mat out(b.cols, a.rows);
  for (unsigned c = 0; c < b.cols; ++c)
    for (unsigned r = 0; r < a.rows; ++r)
      for (unsigned j = 0; j < a.cols; ++j) out.at(c, r) += a.at(j, r) * b.at(c, j);
  return out;
}
Mat transpose(const Mat& a) {
  Mat out(a.rows, a.cols);
  for (unsigned c = 0; c < a.cols; ++c)
    for (unsigned r = 0; r < a.rows; ++r) out.at(r, c) = a.at(c, r);
  return out;
}
Mat from_floats(unsigned cols, unsigned rows, const float* f) {
  Mat m(cols, rows);
  for (unsigned i = 0; i < cols * rows; ++i) m.v[i] = f[i];
  return m;
}

// Gauss-Jordan with partial pivoting; the determinant is the product of
// the pivots with the sign of the row swaps.
Mat inverse(const Mat& a, double* det) {
  unsigned n = a.cols;
  Mat m = a, inv(n, n);
  for (unsigned i = 0; i < n; ++i) inv.at(i, i) = 1;
  double d = 1;
  for (unsigned col = 0; col < n; ++col) {
    unsigned p = col;
    for (unsigned r = col + 1; r < n; ++r)
      if (std::fabs(m.at(col, r)) > std::fabs(m.at(col, p))) p = r;
    if (p != col) {
      d = -d;
      for (unsigned c = 0; c < n; ++c) {
        std::swap(m.at(c, p), m.at(c, col));
        std::swap(inv.at(c, p), inv.at(c, col));
      }
    }
    double piv = m.at(col, col);
    d *= piv;
    for (unsigned c = 0; c < n; ++c) {
      m.at(c, col) /= piv;
      inv.at(c, col) /= piv;
    }
    for (unsigned r = 0; r < n; ++r) {
      if (r == col) continue;
      double f = m.at(col, r);
      for (unsigned c = 0; c < n; ++c) {
        m.at(c, r) -= f * m.at(c, col);
        inv.at(c, r) -= f * inv.at(c, col);
      }
    }
  }
  *det = d;
  return inv;
}

TEST(Matrix, LooseUniformMatrixArithmetic) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 16) in;
layout(location = 0) uniform mat2x3 a;
layout(location = 1) uniform mat3x2 b;
layout(location = 2) uniform float s;
layout(location = 3) uniform vec3 v;
layout(std430, binding = 0) buffer X { float x[]; };
layout(std430, binding = 1) buffer O { float o[]; };
void put(inout uint k, float f) { o[k] = f; k++; }
void put(inout uint k, vec2 f) { put(k, f.x); put(k, f.y); }
void put(inout uint k, vec3 f) { put(k, f.x); put(k, f.y); put(k, f.z); }
void put(inout uint k, mat2 m) { put(k, m[0]); put(k, m[1]); }
void put(inout uint k, mat2x3 m) { put(k, m[0]); put(k, m[1]); }
void put(inout uint k, mat3x2 m) { put(k, m[0]); put(k, m[1]); put(k, m[2]); }
void put(inout uint k, mat3 m) { put(k, m[0]); put(k, m[1]); put(k, m[2]); }
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint k = i * 48u;
  float xi = x[i];
  mat2x3 A = a * xi;
  put(k, A * b);
  put(k, transpose(A));
  put(k, v * A);
  put(k, A * vec2(xi, 1.0));
  put(k, outerProduct(v, vec2(xi, s)));
  put(k, matrixCompMult(A, a));
  put(k, -A + a / s);
  put(k, A == a ? 1.0 : 0.0);
  put(k, A != a ? 1.0 : 0.0);
  put(k, (b * xi) * A);
})", TargetEnv::opengl);
  ASSERT_FALSE(s.code.empty());
  // Loose uniforms in location order, a matrix's columns packed.
  ASSERT_EQ(s.abi.loose_uniforms.size(), 4u);
  uint32_t p = s.abi.push_constants_uniform;
  EXPECT_EQ(s.abi.loose_uniforms[0].uniform, p);
  EXPECT_EQ(s.abi.loose_uniforms[0].size_B, 24u);
  EXPECT_EQ(s.abi.loose_uniforms[1].uniform, p + 6);
  EXPECT_EQ(s.abi.loose_uniforms[2].uniform, p + 12);
  EXPECT_EQ(s.abi.loose_uniforms[3].uniform, p + 13);
  const float fa[6] = {-0.46f, -0.45f, 1.03f, 1.94f, -0.75f, -0.5f};
  const float fb[6] = {0.09f, -1.19f, 1.3f, 0.08f, 1.25f, 1.08f};
  const float fs = 1.75f, fv[3] = {0.5f, -2.0f, 3.25f};
  Job r;
  for (float f : fa) r.push.push_back(fbits(f));
  for (float f : fb) r.push.push_back(fbits(f));
  r.push.push_back(fbits(fs));
  for (float f : fv) r.push.push_back(fbits(f));
  std::vector<uint32_t> x(16);
  for (unsigned i = 0; i < 16; ++i) x[i] = fbits(0.5f + 0.25f * float(i));  // x[2] = 1: A == a
  r.buffers = {x, std::vector<uint32_t>(16 * 48)};
  ASSERT_OK(execute(s, r));
  Mat ma = from_floats(2, 3, fa), mb = from_floats(3, 2, fb);
  for (unsigned i = 0; i < 16; ++i) {
    double xi = bitsf(x[i]);
    std::vector<double> want;
    auto put = [&](const Mat& m) { want.insert(want.end(), m.v.begin(), m.v.end()); };
    Mat A = ma;
    for (double& e : A.v) e = float(e * xi);
    put(mul(A, mb));
    put(transpose(A));
    Mat vrow(3, 1);
    for (unsigned j = 0; j < 3; ++j) vrow.v[j] = fv[j];
    put(mul(vrow, A));  // v * A: a row vector times A
    Mat col(1, 2);
    col.v = {xi, 1.0};
    put(mul(A, col));
    Mat outer(2, 3);
    for (unsigned c = 0; c < 2; ++c)
      for (unsigned rr = 0; rr < 3; ++rr) outer.at(c, rr) = fv[rr] * (c == 0 ? xi : fs);
    put(outer);
    Mat cm = A;
    for (unsigned j = 0; j < 6; ++j) cm.v[j] = A.v[j] * ma.v[j];
    put(cm);
    Mat ar = A;
    for (unsigned j = 0; j < 6; ++j) ar.v[j] = -A.v[j] + ma.v[j] / fs;
    put(ar);
    bool eq = A.v == ma.v;
    want.push_back(eq ? 1 : 0);
    want.push_back(eq ? 0 : 1);
    Mat bx = mb;
    for (double& e : bx.v) e = float(e * xi);
    put(mul(bx, A));
    ASSERT_EQ(want.size(), 44u);
    for (unsigned j = 0; j < want.size(); ++j)
      EXPECT_NEAR(bitsf(r.buffers[1][i * 48 + j]), want[j], 2e-5 * (1 + std::fabs(want[j]))) << "invocation " << i << " value " << j;
    EXPECT_EQ(eq, i == 2) << i;
  }
}

TEST(Matrix, DeterminantAndInverseOfBufferMatrices) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 8) in;
layout(std430, binding = 0) buffer In { mat2 m2[8]; mat3 m3[8]; mat4 m4[8]; };
layout(std430, binding = 1) buffer Out { mat2 i2[8]; mat3 i3[8]; mat4 i4[8]; vec4 d[8]; };
void main() {
  uint i = gl_LocalInvocationIndex;
  i2[i] = inverse(m2[i]);
  i3[i] = inverse(m3[i]);
  i4[i] = inverse(m4[i]);
  d[i] = vec4(determinant(m2[i]), determinant(m3[i]), determinant(m4[i]), 0.0);
})");
  ASSERT_FALSE(s.code.empty());
  // std430: mat2 columns 8 bytes apart, mat3 and mat4 columns 16.
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<uint32_t> in(1024 / 4);
  std::vector<Mat> mats[3];
  const unsigned base_B[3] = {0, 128, 512}, size_B[3] = {16, 48, 64}, col_B[3] = {8, 16, 16};
  for (unsigned n = 2; n <= 4; ++n)
    for (unsigned i = 0; i < 8; ++i) {
      Mat m(n, n);
      for (unsigned c = 0; c < n; ++c)
        for (unsigned r = 0; r < n; ++r) {
          float f = dist(rng) + (c == r ? 3.0f : 0.0f);  // well conditioned
          m.at(c, r) = f;
          in[(base_B[n - 2] + i * size_B[n - 2] + c * col_B[n - 2] + r * 4) / 4] = fbits(f);
        }
      mats[n - 2].push_back(m);
    }
  Job r;
  r.buffers = {in, std::vector<uint32_t>(1152 / 4)};
  ASSERT_OK(execute(s, r));
  for (unsigned n = 2; n <= 4; ++n)
    for (unsigned i = 0; i < 8; ++i) {
      double det = 0;
      Mat inv = inverse(mats[n - 2][i], &det);
      for (unsigned c = 0; c < n; ++c)
        for (unsigned rr = 0; rr < n; ++rr) {
          float got = bitsf(r.buffers[1][(base_B[n - 2] + i * size_B[n - 2] + c * col_B[n - 2] + rr * 4) / 4]);
          EXPECT_NEAR(got, inv.at(c, rr), 1e-5 * (1 + std::fabs(inv.at(c, rr)))) << n << "x" << n << " #" << i << " (" << c << "," << rr << ")";
        }
      float got_det = bitsf(r.buffers[1][(1024 + i * 16 + (n - 2) * 4) / 4]);
      EXPECT_NEAR(got_det, det, 1e-5 * (1 + std::fabs(det))) << n << "x" << n << " #" << i;
    }
}

TEST(Matrix, RowMajorStd140AndDynamicColumns) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 4) in;
layout(std140, binding = 0) uniform U { layout(row_major) mat3 rm; mat2x3 cm; };
layout(std430, binding = 1) buffer O { layout(row_major) mat3x2 orm; mat3x2 ocm; vec4 col[4]; float e[4]; };
void main() {
  uint i = gl_LocalInvocationIndex;
  mat3 p = rm * mat3(cm[0], cm[1], vec3(1.0));
  if (i == 0u) { orm = mat3x2(p); ocm = transpose(cm); }
  col[i] = vec4(rm[i % 3u], cm[i & 1u].y);
  e[i] = rm[i % 3u][2];
})");
  ASSERT_FALSE(s.code.empty());
  // std140: rm's rows 16 bytes apart from 0; cm's columns 16 apart from 48.
  Mat rm(3, 3), cm(2, 3);
  std::vector<uint32_t> u(20);
  for (unsigned c = 0; c < 3; ++c)
    for (unsigned r = 0; r < 3; ++r) {
      float f = float(c * 3 + r + 1) * (r == 1 ? -0.5f : 1.0f);
      rm.at(c, r) = f;
      u[r * 4 + c] = fbits(f);  // row r, column c
    }
  for (unsigned c = 0; c < 2; ++c)
    for (unsigned r = 0; r < 3; ++r) {
      float f = 0.25f * float(c * 3 + r) - 1.0f;
      cm.at(c, r) = f;
      u[12 + c * 4 + r] = fbits(f);
    }
  Job r;
  r.buffers = {std::vector<uint32_t>(36), u};  // storage buffers come first in the ABI
  ASSERT_EQ(s.abi.resources.size(), 2u);
  ASSERT_EQ(s.abi.resources[0].kind, Resource::Kind::storage_buffer);
  ASSERT_OK(execute(s, r));
  const auto& o = r.buffers[0];
  Mat full(3, 3);
  for (unsigned c = 0; c < 3; ++c)
    for (unsigned rr = 0; rr < 3; ++rr) full.at(c, rr) = c < 2 ? cm.at(c, rr) : 1.0;
  Mat p = mul(rm, full);
  // orm: row-major mat3x2, rows (vec3) 16 bytes apart from 0; ocm: mat3x2
  // columns (vec2) 8 apart from 32; col[] from 64; e[] from 128.
  for (unsigned c = 0; c < 3; ++c)
    for (unsigned rr = 0; rr < 2; ++rr) {
      EXPECT_NEAR(bitsf(o[rr * 4 + c]), p.at(c, rr), 1e-5 * (1 + std::fabs(p.at(c, rr)))) << c << "," << rr;
      EXPECT_EQ(bitsf(o[8 + c * 2 + rr]), float(cm.at(rr, c))) << c << "," << rr;
    }
  for (unsigned i = 0; i < 4; ++i) {
    for (unsigned rr = 0; rr < 3; ++rr) EXPECT_EQ(bitsf(o[16 + i * 4 + rr]), float(rm.at(i % 3, rr))) << i;
    EXPECT_EQ(bitsf(o[16 + i * 4 + 3]), float(cm.at(i & 1, 1))) << i;
    EXPECT_EQ(bitsf(o[32 + i]), float(rm.at(i % 3, 2))) << i;
  }
}

TEST(Matrix, BoolUniformsAndMatrixSelect) {
  // glslang declares these as bool UniformConstant variables, which SPIR-V
  // forbids; the front end makes them 32-bit (nonzero is true).
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 4) in;
layout(location = 0) uniform bool b;
layout(location = 1) uniform bvec3 bv;
layout(location = 2) uniform mat2 m1;
layout(location = 3) uniform mat2 m2;
layout(std430, binding = 0) buffer O { vec4 o[]; };
void main() {
  uint i = gl_LocalInvocationIndex;
  mat2 m = b ? m1 : m2;
  if (bv.y && i < 2u) m = m * 2.0;
  o[i * 2u] = vec4(m[0], m[1]);
  o[i * 2u + 1u] = vec4(any(bv), all(bv), bv.x, b == bv.z);
})", TargetEnv::opengl);
  ASSERT_FALSE(s.code.empty());
  ASSERT_EQ(s.abi.loose_uniforms.size(), 4u);
  EXPECT_EQ(s.abi.loose_uniforms[1].size_B, 12u);
  EXPECT_EQ(s.abi.loose_uniforms[2].uniform, s.abi.push_constants_uniform + 4);
  const float f1[4] = {1, 2, 3, 4}, f2[4] = {-1, -2, -3, -4};
  struct Case { uint32_t b, bv[3]; };
  for (Case c : {Case{0, {0, 7, 1}}, Case{3, {1, 1, 1}}, Case{1, {0, 0, 0}}}) {
    Job r;
    r.push = {c.b, c.bv[0], c.bv[1], c.bv[2]};
    for (float f : f1) r.push.push_back(fbits(f));
    for (float f : f2) r.push.push_back(fbits(f));
    r.buffers = {std::vector<uint32_t>(32)};
    ASSERT_OK(execute(s, r));
    bool b = c.b, bv[3] = {c.bv[0] != 0, c.bv[1] != 0, c.bv[2] != 0};
    for (unsigned i = 0; i < 4; ++i) {
      for (unsigned j = 0; j < 4; ++j) {
        float want = (b ? f1 : f2)[j] * (bv[1] && i < 2 ? 2.0f : 1.0f);
        EXPECT_EQ(bitsf(r.buffers[0][i * 8 + j]), want) << c.b << " " << i << " " << j;
      }
      float flags[4] = {float(bv[0] || bv[1] || bv[2]), float(bv[0] && bv[1] && bv[2]), float(bv[0]), float(b == bv[2])};
      for (unsigned j = 0; j < 4; ++j) EXPECT_EQ(bitsf(r.buffers[0][i * 8 + 4 + j]), flags[j]) << c.b << " " << i << " " << j;
    }
  }
}

TEST(Matrix, SharedMemoryMatrices) {
  Shader s = must_compile(R"(#version 450
layout(local_size_x = 4) in;
shared mat3 sm[4];
layout(std430, binding = 0) buffer O { vec4 o[]; };
void main() {
  uint i = gl_LocalInvocationIndex;
  sm[i] = mat3(float(i) + 1.0) + outerProduct(vec3(1.0, 2.0, 3.0), vec3(float(i), 0.5, -1.0));
  barrier();
  mat3 m = sm[3u - i];
  o[i] = vec4(m * vec3(1.0, 2.0, 3.0), sm[i][2][i % 3u]);
})");
  ASSERT_FALSE(s.code.empty());
  Job r;
  r.buffers = {std::vector<uint32_t>(16)};
  ASSERT_OK(execute(s, r));
  auto sm = [](unsigned i) {
    Mat m(3, 3);
    const double y[3] = {double(i), 0.5, -1.0};
    for (unsigned c = 0; c < 3; ++c)
      for (unsigned rr = 0; rr < 3; ++rr) m.at(c, rr) = (c == rr ? i + 1.0 : 0.0) + (rr + 1.0) * y[c];
    return m;
  };
  for (unsigned i = 0; i < 4; ++i) {
    Mat v(1, 3);
    v.v = {1, 2, 3};
    Mat mv = mul(sm(3 - i), v);
    for (unsigned rr = 0; rr < 3; ++rr) EXPECT_NEAR(bitsf(r.buffers[0][i * 4 + rr]), mv.v[rr], 1e-5) << i;
    EXPECT_NEAR(bitsf(r.buffers[0][i * 4 + 3]), sm(i).at(2, i % 3), 1e-6) << i;
  }
}

constexpr const char* kBoolMatrixGlsl = R"(#version 450
layout(local_size_x = 4) in;
layout(location = 0) uniform bool b;
layout(location = 1) uniform bvec3 bv;
layout(location = 2) uniform mat3 m;
layout(location = 3) uniform mat2x3 n;
layout(std430, binding = 0) buffer O { layout(row_major) mat3 r; vec4 o[]; };
void main() {
  mat3 x = b ? m : inverse(m);
  if (bv.y) x = x * transpose(r);
  o[gl_LocalInvocationIndex] = vec4(x * vec3(1.0), determinant(x)) + vec4(n * vec2(2.0), float(any(bv)));
  r = outerProduct(vec3(1.0), vec3(2.0)) * x;
})";

TEST(Matrix, BoolUniformWideningLeavesOtherModulesAlone) {
  Options o;
  o.env = TargetEnv::opengl;
  auto plain = glsl_to_spirv("#version 450\nlayout(local_size_x = 1) in;\nlayout(location = 0) uniform uint u;\n"
                             "layout(std430, binding = 0) buffer O { uint v; };\nvoid main() { v = u; }\n", o);
  ASSERT_TRUE(plain.ok());
  auto same = spirv::widen_bool_uniforms(*plain);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(*same, *plain);
  auto words = glsl_to_spirv(kBoolMatrixGlsl, o);
  ASSERT_TRUE(words.ok());
  auto wide = spirv::widen_bool_uniforms(*words);
  ASSERT_TRUE(wide.ok());
  EXPECT_NE(*wide, *words);
  EXPECT_GT((*wide)[3], (*words)[3]);  // new ids for uint types, pointers, zeros, loads
  // A truncated instruction is an error naming the word.
  std::vector<uint32_t> cut(words->begin(), words->begin() + 40);
  cut.back() = (50u << 16) | cut.back();
  auto bad = spirv::widen_bool_uniforms(cut);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("runs past the end"), std::string::npos) << bad.error().message();
  // No UniformConstant variable of a bool type is left.
  auto count_bool_vars = [](const std::vector<uint32_t>& w) {
    std::vector<uint32_t> bools, ptrs;
    int n = 0;
    for (size_t pos = 5; pos < w.size() && (w[pos] >> 16); pos += w[pos] >> 16) {
      auto op = static_cast<spv::Op>(w[pos] & 0xFFFF);
      if (op == spv::Op::OpTypeBool) bools.push_back(w[pos + 1]);
      if (op == spv::Op::OpTypeVector && std::find(bools.begin(), bools.end(), w[pos + 2]) != bools.end()) bools.push_back(w[pos + 1]);
      if (op == spv::Op::OpTypePointer && w[pos + 2] == uint32_t(spv::StorageClass::UniformConstant) &&
          std::find(bools.begin(), bools.end(), w[pos + 3]) != bools.end())
        ptrs.push_back(w[pos + 1]);
      if (op == spv::Op::OpVariable && std::find(ptrs.begin(), ptrs.end(), w[pos + 1]) != ptrs.end()) ++n;
    }
    return n;
  };
  EXPECT_EQ(count_bool_vars(*words), 2);  // b, bv
  EXPECT_EQ(count_bool_vars(*wide), 0);
}

// (Structs with dmat members copy whole: struct_copy_test.cpp; loose
// matrices indexed at run time: loose_uniform_index_test.cpp.)

TEST(Matrix, MutatedBoolAndMatrixModulesGiveShadersOrErrors) {
  Options o;
  o.env = TargetEnv::opengl;
  auto words = glsl_to_spirv(kBoolMatrixGlsl, o);
  ASSERT_TRUE(words.ok());
  ASSERT_TRUE(compile_spirv(*words, o).ok());
  std::mt19937 rng(99);
  auto widen = [](std::vector<uint32_t>& w) { (void)spirv::widen_bool_uniforms(w); };
  EXPECT_GT(mutation_rounds(*words, o, 150, rng, widen).errors, 0u);
}

}  // namespace
}  // namespace agx::compiler::test
