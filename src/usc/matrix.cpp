// simd_matrix_fmadd16/32: D = A * B + C on 8x8 matrices held by the 32 lanes
// of the SIMD group (Metal's simdgroup_multiply_accumulate). applegpu has no
// exec for it; the semantics here are derived from public sources:
//  - encoding and operands: dougallj/applegpu applegpu.py
//    SimdMatrixFMadd32/16InstructionDesc: D, A, B, C are register pairs
//    (R0L -> R0 for 16-bit, R0 -> R0_R1 for 32-bit), each with its own size;
//  - which lane holds which element: Metal's simdgroup_matrix layout, as
//    philipturner/metal-flash-attention GEMMHeaders.swift morton_order()
//    (citing patent US11256518B2) and ml-explore/mlx
//    steel/gemm/mma.h BaseMMAFrag::get_coord give it: lane l holds
//    (row, col) and (row, col + 1) in thread_elements()[0] and [1], with
//    row = 4 * (l >> 4) + ((l >> 1) & 3), col = 4 * ((l >> 3) & 1) + 2 * (l & 1);
//  - derived (our reading, not measured here): the instruction is what
//    Metal's simdgroup_multiply_accumulate compiles to, so it uses that
//    layout for all four operands, element 0 in the first register (half)
//    of the pair, D = A*B + C with A the left factor, and 16-bit A/B with a
//    32-bit C/D accumulate in f32.
// Rounding (not public; our choice): each element is C plus the eight
// products in ascending k, each step one fused multiply-add rounded like
// fmadd (fma.py: exact, round-to-odd in f64, then to f32 with flush-to-zero
// for simd_matrix_fmadd32 or to f16 for simd_matrix_fmadd16), since the
// instruction runs on the FMA ALUs (philipturner/metal-benchmarks).
// Inactive lanes: like applegpu's simd_shuffle exec, every lane's sources are
// read; only active lanes are written.
#include <fmt/format.h>

#include "usc/internal.h"
#include "util/half.h"

namespace agx::usc::detail {

namespace {

using isa::Opcode;

constexpr unsigned kDim = 8;

constexpr unsigned row_of(unsigned lane) { return 4 * (lane >> 4) + ((lane >> 1) & 3); }
constexpr unsigned col_of(unsigned lane) { return 4 * ((lane >> 3) & 1) + 2 * (lane & 1); }

// Element e (0 or 1) of a register pair, as a single register or half.
Operand element(const Operand& pair, unsigned e) {
  Operand o = pair;
  o.count = 1;
  o.index = static_cast<uint16_t>(pair.index + e);
  return o;
}

using Matrix = double[kDim][kDim];

// Gathers an operand of all 32 lanes (active or not) into a matrix, with the
// float source rules of read_f64 (f32 subnormals flushed, .abs/.neg).
void gather(const Operand& pair, const Core& c, Matrix m) {
  for (unsigned e = 0; e < 2; ++e) {
    alignas(64) double v[kLanes];
    read_f64(element(pair, e), c, v);
    for (unsigned l = 0; l < kLanes; ++l) m[row_of(l)][col_of(l) + e] = v[l];
  }
}

double round_acc(double v, bool f32) {
  return f32 ? static_cast<double>(std::bit_cast<float>(f64_to_f32_ftz(v))) : half_to_double(f64_to_f16(v));
}

// k[0] = 1: simd_matrix_fmadd32 (accumulate in f32), 0: in f16.
Status exec_matrix(const Step& s, Core& c, Ctx& ctx) {
  if (ctx.options && ctx.options->debug && ctx.options->warnings) {
    // D over A or B: the result would depend on the order in which the
    // hardware reads its sources (not public); the emulator reads all
    // sources first, so flag it.
    auto overlaps = [&](const Operand& o) {
      unsigned d0 = s.d.kind == Kind::r16 ? s.d.index / 2u : s.d.index;
      unsigned d1 = s.d.kind == Kind::r16 ? (s.d.index + 1u) / 2u : s.d.index + 1u;
      unsigned o0 = o.kind == Kind::r16 ? o.index / 2u : o.index;
      unsigned o1 = o.kind == Kind::r16 ? (o.index + 1u) / 2u : o.index + 1u;
      return d0 <= o1 && o0 <= d1;
    };
    if (overlaps(s.a) || overlaps(s.b))
      ctx.options->warnings->push_back(fmt::format(
          "pc 0x{:x}: simd_matrix_fmadd destination overlaps A or B (the hardware result is not reliable)", s.pc));
  }
  Matrix a, b, x, d;
  gather(s.a, c, a);
  gather(s.b, c, b);
  gather(s.c, c, x);
  bool f32 = s.k[0];
  for (unsigned r = 0; r < kDim; ++r)
    for (unsigned col = 0; col < kDim; ++col) {
      double acc = x[r][col];
      for (unsigned k = 0; k < kDim; ++k) acc = round_acc(fma_round_to_odd(a[r][k], b[k][col], acc), f32);
      d[r][col] = acc;
    }
  for (unsigned e = 0; e < 2; ++e) {
    alignas(64) double v[kLanes];
    for (unsigned l = 0; l < kLanes; ++l) v[l] = d[row_of(l)][col_of(l) + e];
    write_f64(element(s.d, e), c, v, false);
  }
  return {};
}

Status check_pair(const Operand& o, std::string_view name) {
  if ((o.kind == Kind::r16 || o.kind == Kind::r32) && o.count == 2) return {};
  return Error::unsupported(
      "operand {}: only register pairs are supported (uniform and immediate operands of the matrix "
      "multiply have no public semantics)",
      name);
}

}  // namespace

Result<bool> compile_matrix(const isa::Instr& in, Step& s) {
  if (in.op != Opcode::simd_matrix_fmadd32 && in.op != Opcode::simd_matrix_fmadd16) return false;
  AGX_TRY(s.d, operand(in, "D"));
  AGX_TRY(s.a, operand(in, "A"));
  AGX_TRY(s.b, operand(in, "B"));
  AGX_TRY(s.c, operand(in, "C"));
  AGX_CHECK(check_pair(s.d, "D"));
  AGX_CHECK(check_pair(s.a, "A"));
  AGX_CHECK(check_pair(s.b, "B"));
  AGX_CHECK(check_pair(s.c, "C"));
  s.k[0] = in.op == Opcode::simd_matrix_fmadd32;
  s.run = exec_matrix;
  return true;
}

}  // namespace agx::usc::detail
