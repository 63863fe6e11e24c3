// Scheduling for register pressure: before register allocation, the
// instructions of each basic block (a run between control-flow markers)
// are reordered by a bottom-up list scheduler that takes, among the
// instructions whose readers are all placed, the one that makes the fewest
// 16-bit halves live (its new sources minus its result), ties going to the
// latest in the original order. As Mesa's AGX pass does (bminor/mesa-mesa
// src/asahi/compiler/agx_pressure_schedule.c: schedule bottom-up for
// pressure, keep the result only when it helps), a block takes the new
// order only when its peak of live halves drops -- and here, when it
// needs more `wait`s (a load moved down next to its reader waits where the
// old order overlapped loads), only when the old peak cost occupancy
// (Mesa's threads-per-core table) or did not fit the register file.
//
// Kept in order: every instruction that is not pure (memory, atomics,
// barriers, votes, shuffles: op flag kOpCse unset), and all reads and
// writes of one phi variable. Pure instructions move freely after their
// sources' definitions.
#include <algorithm>

#include "compiler/passes.h"
#include "compiler/regs.h"

namespace agx::compiler {

namespace {

struct Block {
  size_t begin = 0, end = 0;  // instrs [begin, end)
  bool in_loop = false;
};

class Scheduler {
 public:
  explicit Scheduler(Function& f) : f_(f) {
    // Which blocks read each value, and where blocks lie.
    int depth = 0;
    size_t start = 0;
    block_of_.assign(f.instrs.size(), -1);
    for (size_t i = 0; i <= f.instrs.size(); ++i) {
      bool marker = i == f.instrs.size() || (op_info(f.instrs[i].op).flags & kOpControl);
      if (!marker) continue;
      if (i > start) {
        for (size_t k = start; k < i; ++k) block_of_[k] = static_cast<int>(blocks_.size());
        blocks_.push_back(Block{start, i, depth > 0});
      }
      if (i < f.instrs.size()) {
        if (f.instrs[i].op == Op::loop) ++depth;
        if (f.instrs[i].op == Op::end_loop) --depth;
      }
      start = i + 1;
    }
    last_use_block_.assign(f.values.size(), -1);
    for (size_t i = 0; i < f.instrs.size(); ++i) {
      int b = block_of_[i] < 0 ? marker_block(i) : block_of_[i];
      for (const Src& s : f.instrs[i].srcs) {
        if (!s.is_value()) continue;
        last_use_block_[s.value] = std::max(last_use_block_[s.value], b);
      }
    }
  }

  bool run() {
    bool progress = false;
    for (size_t b = 0; b < blocks_.size(); ++b) progress |= schedule(b);
    return progress;
  }

 private:
  // A marker reads values too (if_): count it with the block after it.
  int marker_block(size_t i) const {
    for (size_t k = i + 1; k < block_of_.size(); ++k)
      if (block_of_[k] >= 0) return block_of_[k];
    return static_cast<int>(blocks_.size());
  }

  unsigned halves(ValueId v) const { return f_.values[v].halves(); }
  bool tracked(ValueId v) const { return !f_.values[v].variable; }

  // Live after the block: read by a later block, or (inside a loop)
  // defined before the block and read in it (the back edge keeps it).
  bool live_out(ValueId v, size_t b, bool defined_here) const {
    if (last_use_block_[v] > static_cast<int>(b)) return true;
    return blocks_[b].in_loop && !defined_here;
  }

  // Peak live halves of `order` (local indices) and the waits it needs.
  std::pair<unsigned, unsigned> measure(const std::vector<Instr>& in, const std::vector<uint32_t>& order,
                                        const std::vector<char>& out_live) const {
    std::vector<char> live = out_live;
    unsigned cur = 0;
    for (ValueId v = 0; v < live.size(); ++v) cur += live[v] ? halves(v) : 0;
    unsigned peak = cur;
    for (size_t k = order.size(); k-- > 0;) {
      const Instr& x = in[order[k]];
      if (x.dest != kNoValue && tracked(x.dest)) {
        peak = std::max(peak, cur + (live[x.dest] ? 0 : halves(x.dest)));
        if (live[x.dest]) cur -= halves(x.dest), live[x.dest] = 0;
      }
      for (const Src& s : x.srcs)
        if (s.is_value() && tracked(s.value) && !live[s.value]) live[s.value] = 1, cur += halves(s.value);
      peak = std::max(peak, cur);
    }
    // Waits: a reader of a load issued since the last wait waits for all.
    std::vector<char> pending(f_.values.size(), 0);
    std::vector<ValueId> pend;
    unsigned waits = 0;
    for (uint32_t k : order) {
      const Instr& x = in[k];
      bool touches = false;
      for (const Src& s : x.srcs) touches |= s.is_value() && pending[s.value];
      if (x.dest != kNoValue) touches |= pending[x.dest] != 0;
      if (touches) {
        ++waits;
        for (ValueId v : pend) pending[v] = 0;
        pend.clear();
      }
      if ((op_info(x.op).flags & kOpLoad) && x.dest != kNoValue) pending[x.dest] = 1, pend.push_back(x.dest);
    }
    return {peak, waits};
  }

  bool schedule(size_t b) {
    const Block& blk = blocks_[b];
    const size_t n = blk.end - blk.begin;
    if (n < 3) return false;
    std::vector<Instr> in(f_.instrs.begin() + blk.begin, f_.instrs.begin() + blk.end);
    // Dependencies: preds[i] must come before i.
    std::vector<std::vector<uint32_t>> succs(n);
    std::vector<uint32_t> remaining(n, 0);  // successors not yet placed (bottom-up)
    auto edge = [&](uint32_t from, uint32_t to) {
      succs[from].push_back(to);
      ++remaining[from];
    };
    std::vector<int32_t> def_at(f_.values.size(), -1);
    std::vector<int32_t> last_access(f_.values.size(), -1);  // variables
    int32_t last_ordered = -1;
    for (uint32_t i = 0; i < n; ++i) {
      const Instr& x = in[i];
      for (const Src& s : x.srcs) {
        if (!s.is_value()) continue;
        if (f_.values[s.value].variable) {
          if (last_access[s.value] >= 0) edge(static_cast<uint32_t>(last_access[s.value]), i);
          last_access[s.value] = static_cast<int32_t>(i);
        } else if (def_at[s.value] >= 0) {
          edge(static_cast<uint32_t>(def_at[s.value]), i);
        }
      }
      if (x.dest != kNoValue) {
        if (f_.values[x.dest].variable) {
          if (last_access[x.dest] >= 0 && last_access[x.dest] != static_cast<int32_t>(i))
            edge(static_cast<uint32_t>(last_access[x.dest]), i);
          last_access[x.dest] = static_cast<int32_t>(i);
        } else {
          def_at[x.dest] = static_cast<int32_t>(i);
        }
      }
      const uint16_t flags = op_info(x.op).flags;
      if (!(flags & kOpCse) || (flags & (kOpLoad | kOpSideEffect))) {
        if (last_ordered >= 0) edge(static_cast<uint32_t>(last_ordered), i);
        last_ordered = static_cast<int32_t>(i);
      }
    }
    // Live after the block.
    std::vector<char> out_live(f_.values.size(), 0);
    for (uint32_t i = 0; i < n; ++i) {
      for (const Src& s : in[i].srcs)
        if (s.is_value() && tracked(s.value) && live_out(s.value, b, def_at[s.value] >= 0)) out_live[s.value] = 1;
      if (in[i].dest != kNoValue && tracked(in[i].dest) && live_out(in[i].dest, b, true)) out_live[in[i].dest] = 1;
    }
    // Bottom-up list scheduling.
    std::vector<char> live = out_live;
    std::vector<uint32_t> order;
    order.reserve(n);
    std::vector<char> placed(n, 0);
    // The predecessors of each instruction, to release them.
    std::vector<std::vector<uint32_t>> preds(n);
    for (uint32_t i = 0; i < n; ++i)
      for (uint32_t s : succs[i]) preds[s].push_back(i);
    std::vector<uint32_t> ready;
    for (uint32_t i = 0; i < n; ++i)
      if (remaining[i] == 0) ready.push_back(i);
    while (!ready.empty()) {
      size_t best = 0;
      long best_delta = 0;
      for (size_t r = 0; r < ready.size(); ++r) {
        const Instr& x = in[ready[r]];
        long delta = 0;
        if (x.dest != kNoValue && tracked(x.dest) && live[x.dest]) delta -= halves(x.dest);
        for (size_t a = 0; a < x.srcs.size(); ++a) {
          const Src& s = x.srcs[a];
          if (!s.is_value() || !tracked(s.value) || live[s.value]) continue;
          bool seen = false;
          for (size_t c = 0; c < a; ++c) seen |= x.srcs[c].is_value() && x.srcs[c].value == s.value;
          if (!seen) delta += halves(s.value);
        }
        if (r == 0 || delta < best_delta || (delta == best_delta && ready[r] > ready[best])) best = r, best_delta = delta;
      }
      const uint32_t i = ready[best];
      ready.erase(ready.begin() + static_cast<long>(best));
      placed[i] = 1;
      order.push_back(i);
      const Instr& x = in[i];
      if (x.dest != kNoValue && tracked(x.dest)) live[x.dest] = 0;
      for (const Src& s : x.srcs)
        if (s.is_value() && tracked(s.value)) live[s.value] = 1;
      for (uint32_t p : preds[i])
        if (--remaining[p] == 0) ready.push_back(p);
    }
    if (order.size() != n) return false;  // a cycle cannot happen; keep the block as it is
    std::reverse(order.begin(), order.end());
    std::vector<uint32_t> original(n);
    for (uint32_t i = 0; i < n; ++i) original[i] = i;
    if (order == original) return false;
    auto [old_peak, old_waits] = measure(in, original, out_live);
    auto [new_peak, new_waits] = measure(in, order, out_live);
    if (new_peak >= old_peak) return false;
    // More waits are worth it only when the old peak costs occupancy or
    // registers run out (halves counted with r0 and r1).
    if (new_waits > old_waits && threads_for_halves(new_peak + kFirstAllocatableHalf) <=
                                     threads_for_halves(old_peak + kFirstAllocatableHalf) &&
        old_peak + kFirstAllocatableHalf <= kRegisterHalves)
      return false;
    for (uint32_t k = 0; k < n; ++k) f_.instrs[blk.begin + k] = std::move(in[order[k]]);
    return true;
  }

  Function& f_;
  std::vector<Block> blocks_;
  std::vector<int> block_of_;
  std::vector<int> last_use_block_;
};

}  // namespace

bool pressure_schedule(Function& f) { return Scheduler(f).run(); }

}  // namespace agx::compiler
