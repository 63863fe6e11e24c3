// Register allocation: linear scan over the structured order, which is the
// order the hardware executes (every instruction runs; the exec mask picks
// lanes). A value's interval runs from its first definition to its last
// use; an interval that crosses a loop boundary covers the whole loop, so
// values carried around the back edge keep their register. Registers are
// 16-bit halves with the alignment of regs.h; r0-r1 are reserved.
#include <algorithm>
#include <array>
#include <bit>
#include <optional>
#include <span>

#include <fmt/format.h>

#include "compiler/passes.h"
#include "compiler/register_hints.h"
#include "compiler/regs.h"
#include "compiler/spill.h"

namespace agx::compiler {

namespace {
// Threads per core for a register count (halves): bminor/mesa-mesa
// src/asahi/compiler agx_occupancy_for_register_count's table.
constexpr std::pair<unsigned, unsigned> kOccupancy[] = {
    {104, 1024}, {112, 896}, {128, 832}, {136, 768}, {144, 704},
    {160, 640},  {184, 576}, {208, 512}, {232, 448}, {256, 384},
};
}  // namespace

unsigned threads_for_halves(unsigned halves) {
  for (auto [max, threads] : kOccupancy)
    if (halves <= max) return threads;
  return 0;
}

namespace {

// Which register halves hold a value: 64 halves a word, so the search for
// a free aligned run skips whole stretches of taken halves at a time (a
// large shader has thousands of values and most halves taken).
class HalfSet {
 public:
  void set(unsigned h) { w_[h / 64] |= uint64_t{1} << (h % 64); }
  void reset(unsigned h) { w_[h / 64] &= ~(uint64_t{1} << (h % 64)); }
  // The first free half at or after h (kRegisterHalves: none).
  unsigned next_free(unsigned h) const {
    while (h < kRegisterHalves) {
      uint64_t free = ~w_[h / 64] >> (h % 64);
      if (free) return std::min(kRegisterHalves, h + static_cast<unsigned>(std::countr_zero(free)));
      h = (h / 64 + 1) * 64;
    }
    return kRegisterHalves;
  }
  bool run_free(unsigned r, unsigned size) const {
    for (unsigned h = r; h < r + size; ++h)
      if (w_[h / 64] >> (h % 64) & 1) return false;
    return true;
  }
  // The lowest r >= from, a multiple of align, with halves r..r+size-1
  // free; -1 when there is none.
  int first_fit(unsigned from, unsigned align, unsigned size) const {
    for (unsigned r = from; r + size <= kRegisterHalves;) {
      unsigned f = next_free(r);
      if (f >= kRegisterHalves) return -1;
      r = (f + align - 1) / align * align;
      if (r + size > kRegisterHalves) return -1;
      if (run_free(r, size)) return static_cast<int>(r);
      r += align;
    }
    return -1;
  }

 private:
  std::array<uint64_t, (kRegisterHalves + 63) / 64> w_{};
};

// The register file during the scan: which halves are taken, by how many
// live values, holding what (CopyHints' tags). A value may go where the
// halves are free or hold its own bits (a copy sharing its source's
// registers); the reserved halves below the first allocatable one only
// hold what the reg_write into them stores.
class Registers {
 public:
  Registers(const Function& f, const detail::CopyHints* hints, unsigned first_free)
      : f_(f), hints_(hints), first_free_(first_free) {
    for (unsigned h = 0; h < first_free; ++h) {
      used_.set(h);
      refs_[h] = 1;  // never released
    }
  }
  void take(ValueId v, unsigned base) {
    for (unsigned k = 0; k < f_.values[v].halves(); ++k) {
      used_.set(base + k);
      ++refs_[base + k];
      if (hints_) held_[base + k] = hints_->tag(v, k);
    }
  }
  void release(ValueId v) {
    const Value& val = f_.values[v];
    for (unsigned k = 0; k < val.halves(); ++k)
      if (--refs_[val.reg + k] == 0) used_.reset(val.reg + k);
  }
  // Where v goes: with its copy source, at its reg_write's register, else
  // the lowest free aligned run; -1 when there is none.
  int place(ValueId v) const {
    const Value& val = f_.values[v];
    if (hints_) {
      const ValueId src = hints_->share_source(v);
      if (src != kNoValue && f_.values[src].reg >= 0 && fits(v, f_.values[src].reg + hints_->share_offset(v)))
        return f_.values[src].reg + hints_->share_offset(v);
      if (hints_->fixed_hint(v) >= 0 && fits(v, hints_->fixed_hint(v))) return hints_->fixed_hint(v);
      if (const int in_line = beside_collect_sources(v); in_line >= 0) return in_line;
    }
    return used_.first_fit(first_free_, register_alignment(val), val.halves());
  }

 private:
  // Where v lines up with an allocated source of the collect that reads
  // it, when that place is free; -1 otherwise.
  int beside_collect_sources(ValueId v) const {
    const detail::CopyHints::CollectUse& use = hints_->collect_use(v);
    if (use.instr < 0) return -1;
    const Instr& c = f_.instrs[static_cast<size_t>(use.instr)];
    const int hs = f_.values[c.dest].bits / 16;
    for (size_t j = 0; j < c.srcs.size(); ++j) {
      const Src& o = c.srcs[j];
      // Only a component the collect copies as it is (its tag passed on).
      if (j == use.comp || !o.is_value() || o.value == v || f_.values[o.value].reg < 0 ||
          hints_->tag(c.dest, static_cast<unsigned>(j * hs)) != hints_->tag(o.value, o.comp * hs))
        continue;
      const int base = f_.values[o.value].reg + static_cast<int>(o.comp) * hs - static_cast<int>(j) * hs;
      const int want = base + (static_cast<int>(use.comp) - static_cast<int>(use.src_comp)) * hs;
      return fits(v, want) ? want : -1;
    }
    return -1;
  }
  bool fits(ValueId v, int base) const {
    const Value& val = f_.values[v];
    if (base < static_cast<int>(kFirstAllocatableHalf) || base % register_alignment(val) ||
        base + val.halves() > kRegisterHalves)
      return false;
    for (unsigned k = 0; k < val.halves(); ++k) {
      const unsigned h = static_cast<unsigned>(base) + k;
      const detail::HalfTag t = hints_->tag(v, k);
      if (h < first_free_ ? hints_->reserved(h) != t || t.root == kNoValue : refs_[h] && held_[h] != t) return false;
    }
    return true;
  }

  const Function& f_;
  const detail::CopyHints* hints_;
  unsigned first_free_;
  HalfSet used_;
  std::array<uint16_t, kRegisterHalves> refs_{};
  std::array<detail::HalfTag, kRegisterHalves> held_{};
};

struct Failure {
  size_t at;                       // instruction where no register was free
  std::vector<ValueId> live;       // values holding registers there
};

// One linear-scan attempt; a Failure when the registers run out. With
// hints, copies share their sources' registers where they can and values
// go where a reg_write will want them.
std::optional<Failure> allocate_once(Function& f, Stats& stats, const detail::CopyHints* hints) {
  const size_t n = f.values.size();
  std::vector<int64_t> start(n, INT64_MAX), end(n, -1);
  std::vector<std::pair<size_t, size_t>> loops;
  std::vector<size_t> open;
  for (size_t i = 0; i < f.instrs.size(); ++i) {
    const Instr& in = f.instrs[i];
    for (const Src& s : in.srcs) {
      if (!s.is_value()) continue;
      // Sources stay live through their instruction, so no destination
      // shares a register with them (collect writes several registers).
      end[s.value] = std::max<int64_t>(end[s.value], static_cast<int64_t>(i) + 1);
      start[s.value] = std::min<int64_t>(start[s.value], static_cast<int64_t>(i));
    }
    if (in.dest != kNoValue) {
      start[in.dest] = std::min<int64_t>(start[in.dest], static_cast<int64_t>(i));
      end[in.dest] = std::max<int64_t>(end[in.dest], static_cast<int64_t>(i));
    }
    if (in.op == Op::loop) open.push_back(i);
    if (in.op == Op::end_loop && !open.empty()) {
      loops.push_back({open.back(), i});
      open.pop_back();
    }
  }
  // Innermost loops first (they come first in end order), repeated until
  // nothing grows: an interval crossing a loop's boundary covers the loop.
  for (bool grew = true; grew;) {
    grew = false;
    for (auto [ls, le] : loops) {
      for (size_t v = 0; v < n; ++v) {
        if (end[v] < 0) continue;
        bool crosses = start[v] < static_cast<int64_t>(ls) ? end[v] > static_cast<int64_t>(ls)
                                                             : start[v] <= static_cast<int64_t>(le) && end[v] > static_cast<int64_t>(le);
        if (!crosses) continue;
        int64_t ns = std::min<int64_t>(start[v], ls), ne = std::max<int64_t>(end[v], le);
        if (ns != start[v] || ne != end[v]) { start[v] = ns; end[v] = ne; grew = true; }
      }
    }
  }
  // Variables used before any definition (a phi on a path that never
  // assigns it) still need a register from their first mention.
  // The values starting / ending at each instruction, in value order, as
  // flat buckets (one allocation each, not one per instruction).
  struct Buckets {
    std::vector<uint32_t> first;  // bucket i: items[first[i] .. first[i + 1])
    std::vector<ValueId> items;
  };
  auto bucket = [&](size_t count, auto slot) {
    Buckets b;
    b.first.assign(count + 1, 0);
    for (size_t v = 0; v < n; ++v)
      if (end[v] >= 0) ++b.first[slot(v) + 1];
    for (size_t i = 0; i < count; ++i) b.first[i + 1] += b.first[i];
    b.items.resize(b.first[count]);
    std::vector<uint32_t> fill(b.first.begin(), b.first.end() - 1);
    for (size_t v = 0; v < n; ++v)
      if (end[v] >= 0) b.items[fill[slot(v)]++] = static_cast<ValueId>(v);
    return b;
  };
  const Buckets starts_at = bucket(f.instrs.size() + 1, [&](size_t v) { return static_cast<size_t>(start[v]); });
  const Buckets ends_at = bucket(f.instrs.size() + 2, [&](size_t v) { return std::min<size_t>(end[v], f.instrs.size()) + 1; });
  auto each = [](const Buckets& b, size_t i) {
    return std::span<const ValueId>(b.items.data() + b.first[i], b.first[i + 1] - b.first[i]);
  };
  const unsigned first_free = std::max<unsigned>(kFirstAllocatableHalf, f.first_free_half);
  Registers regs(f, hints, first_free);
  unsigned max_half = first_free;
  // Preloaded values hold their register from the start of the program
  // (wherever the preload instruction ended up) to their last use.
  std::vector<uint8_t> fixed(n, 0);
  for (const Instr& in : f.instrs) {
    if (in.op != Op::preload || end[in.dest] < 0) continue;
    Value& val = f.values[in.dest];
    fixed[in.dest] = 1;
    val.reg = static_cast<int32_t>(in.imm);
    regs.take(in.dest, static_cast<unsigned>(val.reg));
    max_half = std::max(max_half, static_cast<unsigned>(val.reg) + val.halves());
  }
  for (size_t i = 0; i <= f.instrs.size(); ++i) {
    for (ValueId v : each(ends_at, i)) regs.release(v);
    if (i == f.instrs.size()) break;
    for (ValueId v : each(starts_at, i)) {
      if (fixed[v]) continue;
      Value& val = f.values[v];
      int found = regs.place(v);
      if (found < 0) {
        Failure fail{i, {}};
        for (size_t w = 0; w < n; ++w)
          if (f.values[w].reg >= 0 && end[w] >= static_cast<int64_t>(i) && start[w] < static_cast<int64_t>(i))
            fail.live.push_back(static_cast<ValueId>(w));
        for (Value& val2 : f.values) val2.reg = -1;
        return fail;
      }
      val.reg = found;
      regs.take(v, static_cast<unsigned>(found));
      max_half = std::max(max_half, static_cast<unsigned>(found) + val.halves());
    }
  }
  stats.gprs = (max_half + 1) & ~1u;  // whole 32-bit registers
  stats.threads_per_core = threads_for_halves(stats.gprs);
  return std::nullopt;
}

}  // namespace

// Spilling: when the registers run out at an instruction, a live value
// goes to the thread's stack (spill.h: the one read furthest ahead; any
// shape of 1-4 words -- scalars, vectors, 64-bit pairs -- and phi
// variables too) and allocation starts again. The stack frame is one
// layout: local arrays at the bottom (Function::stack_B, from the
// translator), then one slot per spilled value, aligned to its size (4, 8
// or 16 bytes); Stats::scratch_B is the whole frame.
Status register_allocate(Function& f, Stats& stats) {
  stats.spills = stats.fills = 0;
  stats.scratch_B = f.stack_B;
  uint32_t frame_B = f.stack_B;
  std::vector<uint8_t> pinned;  // spill and fill temporaries: never spilled again
  for (int round = 0; round < 8192; ++round) {
    // Hints first; where they make the registers run out, the plain scan
    // decides (and picks what to spill).
    const detail::CopyHints hints(f);
    auto fail = allocate_once(f, stats, &hints);
    if (fail) fail = allocate_once(f, stats, nullptr);
    if (!fail) {
      stats.scratch_B = frame_B;
      return {};
    }
    pinned.resize(f.values.size(), 0);
    const Instr& at = f.instrs[fail->at];
    ValueId victim = detail::choose_spill(f, fail->at, fail->live, pinned);
    if (victim == kNoValue) {
      return Error::unsupported("register allocation: more than 128 registers live at instruction {} ({}) and nothing left to spill{}",
                                fail->at, print_instr(f, at), at.line ? fmt::format(" (source line {})", at.line) : "");
    }
    const uint32_t size_B = detail::spill_slot_B(f.values[victim]);
    const uint32_t align_B = size_B >= 16 ? 16 : size_B >= 8 ? 8 : 4;
    const uint32_t slot_B = (frame_B + align_B - 1) / align_B * align_B;
    frame_B = slot_B + size_B;
    if (frame_B > kMaxScratch_B)
      return Error::unsupported("register allocation: local arrays ({} bytes) and spills need more than {} bytes of stack per thread",
                                f.stack_B, kMaxScratch_B);
    detail::spill_value(f, victim, slot_B, pinned, stats);
  }
  return Error::unsupported("register allocation did not converge");
}

}  // namespace agx::compiler
