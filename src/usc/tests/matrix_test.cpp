// simd_matrix_fmadd16/32 (derived semantics, see src/usc/matrix.cpp). The
// reference places elements with the lane diagram of Metal's simdgroup_matrix
// as printed in philipturner/metal-flash-attention GEMMHeaders.swift (a
// literal table here, independent of the emulator's formula): lane
// kLaneAt[row][col] holds (row, col) as element col & 1 of its pair.
#include <bit>
#include <cmath>

#include "helpers.h"

namespace agx::usc::test {
namespace AGX_UNITY_ID {

using isa::Opcode;

constexpr uint8_t kLaneAt[8][8] = {
    {0, 0, 1, 1, 8, 8, 9, 9},         {2, 2, 3, 3, 10, 10, 11, 11},
    {4, 4, 5, 5, 12, 12, 13, 13},     {6, 6, 7, 7, 14, 14, 15, 15},
    {16, 16, 17, 17, 24, 24, 25, 25}, {18, 18, 19, 19, 26, 26, 27, 27},
    {20, 20, 21, 21, 28, 28, 29, 29}, {22, 22, 23, 23, 30, 30, 31, 31},
};

using Mat = double[8][8];

// Operand of a test instruction: a 32-bit pair rN_rN+1, or a 16-bit pair
// (the two halves of rN).
struct Pair {
  unsigned reg;
  bool h16;
};

std::vector<uint8_t> matrix_op(bool f32_acc, Pair d, Pair a, Pair b, Pair c, Fields mods = {}) {
  auto t = [](Pair p) { return p.h16 ? 0b0001u : 0b1001u; };
  std::vector<std::pair<std::string_view, uint32_t>> f = {
      {"Dt", d.h16 ? 0u : 2u}, {"D", d.reg * 2}, {"At", t(a)}, {"A", a.reg * 2}, {"Bt", t(b)},
      {"B", b.reg * 2},        {"Ct", t(c)},     {"C", c.reg * 2}};
  for (const auto& m : mods) f.push_back(m);
  auto r = isa::encode_fields(f32_acc ? Opcode::simd_matrix_fmadd32 : Opcode::simd_matrix_fmadd16, f);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message());
  if (!r.ok()) return {};
  auto s = r->span();
  return {s.begin(), s.end()};
}

// Stores an integer-valued matrix (exact in f16 and f32) into a pair.
void store(Core& c, Pair p, const Mat m) {
  for (unsigned r = 0; r < 8; ++r)
    for (unsigned col = 0; col < 8; ++col) {
      unsigned lane = kLaneAt[r][col], e = col & 1;
      float v = float(m[r][col]);
      if (p.h16) {
        // Small integers and 1/8 multiples: f16 bits by hand (sign, exponent, 10-bit fraction).
        uint32_t f = std::bit_cast<uint32_t>(v);
        uint32_t h = v == 0 ? (f >> 16) & 0x8000 : ((f >> 16) & 0x8000) | (((f >> 23 & 0xFF) - 112) << 10) | ((f >> 13) & 0x3FF);
        uint32_t& w = c.r[p.reg][lane];
        w = e ? (w & 0xFFFF) | (h << 16) : (w & 0xFFFF0000u) | h;
      } else {
        c.r[p.reg + e][lane] = std::bit_cast<uint32_t>(v);
      }
    }
}

// The bits of element (r, col): a 32-bit register or a 16-bit half.
uint32_t bits(const Core& c, Pair p, unsigned r, unsigned col) {
  unsigned lane = kLaneAt[r][col], e = col & 1;
  return p.h16 ? (c.r[p.reg][lane] >> (16 * e)) & 0xFFFF : c.r[p.reg + e][lane];
}

double load(const Core& c, Pair p, unsigned r, unsigned col) {
  uint32_t h = bits(c, p, r, col);
  if (!p.h16) return std::bit_cast<float>(h);
  int ex = (h >> 10) & 0x1F, fr = h & 0x3FF;
  double mag = ex == 0 ? std::ldexp(fr, -24) : std::ldexp(1024 + fr, ex - 25);
  return (h & 0x8000) ? -mag : mag;
}

void random_ints(Rng& rng, Mat m, int lo, int hi) {
  for (unsigned r = 0; r < 8; ++r)
    for (unsigned c = 0; c < 8; ++c) m[r][c] = lo + int(rng() % unsigned(hi - lo + 1));
}

// D = A*B + C on integer data (exact in every precision), with partial exec
// masks: all 32 lanes' sources take part, only active lanes are written.
void check_integer_product(bool f32_acc, Pair d, Pair a, Pair b, Pair c, uint32_t seed) {
  Rng rng(seed);
  for (int iter = 0; iter < 20; ++iter) {
    Mat ma, mb, mc;
    random_ints(rng, ma, -8, 8);
    random_ints(rng, mb, -8, 8);
    random_ints(rng, mc, -500, 500);
    Core core = random_core(seed * 100 + iter, iter % 4 == 0);
    store(core, a, ma);
    store(core, b, mb);
    store(core, c, mc);
    Core before = core;
    ASSERT_TRUE(run_code(matrix_op(f32_acc, d, a, b, c), core).ok());
    for (unsigned r = 0; r < 8; ++r)
      for (unsigned col = 0; col < 8; ++col) {
        double want = mc[r][col];
        for (unsigned k = 0; k < 8; ++k) want += ma[r][k] * mb[k][col];
        unsigned lane = kLaneAt[r][col];
        if (on(before, lane)) {
          ASSERT_EQ(load(core, d, r, col), want) << "row " << r << " col " << col << " iter " << iter;
        } else {
          ASSERT_EQ(bits(core, d, r, col), bits(before, d, r, col)) << "inactive lane " << lane << " written";
        }
      }
    // Registers outside D are untouched.
    for (unsigned reg = 0; reg < kRegisters; ++reg) {
      bool in_d = d.h16 ? reg == d.reg : (reg == d.reg || reg == d.reg + 1);
      if (!in_d) {
        ASSERT_EQ(core.r[reg], before.r[reg]) << "r" << reg;
      }
    }
  }
}

TEST(Matrix, Fmadd32LayoutAndPartialExec) { check_integer_product(true, {40, false}, {10, false}, {20, false}, {30, false}, 1); }
TEST(Matrix, Fmadd16LayoutAndPartialExec) { check_integer_product(false, {40, true}, {10, true}, {20, true}, {30, true}, 2); }
TEST(Matrix, MixedF16SourcesF32Accumulator) {
  check_integer_product(true, {40, false}, {10, true}, {20, true}, {30, false}, 3);
}
TEST(Matrix, AccumulateInPlace) { check_integer_product(true, {30, false}, {10, false}, {20, false}, {30, false}, 4); }

// The accumulator's precision: A = B = 0.125 everywhere, C = 4096: the
// f32-accumulating (mixed) form keeps 4096.125, the f16 form rounds to 4096.
TEST(Matrix, AccumulatorPrecision) {
  Mat ab, cm;
  for (auto& row : ab)
    for (auto& v : row) v = 0.125;
  for (auto& row : cm)
    for (auto& v : row) v = 4096;
  for (bool f32_acc : {true, false}) {
    Core core = make_core();
    Pair a{10, true}, b{11, true}, c{f32_acc ? 20u : 12u, !f32_acc}, d{f32_acc ? 30u : 13u, !f32_acc};
    store(core, a, ab);
    store(core, b, ab);
    store(core, c, cm);
    ASSERT_TRUE(run_code(matrix_op(f32_acc, d, a, b, c), core).ok());
    for (unsigned r = 0; r < 8; ++r)
      for (unsigned col = 0; col < 8; ++col) EXPECT_EQ(load(core, d, r, col), f32_acc ? 4096.125 : 4096.0);
  }
}

// Our rounding choice: C plus the products in ascending k, each step rounded
// to the accumulator format. With C = 2^24 (f32) or 2048 (f16) and eight
// products of 1, every step is a tie that rounds back to even: the result
// stays C, where a single rounding of the exact sum would give C + 8.
TEST(Matrix, EachStepRoundsToAccumulator) {
  Mat ones, cm;
  for (bool f32_acc : {true, false}) {
    for (unsigned r = 0; r < 8; ++r)
      for (unsigned col = 0; col < 8; ++col) {
        ones[r][col] = 1;
        cm[r][col] = f32_acc ? 16777216.0 : 2048.0;
      }
    Core core = make_core();
    Pair a{10, false}, b{12, false}, c{14, !f32_acc}, d{16, !f32_acc};
    store(core, a, ones);
    store(core, b, ones);
    store(core, c, cm);
    ASSERT_TRUE(run_code(matrix_op(f32_acc, d, a, b, c), core).ok());
    EXPECT_EQ(load(core, d, 3, 5), cm[3][5]);
    EXPECT_EQ(load(core, d, 7, 0), cm[7][0]);
  }
}

TEST(Matrix, NegatedSourceModifier) {
  Rng rng(5);
  Mat ma, mb, mc;
  random_ints(rng, ma, -8, 8);
  random_ints(rng, mb, -8, 8);
  random_ints(rng, mc, -50, 50);
  Core core = make_core();
  Pair a{10, false}, b{12, false}, c{14, false}, d{16, false};
  store(core, a, ma);
  store(core, b, mb);
  store(core, c, mc);
  ASSERT_TRUE(run_code(matrix_op(true, d, a, b, c, {{"Am", 2}}), core).ok());
  for (unsigned r = 0; r < 8; ++r)
    for (unsigned col = 0; col < 8; ++col) {
      double want = mc[r][col];
      for (unsigned k = 0; k < 8; ++k) want -= ma[r][k] * mb[k][col];
      ASSERT_EQ(load(core, d, r, col), want);
    }
}

TEST(Matrix, NanAndFlushedSubnormals) {
  Core core = make_core();
  Pair a{10, false}, b{12, false}, c{14, false}, d{16, false};
  // A = 0 except A[0][0] = NaN; C lane values are subnormals (flushed).
  core.r[10][kLaneAt[0][0]] = 0x7FC12345u;
  for (unsigned l = 0; l < kLanes; ++l) core.r[14][l] = core.r[15][l] = 0x00000001u;
  ASSERT_TRUE(run_code(matrix_op(true, d, a, b, c), core).ok());
  for (unsigned col = 0; col < 8; ++col) EXPECT_EQ(core.r[16 + (col & 1)][kLaneAt[0][col]], 0x7FC00000u);
  for (unsigned r = 1; r < 8; ++r) EXPECT_EQ(core.r[16][kLaneAt[r][0]], 0u) << "row " << r;
}

TEST(Matrix, UniformOperandIsAClearError) {
  auto code = matrix_op(true, {16, false}, {10, false}, {12, false}, {14, false}, {{"Bt", 0b0110}, {"B", 4}});
  Core core = make_core();
  Status st = run_code(code, core);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message().find("operand B"), std::string::npos) << st.error().message();
  EXPECT_NE(st.error().message().find("pc 0x0"), std::string::npos) << st.error().message();
}

TEST(Matrix, DestinationOverSourceWarnsInDebug) {
  auto code = matrix_op(true, {10, false}, {10, false}, {12, false}, {14, false});
  Core core = make_core();
  auto p = compile(code, 0);
  ASSERT_TRUE(p.ok());
  std::vector<std::string> warnings;
  RunOptions opt;
  opt.debug = true;
  opt.warnings = &warnings;
  ASSERT_TRUE(run(*p, core, {}, opt).ok());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("overlaps A or B"), std::string::npos);
}

}  // namespace
}  // namespace agx::usc::test
