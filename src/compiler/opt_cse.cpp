// Common subexpression elimination over the structured order: a pure
// instruction equal to an earlier one whose result dominates it (same or
// enclosing region) reads that result instead. A variable (a value with
// several definitions) may be read too: each definition gives it a new
// version, and entering a loop gives a new version to every variable the
// loop defines (its value differs from one iteration to the next), so two
// reads are equal only when they read the same version.
#include <array>
#include <unordered_map>

#include "compiler/passes.h"

namespace agx::compiler {

namespace {

// Equal instructions: operation, condition, immediate, every source
// field, and the result's shape.
bool same(const Function& f, const Instr& a, const Instr& b) {
  if (a.op != b.op || a.cond != b.cond || a.invert != b.invert || a.imm != b.imm || a.srcs.size() != b.srcs.size())
    return false;
  for (size_t i = 0; i < a.srcs.size(); ++i) {
    const Src &s = a.srcs[i], &t = b.srcs[i];
    if (s.kind != t.kind || s.value != t.value || s.comp != t.comp || s.bits != t.bits || s.neg != t.neg || s.abs != t.abs ||
        s.imm != t.imm)
      return false;
  }
  const Value &da = f.values[a.dest], &db = f.values[b.dest];
  return da.bits == db.bits && da.comps == db.comps;
}

uint64_t hash_of(const Function& f, const Instr& in) {
  uint64_t h = static_cast<uint64_t>(in.op) * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(in.cond) << 8 ^
               static_cast<uint64_t>(in.invert) << 16 ^ in.imm * 0xC2B2AE3D27D4EB4Full;
  for (const Src& s : in.srcs) {
    uint64_t x = static_cast<uint64_t>(s.kind) | uint64_t{s.value} << 8 | uint64_t{s.comp} << 40 | uint64_t{s.bits} << 48 |
                 uint64_t{s.neg} << 56 | uint64_t{s.abs} << 57;
    h = (h ^ x ^ s.imm * 0x165667B19E3779F9ull) * 0x100000001B3ull;
    h ^= h >> 29;
  }
  const Value& d = f.values[in.dest];
  return h ^ (uint64_t{d.bits} << 3 | uint64_t{d.comps} << 11);
}

// The versions of the variables an instruction reads, source by source
// (0 for the other sources); instructions with more sources than this are
// not eliminated when they read a variable.
constexpr size_t kMaxVersionedSrcs = 4;
using Versions = std::array<uint32_t, kMaxVersionedSrcs>;

struct Entry {
  size_t instr;
  Versions versions;
};

// One region's instructions by hash: pure ones, and loads, which any
// memory write forgets.
struct Scope {
  std::unordered_multimap<uint64_t, Entry> pure, loads;
};

// For each `loop` instruction, the variables defined before its end_loop.
std::unordered_map<size_t, std::vector<ValueId>> variables_defined_in_loops(const Function& f) {
  std::unordered_map<size_t, std::vector<ValueId>> defined;
  std::vector<size_t> open;
  for (size_t i = 0; i < f.instrs.size(); ++i) {
    const Instr& in = f.instrs[i];
    if (in.op == Op::loop) open.push_back(i);
    else if (in.op == Op::end_loop && !open.empty()) open.pop_back();
    else if (in.dest != kNoValue && f.values[in.dest].variable)
      for (size_t l : open) defined[l].push_back(in.dest);
  }
  return defined;
}

}  // namespace

bool opt_cse(Function& f) {
  std::vector<Scope> scopes(1);
  std::vector<ValueId> remap(f.values.size(), kNoValue);
  std::vector<uint32_t> version(f.values.size(), 1);
  const auto loop_defs = variables_defined_in_loops(f);
  bool progress = false;
  for (size_t i = 0; i < f.instrs.size(); ++i) {
    Instr& in = f.instrs[i];
    for (Src& s : in.srcs)
      if (s.is_value() && remap[s.value] != kNoValue) s.value = remap[s.value];
    if (in.op == Op::loop)
      if (auto it = loop_defs.find(i); it != loop_defs.end())
        for (ValueId v : it->second) ++version[v];
    switch (in.op) {
      case Op::if_: case Op::loop: scopes.emplace_back(); break;
      case Op::else_: scopes.back() = Scope{}; break;
      case Op::end_if: case Op::end_loop: scopes.pop_back(); break;
      default: break;
    }
    // Memory changes: loads seen so far no longer tell what memory holds.
    bool writes_memory = in.op == Op::device_store || in.op == Op::local_store || in.op == Op::atomic ||
                         in.op == Op::local_atomic || in.op == Op::image_write || in.op == Op::barrier || in.op == Op::memory_barrier ||
                         in.op == Op::loop || in.op == Op::end_loop;
    if (writes_memory)
      for (Scope& scope : scopes) scope.loads.clear();
    // A definition of a variable is a new version of it (after the
    // instruction reads the old one).
    const bool defines_variable = in.dest != kNoValue && f.values[in.dest].variable;
    bool load = in.op == Op::device_load || in.op == Op::local_load;
    const bool candidate = ((op_info(in.op).flags & kOpCse) || load) && in.dest != kNoValue && !defines_variable;
    Versions versions{};
    bool versionable = true;
    for (size_t k = 0; k < in.srcs.size(); ++k) {
      const Src& s = in.srcs[k];
      if (!s.is_value() || !f.values[s.value].variable) continue;
      if (k >= kMaxVersionedSrcs) versionable = false;
      else versions[k] = version[s.value];
    }
    if (defines_variable) ++version[in.dest];
    if (!candidate || !versionable) continue;
    const uint64_t h = hash_of(f, in) ^ (uint64_t{versions[0]} << 20 ^ uint64_t{versions[1]} << 30 ^
                                         uint64_t{versions[2]} << 40 ^ uint64_t{versions[3]} << 50);
    ValueId found = kNoValue;
    for (auto it = scopes.rbegin(); it != scopes.rend() && found == kNoValue; ++it) {
      auto [first, last] = (load ? it->loads : it->pure).equal_range(h);
      for (auto e = first; e != last && found == kNoValue; ++e)
        if (e->second.versions == versions && same(f, f.instrs[e->second.instr], in)) found = f.instrs[e->second.instr].dest;
    }
    if (found != kNoValue) {
      remap[in.dest] = found;
      progress = true;
    } else {
      (load ? scopes.back().loads : scopes.back().pure).emplace(h, Entry{i, versions});
    }
  }
  return progress;
}

}  // namespace agx::compiler
