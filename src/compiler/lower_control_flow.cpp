// The nesting values of the exec-mask stack (bminor/mesa-mesa
// src/asahi/compiler/agx_compile.c treats break and continue this way).
// A loop that some continue targets is entered with two levels pushed: a
// lane that breaks sets r0l to (ifs open inside the loop) + 2 and one
// that continues to (ifs open) + 1, so popping the ifs on the way out
// leaves 2 (off until the loop ends) or 1 (back on at continue_join / the
// loop's while). A loop no continue targets needs one level: a break
// sets (ifs open) + 1, and the loop's end needs no while (no lane waits at
// 1 to run again). The levels go in the imm of loop, continue_join and
// end_loop for pack.cpp.
// A break/continue that leaves n more loops (its imm before this pass: a
// loop or continue from inside a switch, which is a loop that runs once)
// adds the ifs open in each loop it leaves and each inner loop's levels:
// the inner loops' whiles leave a lane at their level count or more
// alone and their pop_exec take their levels off, so the lane arrives at
// the target loop as a plain break/continue there would.
#include <fmt/format.h>

#include "compiler/passes.h"

namespace agx::compiler {

namespace {

bool is_jump(Op op) { return is_break(op) || is_continue(op); }

// Which loops (by the index of their `loop` instruction) some continue
// targets.
Result<std::vector<bool>> continued_loops(const Function& f) {
  std::vector<bool> continued(f.instrs.size(), false);
  std::vector<size_t> open;
  for (size_t i = 0; i < f.instrs.size(); ++i) {
    const Instr& in = f.instrs[i];
    if (in.op == Op::loop) open.push_back(i);
    if (in.op == Op::end_loop) {
      if (open.empty()) return Error::invalid_argument("end_loop without loop");
      open.pop_back();
    }
    if (!is_jump(in.op)) continue;
    if (in.imm >= open.size())
      return Error::invalid_argument("break/continue of {} loops out with {} open", in.imm + 1, open.size());
    if (is_continue(in.op)) continued[open[open.size() - 1 - in.imm]] = true;
  }
  return continued;
}

struct OpenLoop {
  uint32_t ifs = 0;     // ifs open inside it
  uint32_t levels = 2;  // exec-mask levels it pushes
};

}  // namespace

Status lower_control_flow(Function& f) {
  AGX_TRY(const std::vector<bool> continued, continued_loops(f));
  std::vector<OpenLoop> loops;
  for (size_t i = 0; i < f.instrs.size(); ++i) {
    Instr& in = f.instrs[i];
    switch (in.op) {
      case Op::loop:
        loops.push_back(OpenLoop{0, continued[i] ? 2u : 1u});
        in.imm = loops.back().levels;
        break;
      case Op::continue_join:
        if (loops.empty()) return Error::invalid_argument("continue_join outside a loop");
        in.imm = loops.back().levels;
        break;
      case Op::end_loop:
        in.imm = loops.back().levels;
        loops.pop_back();
        break;
      case Op::if_: if (!loops.empty()) ++loops.back().ifs; break;
      case Op::end_if: if (!loops.empty()) --loops.back().ifs; break;
      case Op::break_: case Op::continue_: case Op::break_if: case Op::continue_if: {
        const uint64_t levels = in.imm;  // loops left besides the target (checked above)
        const OpenLoop& target = loops[loops.size() - 1 - levels];
        uint64_t k = is_continue(in.op) ? 1 : target.levels;
        for (uint64_t m = 0; m <= levels; ++m) {
          const OpenLoop& l = loops[loops.size() - 1 - m];
          k += l.ifs + (m < levels ? l.levels : 0);
        }
        if (k > 0xFFFF) return Error::unsupported("if statements nested {} deep inside a loop", k);
        in.imm = k;
        break;
      }
      default: break;
    }
  }
  return {};
}

}  // namespace agx::compiler
