// Variables that hold one SSA value. The translator keeps every local
// (shader inputs and outputs included) in variables, written on each path.
// * One written exactly once, outside every if and loop, and read only
//   after that write holds one value for the rest of the shader: it
//   becomes an SSA value, so copy propagation, CSE and the allocator treat
//   it as one (a vertex output then goes out straight from its
//   attribute's register).
// * One whose every write is a plain `mov` of the same source -- an
//   immediate, a uniform or an SSA value defined outside every if and loop
//   before the variable is first touched -- holds that source wherever it
//   is read (a path without a write leaves it undefined, so the source
//   will do): its reads read the source, and dce drops the unread writes
//   (an if whose both sides copy the same value to a phi).
#include "compiler/passes.h"

namespace agx::compiler {

namespace {

struct VariableUse {
  int64_t def_at = -1;       // the only write, -2 for several
  int64_t first_touch = INT64_MAX;
  int64_t first_read = INT64_MAX;
  bool nested = false;       // a write inside an if or loop
  int copies = 0;            // 0 none yet, 1 every write copies `source`, -1 not so
  Src source;
};

constexpr int64_t kSeveral = -2;

// A plain mov of something every read of `var` may read instead.
bool copies_top_level(const Function& f, const Instr& in, const std::vector<int64_t>& top_def, int64_t before) {
  if (in.op != Op::mov) return false;
  const Src& s = in.srcs[0];
  if (s.neg || s.abs || s.bits != 32 || f.values[in.dest].bits != 32 || f.values[in.dest].comps != 1) return false;
  if (s.kind == Src::Kind::imm || s.kind == Src::Kind::uniform) return true;
  return s.is_value() && !f.values[s.value].variable && top_def[s.value] >= 0 && top_def[s.value] < before;
}

std::vector<VariableUse> scan(const Function& f) {
  std::vector<VariableUse> use(f.values.size());
  std::vector<int64_t> top_def(f.values.size(), -1);
  int depth = 0;
  for (size_t i = 0; i < f.instrs.size(); ++i) {
    const Instr& in = f.instrs[i];
    const auto at = static_cast<int64_t>(i);
    if (in.op == Op::end_if || in.op == Op::end_loop) --depth;
    for (const Src& s : in.srcs)
      if (s.is_value()) {
        use[s.value].first_read = std::min(use[s.value].first_read, at);
        use[s.value].first_touch = std::min(use[s.value].first_touch, at);
      }
    if (in.dest != kNoValue && !f.values[in.dest].variable && depth == 0) top_def[in.dest] = at;
    if (in.dest != kNoValue && f.values[in.dest].variable) {
      VariableUse& u = use[in.dest];
      u.first_touch = std::min(u.first_touch, at);
      u.def_at = u.def_at == -1 ? at : kSeveral;
      u.nested |= depth != 0;
      if (u.copies >= 0 && copies_top_level(f, in, top_def, u.first_touch) && (u.copies == 0 || in.srcs[0] == u.source)) {
        u.copies = 1;
        u.source = in.srcs[0];
      } else {
        u.copies = -1;
      }
    }
    if (in.op == Op::if_ || in.op == Op::loop) ++depth;
  }
  return use;
}

}  // namespace

bool opt_demote_variables(Function& f) {
  const std::vector<VariableUse> use = scan(f);
  bool progress = false;
  std::vector<uint8_t> copy(f.values.size(), 0);
  for (size_t v = 0; v < f.values.size(); ++v) {
    const VariableUse& u = use[v];
    if (!f.values[v].variable || u.def_at == -1) continue;
    if (u.def_at >= 0 && !u.nested && u.first_read > u.def_at) {
      f.values[v].variable = false;
      progress = true;
    } else if (u.copies == 1) {
      copy[v] = 1;
    }
  }
  std::vector<Src> source(f.values.size());
  for (size_t v = 0; v < f.values.size(); ++v) source[v] = use[v].source;
  for (Instr& in : f.instrs) progress |= read_through_copies(f, in, source, copy);
  return progress;
}

}  // namespace agx::compiler
