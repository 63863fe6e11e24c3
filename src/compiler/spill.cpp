// Spilling (spill.h): spill everywhere, with Belady's furthest-next-use
// choice. Mesa's AGX compiler spills to the stack with the same
// instructions (bminor/mesa-mesa src/asahi/compiler/agx_spill.c and
// agx_lower_spill.c: stack_store / stack_load of up to 4 elements at an
// immediate byte offset).
#include "compiler/spill.h"

#include <algorithm>

namespace agx::compiler::detail {

uint32_t spill_slot_B(const Value& v) { return (v.halves() * 2 + 3) / 4 * 4; }

bool spillable(const Value& v) {
  // stack_store / stack_load move at most four elements: 4 words, or 4
  // halves of a 16-bit vector.
  return v.bits == 16 ? v.comps <= 4 : v.halves() / 2 <= 4;
}

namespace {

// Instructions from `at` to the next read of a value whose reads are at
// `reads` (ascending): straight ahead, or around the back edge of a loop
// containing `at` to a read earlier in that loop.
int64_t next_read_distance(const std::vector<size_t>& reads, size_t at,
                           const std::vector<std::pair<size_t, size_t>>& loops) {
  int64_t best = INT64_MAX;
  auto it = std::upper_bound(reads.begin(), reads.end(), at);
  if (it != reads.end()) best = static_cast<int64_t>(*it - at);
  for (auto [ls, le] : loops) {
    if (!(ls < at && at < le)) continue;
    auto first = std::lower_bound(reads.begin(), reads.end(), ls);
    if (first != reads.end() && *first < at)
      best = std::min<int64_t>(best, static_cast<int64_t>((le - at) + (*first - ls)));
  }
  return best;
}

}  // namespace

ValueId choose_spill(const Function& f, size_t at, const std::vector<ValueId>& live,
                     const std::vector<uint8_t>& pinned) {
  std::vector<uint8_t> candidate(f.values.size(), 0);
  const Instr& here = f.instrs[at];
  for (ValueId v : live)
    if (v < pinned.size() && !pinned[v] && spillable(f.values[v])) candidate[v] = 1;
  for (const Src& s : here.srcs)
    if (s.is_value()) candidate[s.value] = 0;
  if (here.dest != kNoValue) candidate[here.dest] = 0;
  std::vector<std::vector<size_t>> reads(f.values.size());
  std::vector<std::pair<size_t, size_t>> loops;
  std::vector<size_t> open;
  for (size_t i = 0; i < f.instrs.size(); ++i) {
    const Instr& in = f.instrs[i];
    for (const Src& s : in.srcs)
      if (s.is_value() && candidate[s.value] && (reads[s.value].empty() || reads[s.value].back() != i))
        reads[s.value].push_back(i);
    if (in.op == Op::loop) open.push_back(i);
    if (in.op == Op::end_loop && !open.empty()) {
      loops.push_back({open.back(), i});
      open.pop_back();
    }
  }
  ValueId best = kNoValue;
  int64_t best_distance = -1;
  unsigned best_halves = 0;
  for (ValueId v : live) {
    if (!candidate[v]) continue;
    int64_t d = next_read_distance(reads[v], at, loops);
    // Read for the last time just before: its register is about to go
    // anyway, and a stack slot would not free it any sooner.
    if (d == INT64_MAX) continue;
    unsigned h = f.values[v].halves();
    if (d > best_distance || (d == best_distance && h > best_halves)) {
      best = v;
      best_distance = d;
      best_halves = h;
    }
  }
  return best;
}

void spill_value(Function& f, ValueId v, uint32_t slot_B, std::vector<uint8_t>& pinned, Stats& stats) {
  const Value shape{f.values[v].bits, f.values[v].comps, false, -1, f.values[v].pair};
  auto temporary = [&]() {
    f.values.push_back(shape);
    ValueId t = static_cast<ValueId>(f.values.size() - 1);
    pinned.resize(f.values.size(), 0);
    pinned[t] = 1;
    return t;
  };
  std::vector<Instr> out;
  out.reserve(f.instrs.size() + 8);
  for (Instr& in : f.instrs) {
    bool reads = false;
    for (const Src& s : in.srcs) reads |= s.is_value() && s.value == v;
    if (reads) {
      ValueId r = temporary();
      out.push_back(Instr{Op::stack_load, Cond::none, false, r, {Src::immediate(slot_B)}, 0, in.line});
      ++stats.fills;
      for (Src& s : in.srcs)
        if (s.is_value() && s.value == v) s.value = r;
    }
    if (in.dest == v) {
      ValueId t = temporary();
      in.dest = t;
      const uint32_t line = in.line;
      out.push_back(std::move(in));
      out.push_back(Instr{Op::stack_store, Cond::none, false, kNoValue, {Src::val(t), Src::immediate(slot_B)}, 0, line});
      ++stats.spills;
      continue;
    }
    out.push_back(std::move(in));
  }
  f.instrs = std::move(out);
}

}  // namespace agx::compiler::detail
