// Copy propagation: a use of `%b = mov %a` reads %a (or the immediate /
// uniform) directly. Variables and moves into them stay: they carry values
// between control-flow paths.
#include "compiler/passes.h"

namespace agx::compiler {

bool opt_copy_prop(Function& f) {
  std::vector<Src> replace(f.values.size());
  std::vector<uint8_t> has(f.values.size(), 0);
  bool progress = false;
  for (Instr& in : f.instrs) {
    // Store data names a whole value (its components are the words
    // stored): the first component of a wider value would store them all.
    const bool stores = in.op == Op::device_store || in.op == Op::local_store || in.op == Op::stack_store;
    for (Src& s : in.srcs) {
      if (!s.is_value() || !has[s.value]) continue;
      const Src& r = replace[s.value];
      if (s.bits != 32 || s.comp != 0) continue;
      if (stores && &s == &in.srcs[0] && r.is_value() && f.values[r.value].comps > 1) continue;
      if ((s.neg || s.abs) && r.kind == Src::Kind::imm) continue;  // modifiers need a register or uniform
      Src n = r;
      n.neg = s.neg;
      n.abs = s.abs;
      s = n;
      progress = true;
    }
    if (in.op == Op::mov && in.dest != kNoValue && !f.values[in.dest].variable && f.values[in.dest].comps == 1 &&
        in.srcs[0].bits == 32 && f.values[in.dest].bits == 32 && !in.srcs[0].neg && !in.srcs[0].abs &&
        !(in.srcs[0].is_value() && f.values[in.srcs[0].value].variable)) {
      replace[in.dest] = in.srcs[0];
      has[in.dest] = 1;
    }
  }
  return progress;
}

}  // namespace agx::compiler
