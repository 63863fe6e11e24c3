// The IR validator (ir.h validate), run after every pass in debug use.
#include <algorithm>

#include <fmt/format.h>

#include "compiler/ir.h"
#include "compiler/register_hints.h"
#include "compiler/regs.h"

namespace agx::compiler {

Status validate(const Function& f, bool allocated) {
  std::vector<uint8_t> defined(f.values.size(), 0);
  // Definitions made inside the current then/else part, undone when it ends
  // (they do not dominate the join); loop bodies dominate their exit.
  std::vector<std::vector<ValueId>> scopes(1);
  std::vector<Op> nest;
  std::vector<uint8_t> preloaded(kRegisterHalves, 0);
  auto fail = [&](size_t i, std::string_view what) {
    return Error::invalid_argument("IR validation: instruction {} ({}): {}", i, print_instr(f, f.instrs[i]), what);
  };
  for (size_t i = 0; i < f.instrs.size(); ++i) {
    const Instr& in = f.instrs[i];
    const OpInfo& info = op_info(in.op);
    if (info.srcs >= 0 && in.srcs.size() != static_cast<size_t>(info.srcs))
      return fail(i, fmt::format("expects {} sources", info.srcs));
    for (const Src& s : in.srcs) {
      if (s.kind != Src::Kind::value) continue;
      if (s.value >= f.values.size()) return fail(i, "source value out of range");
      const Value& v = f.values[s.value];
      if (!defined[s.value]) return fail(i, fmt::format("%{} used where its definition does not dominate", s.value));
      if (s.comp >= v.comps) return fail(i, fmt::format("component {} of a {}-component value", s.comp, v.comps));
      if (s.bits > v.bits * (v.comps - s.comp)) return fail(i, "source wider than its value");
    }
    bool needs_dest = info.flags & kOpDest;
    if (needs_dest && in.dest == kNoValue) return fail(i, "missing destination");
    if (!needs_dest && in.dest != kNoValue && in.op != Op::atomic && in.op != Op::local_atomic)
      return fail(i, "unexpected destination");
    if (in.dest != kNoValue) {
      if (in.dest >= f.values.size()) return fail(i, "destination out of range");
      const Value& v = f.values[in.dest];
      if (defined[in.dest] && !v.variable) return fail(i, fmt::format("%{} defined twice", in.dest));
      if (!defined[in.dest]) {
        defined[in.dest] = 1;
        if (!v.variable) scopes.back().push_back(in.dest);
      }
      if (v.bits != 16 && v.bits != 32 && v.bits != 64) return fail(i, "value size not 16/32/64 bits");
      // Gradient tuples of texture_sample (3 coordinates: 6 words and a
      // minimum LOD) are the only longer values.
      if (v.comps < 1 || v.comps > (in.op == Op::collect ? 8 : 4)) return fail(i, "value with other than 1-4 components");
    }
    switch (in.op) {
      case Op::if_: nest.push_back(Op::if_); scopes.emplace_back(); break;
      case Op::else_:
        if (nest.empty() || nest.back() != Op::if_) return fail(i, "else outside an if");
        nest.back() = Op::else_;
        for (ValueId v : scopes.back()) defined[v] = 0;
        scopes.back().clear();
        break;
      case Op::end_if:
        if (nest.empty() || (nest.back() != Op::if_ && nest.back() != Op::else_)) return fail(i, "end_if without if");
        nest.pop_back();
        for (ValueId v : scopes.back()) defined[v] = 0;
        scopes.pop_back();
        break;
      case Op::loop: nest.push_back(Op::loop); break;
      case Op::end_loop:
        if (nest.empty() || nest.back() != Op::loop) return fail(i, "end_loop without loop");
        nest.pop_back();
        break;
      case Op::break_: case Op::continue_: case Op::break_if: case Op::continue_if: case Op::continue_join: {
        bool in_loop = false;
        for (Op o : nest) in_loop |= o == Op::loop;
        if (!in_loop) return fail(i, "break/continue outside a loop");
        break;
      }
      case Op::preload: {
        const Value& v = f.values[in.dest];
        if (v.variable || v.comps != 1 || in.imm + v.halves() > kRegisterHalves ||
            in.imm < kFirstAllocatableHalf || in.imm % register_alignment(v))
          return fail(i, "a preload must be one SSA value in an allocatable, aligned register");
        for (unsigned h = 0; h < v.halves(); ++h)
          if (preloaded[in.imm + h]++) return fail(i, "a register preloaded twice");
        if (allocated && v.reg != static_cast<int32_t>(in.imm)) return fail(i, "a preload not in its register");
        break;
      }
      case Op::store_output:
        if (in.srcs[0].bits != 32 || (in.imm & ~uint64_t{0x1FF})) return fail(i, "store_output takes a 32-bit word and a slot below 256");
        break;
      case Op::stop:
        if (!nest.empty()) return fail(i, "stop inside control flow");
        if (i + 1 != f.instrs.size()) return fail(i, "stop before the end");
        break;
      default: break;
    }
  }
  if (!nest.empty()) return Error::invalid_argument("IR validation: {} unterminated control-flow construct(s)", nest.size());
  if (allocated) {
    // Below the first free half, values may only sit in the registers a
    // reg_write fills (holding what it stores: register_allocate.cpp).
    const std::vector<bool> written = detail::reg_write_halves(f);
    auto reserved = [&](const Value& v) {
      for (unsigned h = static_cast<unsigned>(v.reg); h < v.reg + v.halves(); ++h)
        if (h < f.first_free_half && !written[h]) return true;
      return false;
    };
    for (size_t i = 0; i < f.values.size(); ++i) {
      const Value& v = f.values[i];
      if (!defined[i] && v.reg < 0) continue;  // unused (removed) value
      if (v.reg < 0) return Error::invalid_argument("IR validation: %{} has no register", i);
      unsigned align = register_alignment(v);
      if (v.reg < static_cast<int32_t>(kFirstAllocatableHalf) || reserved(v) || v.reg % align || v.reg + v.halves() > kRegisterHalves)
        return Error::invalid_argument("IR validation: %{} at half {} breaks the register file rules (alignment {})", i, v.reg, align);
    }
  }
  return {};
}

}  // namespace agx::compiler
