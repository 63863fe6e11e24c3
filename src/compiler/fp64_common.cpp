// Doubles on 32-bit words (fp64_lowering.h): unpacking, the one rounding
// step every operation ends in, classification and comparisons.
#include <bit>

#include "compiler/fp64_lowering.h"

namespace agx::compiler::detail {

using IrOp = agx::compiler::Op;

Pair Fp64::constant(double v) {
  uint64_t bits = std::bit_cast<uint64_t>(v);
  return {k(static_cast<uint32_t>(bits)), k(static_cast<uint32_t>(bits >> 32))};
}

Pair Fp64::shl_k(Pair m, unsigned n) {
  Src lo = x_.op(IrOp::ishl, m.lo, k(n));
  Src hi_part = x_.op(IrOp::ishl, m.hi, k(n));
  Src carried = x_.op(IrOp::ushr, m.lo, k(32 - n));
  return {lo, x_.op(IrOp::ior, hi_part, carried)};
}

Pair Fp64::shr_k(Pair m, unsigned n) {
  Src lo_part = x_.op(IrOp::ushr, m.lo, k(n));
  Src carried = x_.op(IrOp::ishl, m.hi, k(32 - n));
  return {x_.op(IrOp::ior, lo_part, carried), x_.op(IrOp::ushr, m.hi, k(n))};
}

Pair Fp64::wide_mul(Src a, Src c) {
  if (a.is_imm() && c.is_imm()) {
    uint64_t p = (a.imm & 0xFFFFFFFFu) * (c.imm & 0xFFFFFFFFu);
    return {k(static_cast<uint32_t>(p)), k(static_cast<uint32_t>(p >> 32))};
  }
  if (a.is_imm()) std::swap(a, c);
  ValueId w = b_.def(IrOp::umul_wide, {a, c}, 32, 2);
  b_.function().values[w].pair = true;
  return {Src::val(w, 32, 0), Src::val(w, 32, 1)};
}

Fp64::Product128 Fp64::wide_mul64(Pair a, Pair c) {
  Pair p00 = wide_mul(a.lo, c.lo), p01 = wide_mul(a.lo, c.hi), p10 = wide_mul(a.hi, c.lo), p11 = wide_mul(a.hi, c.hi);
  Pair mid = x_.add(p01, p10);
  Src mid_carry = x_.less(false, mid, p01);
  Src w1 = x_.op(IrOp::iadd, p00.hi, mid.lo);
  Src w1_carry = x_.flag(Cond::ult, w1, mid.lo);
  return {{p00.lo, w1}, x_.add(x_.add(p11, {mid.hi, mid_carry}), {w1_carry, k(0)})};
}

Src Fp64::clz(Pair m) {
  Src hi_msb = Src::val(b_.def(IrOp::ffs, {m.hi}));
  Src lo_msb = Src::val(b_.def(IrOp::ffs, {m.lo}));
  Src lo_clz = x_.op(IrOp::isub, k(63), lo_msb);
  Src hi_clz = x_.op(IrOp::isub, k(31), hi_msb);
  return x_.sel(Cond::ueq, m.hi, k(0), lo_clz, hi_clz);
}

// The shift is clamped to 63: a significand below bit 63 then leaves only
// its sticky bit, as any larger shift would.
Pair Fp64::shr_sticky(Pair m, Src s) {
  Src sc = x_.sel(Cond::ugt, s, k(63), k(63), s);
  Pair r = shr(m, sc);
  Src lost = x_.sel(Cond::ueq, x_.differs(shl(r, sc), m), k(0), k(0), k(1));
  return {x_.op(IrOp::ior, r.lo, lost), r.hi};
}

Fp64::Parts Fp64::normalized(Pair a) {
  Src e = biased_exp(a);
  Pair mant{a.lo, x_.op(IrOp::iand, a.hi, k(0xFFFFF))};
  Src den = x_.flag(Cond::ueq, e, k(0));
  // A denormal's leading one moves up to bit 52; the exponent goes below 1.
  Src sh = sel(den, x_.op(IrOp::isub, clz(mant), k(11)), k(0));
  Pair m0{mant.lo, sel(den, mant.hi, x_.op(IrOp::ior, mant.hi, k(0x100000)))};
  Src ex = x_.op(IrOp::isub, sel(den, k(1), e), sh);
  return {sign_of(a), ex, shl(m0, sh)};
}

// Round to nearest even at bit 10 of m (leading one at 62): add 0x1FF plus
// the kept LSB, drop 10 bits. The significand keeps its hidden bit and the
// exponent field gets e - 1, so a carry out of the significand (2^53)
// moves into the exponent: 1.111..1 rounds up to the next binade, the
// largest finite up to infinity, a denormal up to the smallest normal.
Pair Fp64::round_pack(Src sign, Src e, Pair m) {
  Src den = x_.flag(Cond::slt, e, k(1));
  m = shr_sticky(m, sel(den, x_.op(IrOp::isub, k(1), e), k(0)));
  Src lsb = x_.op(IrOp::iand, x_.op(IrOp::ushr, m.lo, k(10)), k(1));
  Pair r = x_.add(m, {x_.op(IrOp::iadd, lsb, k(0x1FF)), k(0)});
  Pair sig = shr_k(r, 10);
  Src ee = sel(den, k(0), x_.op(IrOp::isub, e, k(1)));
  Src hi = x_.op(IrOp::ior, x_.op(IrOp::iadd, sig.hi, x_.op(IrOp::ishl, ee, k(20))), sign);
  Src over = x_.flag(Cond::sgt, e, k(0x7FE));
  return pick(over, {k(0), x_.op(IrOp::ior, sign, k(0x7FF00000u))}, {sig.lo, hi});
}

Src Fp64::is_nan(Pair a) {
  Src ah = x_.op(IrOp::iand, a.hi, k(0x7FFFFFFFu));
  Src lo_nz = x_.sel(Cond::ueq, a.lo, k(0), k(0), k(1));
  return x_.sel(Cond::ugt, ah, k(0x7FF00000u), k(1), x_.sel(Cond::ueq, ah, k(0x7FF00000u), lo_nz, k(0)));
}

Src Fp64::is_inf(Pair a) {
  Src ah = x_.op(IrOp::iand, a.hi, k(0x7FFFFFFFu));
  return x_.sel(Cond::ueq, ah, k(0x7FF00000u), x_.flag(Cond::ueq, a.lo, k(0)), k(0));
}

Src Fp64::is_zero(Pair a) {
  return x_.flag(Cond::ueq, x_.op(IrOp::ior, x_.op(IrOp::iand, a.hi, k(0x7FFFFFFFu)), a.lo), k(0));
}

Pair Fp64::nan_result(Pair a, Pair c) {
  Src a_nan = is_nan(a);
  Pair quiet_a = nan_result(a);
  Src c_nan = is_nan(c);
  Pair quiet_c = nan_result(c);
  Pair dflt = default_nan();
  return pick(a_nan, quiet_a, pick(c_nan, quiet_c, dflt));
}

namespace {

// A signed 64-bit integer in the order of the doubles (NaN aside): the
// magnitude, negated for negative values, so -0 and +0 are both 0.
Pair order_key(Int64& x, Pair a) {
  Pair mag{a.lo, x.op(IrOp::iand, a.hi, Src::immediate(0x7FFFFFFFu))};
  Src negative = x.flag(Cond::slt, a.hi, Src::immediate(0));
  return x.pick(negative, x.neg(mag), mag);
}

}  // namespace

Src Fp64::less(Pair a, Pair c) {
  Pair ka = order_key(x_, a);
  Pair kc = order_key(x_, c);
  Src lt = x_.less(true, ka, kc);
  return both(lt, lnot(unordered(a, c)));
}

Src Fp64::less_equal(Pair a, Pair c) {
  Pair kc = order_key(x_, c);
  Pair ka = order_key(x_, a);
  Src not_greater = lnot(x_.less(true, kc, ka));
  return both(not_greater, lnot(unordered(a, c)));
}

Src Fp64::equal(Pair a, Pair c) {
  Pair ka = order_key(x_, a);
  Pair kc = order_key(x_, c);
  Src same = x_.flag(Cond::ueq, x_.differs(ka, kc), k(0));
  return both(same, lnot(unordered(a, c)));
}

Pair Fp64::min(Pair a, Pair c) {
  Src lt = less(c, a);
  return pick(either(lt, is_nan(a)), c, a);
}
Pair Fp64::max(Pair a, Pair c) {
  Src lt = less(a, c);
  return pick(either(lt, is_nan(a)), c, a);
}

// 1.0 or -1.0 with the sign of a; zeros and NaN stay as they are.
Pair Fp64::sign(Pair a) {
  Pair one{k(0), x_.op(IrOp::ior, sign_of(a), k(0x3FF00000u))};
  Src zero = is_zero(a);
  return pick(either(zero, is_nan(a)), a, one);
}

}  // namespace agx::compiler::detail
