// The 64-bit integer operations on halves (int64_lowering.h).
#include "compiler/int64_lowering.h"

namespace agx::compiler::detail {

using IrOp = agx::compiler::Op;

Pair Int64::add(Pair a, Pair x) {
  Src lo = op(IrOp::iadd, a.lo, x.lo);
  Src carry = lo.is_imm() && a.lo.is_imm() ? Src::immediate(static_cast<uint32_t>(lo.imm) < static_cast<uint32_t>(a.lo.imm))
                                           : flag(Cond::ult, lo, a.lo);
  return {lo, op(IrOp::iadd, op(IrOp::iadd, a.hi, x.hi), carry)};
}

Pair Int64::sub(Pair a, Pair x) {
  Src borrow = a.lo.is_imm() && x.lo.is_imm() ? Src::immediate(static_cast<uint32_t>(a.lo.imm) < static_cast<uint32_t>(x.lo.imm))
                                              : flag(Cond::ult, a.lo, x.lo);
  return {op(IrOp::isub, a.lo, x.lo), op(IrOp::isub, op(IrOp::isub, a.hi, x.hi), borrow)};
}

Pair Int64::mul(Pair a, Pair x) {
  Src lo, carry_hi;
  if (a.lo.is_imm() && x.lo.is_imm()) {
    uint64_t p = (a.lo.imm & 0xFFFFFFFFu) * (x.lo.imm & 0xFFFFFFFFu);
    lo = Src::immediate(static_cast<uint32_t>(p));
    carry_hi = Src::immediate(static_cast<uint32_t>(p >> 32));
  } else {
    Src l = a.lo, r = x.lo;
    if (l.is_imm()) std::swap(l, r);
    ValueId wide = b_.def(IrOp::umul_wide, {l, r}, 32, 2);
    b_.function().values[wide].pair = true;
    lo = Src::val(wide, 32, 0);
    carry_hi = Src::val(wide, 32, 1);
  }
  Src hi = b_.imad(a.lo, x.hi, b_.imad(a.hi, x.lo, carry_hi));
  return {lo, hi};
}

// Shifts by s mod 64: the halves move across at 32.
Pair Int64::shift(IrOp o, Pair a, Src s) {
  Src s5 = op(IrOp::iand, s, Src::immediate(31));
  Src big = op(IrOp::iand, s, Src::immediate(32));
  Src inv = op(IrOp::isub, Src::immediate(31), s5);
  Pair small, large;
  if (o == IrOp::ishl) {
    // (lo >> 1) >> (31 - s): the bits that cross, 0 for s = 0.
    Src cross = op(IrOp::ushr, op(IrOp::ushr, a.lo, Src::immediate(1)), inv);
    small = {op(IrOp::ishl, a.lo, s5), op(IrOp::ior, op(IrOp::ishl, a.hi, s5), cross)};
    large = {Src::immediate(0), op(IrOp::ishl, a.lo, s5)};
  } else {
    Src cross = op(IrOp::ishl, op(IrOp::ishl, a.hi, Src::immediate(1)), inv);
    small = {op(IrOp::ior, op(IrOp::ushr, a.lo, s5), cross), op(o, a.hi, s5)};
    large = {op(o, a.hi, s5), o == IrOp::ishr ? op(IrOp::ishr, a.hi, Src::immediate(31)) : Src::immediate(0)};
  }
  if (big.is_imm()) return big.imm ? large : small;
  return {sel(Cond::ueq, big, Src::immediate(0), small.lo, large.lo), sel(Cond::ueq, big, Src::immediate(0), small.hi, large.hi)};
}

// 1 where a < b (signed on the high word for `sign`), else 0.
Src Int64::less(bool sign, Pair a, Pair x) {
  Src lo_lt = flag(Cond::ult, a.lo, x.lo);
  Src hi_lt = flag(sign ? Cond::slt : Cond::ult, a.hi, x.hi);
  return sel(Cond::ueq, a.hi, x.hi, lo_lt, hi_lt);
}

// Unsigned n / d and n % d: 64 steps of shift-subtract in a loop (the
// numerator shifts out at the top while the quotient bits shift in).
void Int64::udivmod(Pair n, Pair d, Pair* q, Pair* r) {
  Function& f = b_.function();
  auto var = [&](Src init) {
    ValueId v = f.new_value(32, 1, true);
    b_.def_into(v, IrOp::mov, {init});
    return v;
  };
  ValueId nl = var(n.lo), nh = var(n.hi), rl = var(Src::immediate(0)), rh = var(Src::immediate(0));
  ValueId i = var(Src::immediate(64));
  auto V = [](ValueId v) { return Src::val(v); };
  b_.emit(IrOp::loop);
  Src top = op(IrOp::ushr, V(rh), Src::immediate(31));  // the bit r << 1 loses
  // (hi, lo) << 1 of one word: hi << 1 | lo >> 31, in that order.
  auto shl1 = [&](ValueId hi, ValueId lo) {
    Src moved = op(IrOp::ishl, V(hi), Src::immediate(1));
    return op(IrOp::ior, moved, op(IrOp::ushr, V(lo), Src::immediate(31)));
  };
  Src r2_lo = shl1(rl, nh);
  Pair r2{r2_lo, shl1(rh, rl)};
  Src n2_lo = op(IrOp::ishl, V(nl), Src::immediate(1));
  Pair n2{n2_lo, shl1(nh, nl)};
  Src ge = op(IrOp::ior, top, op(IrOp::ixor, less(false, r2, d), Src::immediate(1)));
  Pair r3 = pick(ge, sub(r2, d), r2);
  Src nl3 = op(IrOp::ior, n2.lo, ge);
  b_.def_into(rl, IrOp::mov, {r3.lo});
  b_.def_into(rh, IrOp::mov, {r3.hi});
  b_.def_into(nl, IrOp::mov, {nl3});
  b_.def_into(nh, IrOp::mov, {n2.hi});
  Src i2 = op(IrOp::isub, V(i), Src::immediate(1));
  b_.def_into(i, IrOp::mov, {i2});
  b_.emit(IrOp::if_, {i2, Src::immediate(0)}, 0, Cond::ueq, false);
  b_.emit(IrOp::break_);
  b_.emit(IrOp::end_if);
  b_.emit(IrOp::end_loop);
  // Copies out of the variables: later uses read plain values.
  if (q) *q = {Src::val(b_.def(IrOp::mov, {V(nl)})), Src::val(b_.def(IrOp::mov, {V(nh)}))};
  if (r) *r = {Src::val(b_.def(IrOp::mov, {V(rl)})), Src::val(b_.def(IrOp::mov, {V(rh)}))};
}

// An unsigned 64-bit value to the nearest float (ties to even): a high word
// of 0 converts the low word; otherwise the 32 bits from the leading one
// down, with a sticky bit for anything nonzero below them, convert with the
// hardware's rounding and are scaled back by a power of two.
Src to_float(Int64& x, Pair a) {
  Builder& b = x.builder();
  Src small = Src::val(b.def(IrOp::convert, {a.lo}, 32, 1, static_cast<uint64_t>(Conv::u32_to_f)));
  Src msb = Src::val(b.def(IrOp::ffs, {a.hi}));
  Src sh = x.op(IrOp::isub, Src::immediate(31), msb);
  Src cross = x.op(IrOp::ushr, x.op(IrOp::ushr, a.lo, Src::immediate(1)), msb);
  Src top = x.op(IrOp::ior, x.op(IrOp::ishl, a.hi, sh), cross);
  Src rest = x.op(IrOp::ishl, a.lo, sh);
  top = x.op(IrOp::ior, top, x.sel(Cond::ueq, rest, Src::immediate(0), Src::immediate(0), Src::immediate(1)));
  Src f = Src::val(b.def(IrOp::convert, {top}, 32, 1, static_cast<uint64_t>(Conv::u32_to_f)));
  // 2^(32 - sh) as float bits: exponent 127 + 32 - sh.
  Src scale = x.op(IrOp::ishl, x.op(IrOp::isub, Src::immediate(159), sh), Src::immediate(23));
  Src big = Src::val(b.def(IrOp::fmul, {f, scale}));
  return x.sel(Cond::ueq, a.hi, Src::immediate(0), small, big);
}

// A float's magnitude truncated to an unsigned 64-bit integer: the 24-bit
// significand shifted by exponent - 150 (right for small values, left into
// the high word for large ones); NaN and out-of-range values are
// undefined in GLSL.
Pair from_float(Int64& x, Src f) {
  Src e = x.op(IrOp::iand, x.op(IrOp::ushr, f, Src::immediate(23)), Src::immediate(0xFF));
  Src mant = x.op(IrOp::ior, x.op(IrOp::iand, f, Src::immediate(0x7FFFFF)), Src::immediate(0x800000));
  Src right = x.op(IrOp::isub, Src::immediate(150), e);
  right = x.sel(Cond::ugt, right, Src::immediate(31), Src::immediate(31), right);
  Src small = x.op(IrOp::ushr, mant, right);
  Pair big = x.shift(IrOp::ishl, {mant, Src::immediate(0)}, x.op(IrOp::isub, e, Src::immediate(150)));
  Src is_small = x.flag(Cond::ult, e, Src::immediate(150));
  return x.pick(is_small, {small, Src::immediate(0)}, big);
}

}  // namespace agx::compiler::detail
