// Double multiplication, division and square root (fp64_lowering.h).
// mul: the 106-bit product of the significands from four 32x32->64
// multiplies, its top 64 bits with the rest as a sticky bit. div: 63 steps
// of restoring division give the quotient's bits down to 2^-62 (the
// leading one at bit 62 or 61), the remainder the sticky bit. sqrt: the
// bit-by-bit integer square root (two radicand bits per step, 55 steps)
// of the significand scaled by 2^56, the remainder the sticky bit; the
// root of a rational is never exactly halfway, so the one rounding is
// correct. Loops keep the code small: each step is about 20 instructions.
#include "compiler/fp64_lowering.h"

namespace agx::compiler::detail {

using IrOp = agx::compiler::Op;

namespace {

// A counted loop over 32-bit variables (every lane runs `steps` times).
class StepLoop {
 public:
  StepLoop(Builder& b, std::vector<Src> init, uint32_t steps) : b_(b) {
    Function& f = b.function();
    for (const Src& s : init) {
      ValueId v = f.new_value(32, 1, true);
      b.def_into(v, IrOp::mov, {s});
      vars_.push_back(v);
    }
    counter_ = f.new_value(32, 1, true);
    b.def_into(counter_, IrOp::mov, {Src::immediate(steps)});
    b.emit(IrOp::loop);
  }
  Src var(size_t i) const { return Src::val(vars_[i]); }
  // The next values of the variables; closes the loop and returns copies
  // of the final values.
  std::vector<Src> finish(const std::vector<Src>& next) {
    for (size_t i = 0; i < vars_.size(); ++i) b_.def_into(vars_[i], IrOp::mov, {next[i]});
    Src left = Src::val(b_.def(IrOp::isub, {Src::val(counter_), Src::immediate(1)}));
    b_.def_into(counter_, IrOp::mov, {left});
    b_.emit(IrOp::if_, {left, Src::immediate(0)}, 0, Cond::ueq, false);
    b_.emit(IrOp::break_);
    b_.emit(IrOp::end_if);
    b_.emit(IrOp::end_loop);
    std::vector<Src> out;
    for (ValueId v : vars_) out.push_back(Src::val(b_.def(IrOp::mov, {Src::val(v)})));
    return out;
  }

 private:
  Builder& b_;
  std::vector<ValueId> vars_;
  ValueId counter_;
};

}  // namespace

Pair Fp64::mul(Pair a, Pair c) {
  Parts pa = normalized(a), pc = normalized(c);
  Src sign = x_.op(IrOp::iand, x_.op(IrOp::ixor, a.hi, c.hi), k(0x80000000u));
  // A = ma << 11 (leading one at 63), C = mc << 10 (at 62): the product's
  // top word pair H has its leading one at 61 or 62.
  Pair A = shl_k(pa.mant, 11), C = shl_k(pc.mant, 10);
  Product128 prod = wide_mul64(A, C);
  Pair h = prod.hi;
  Src sticky = x_.sel(Cond::ueq, x_.op(IrOp::ior, prod.lo.lo, prod.lo.hi), k(0), k(0), k(1));
  h.lo = x_.op(IrOp::ior, h.lo, sticky);
  Src top = x_.flag(Cond::ult, h.hi, k(0x40000000u));  // leading one at 61
  Pair m = pick(top, shl_k(h, 1), h);
  Src exp_sum = x_.op(IrOp::iadd, pa.exp, pc.exp);
  Src e = x_.op(IrOp::isub, exp_sum, x_.op(IrOp::iadd, k(1022), top));
  Pair finite = round_pack(sign, e, m);
  Src za = is_zero(a), zc = is_zero(c), ia = is_inf(a), ic = is_inf(c);
  Pair zero{k(0), sign}, inf{k(0), x_.op(IrOp::ior, sign, k(0x7FF00000u))};
  Src any_zero = either(za, zc), any_inf = either(ia, ic);
  Pair r = pick(any_zero, zero, finite);
  r = pick(any_inf, pick(any_zero, default_nan(), inf), r);
  Src any_nan = unordered(a, c);
  return pick(any_nan, nan_result(a, c), r);
}

Pair Fp64::div(Pair a, Pair c) {
  Parts pa = normalized(a), pc = normalized(c);
  Src sign = x_.op(IrOp::iand, x_.op(IrOp::ixor, a.hi, c.hi), k(0x80000000u));
  Pair d = pc.mant;
  // Restoring division: r starts at ma; each step takes a quotient bit
  // (r >= d), subtracts, doubles r.
  StepLoop loop(b_, {pa.mant.lo, pa.mant.hi, k(0), k(0)}, 63);
  Pair r{loop.var(0), loop.var(1)}, q{loop.var(2), loop.var(3)};
  Src ge = lnot(x_.less(false, r, d));
  Pair r2 = shl_k(pick(ge, x_.sub(r, d), r), 1);
  Pair q2 = shl_k(q, 1);
  q2.lo = x_.op(IrOp::ior, q2.lo, ge);
  std::vector<Src> out = loop.finish({r2.lo, r2.hi, q2.lo, q2.hi});
  Pair rem{out[0], out[1]}, quo{out[2], out[3]};
  Src low = x_.flag(Cond::ult, quo.hi, k(0x40000000u));  // ma < mc: leading one at 61
  Pair m = pick(low, shl_k(quo, 1), quo);
  m.lo = x_.op(IrOp::ior, m.lo, nonzero(rem));
  Src exp_difference = x_.op(IrOp::isub, pa.exp, pc.exp);
  Src e = x_.op(IrOp::isub, exp_difference, x_.op(IrOp::isub, low, k(1023)));
  Pair finite = round_pack(sign, e, m);
  Src za = is_zero(a), zc = is_zero(c), ia = is_inf(a), ic = is_inf(c);
  Pair zero{k(0), sign}, inf{k(0), x_.op(IrOp::ior, sign, k(0x7FF00000u))};
  Pair res = pick(either(za, ic), zero, finite);
  res = pick(either(ia, zc), inf, res);
  Src both_zero = both(za, zc);
  res = pick(either(both_zero, both(ia, ic)), default_nan(), res);
  Src any_nan = unordered(a, c);
  return pick(any_nan, nan_result(a, c), res);
}

Pair Fp64::sqrt(Pair a) {
  Parts pa = normalized(a);
  // An even unbiased exponent: odd ones move a bit into the significand.
  Src odd = lnot(x_.op(IrOp::iand, pa.exp, k(1)));  // e - 1023 odd <=> e even
  Pair m = shl(pa.mant, odd);                        // [2^52, 2^54)
  Src half_e = x_.op(IrOp::ishr, x_.op(IrOp::isub, x_.op(IrOp::isub, pa.exp, k(1023)), odd), k(1));
  // sqrt(m * 2^56) in [2^54, 2^55): radicand bit pairs from the top of
  // m << 10, then zeros.
  Pair n0 = shl_k(m, 10);
  StepLoop loop(b_, {k(0), k(0), n0.lo, n0.hi, k(0), k(0)}, 55);
  Pair rem{loop.var(0), loop.var(1)}, n{loop.var(2), loop.var(3)}, root{loop.var(4), loop.var(5)};
  Pair rem2 = shl_k(rem, 2);
  rem2.lo = x_.op(IrOp::ior, rem2.lo, x_.op(IrOp::ushr, n.hi, k(30)));
  Pair n2 = shl_k(n, 2);
  Pair trial = shl_k(root, 2);
  trial.lo = x_.op(IrOp::ior, trial.lo, k(1));
  Src ge = lnot(x_.less(false, rem2, trial));
  Pair rem3 = pick(ge, x_.sub(rem2, trial), rem2);
  Pair root2 = shl_k(root, 1);
  root2.lo = x_.op(IrOp::ior, root2.lo, ge);
  std::vector<Src> out = loop.finish({rem3.lo, rem3.hi, n2.lo, n2.hi, root2.lo, root2.hi});
  Pair r = shl_k({out[4], out[5]}, 8);  // leading one at 62
  r.lo = x_.op(IrOp::ior, r.lo, nonzero({out[0], out[1]}));
  Pair finite = round_pack(k(0), x_.op(IrOp::iadd, half_e, k(1023)), r);
  // -0 -> -0, +inf -> +inf, NaN -> NaN, negative -> the default NaN.
  Src sign_set = x_.flag(Cond::slt, a.hi, k(0));
  Src negative = both(sign_set, lnot(is_zero(a)));
  Src zero = is_zero(a);
  Src keep = either(zero, is_inf(a));
  Pair res = pick(keep, a, finite);
  res = pick(negative, default_nan(), res);
  Src nan = is_nan(a);
  return pick(nan, nan_result(a), res);
}

}  // namespace agx::compiler::detail
