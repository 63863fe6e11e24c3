// Common subexpression elimination over the structured order: a pure
// instruction equal to an earlier one whose result dominates it (same or
// enclosing region) reads that result instead.
#include <map>
#include <tuple>

#include "compiler/passes.h"

namespace agx::compiler {

namespace {
using Key = std::tuple<Op, Cond, bool, uint64_t, std::vector<std::tuple<int, uint32_t, int, int, bool, bool, uint64_t>>, uint8_t, uint8_t>;

Key key_of(const Function& f, const Instr& in) {
  std::vector<std::tuple<int, uint32_t, int, int, bool, bool, uint64_t>> srcs;
  for (const Src& s : in.srcs)
    srcs.emplace_back(static_cast<int>(s.kind), s.value, s.comp, s.bits, s.neg, s.abs, s.imm);
  const Value& d = f.values[in.dest];
  return {in.op, in.cond, in.invert, in.imm, std::move(srcs), d.bits, d.comps};
}
}  // namespace

bool opt_cse(Function& f) {
  std::vector<std::map<Key, ValueId>> scopes(1);
  std::vector<ValueId> remap(f.values.size(), kNoValue);
  bool progress = false;
  for (Instr& in : f.instrs) {
    for (Src& s : in.srcs)
      if (s.is_value() && remap[s.value] != kNoValue) s.value = remap[s.value];
    switch (in.op) {
      case Op::if_: case Op::loop: scopes.emplace_back(); break;
      case Op::else_: scopes.back().clear(); break;
      case Op::end_if: case Op::end_loop: scopes.pop_back(); break;
      default: break;
    }
    // Memory changes: loads seen so far no longer tell what memory holds.
    bool writes_memory = in.op == Op::device_store || in.op == Op::local_store || in.op == Op::atomic ||
                         in.op == Op::local_atomic || in.op == Op::image_write || in.op == Op::barrier || in.op == Op::memory_barrier ||
                         in.op == Op::loop || in.op == Op::end_loop;
    if (writes_memory) {
      for (auto& scope : scopes)
        for (auto it = scope.begin(); it != scope.end();)
          it = (std::get<0>(it->first) == Op::device_load || std::get<0>(it->first) == Op::local_load) ? scope.erase(it) : std::next(it);
    }
    bool load = in.op == Op::device_load || in.op == Op::local_load;
    if (!(op_info(in.op).flags & kOpCse) && !load) continue;
    if (in.dest == kNoValue || f.values[in.dest].variable) continue;
    bool reads_variable = false;
    for (const Src& s : in.srcs) reads_variable |= s.is_value() && f.values[s.value].variable;
    if (reads_variable) continue;  // a variable's value changes along the way
    Key k = key_of(f, in);
    ValueId found = kNoValue;
    for (auto it = scopes.rbegin(); it != scopes.rend() && found == kNoValue; ++it) {
      auto hit = it->find(k);
      if (hit != it->end()) found = hit->second;
    }
    if (found != kNoValue) {
      remap[in.dest] = found;
      progress = true;
    } else {
      scopes.back().emplace(std::move(k), in.dest);
    }
  }
  return progress;
}

}  // namespace agx::compiler
