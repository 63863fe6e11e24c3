// Empty branches of an if go (bminor/mesa-mesa src/asahi/compiler has the
// same clean-up as agx_opt_empty_else):
//   if_ c; else_; ...; end_if   ->  if_ !c; ...; end_if
//   if_ c; ...; else_; end_if   ->  if_ c; ...; end_if
//   if_ c; end_if               ->  (nothing: the comparison has no effect)
// Each is the same exec-mask state for every lane at the end_if: else_
// only swaps which lanes run, and a lane's nesting counter comes back to
// its value before the if either way.
#include "compiler/passes.h"

namespace agx::compiler {

namespace {

bool one_round(Function& f) {
  std::vector<bool> drop(f.instrs.size(), false);
  bool progress = false;
  for (size_t i = 0; i + 1 < f.instrs.size(); ++i) {
    Instr& in = f.instrs[i];
    const Op next = f.instrs[i + 1].op;
    if (in.op == Op::if_ && next == Op::end_if) {
      drop[i] = drop[i + 1] = true;
    } else if (in.op == Op::if_ && next == Op::else_) {
      in.invert = !in.invert;
      drop[i + 1] = true;
    } else if (in.op == Op::else_ && next == Op::end_if) {
      drop[i] = true;
    } else {
      continue;
    }
    progress = true;
    ++i;  // the next instruction is settled
  }
  if (!progress) return false;
  remove_instrs(f, drop);
  return true;
}

}  // namespace

bool opt_empty_else(Function& f) {
  bool progress = false;
  while (one_round(f)) progress = true;  // an if emptied by the round before goes next
  return progress;
}

}  // namespace agx::compiler
