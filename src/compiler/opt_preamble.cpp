// The preamble: values every thread of a launch computes alike -- from
// uniforms, immediates and uniform-buffer words at uniform indices -- move
// into a separate program that the CDM runs once per launch before the
// threadgroups (the USC Preshader word, bminor/mesa-mesa
// src/asahi/lib/agx_usc.h) and that leaves them in uniform registers with
// `uniform_store`; the main shader reads those uniforms instead. Mesa does
// this on NIR (bminor/mesa-mesa src/asahi/compiler/agx_nir_opt_preamble.c
// over nir_opt_preamble); we do it on our IR after immediates are lowered,
// where what a main-shader instruction costs is visible.
//
// What may move ("movable"): pure instructions (kOpCse: ALU, converts,
// moves of immediates) whose sources are immediates, uniforms or movable
// values, from anywhere in the shader (they cannot fault, so running them
// once unconditionally is safe), and `device_load` of a *uniform buffer*
// (a UBO: read-only for the whole launch) at a movable index, only outside
// control flow, where every thread runs it anyway. Never: special
// registers (thread and group ids), storage-buffer, threadgroup, image
// and stack accesses (memory the kernel may write), atomics, votes and
// shuffles (they read the execution mask), phi variables.
//
// Cost model (Mesa's rule: hoist only what saves main-shader
// instructions): for a set S of stored values, the main shader keeps the
// instructions that are not movable, and a movable one unless its value is
// in S or no kept instruction reads it; each kept read of a value of S in
// a source that cannot take a uniform costs a `mov` from the uniform.
// Starting from the frontier (movable values a kept instruction reads),
// each stored value is dropped or replaced by its own movable sources when
// that keeps no more main-shader instructions; ties go to fewer stores.
#include <algorithm>
#include <unordered_map>

#include "compiler/lower_immediates.h"
#include "compiler/passes.h"
#include "compiler/regs.h"

namespace agx::compiler {

namespace {

class Split {
 public:
  Split(const Function& f, const Abi& abi) : f_(f), def_(f.values.size(), -1), uses_(f.values.size()) {
    const size_t n = f.instrs.size();
    movable_.assign(n, false);
    int depth = 0;
    for (size_t i = 0; i < n; ++i) {
      const Instr& in = f.instrs[i];
      if (in.op == Op::end_if || in.op == Op::end_loop) --depth;
      if (in.op == Op::if_ || in.op == Op::loop) ++depth;
      for (size_t s = 0; s < in.srcs.size(); ++s)
        if (in.srcs[s].is_value()) uses_[in.srcs[s].value].push_back({static_cast<uint32_t>(i), static_cast<uint32_t>(s)});
      if (in.dest == kNoValue) continue;
      def_[in.dest] = static_cast<int32_t>(i);
      movable_[i] = is_movable(in, depth, abi);
    }
  }

  // Main-shader instructions left with S stored (see the file comment).
  uint32_t cost(const std::vector<char>& stored, std::vector<char>* kept_out = nullptr) const {
    const size_t n = f_.instrs.size();
    std::vector<char> kept(n, 1);
    for (size_t k = n; k-- > 0;) {
      if (!movable_[k]) continue;
      ValueId v = f_.instrs[k].dest;
      bool read = false;
      if (!stored[v])
        for (auto [u, s] : uses_[v]) read |= kept[u] != 0;
      kept[k] = read;
    }
    uint32_t total = 0;
    for (size_t k = 0; k < n; ++k) total += kept[k];
    for (ValueId v = 0; v < stored.size(); ++v) {
      if (!stored[v]) continue;
      for (auto [u, s] : uses_[v]) total += kept[u] && !takes_uniform(f_.instrs[u], s);
    }
    if (kept_out) *kept_out = std::move(kept);
    return total;
  }

  // A value that may sit in uniforms: a 16-bit scalar or 32-bit scalar or
  // vector, read in no wider piece than a component (a vector only by
  // sources that take a uniform, which read one component).
  bool storable(ValueId v) const {
    if (v >= def_.size() || def_[v] < 0 || !movable_[def_[v]]) return false;
    const Value& val = f_.values[v];
    if (val.variable || val.pair || val.bits == 64 || (val.bits == 16 && val.comps != 1)) return false;
    for (auto [u, s] : uses_[v]) {
      if (f_.instrs[u].srcs[s].bits > val.bits) return false;
      // Register-only sources of vector values (store data, coordinates)
      // read the whole vector: no uniform stands for that.
      if (val.comps > 1 && !takes_uniform(f_.instrs[u], s)) return false;
    }
    return true;
  }

  std::vector<ValueId> movable_sources(ValueId v) const {
    std::vector<ValueId> out;
    for (const Src& s : f_.instrs[def_[v]].srcs)
      if (s.is_value() && movable_[def_[s.value]]) out.push_back(s.value);
    return out;
  }

  // The frontier: storable values a kept instruction reads, found again
  // until no kept movable instruction (one whose value cannot be stored)
  // reads a storable value.
  std::vector<char> frontier() const {
    std::vector<char> stored(f_.values.size(), 0);
    for (bool changed = true; changed;) {
      changed = false;
      std::vector<char> kept;
      cost(stored, &kept);
      for (size_t k = 0; k < f_.instrs.size(); ++k) {
        // Sources of kept instructions that stay in the main shader.
        if (!kept[k] || (movable_[k] && storable(f_.instrs[k].dest))) continue;
        for (const Src& s : f_.instrs[k].srcs)
          if (s.is_value() && !stored[s.value] && storable(s.value)) stored[s.value] = 1, changed = true;
      }
    }
    return stored;
  }

  const Function& f_;
  std::vector<int32_t> def_;
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> uses_;  // value -> (instr, source)
  std::vector<bool> movable_;

 private:
  bool is_movable(const Instr& in, int depth, const Abi& abi) const {
    const OpInfo& info = op_info(in.op);
    if (f_.values[in.dest].variable || in.op == Op::get_sr) return false;
    if (in.op == Op::device_load) {
      if (depth != 0 || in.srcs[0].kind != Src::Kind::uniform) return false;
      bool ubo = false;
      for (const Resource& r : abi.resources)
        ubo |= r.kind == Resource::Kind::uniform_buffer && r.uniform == in.srcs[0].imm;
      if (!ubo) return false;
    } else if (!(info.flags & kOpCse) || (info.flags & (kOpLoad | kOpSideEffect | kOpControl))) {
      return false;
    }
    for (const Src& s : in.srcs) {
      if (s.kind == Src::Kind::sr) return false;
      if (s.is_value() && (def_[s.value] < 0 || !movable_[def_[s.value]])) return false;
    }
    return true;
  }
};

}  // namespace

Result<Preamble> opt_preamble(Function& f, const Abi& abi) {
  Preamble out;
  out.first_uniform = abi.uniform_count;
  Split sp(f, abi);
  std::vector<char> stored = sp.frontier();
  uint32_t best = sp.cost(stored);
  auto stores = [](const std::vector<char>& s) { return std::count(s.begin(), s.end(), 1); };
  // Improve: drop a stored value, or store its movable sources instead.
  for (int round = 0; round < 4; ++round) {
    bool changed = false;
    for (ValueId v = static_cast<ValueId>(stored.size()); v-- > 0;) {
      if (!stored[v]) continue;
      std::vector<char> dropped = stored;
      dropped[v] = 0;
      std::vector<char> lowered = dropped;
      bool can_lower = true;
      for (ValueId s : sp.movable_sources(v)) {
        if (sp.storable(s)) lowered[s] = 1;
        else can_lower = false;
      }
      uint32_t c_drop = sp.cost(dropped);
      uint32_t c_lower = can_lower ? sp.cost(lowered) : UINT32_MAX;
      if (c_drop <= best) {
        stored = std::move(dropped), best = c_drop, changed = true;
      } else if (c_lower < best || (c_lower == best && stores(lowered) < stores(stored))) {
        stored = std::move(lowered), best = c_lower, changed = true;
      }
    }
    if (!changed) break;
  }
  // The uniform file: u0..u255 minus what the ABI already uses. When the
  // stores do not fit, the ones saving least go first.
  auto words = [&](ValueId v) { return f.values[v].bits == 16 ? 1u : uint32_t(f.values[v].comps); };
  const uint32_t room = abi.uniform_count < kUniformRegisters ? kUniformRegisters - abi.uniform_count : 0;
  for (;;) {
    uint32_t need = 0;
    for (ValueId v = 0; v < stored.size(); ++v) need += stored[v] ? words(v) : 0;
    if (need <= room) break;
    ValueId worst = kNoValue;
    uint32_t worst_cost = 0;
    for (ValueId v = 0; v < stored.size(); ++v) {
      if (!stored[v]) continue;
      std::vector<char> d = stored;
      d[v] = 0;
      uint32_t c = sp.cost(d);
      if (worst == kNoValue || c < worst_cost) worst = v, worst_cost = c;
    }
    stored[worst] = 0;
    best = worst_cost;
  }
  if (stores(stored) == 0) return out;
  std::vector<char> kept;
  sp.cost(stored, &kept);

  // The preamble: every movable instruction a stored value needs, in
  // program order, each stored value followed by its uniform_store.
  const size_t n = f.instrs.size();
  std::vector<char> needed(n, 0);
  for (size_t k = n; k-- > 0;) {
    if (!sp.movable_[k]) continue;
    ValueId v = f.instrs[k].dest;
    bool need = stored[v];
    for (auto [u, s] : sp.uses_[v]) need |= needed[u] != 0;
    needed[k] = need;
  }
  std::unordered_map<ValueId, ValueId> renamed;
  auto rename = [&](ValueId v) {
    auto it = renamed.find(v);
    if (it != renamed.end()) return it->second;
    const Value& old = f.values[v];
    ValueId nv = out.function.new_value(old.bits, old.comps);
    out.function.values[nv].pair = old.pair;
    renamed.emplace(v, nv);
    return nv;
  };
  // Each store right after its value (the preamble's registers free early).
  std::unordered_map<ValueId, uint32_t> uniform_of;
  uint32_t next = out.first_uniform;
  for (size_t k = 0; k < n; ++k) {
    if (!needed[k]) continue;
    Instr in = f.instrs[k];
    const ValueId v = in.dest;
    in.dest = rename(v);
    for (Src& s : in.srcs)
      if (s.is_value()) s.value = rename(s.value);
    out.function.instrs.push_back(std::move(in));
    if (!stored[v]) continue;
    uniform_of[v] = next;
    out.function.instrs.push_back(Instr{Op::uniform_store, Cond::none, false, kNoValue,
                                        {Src::val(rename(v), f.values[v].bits)}, next, f.instrs[k].line});
    next += words(v);
  }
  out.function.instrs.push_back(Instr{Op::stop, Cond::none, false, kNoValue, {}, 0, 0});
  out.uniform_count = next - out.first_uniform;

  // The main shader: hoisted instructions go, reads of stored values read
  // their uniforms (lower_immediates then moves those a source cannot take
  // into registers).
  std::vector<Instr> main;
  main.reserve(n);
  for (size_t k = 0; k < n; ++k) {
    if (!kept[k]) continue;
    Instr in = std::move(f.instrs[k]);
    for (Src& s : in.srcs) {
      if (!s.is_value() || !stored[s.value]) continue;
      const Value& v = f.values[s.value];
      Src u = Src::uniform(uniform_of[s.value] + (v.bits == 16 ? 0 : s.comp), s.bits);
      u.neg = s.neg;
      u.abs = s.abs;
      s = u;
    }
    main.push_back(std::move(in));
  }
  f.instrs = std::move(main);
  AGX_CHECK(lower_immediates(f));
  return out;
}

}  // namespace agx::compiler
