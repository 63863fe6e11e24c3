// Copy propagation: a use of `%b = mov %a` reads %a (or the immediate /
// uniform) directly, and a use of `%v = collect %w, %w.y, ...` (every
// component of %w in order) reads %w. Variables and moves into them stay:
// they carry values between control-flow paths.
#include "compiler/passes.h"

namespace agx::compiler {

namespace {

// The vector a collect rebuilds unchanged, kNoValue when it builds another.
ValueId whole_vector(const Function& f, const Instr& in) {
  if (in.op != Op::collect || in.dest == kNoValue || in.srcs.empty() || !in.srcs[0].is_value()) return kNoValue;
  const Value& d = f.values[in.dest];
  const ValueId w = in.srcs[0].value;
  const Value& wv = f.values[w];
  if (d.variable || wv.variable || wv.bits != d.bits || wv.comps != d.comps || wv.comps != in.srcs.size() ||
      (d.pair && !wv.pair))
    return kNoValue;
  for (size_t i = 0; i < in.srcs.size(); ++i) {
    const Src& s = in.srcs[i];
    if (!s.is_value() || s.value != w || s.comp != i || s.bits != d.bits || s.neg || s.abs) return kNoValue;
  }
  return w;
}

}  // namespace

bool read_through_copies(const Function& f, Instr& in, std::span<const Src> source, std::span<const uint8_t> is_copy) {
  // Store data names a whole value (its components are the words
  // stored): the first component of a wider value would store them all.
  const bool stores = in.op == Op::device_store || in.op == Op::local_store || in.op == Op::stack_store;
  bool changed = false;
  for (Src& s : in.srcs) {
    if (!s.is_value() || !is_copy[s.value]) continue;
    const Src& r = source[s.value];
    if (s.bits != 32 || s.comp != 0) continue;
    if (stores && &s == &in.srcs[0] && r.is_value() && f.values[r.value].comps > 1) continue;
    if ((s.neg || s.abs) && r.kind == Src::Kind::imm) continue;  // modifiers need a register or uniform
    Src n = r;
    n.neg = s.neg;
    n.abs = s.abs;
    s = n;
    changed = true;
  }
  return changed;
}

bool opt_copy_prop(Function& f) {
  std::vector<Src> replace(f.values.size());
  std::vector<uint8_t> has(f.values.size(), 0);
  std::vector<ValueId> same(f.values.size(), kNoValue);
  bool progress = false;
  for (Instr& in : f.instrs) {
    for (Src& s : in.srcs)
      if (s.is_value() && same[s.value] != kNoValue) {
        s.value = same[s.value];
        progress = true;
      }
    if (ValueId w = whole_vector(f, in); w != kNoValue) same[in.dest] = w;
    progress |= read_through_copies(f, in, replace, has);
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
