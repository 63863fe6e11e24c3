// Integer division and remainder. The AGX has no divide instruction
// (bminor/mesa-mesa lowers idiv in NIR). A power-of-two divisor becomes a
// shift or a mask; any other divisor becomes restoring long division, one
// quotient bit per step (32 steps, compare/select only, so it runs the same
// in every lane with no branches). Signed forms divide magnitudes and fix
// the signs (quotient negative when the signs differ, remainder with the
// dividend's sign, as OpSDiv/OpSRem define).
#include <bit>

#include "compiler/builder.h"
#include "compiler/passes.h"

namespace agx::compiler {

Status lower_idiv(Function& f) {
  std::vector<Instr> old = std::move(f.instrs);
  f.instrs.clear();
  Builder b(f);
  for (Instr& in : old) {
    bool div = in.op == Op::udiv || in.op == Op::sdiv;
    bool mod = in.op == Op::umod || in.op == Op::smod;
    if (!div && !mod) {
      f.instrs.push_back(std::move(in));
      continue;
    }
    b.line = in.line;
    bool is_signed = in.op == Op::sdiv || in.op == Op::smod;
    Src n = in.srcs[0], d = in.srcs[1];
    Src result;
    if (!is_signed && d.is_imm() && std::has_single_bit(static_cast<uint32_t>(d.imm))) {
      uint32_t k = static_cast<uint32_t>(d.imm);
      result = div ? b.binary(Op::ushr, n, Src::immediate(std::countr_zero(k))) : b.binary(Op::iand, n, Src::immediate(k - 1));
    } else if (!is_signed && d.is_imm() && d.imm > 1) {
      // Division by a constant as a multiply (Hacker's Delight 10-8, the
      // "add" variant that works for every divisor and dividend):
      // s = ceil(log2 d), m = floor(2^(32+s) / d) + 1 - 2^32,
      // t = mulhi(n, m), q = (t + ((n - t) >> 1)) >> (s - 1).
      uint32_t k = static_cast<uint32_t>(d.imm);
      unsigned s = 32 - std::countl_zero(k - 1);
      uint64_t m = static_cast<uint64_t>(((static_cast<unsigned __int128>(1) << (32 + s)) / k) + 1 - (uint64_t{1} << 32));
      ValueId wide = b.def(Op::umul_wide, {n, Src::immediate(static_cast<uint32_t>(m))}, 32, 2);
      f.values[wide].pair = true;
      Src t = Src::val(wide, 32, 1);
      Src half = b.binary(Op::ushr, b.binary(Op::isub, n, t), Src::immediate(1));
      Src q = b.binary(Op::ushr, b.binary(Op::iadd, t, half), Src::immediate(s - 1));
      result = div ? q : b.binary(Op::isub, n, b.imul(q, Src::immediate(k)));
    } else {
      Src un = n, ud = d;
      if (is_signed) {
        un = b.select(Cond::slt, false, n, Src::immediate(0), b.binary(Op::isub, Src::immediate(0), n), n);
        ud = b.select(Cond::slt, false, d, Src::immediate(0), b.binary(Op::isub, Src::immediate(0), d), d);
      }
      Src q = Src::immediate(0), r = Src::immediate(0);
      for (int i = 31; i >= 0; --i) {
        Src bit = b.binary(Op::iand, b.binary(Op::ushr, un, Src::immediate(i)), Src::immediate(1));
        r = b.binary(Op::ior, b.binary(Op::ishl, r, Src::immediate(1)), bit);
        Src t = b.binary(Op::isub, r, ud);
        // r >= d (unsigned): keep r - d and set quotient bit i.
        Src qb = b.binary(Op::ior, q, Src::immediate(1u << i));
        q = b.select(Cond::ult, true, r, ud, qb, q);
        r = b.select(Cond::ult, true, r, ud, t, r);
      }
      if (is_signed) {
        if (div) {
          Src sign = b.binary(Op::ixor, n, d);
          q = b.select(Cond::slt, false, sign, Src::immediate(0), b.binary(Op::isub, Src::immediate(0), q), q);
        } else {
          r = b.select(Cond::slt, false, n, Src::immediate(0), b.binary(Op::isub, Src::immediate(0), r), r);
        }
      }
      result = div ? q : r;
    }
    f.instrs.push_back(Instr{Op::mov, Cond::none, false, in.dest, {result}, 0, in.line});
  }
  return {};
}

}  // namespace agx::compiler
