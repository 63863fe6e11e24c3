// Dead code elimination: results nobody reads are removed (pure ops and
// loads); atomics keep their side effect and drop the destination.
#include "compiler/passes.h"

namespace agx::compiler {

bool dce(Function& f) {
  bool progress = false;
  for (;;) {
    std::vector<uint32_t> uses(f.values.size(), 0);
    for (const Instr& in : f.instrs)
      for (const Src& s : in.srcs)
        if (s.is_value()) ++uses[s.value];
    std::vector<Instr> kept;
    kept.reserve(f.instrs.size());
    bool changed = false;
    for (Instr& in : f.instrs) {
      uint16_t flags = op_info(in.op).flags;
      bool dead_dest = in.dest != kNoValue && uses[in.dest] == 0;
      if (dead_dest && (in.op == Op::atomic || in.op == Op::local_atomic)) {
        in.dest = kNoValue;
        changed = true;
      } else if (dead_dest && !(flags & (kOpSideEffect | kOpControl))) {
        changed = true;
        continue;
      }
      kept.push_back(std::move(in));
    }
    f.instrs = std::move(kept);
    if (!changed) break;
    progress = true;
  }
  return progress;
}

}  // namespace agx::compiler
