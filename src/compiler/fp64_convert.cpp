// Conversions between doubles and floats / integers (fp64_lowering.h).
// float -> double and 32-bit integers -> double are exact; double ->
// float and 64-bit integers -> double round to nearest even (one
// rounding, from the significand with a sticky bit); double -> integer
// truncates toward zero.
#include "compiler/fp64_lowering.h"

namespace agx::compiler::detail {

using IrOp = agx::compiler::Op;

// The float's exponent is rebiased (+896 = 1023 - 127), its 23 mantissa
// bits move to the top of the double's 52; a float denormal is normalized
// first (its leading one at bit ffs becomes the hidden bit). NaNs keep
// their payload and get the quiet bit, as x86's cvtss2sd does.
Pair Fp64::from_f32(Src f) {
  Src sign = x_.op(IrOp::iand, f, k(0x80000000u));
  Src e = x_.op(IrOp::iand, x_.op(IrOp::ushr, f, k(23)), k(0xFF));
  Src m = x_.op(IrOp::iand, f, k(0x7FFFFF));
  Src den = x_.flag(Cond::ueq, e, k(0));
  Src msb = Src::val(b_.def(IrOp::ffs, {m}));
  Src sh = sel(den, x_.op(IrOp::isub, k(23), msb), k(0));
  Src mm = x_.op(IrOp::iand, x_.op(IrOp::ishl, m, sh), k(0x7FFFFF));
  Src den_exp = x_.op(IrOp::iadd, msb, k(874));
  Src ex = sel(den, den_exp, x_.op(IrOp::iadd, e, k(896)));
  Src finite_lo = x_.op(IrOp::ishl, mm, k(29));
  Src ex_field = x_.op(IrOp::ishl, ex, k(20));
  Src finite_hi = x_.op(IrOp::ior, sign, x_.op(IrOp::ior, ex_field, x_.op(IrOp::ushr, mm, k(3))));
  Pair finite{finite_lo, finite_hi};
  Src quiet = sel(x_.flag(Cond::ueq, m, k(0)), k(0), k(0x80000u));
  Src special_lo = x_.op(IrOp::ishl, m, k(29));
  Src special_exp = x_.op(IrOp::ior, sign, k(0x7FF00000u));
  Src special_hi = x_.op(IrOp::ior, special_exp, x_.op(IrOp::ior, x_.op(IrOp::ushr, m, k(3)), quiet));
  Pair special{special_lo, special_hi};
  Pair r = pick(both(den, x_.flag(Cond::ueq, m, k(0))), Pair{k(0), sign}, finite);
  return pick(x_.flag(Cond::ueq, e, k(0xFF)), special, r);
}

// The significand's top 32 bits (hidden bit at 30) plus a sticky bit,
// shifted right for a float denormal, rounded at bit 7.
Src Fp64::to_f32(Pair a) {
  Src sign = sign_of(a);
  Src e = biased_exp(a);
  Src hidden = sel(x_.flag(Cond::ueq, e, k(0)), k(0), k(0x100000));
  Pair sig{a.lo, x_.op(IrOp::ior, x_.op(IrOp::iand, a.hi, k(0xFFFFF)), hidden)};
  Src t_hi = x_.op(IrOp::ishl, sig.hi, k(10));
  Src t = x_.op(IrOp::ior, t_hi, x_.op(IrOp::ushr, sig.lo, k(22)));
  t = x_.op(IrOp::ior, t, x_.sel(Cond::ueq, x_.op(IrOp::ishl, sig.lo, k(10)), k(0), k(0), k(1)));
  Src fe = x_.op(IrOp::isub, e, k(896));  // the float's biased exponent
  Src den = x_.flag(Cond::slt, fe, k(1));
  Src sh = sel(den, x_.op(IrOp::isub, k(1), fe), k(0));
  sh = x_.sel(Cond::ugt, sh, k(31), k(31), sh);
  Src t2 = x_.op(IrOp::ushr, t, sh);
  Src lost = x_.sel(Cond::ueq, x_.op(IrOp::ishl, t2, sh), t, k(0), k(1));
  t2 = x_.op(IrOp::ior, t2, lost);
  Src lsb = x_.op(IrOp::iand, x_.op(IrOp::ushr, t2, k(7)), k(1));
  Src kept = x_.op(IrOp::ushr, x_.op(IrOp::iadd, t2, x_.op(IrOp::iadd, lsb, k(0x3F))), k(7));
  Src ee = sel(den, k(0), x_.op(IrOp::isub, fe, k(1)));
  Src finite = x_.op(IrOp::ior, sign, x_.op(IrOp::iadd, x_.op(IrOp::ishl, ee, k(23)), kept));
  Src inf = x_.op(IrOp::ior, sign, k(0x7F800000u));
  Src r = x_.sel(Cond::sgt, fe, k(0xFE), inf, finite);
  Src payload_hi = x_.op(IrOp::ishl, x_.op(IrOp::iand, a.hi, k(0xFFFFF)), k(3));
  Src payload = x_.op(IrOp::ior, payload_hi, x_.op(IrOp::ushr, a.lo, k(29)));
  Src nan = x_.op(IrOp::ior, x_.op(IrOp::ior, sign, k(0x7FC00000u)), payload);
  return sel(is_nan(a), nan, r);
}

Pair Fp64::from_u32(Src u) {
  Src msb = Src::val(b_.def(IrOp::ffs, {u}));
  Src t = x_.op(IrOp::ishl, u, x_.op(IrOp::isub, k(31), msb));  // leading one at 31
  // The hidden bit lands on the exponent field's LSB: exponent - 1.
  Src exp_field = x_.op(IrOp::ishl, x_.op(IrOp::iadd, msb, k(1022)), k(20));
  Src hi = x_.op(IrOp::iadd, exp_field, x_.op(IrOp::ushr, t, k(11)));
  Pair r{x_.op(IrOp::ishl, t, k(21)), hi};
  return pick(x_.flag(Cond::ueq, u, k(0)), Pair{k(0), k(0)}, r);
}

Pair Fp64::from_i32(Src i) {
  Src neg = x_.flag(Cond::slt, i, k(0));
  Pair r = from_u32(sel(neg, x_.op(IrOp::isub, k(0), i), i));
  return {r.lo, x_.op(IrOp::ior, r.hi, x_.op(IrOp::ishl, neg, k(31)))};
}

Pair Fp64::from_u64(Pair u) {
  Src lz = clz(u);
  // Leading one to bit 62 (from 63: one right with a sticky bit).
  Pair down = shr_k(u, 1);
  down.lo = x_.op(IrOp::ior, down.lo, x_.op(IrOp::iand, u.lo, k(1)));
  Src top_set = x_.flag(Cond::ueq, lz, k(0));
  Pair m = pick(top_set, down, shl(u, x_.op(IrOp::isub, lz, k(1))));
  Pair r = round_pack(k(0), x_.op(IrOp::isub, k(1023 + 63), lz), m);
  return pick(x_.flag(Cond::ueq, x_.op(IrOp::ior, u.lo, u.hi), k(0)), Pair{k(0), k(0)}, r);
}

Pair Fp64::from_i64(Pair i) {
  Src neg = x_.negative(i);
  Pair r = from_u64(x_.pick(neg, x_.neg(i), i));
  return {r.lo, x_.op(IrOp::ior, r.hi, x_.op(IrOp::ishl, neg, k(31)))};
}

Pair Fp64::to_int64(Pair a) {
  Src e = biased_exp(a);
  Pair sig{a.lo, x_.op(IrOp::ior, x_.op(IrOp::iand, a.hi, k(0xFFFFF)), k(0x100000))};
  Src ue = x_.op(IrOp::isub, e, k(1023));  // unbiased
  Pair right = shr(sig, x_.op(IrOp::isub, k(52), ue));
  Pair left = shl(sig, x_.op(IrOp::isub, ue, k(52)));
  Pair r = pick(x_.flag(Cond::sgt, ue, k(52)), left, right);
  Src below = x_.flag(Cond::slt, ue, k(0));
  Src out = either(below, x_.flag(Cond::sgt, ue, k(63)));
  r = pick(out, Pair{k(0), k(0)}, r);
  Src negative = x_.flag(Cond::slt, a.hi, k(0));
  return pick(negative, x_.neg(r), r);
}

}  // namespace agx::compiler::detail
