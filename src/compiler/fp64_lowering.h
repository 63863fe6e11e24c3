// IEEE 754 binary64 (double) arithmetic in 32-bit integer IR: the AGX has
// no fp64 ALU, so a double is its two 32-bit words (the int64 machinery's
// Pair: .lo low word, .hi sign, 11-bit exponent and the top 20 mantissa
// bits) and every operation is an integer sequence built here once per
// use. Results are correctly rounded (round to nearest, ties to even) with
// denormals, infinities, NaN and signed zero as IEEE 754-2008 defines them;
// NaN results follow x86 SSE2 (the first NaN operand with its quiet bit
// set; invalid operations give the default NaN 0xFFF8000000000000), so the
// tests compare with the host bit for bit. The algorithms (the facts of
// soft-float: a normalized significand with guard bits and a sticky bit,
// one rounding step, restoring division and square root) are written from
// the IEEE rules; bminor/mesa-mesa src/compiler/glsl/float64.glsl
// implements the same operations for GPUs without fp64.
// Files: fp64_common.cpp (unpack, round and pack, classification,
// comparisons), fp64_add.cpp, fp64_mul_div.cpp (mul, div, sqrt),
// fp64_fma.cpp, fp64_round.cpp (trunc/floor/ceil/round, frexp/ldexp),
// fp64_convert.cpp.
#pragma once

#include "compiler/int64_lowering.h"

namespace agx::compiler::detail {

class Fp64 {
 public:
  explicit Fp64(Int64& x) : x_(x), b_(x.builder()) {}
  Int64& int64() { return x_; }

  static Src k(uint32_t v) { return Src::immediate(v); }
  static Pair constant(double v);

  // Arithmetic, correctly rounded.
  Pair add(Pair a, Pair c) { return add(a, c, c); }
  // a - c is a + (-c), but a NaN c comes back with its own sign (x86).
  Pair sub(Pair a, Pair c) { return add(a, neg(c), c); }
  Pair mul(Pair a, Pair c);
  Pair div(Pair a, Pair c);
  Pair fma(Pair a, Pair c, Pair d);
  Pair sqrt(Pair a);
  Pair neg(Pair a) { return {a.lo, x_.op(Op::ixor, a.hi, k(0x80000000u))}; }
  Pair abs(Pair a) { return {a.lo, x_.op(Op::iand, a.hi, k(0x7FFFFFFFu))}; }

  // Classification: 1 / 0 flags.
  Src is_nan(Pair a);
  Src is_inf(Pair a);
  Src is_zero(Pair a);
  // Ordered comparisons (false when either is NaN): 1 / 0.
  Src less(Pair a, Pair c);
  Src less_equal(Pair a, Pair c);
  Src equal(Pair a, Pair c);
  Src zero_nan_or_inf(Pair a);
  Src unordered(Pair a, Pair c) {
    Src a_nan = is_nan(a);
    return x_.op(Op::ior, a_nan, is_nan(c));
  }

  // GLSL min/max: min(x, y) = y < x ? y : x; a NaN operand loses to a
  // number (as the float min/max do).
  Pair min(Pair a, Pair c);
  Pair max(Pair a, Pair c);
  Pair sign(Pair a);

  // Rounding to integers (fp64_round.cpp).
  Pair trunc(Pair a);
  Pair floor(Pair a);
  Pair ceil(Pair a);
  Pair round_even(Pair a);
  Pair round_away(Pair a);  // GLSL round(): halves away from zero
  Pair fract(Pair a) { return sub(a, floor(a)); }
  // frexp: the significand in [0.5, 1) (x itself for 0, inf, NaN) and the
  // exponent (0 for those).
  Pair frexp(Pair a, Src* exp);
  Pair ldexp(Pair a, Src e);

  // Conversions (fp64_convert.cpp).
  Pair from_f32(Src f);
  Src to_f32(Pair a);
  Pair from_u32(Src u);
  Pair from_i32(Src i);
  Pair from_u64(Pair u);
  Pair from_i64(Pair i);
  // Truncation toward zero, modulo 2^64 (GLSL leaves values out of the
  // type's range undefined: negative ones to unsigned wrap, 32-bit
  // results keep the low word); |x| >= 2^64, inf and NaN give 0.
  Pair to_int64(Pair a);

  // Building blocks (fp64_common.cpp), public for the files of the family.
  struct Parts {
    Src sign;  // 0 or 0x80000000
    Src exp;   // biased exponent, signed 32-bit; 1 for denormals
    Pair mant; // significand with the hidden bit at bit 52
  };
  // Denormals normalized: the hidden bit at 52 and the exponent below 1.
  Parts normalized(Pair a);
  Src sign_of(Pair a) { return x_.op(Op::iand, a.hi, k(0x80000000u)); }
  Src biased_exp(Pair a) { return x_.op(Op::iand, x_.op(Op::ushr, a.hi, k(20)), k(0x7FF)); }
  // sign | round-to-nearest-even of m (a significand whose leading one is
  // at bit 62, bits 0-9 below the rounding point) times 2^(e - 1023):
  // denormal when e < 1, infinity when the result overflows.
  Pair round_pack(Src sign, Src e, Pair m);
  Pair add(Pair a, Pair c, Pair nan_c);  // nan_c: what a NaN c returns
  Src clz(Pair m);  // 64 for 0
  Pair shl(Pair m, Src s) { return x_.shift(Op::ishl, m, s); }  // s in 0..63
  Pair shr(Pair m, Src s) { return x_.shift(Op::ushr, m, s); }  // s in 0..63
  Pair shl_k(Pair m, unsigned n);  // by a constant 1..31
  Pair shr_k(Pair m, unsigned n);
  Pair wide_mul(Src a, Src c);     // the 64-bit product of two words
  // The 128-bit product of two 64-bit values: its low and high word pairs.
  struct Product128 { Pair lo, hi; };
  Product128 wide_mul64(Pair a, Pair c);
  // m >> s with the bits shifted out ORed into bit 0; s >= 0, any size.
  Pair shr_sticky(Pair m, Src s);
  Src nonzero(Pair m) { return x_.sel(Cond::ueq, x_.op(Op::ior, m.lo, m.hi), k(0), k(0), k(1)); }
  // The NaN an operation on a and c returns: a's (quieted) if a is NaN,
  // else c's if c is NaN, else the default NaN.
  Pair nan_result(Pair a, Pair c);
  Pair nan_result(Pair a) { return {a.lo, x_.op(Op::ior, a.hi, k(0x00080000u))}; }
  static Pair default_nan() { return {k(0), k(0xFFF80000u)}; }
  Src sel(Src flag, Src t, Src e) { return x_.sel(Cond::ueq, flag, k(0), e, t); }
  Pair pick(Src flag, Pair t, Pair e) { return x_.pick(flag, t, e); }
  Src both(Src f, Src g) { return x_.op(Op::iand, f, g); }
  Src either(Src f, Src g) { return x_.op(Op::ior, f, g); }
  Src lnot(Src f) { return x_.op(Op::ixor, f, k(1)); }

 private:
  Int64& x_;
  Builder& b_;
};

}  // namespace agx::compiler::detail
