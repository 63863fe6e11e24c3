// The nesting values of the exec-mask stack. Inside a loop (entered with
// two levels pushed), a lane that breaks sets r0l to (ifs open inside the
// loop) + 2 and one that continues to (ifs open) + 1: popping the ifs on
// the way out leaves 2 (stays off until the loop ends) or 1 (back on at
// continue_join / the loop's while). bminor/mesa-mesa
// src/asahi/compiler/agx_compile.c treats break and continue this way.
// A break/continue that leaves n more loops (its imm before this pass: a
// loop or continue from inside a switch, which is a loop that runs once)
// adds the ifs open in each loop it leaves and 2 per loop: the inner
// loops' whiles leave a lane at 2 or more alone and their pop_exec 2 take
// their two levels off, so the lane arrives at the target loop as a
// plain break/continue there would.
#include <fmt/format.h>

#include "compiler/passes.h"

namespace agx::compiler {

Status lower_control_flow(Function& f) {
  std::vector<uint32_t> ifs_in_loop;  // per open loop
  for (Instr& in : f.instrs) {
    switch (in.op) {
      case Op::loop: ifs_in_loop.push_back(0); break;
      case Op::end_loop:
        if (ifs_in_loop.empty()) return Error::invalid_argument("end_loop without loop");
        ifs_in_loop.pop_back();
        break;
      case Op::if_: if (!ifs_in_loop.empty()) ++ifs_in_loop.back(); break;
      case Op::end_if: if (!ifs_in_loop.empty()) --ifs_in_loop.back(); break;
      case Op::break_: case Op::continue_: case Op::break_if: case Op::continue_if: {
        if (ifs_in_loop.empty()) return Error::invalid_argument("break/continue outside a loop");
        uint64_t levels = in.imm;
        if (levels >= ifs_in_loop.size())
          return Error::invalid_argument("break/continue of {} loops out with {} open", levels + 1, ifs_in_loop.size());
        const bool is_break = in.op == Op::break_ || in.op == Op::break_if;
        uint64_t k = (is_break ? 2 : 1) + 2 * levels;
        for (uint64_t m = 0; m <= levels; ++m) k += ifs_in_loop[ifs_in_loop.size() - 1 - m];
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
