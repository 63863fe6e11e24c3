// Doubles rounded to integral values, frexp and ldexp (fp64_lowering.h).
// With the unbiased exponent E in 0..51 the fraction is the low 52 - E
// bits of the encoding: clearing them truncates, and adding one unit
// there (an integer add that may carry into the exponent) steps the
// magnitude up to the next integer. E >= 52 (and inf, NaN) is integral
// already; |x| < 1 (E < 0) rounds to 0 or 1 with the sign kept.
#include "compiler/fp64_lowering.h"

namespace agx::compiler::detail {

using IrOp = agx::compiler::Op;

namespace {

struct Integral {
  Src ue;              // unbiased exponent
  Src small, whole;    // E < 0; E >= 52
  Pair t, unit, frac;  // truncated encoding, one unit, fraction bits (for 0 <= E < 52)
  Pair zero, one;      // +-0, +-1 with x's sign
};

Integral split(Fp64& fp, Int64& x, Pair a) {
  Integral s;
  s.ue = x.op(IrOp::isub, fp.biased_exp(a), Src::immediate(1023));
  s.small = x.flag(Cond::slt, s.ue, Src::immediate(0));
  s.whole = x.flag(Cond::sgt, s.ue, Src::immediate(51));
  Src sh = x.op(IrOp::isub, Src::immediate(52), s.ue);
  s.unit = fp.shl({Src::immediate(1), Src::immediate(0)}, sh);
  Pair low = x.sub(s.unit, {Src::immediate(1), Src::immediate(0)});
  s.frac = x.bitwise(IrOp::iand, a, low);
  s.t = x.bitwise(IrOp::ixor, a, s.frac);
  Src sign = fp.sign_of(a);
  s.zero = {Src::immediate(0), sign};
  s.one = {Src::immediate(0), x.op(IrOp::ior, sign, Src::immediate(0x3FF00000u))};
  return s;
}

// The result for 0 <= E < 52 (`mid`) and |x| < 1 (`below_one`).
Pair choose(Fp64& fp, const Integral& s, Pair a, Pair mid, Pair below_one) {
  return fp.pick(s.whole, a, fp.pick(s.small, below_one, mid));
}

}  // namespace

Pair Fp64::trunc(Pair a) {
  Integral s = split(*this, x_, a);
  return choose(*this, s, a, s.t, s.zero);
}

// The magnitude rounded up (away from zero), used by floor and ceil.
static Pair away(Fp64& fp, Int64& x, Pair a) {
  Integral s = split(fp, x, a);
  Src frac = fp.nonzero(s.frac);
  Pair mid = fp.pick(frac, x.add(s.t, s.unit), s.t);
  Pair below = fp.pick(fp.is_zero(a), s.zero, s.one);
  return choose(fp, s, a, mid, below);
}

Pair Fp64::floor(Pair a) {
  Src negative = x_.flag(Cond::slt, a.hi, k(0));
  Pair up = away(*this, x_, a);
  return pick(negative, up, trunc(a));
}

Pair Fp64::ceil(Pair a) {
  Src negative = x_.flag(Cond::slt, a.hi, k(0));
  Pair down = trunc(a);
  return pick(negative, down, away(*this, x_, a));
}

// 1 for zero, NaN and infinity: the values frexp and ldexp pass through.
Src Fp64::zero_nan_or_inf(Pair a) {
  Src zero = is_zero(a);
  Src zero_or_nan = either(zero, is_nan(a));
  return either(zero_or_nan, is_inf(a));
}

// Halfway cases: to the even integer, or away from zero.
static Pair nearest(Fp64& fp, Int64& x, Pair a, bool even) {
  Integral s = split(fp, x, a);
  Pair half = fp.shr_k(s.unit, 1);
  Src above = x.less(false, half, s.frac);
  Src tie = x.flag(Cond::ueq, x.differs(half, s.frac), Src::immediate(0));
  Src up = even ? fp.either(above, fp.both(tie, fp.nonzero(x.bitwise(IrOp::iand, s.t, s.unit))))
                : fp.either(above, tie);
  Pair mid = fp.pick(up, x.add(s.t, s.unit), s.t);
  // |x| < 1: 0.5 <= |x| < 1 is E = -1; below that, zero.
  Pair mag{a.lo, x.op(IrOp::iand, a.hi, Src::immediate(0x7FFFFFFFu))};
  Src over_half = even ? x.less(false, {Src::immediate(0), Src::immediate(0x3FE00000u)}, mag)
                       : x.flag(Cond::ueq, s.ue, Src::immediate(0xFFFFFFFFu));
  Pair below = fp.pick(over_half, s.one, s.zero);
  return choose(fp, s, a, mid, below);
}

Pair Fp64::round_even(Pair a) { return nearest(*this, x_, a, true); }
Pair Fp64::round_away(Pair a) { return nearest(*this, x_, a, false); }

Pair Fp64::frexp(Pair a, Src* exp) {
  Parts p = normalized(a);
  Src special = zero_nan_or_inf(a);
  *exp = sel(special, k(0), x_.op(IrOp::isub, p.exp, k(1022)));
  Src mant_hi = x_.op(IrOp::iand, p.mant.hi, k(0xFFFFF));
  Pair r{p.mant.lo, x_.op(IrOp::ior, mant_hi, x_.op(IrOp::ior, p.sign, k(0x3FE00000u)))};
  return pick(special, a, r);
}

// x * 2^n with one rounding (the result may be denormal): the exponent
// moves, the significand (leading one at 62) is rounded once. n is
// clamped to +-4096, past every overflow and underflow.
Pair Fp64::ldexp(Pair a, Src n) {
  Parts p = normalized(a);
  Src nc = x_.sel(Cond::sgt, n, k(4096), k(4096), x_.sel(Cond::slt, n, k(static_cast<uint32_t>(-4096)), k(static_cast<uint32_t>(-4096)), n));
  Src e = x_.op(IrOp::iadd, p.exp, nc);
  Pair r = round_pack(p.sign, e, shl_k(p.mant, 10));
  Src special = zero_nan_or_inf(a);
  return pick(special, a, r);
}

}  // namespace agx::compiler::detail
