// Conditional breaks and continues become one jump:
//   if_ a, b, cond; [%x = mov %y ...]; break_ (or continue_); end_if
// becomes
//   [%x = mov %y ...]; break_if a, b, cond (or continue_if)
// which pack.cpp emits as `icmpsel`/`fcmpsel r0l, a, b, k, r0l` (r0l
// becomes the break's nesting value in the lanes where the condition
// holds) and `pop_exec r0l, 0` (exec follows r0l), or with nesting value
// 1 as one `while_icmp`/`while_fcmp`: one or two instructions for the four
// of if_icmp, mov_imm, pop_exec 0, pop_exec 1. Mesa's AGX compiler fuses
// the same pattern (bminor/mesa-mesa src/asahi/compiler/agx_lower_pseudo.c:
// break_if as while at nest 1, else cmpsel + push_exec 0).
//
// The copies before a break write the loop's exit values (phi variables).
// Moved before the test they also run in the lanes that stay in the loop,
// which is harmless when nothing reads the variable on their way: no read
// of it inside the loop, and every exit of the loop writes it first (a
// copy among the instructions just before the exit).
#include <algorithm>

#include "compiler/passes.h"

namespace agx::compiler {

namespace {

// The instruction indices of each loop's end_loop, by its loop.
std::vector<size_t> matching_ends(const Function& f) {
  std::vector<size_t> end(f.instrs.size(), 0), open;
  for (size_t i = 0; i < f.instrs.size(); ++i) {
    if (f.instrs[i].op == Op::loop) open.push_back(i);
    if (f.instrs[i].op == Op::end_loop && !open.empty()) {
      end[open.back()] = i;
      open.pop_back();
    }
  }
  return end;
}

bool reads(const Instr& in, ValueId v) {
  return std::any_of(in.srcs.begin(), in.srcs.end(), [v](const Src& s) { return s.is_value() && s.value == v; });
}

// Whether the copies into exit variable `v` may run in every lane of the
// loop [begin, end): no instruction of the loop reads v, and each way out
// of the loop (a break_ of it, or one that leaves it and outer loops) is
// preceded by a copy into v. Instructions marked in `gone` (the leftovers
// of sites already fused) do not count.
bool exit_only_variable(const Function& f, const std::vector<bool>& gone, ValueId v, size_t begin, size_t end) {
  unsigned depth = 0;  // loops open inside [begin, end)
  for (size_t i = begin + 1; i < end; ++i) {
    if (gone[i]) continue;
    const Instr& in = f.instrs[i];
    if (reads(in, v)) return false;
    if (in.op == Op::loop) ++depth;
    if (in.op == Op::end_loop) --depth;
    const bool leaves = (is_break(in.op) && in.imm >= depth) || (is_continue(in.op) && in.imm > depth);
    if (!leaves) continue;
    bool written = false;
    for (size_t j = i; j-- > begin + 1 && f.instrs[j].op == Op::mov;)
      written |= f.instrs[j].dest == v;
    if (!written) return false;
  }
  return true;
}

}  // namespace

bool opt_break_if(Function& f) {
  const std::vector<size_t> end_of = matching_ends(f);
  std::vector<size_t> loops;  // open loops (instruction indices)
  std::vector<bool> drop(f.instrs.size(), false);
  bool progress = false;
  for (size_t i = 0; i < f.instrs.size(); ++i) {
    const Op op = f.instrs[i].op;
    if (op == Op::loop) loops.push_back(i);
    if (op == Op::end_loop && !loops.empty()) loops.pop_back();
    if (op != Op::if_ || loops.empty()) continue;
    // if_, copies, break_/continue_, end_if
    size_t j = i + 1;
    while (j < f.instrs.size() && f.instrs[j].op == Op::mov) ++j;
    if (j + 1 >= f.instrs.size() || f.instrs[j + 1].op != Op::end_if) continue;
    const Op jump = f.instrs[j].op;
    if (jump != Op::break_ && jump != Op::continue_) continue;
    const Instr& test = f.instrs[i];
    bool movable = true;
    for (size_t k = i + 1; k < j && movable; ++k) {
      const Instr& copy = f.instrs[k];
      // Only exit copies of a break out of this loop: a continue's copies
      // feed the loop's own phis, and a multi-level break's the outer loop.
      movable = jump == Op::break_ && f.instrs[j].imm == 0 && copy.dest != kNoValue && f.values[copy.dest].variable &&
                !reads(test, copy.dest) && exit_only_variable(f, drop, copy.dest, loops.back(), end_of[loops.back()]);
    }
    if (!movable) continue;
    // Rewrite in place: the copies move up one slot, the test becomes the
    // jump, the old jump and end_if go.
    Instr fused = test;
    fused.op = jump == Op::break_ ? Op::break_if : Op::continue_if;
    fused.imm = f.instrs[j].imm;
    for (size_t k = i; k + 1 < j; ++k) f.instrs[k] = std::move(f.instrs[k + 1]);
    f.instrs[j - 1] = std::move(fused);
    drop[j] = drop[j + 1] = true;
    progress = true;
    i = j + 1;
  }
  if (!progress) return false;
  remove_instrs(f, drop);
  return true;
}

}  // namespace agx::compiler
