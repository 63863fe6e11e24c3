// Double addition (fp64_lowering.h). The operand of larger magnitude
// ("big") sets the exponent; the other's significand shifts right by the
// exponent difference with a sticky bit; both carry 9 guard bits (hidden
// bit at 61), which covers the one-bit normalization a subtraction of a
// significand shifted by 2 or more can need. Exact cancellation gives +0
// (-0 only for -0 + -0), as round to nearest defines.
#include "compiler/fp64_lowering.h"

namespace agx::compiler::detail {

using IrOp = agx::compiler::Op;

Pair Fp64::add(Pair a, Pair c, Pair nan_c) {
  Pair abs_a = abs(a);
  Src swap = x_.less(false, abs_a, abs(c));
  Pair big = pick(swap, c, a), small = pick(swap, a, c);
  Src eb = biased_exp(big), es = biased_exp(small);
  // Significands with the hidden bit (denormals: none, exponent 1), << 9.
  auto significand = [&](Pair p, Src e) {
    Src hidden = sel(x_.flag(Cond::ueq, e, k(0)), k(0), k(0x100000));
    return shl_k({p.lo, x_.op(IrOp::ior, x_.op(IrOp::iand, p.hi, k(0xFFFFF)), hidden)}, 9);
  };
  Src eb1 = sel(x_.flag(Cond::ueq, eb, k(0)), k(1), eb);
  Src es1 = sel(x_.flag(Cond::ueq, es, k(0)), k(1), es);
  Pair mb = significand(big, eb);
  Pair small_m = significand(small, es);
  Pair ms = shr_sticky(small_m, x_.op(IrOp::isub, eb1, es1));
  Src subtract = x_.flag(Cond::slt, x_.op(IrOp::ixor, a.hi, c.hi), k(0));
  Pair difference = x_.sub(mb, ms);
  Pair sum = x_.add(mb, ms);
  Pair m = pick(subtract, difference, sum);
  // Leading one to bit 62: at bit 61 the exponent is eb.
  Src lz = clz(m);
  Src e = x_.op(IrOp::isub, x_.op(IrOp::iadd, eb1, k(2)), lz);
  Src big_sign = sign_of(big);
  Pair finite = round_pack(big_sign, e, shl(m, x_.op(IrOp::isub, lz, k(1))));
  Pair zero{k(0), x_.op(IrOp::iand, x_.op(IrOp::iand, a.hi, c.hi), k(0x80000000u))};
  Pair res = pick(nonzero(m), finite, zero);
  // Infinity or NaN in big: NaN for a NaN or inf - inf, else big.
  Src big_nan = is_nan(big);
  Src invalid = either(big_nan, both(subtract, is_inf(small)));
  Pair special = pick(invalid, nan_result(a, nan_c), big);
  return pick(x_.flag(Cond::ueq, eb, k(0x7FF)), special, res);
}

}  // namespace agx::compiler::detail
