// Fused multiply-add of doubles (fp64_lowering.h): the exact 106-bit
// product and the addend as 128-bit fixed-point values (leading one at bit
// 124 or 125, the same scale for both, so a sum stays below bit 127 and
// bit 127 is a difference's sign), the one with the smaller exponent
// shifted right with a sticky bit, added or subtracted exactly, then
// normalized and rounded once.
#include "compiler/fp64_lowering.h"

namespace agx::compiler::detail {

using IrOp = agx::compiler::Op;

namespace {

struct Wide { Pair lo, hi; };

class Wide128 {
 public:
  Wide128(Fp64& fp, Int64& x) : fp_(fp), x_(x) {}
  Wide add(Wide a, Wide b) {
    Pair lo = x_.add(a.lo, b.lo);
    Src carry = x_.less(false, lo, a.lo);
    return {lo, x_.add(x_.add(a.hi, b.hi), {carry, Src::immediate(0)})};
  }
  Wide sub(Wide a, Wide b) {
    Src borrow = x_.less(false, a.lo, b.lo);
    return {x_.sub(a.lo, b.lo), x_.sub(x_.sub(a.hi, b.hi), {borrow, Src::immediate(0)})};
  }
  Wide pick(Src f, Wide t, Wide e) { return {fp_.pick(f, t.lo, e.lo), fp_.pick(f, t.hi, e.hi)}; }
  Src clz(Wide a) {
    Src hi_bits = x_.op(IrOp::ior, a.hi.lo, a.hi.hi);
    Src lo_clz = x_.op(IrOp::iadd, fp_.clz(a.lo), Src::immediate(64));
    return x_.sel(Cond::ueq, hi_bits, Src::immediate(0), lo_clz, fp_.clz(a.hi));
  }
  // s in 0..127. The bits crossing between the halves go through a shift
  // by one first, so s = 0 moves nothing across.
  Wide shl(Wide a, Src s) {
    Src small = x_.flag(Cond::ult, s, Src::immediate(64));
    Src s6 = x_.op(IrOp::iand, s, Src::immediate(63));
    Pair lo_half = fp_.shr_k(a.lo, 1);
    Pair cross = fp_.shr(lo_half, x_.op(IrOp::isub, Src::immediate(63), s6));
    Wide lt{fp_.shl(a.lo, s6), x_.bitwise(IrOp::ior, fp_.shl(a.hi, s6), cross)};
    Wide ge{{Src::immediate(0), Src::immediate(0)}, fp_.shl(a.lo, s6)};
    return pick(small, lt, ge);
  }
  Wide shr(Wide a, Src s) {
    Src small = x_.flag(Cond::ult, s, Src::immediate(64));
    Src s6 = x_.op(IrOp::iand, s, Src::immediate(63));
    Pair hi_double = fp_.shl_k(a.hi, 1);
    Pair cross = fp_.shl(hi_double, x_.op(IrOp::isub, Src::immediate(63), s6));
    Wide lt{x_.bitwise(IrOp::ior, fp_.shr(a.lo, s6), cross), fp_.shr(a.hi, s6)};
    Wide ge{fp_.shr(a.hi, s6), {Src::immediate(0), Src::immediate(0)}};
    return pick(small, lt, ge);
  }
  // a >> s with the lost bits ORed into bit 0 (a < 2^127; s clamped to 127).
  Wide shr_sticky(Wide a, Src s) {
    Src sc = x_.sel(Cond::ugt, s, Src::immediate(127), Src::immediate(127), s);
    Wide r = shr(a, sc);
    Wide back = shl(r, sc);
    Src lost_lo = fp_.nonzero(x_.bitwise(IrOp::ixor, back.lo, a.lo));
    Src lost = fp_.either(lost_lo, fp_.nonzero(x_.bitwise(IrOp::ixor, back.hi, a.hi)));
    r.lo.lo = x_.op(IrOp::ior, r.lo.lo, lost);
    return r;
  }

 private:
  Fp64& fp_;
  Int64& x_;
};

}  // namespace

Pair Fp64::fma(Pair a, Pair c, Pair d) {
  Wide128 w(*this, x_);
  Parts pa = normalized(a), pc = normalized(c), pd = normalized(d);
  Src sign_p = x_.op(IrOp::iand, x_.op(IrOp::ixor, a.hi, c.hi), k(0x80000000u));
  // Product: (ma << 10) * (mc << 10), leading one at 124 or 125.
  Pair A = shl_k(pa.mant, 10), C = shl_k(pc.mant, 10);
  Product128 prod = wide_mul64(A, C);
  Wide P{prod.lo, prod.hi};
  Src ep = x_.op(IrOp::isub, x_.op(IrOp::iadd, pa.exp, pc.exp), k(1023));
  // Addend: md << 72 (leading one at 124); a zero addend takes the
  // product's exponent and adds nothing.
  Wide D{{k(0), k(0)}, shl_k(pd.mant, 8)};
  Src zd = is_zero(d);
  Src ed = sel(zd, ep, pd.exp);
  Src p_big = lnot(x_.flag(Cond::sgt, ed, ep));  // the product has the larger exponent (or ties)
  Wide big = w.pick(p_big, P, D), small = w.pick(p_big, D, P);
  Src e_big = sel(p_big, ep, ed);
  Src p_minus_d = x_.op(IrOp::isub, ep, ed);
  Src dist = sel(p_big, p_minus_d, x_.op(IrOp::isub, ed, ep));
  small = w.shr_sticky(small, dist);
  Src sign_d = sign_of(d);
  Src sign_big = sel(p_big, sign_p, sign_d);
  Src subtract = lnot(x_.flag(Cond::ueq, sign_p, sign_d));
  Wide difference = w.sub(big, small);
  Wide s = w.pick(subtract, difference, w.add(big, small));
  Src negative = x_.flag(Cond::slt, s.hi.hi, k(0));
  s = w.pick(negative, w.sub({{k(0), k(0)}, {k(0), k(0)}}, s), s);
  Src sign = x_.op(IrOp::ixor, sign_big, x_.op(IrOp::ishl, negative, k(31)));
  Src lz = w.clz(s);
  Wide n = w.shl(s, x_.op(IrOp::isub, lz, k(1)));
  Pair m{x_.op(IrOp::ior, n.hi.lo, nonzero(n.lo)), n.hi.hi};
  // Leading one at 127 - lz: exponent e_big + (127 - lz) - 124.
  Pair finite = round_pack(sign, x_.op(IrOp::isub, x_.op(IrOp::iadd, e_big, k(3)), lz), m);
  Src lo_zero = lnot(nonzero(s.lo));
  Src exact_zero = both(lo_zero, lnot(nonzero(s.hi)));
  finite = pick(exact_zero, Pair{k(0), k(0)}, finite);
  // Specials.
  Src a_zero = is_zero(a);
  Src zp = either(a_zero, is_zero(c));
  Src a_inf = is_inf(a);
  Src ip = either(a_inf, is_inf(c)), id = is_inf(d);
  Pair inf_p{k(0), x_.op(IrOp::ior, sign_p, k(0x7FF00000u))};
  Pair zero_sum{k(0), x_.op(IrOp::iand, sign_p, sign_d)};
  Pair r = pick(zp, pick(zd, zero_sum, d), finite);
  r = pick(id, d, r);
  Src inf_times_zero = both(ip, zp);
  Src invalid = either(inf_times_zero, both(ip, both(id, subtract)));
  r = pick(ip, pick(invalid, default_nan(), inf_p), r);
  Src ac_nan = unordered(a, c);
  Src any_nan = either(ac_nan, is_nan(d));
  Src a_nan = is_nan(a);
  Pair quiet_a = nan_result(a);
  Src c_nan = is_nan(c);
  Pair quiet_c = nan_result(c);
  Pair quiet_d = nan_result(d);
  Pair nan = pick(a_nan, quiet_a, pick(c_nan, quiet_c, quiet_d));
  return pick(any_nan, nan, r);
}

}  // namespace agx::compiler::detail
