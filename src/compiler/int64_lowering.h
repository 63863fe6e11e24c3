// 64-bit integer operations on 32-bit halves for the translator: the
// formulas of bminor/mesa-mesa src/compiler/nir/nir_lower_int64.c (add with
// carry, 32x32->64 multiply plus the cross products, shifts split at 32,
// comparisons on the high word then the low word, shift-subtract
// division), written as IR through the builder.
#pragma once

#include "compiler/builder.h"

namespace agx::compiler::detail {

// A 64-bit value as its two 32-bit words.
struct Pair { Src lo, hi; };

class Int64 {
 public:
  explicit Int64(Builder& b) : b_(b) {}
  Builder& builder() { return b_; }
  Src flag(Cond c, Src a, Src x) { return b_.select(c, false, a, x, Src::immediate(1), Src::immediate(0)); }
  Src sel(Cond c, Src a, Src x, Src t, Src f) { return b_.select(c, false, a, x, t, f); }
  Src op(Op o, Src a, Src x) { return b_.binary(o, a, x); }

  Pair add(Pair a, Pair x);
  Pair sub(Pair a, Pair x);
  Pair mul(Pair a, Pair x);
  Pair bitwise(Op o, Pair a, Pair x) { return {op(o, a.lo, x.lo), op(o, a.hi, x.hi)}; }
  Pair neg(Pair a) { return sub({Src::immediate(0), Src::immediate(0)}, a); }
  // Shifts (ishl, ushr, ishr) by s mod 64: the halves move across at 32.
  Pair shift(Op o, Pair a, Src s);
  // 1 where a < b (signed on the high word for `sign`), else 0.
  Src less(bool sign, Pair a, Pair x);
  // Nonzero where a != b.
  Src differs(Pair a, Pair x) {
    Src lo = op(Op::ixor, a.lo, x.lo);
    return op(Op::ior, lo, op(Op::ixor, a.hi, x.hi));
  }
  // Per half: f != 0 ? t : e.
  Pair pick(Src f, Pair t, Pair e) {
    return {sel(Cond::ueq, f, Src::immediate(0), e.lo, t.lo), sel(Cond::ueq, f, Src::immediate(0), e.hi, t.hi)};
  }
  Src negative(Pair a) { return flag(Cond::slt, a.hi, Src::immediate(0)); }
  Pair abs(Pair a) {
    Src is_negative = negative(a);
    return pick(is_negative, neg(a), a);
  }
  // Unsigned n / d and n % d (either may be null): a loop of 64
  // shift-subtract steps.
  void udivmod(Pair n, Pair d, Pair* q, Pair* r);

 private:
  Builder& b_;
};

// An unsigned 64-bit value to the nearest float (ties to even).
Src to_float(Int64& x, Pair a);
// A float's magnitude truncated to an unsigned 64-bit integer.
Pair from_float(Int64& x, Src f);

}  // namespace agx::compiler::detail
