// Float modifiers fold into their users: `%m = fadd |%x|, -0.0` (how
// fabs/fneg are translated: an fmov) read by float sources becomes the
// source modifier itself (applegpu FloatSrcDesc's .abs/.neg), and the move
// goes away once nothing else reads it.
#include "compiler/passes.h"

namespace agx::compiler {

namespace {
bool float_slot(const Instr& in, size_t i) {
  switch (in.op) {
    case Op::fadd: case Op::fmul: case Op::fmadd: case Op::floor: case Op::ceil: case Op::trunc: case Op::rint:
    case Op::rcp: case Op::rsqrt: case Op::rsqrt_special: case Op::log2: case Op::exp2: case Op::sin_pt_1: case Op::sin_pt_2:
    case Op::dfdx: case Op::dfdy:
      return true;
    case Op::fcmpsel: return i < 2;
    case Op::if_: return cond_is_float(in.cond);
    default: return false;
  }
}
}  // namespace

bool opt_float_modifiers(Function& f) {
  std::vector<const Instr*> fmov(f.values.size(), nullptr);
  bool progress = false;
  for (Instr& in : f.instrs) {
    for (size_t i = 0; i < in.srcs.size(); ++i) {
      Src& s = in.srcs[i];
      if (!s.is_value() || !fmov[s.value] || !float_slot(in, i) || s.bits != 32) continue;
      Src x = fmov[s.value]->srcs[0];
      Src n = x;
      if (s.abs) { n.abs = true; n.neg = s.neg; }
      else { n.neg = x.neg != s.neg; }
      s = n;
      progress = true;
    }
    // fadd x{mods}, -0.0 is x with its modifiers (x + -0 = x for every x).
    if (in.op == Op::fadd && in.dest != kNoValue && !f.values[in.dest].variable && in.srcs[1].is_imm() &&
        in.srcs[1].imm == 0x80000000u && !in.srcs[1].neg && !in.srcs[1].abs && in.srcs[0].bits == 32 &&
        (in.srcs[0].is_value() || in.srcs[0].kind == Src::Kind::uniform) &&
        !(in.srcs[0].is_value() && f.values[in.srcs[0].value].variable))
      fmov[in.dest] = &in;
  }
  return progress;
}

}  // namespace agx::compiler
