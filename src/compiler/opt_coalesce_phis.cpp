// Phi copies disappear where they can: `%t = op ...; ...; %var = mov %t`
// becomes `%var = op ...` when, between the two, control flow does not
// change (the same lanes run both), nothing reads %var, and %t is read
// nowhere after the move. Loop-carried values then need no copy at the
// end of every iteration.
#include "compiler/passes.h"

namespace agx::compiler {

bool opt_coalesce_phis(Function& f) {
  bool progress = false;
  std::vector<int64_t> def_at(f.values.size(), -1), last_use(f.values.size(), -1);
  for (size_t i = 0; i < f.instrs.size(); ++i) {
    const Instr& in = f.instrs[i];
    for (const Src& s : in.srcs)
      if (s.is_value()) last_use[s.value] = static_cast<int64_t>(i);
    if (in.dest != kNoValue && !f.values[in.dest].variable) def_at[in.dest] = static_cast<int64_t>(i);
  }
  std::vector<uint8_t> removed(f.instrs.size(), 0);
  for (size_t m = 0; m < f.instrs.size(); ++m) {
    Instr& mv = f.instrs[m];
    if (mv.op != Op::mov || mv.dest == kNoValue || !f.values[mv.dest].variable) continue;
    const Src& s = mv.srcs[0];
    if (!s.is_value() || s.neg || s.abs || s.comp || s.bits != 32) continue;
    ValueId t = s.value, var = mv.dest;
    const Value& tv = f.values[t];
    if (tv.variable || tv.comps != 1 || tv.bits != 32 || f.values[var].comps != 1 || f.values[var].bits != 32) continue;
    int64_t d = def_at[t];
    if (d < 0 || last_use[t] != static_cast<int64_t>(m)) continue;
    Instr& def = f.instrs[d];
    uint16_t flags = op_info(def.op).flags;
    // A preload stays its own value: the allocator pins it to its register.
    if (def.op == Op::collect || def.op == Op::preload || (flags & (kOpLoad | kOpSideEffect | kOpControl))) continue;
    bool ok = true;
    for (size_t k = d + 1; k < m && ok; ++k) {
      const Instr& in = f.instrs[k];
      if (removed[k]) continue;
      if (op_info(in.op).flags & kOpControl) ok = false;
      if (in.dest == var) ok = false;
      for (const Src& r : in.srcs) ok &= !(r.is_value() && r.value == var);
    }
    if (!ok) continue;
    def.dest = var;
    for (size_t k = d + 1; k < m; ++k)
      for (Src& r : f.instrs[k].srcs)
        if (r.is_value() && r.value == t) r.value = var;
    removed[m] = 1;
    progress = true;
  }
  if (progress) {
    std::vector<Instr> kept;
    for (size_t i = 0; i < f.instrs.size(); ++i)
      if (!removed[i]) kept.push_back(std::move(f.instrs[i]));
    f.instrs = std::move(kept);
  }
  return progress;
}

}  // namespace agx::compiler
