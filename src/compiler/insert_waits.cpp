// Loads and returning atomics write their destination registers some time
// after they issue; `wait 0` (the wait group every load here uses) holds
// the group until they have landed. A wait goes before the first
// instruction that reads or overwrites a register still pending, and
// before control-flow markers and stop while anything is pending (a use
// may come on a path the scan does not follow). bminor/mesa-mesa
// src/asahi/compiler/agx_insert_waits.c does the same with scoreboards.
#include <bitset>

#include "compiler/passes.h"
#include "compiler/regs.h"

namespace agx::compiler {

Status insert_waits(Function& f) {
  std::bitset<kRegisterHalves> pending;
  std::vector<Instr> out;
  out.reserve(f.instrs.size() + 8);
  auto touches = [&](ValueId v) {
    const Value& val = f.values[v];
    if (val.reg < 0) return false;
    for (unsigned h = 0; h < val.halves(); ++h)
      if (pending.test(val.reg + h)) return true;
    return false;
  };
  for (Instr& in : f.instrs) {
    bool need = false;
    if (pending.any()) {
      if (op_info(in.op).flags & kOpControl) need = true;
      for (const Src& s : in.srcs) need |= s.is_value() && touches(s.value);
      if (in.dest != kNoValue) need |= touches(in.dest);
    }
    if (need) {
      out.push_back(Instr{Op::wait, Cond::none, false, kNoValue, {}, 0, in.line});
      pending.reset();
    }
    bool load = op_info(in.op).flags & kOpLoad;
    if (load && in.dest != kNoValue) {
      const Value& v = f.values[in.dest];
      for (unsigned h = 0; h < v.halves(); ++h) pending.set(v.reg + h);
    }
    out.push_back(std::move(in));
  }
  f.instrs = std::move(out);
  return {};
}

}  // namespace agx::compiler
