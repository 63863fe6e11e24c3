// Control flow and the execution-mask stack. The stack lives in r0l, the
// per-thread nesting counter: a thread runs when its r0l is 0 (applegpu
// PopExec/IfICmp/IfFCmp/WhileICmp/WhileFCmp/ElseICmp/ElseFCmp exec, which
// update every thread, active or not). Branches, call and ret follow
// applegpu's pseudocode (JmpAny, JmpNone, Call) and Mesa's use of r1 as the
// link register; they are derived, see docs/usc.md.
#include <bit>

#include "usc/internal.h"
#include "util/bits.h"

namespace agx::usc::detail {

namespace {

using isa::Opcode;

void set_r0l(Core& c, const uint32_t v[kLanes]) {
  uint32_t* r0 = c.r[0].data();
  alignas(64) uint32_t running[kLanes];  // all ones where the lane runs
  for (unsigned l = 0; l < kLanes; ++l) {
    r0[l] = (r0[l] & 0xFFFF0000u) | (v[l] & 0xFFFF);
    running[l] = (v[l] & 0xFFFF) == 0 ? 0xFFFFFFFFu : 0u;
  }
  c.exec = lane_mask(running) & c.present;
  c.written[0] = true;
}

Status exec_pop(const Step& s, Core& c, Ctx&) {
  alignas(64) uint32_t v[kLanes];
  for (unsigned l = 0; l < kLanes; ++l) {
    uint32_t x = c.r0l(l);
    v[l] = x > s.n ? x - s.n : 0;
  }
  set_r0l(c, v);
  return {};
}

enum class Push { if_, while_, else_ };

// One pass over the lanes: r0l (known to be 0 in every lane) becomes 1
// where the comparison fails, and exec the present lanes where it holds.
// `b(l)` is B's value in lane l.
template <class Compare, class B>
void if_pass(Core& c, const uint32_t* a, Compare holds, B b, uint32_t inv) {
  uint32_t* r0 = c.r[0].data();
  alignas(64) uint32_t running[kLanes];  // all ones where the lane runs
  for (unsigned l = 0; l < kLanes; ++l) {
    const uint32_t fail = uint32_t(holds(a[l], b(l))) ^ inv ^ 1u;
    r0[l] = (r0[l] & 0xFFFF0000u) | fail;
    running[l] = fail - 1u;
  }
  c.exec = lane_mask(running) & c.present;
  c.written[0] = true;
}

template <class Compare>
bool if_pass_b(const Step& s, Core& c, const uint32_t* a, Compare holds, uint32_t inv) {
  switch (s.b.kind) {
    case Kind::r32: {
      const uint32_t* b = c.r[s.b.index].data();
      if_pass(c, a, holds, [b](unsigned l) { return b[l]; }, inv);
      return true;
    }
    case Kind::u32: case Kind::imm: {
      const uint32_t v = s.b.kind == Kind::u32 ? c.u[s.b.index] : static_cast<uint32_t>(s.b.imm);
      if_pass(c, a, holds, [v](unsigned) { return v; }, inv);
      return true;
    }
    default:
      return false;
  }
}

// The common `if` of straight-line code: every lane's r0l is 0 (none is
// disabled) and an unsigned 32-bit register compares with a 32-bit
// register, uniform or immediate. Then r0l becomes 1 where the comparison
// fails, and exec the lanes where it holds: what the general path computes,
// in one pass. False (nothing touched) when the step is not of that shape.
bool push_if_fast(const Step& s, Core& c) {
  if (s.undefined || (s.cc & 4) || s.a.kind != Kind::r32) return false;
  if (s.b.kind != Kind::r32 && s.b.kind != Kind::u32 && s.b.kind != Kind::imm) return false;
  const uint32_t* r0 = c.r[0].data();
  uint32_t nested = 0;
  for (unsigned l = 0; l < kLanes; ++l) nested |= r0[l] & 0xFFFF;
  if (nested) return false;
  const uint32_t* a = c.r[s.a.index].data();
  const uint32_t inv = (s.cc & 8) ? 1u : 0u;
  switch (s.cc & 3) {
    case 0: return if_pass_b(s, c, a, [](uint32_t x, uint32_t y) { return x == y; }, inv);
    case 1: return if_pass_b(s, c, a, [](uint32_t x, uint32_t y) { return x < y; }, inv);
    default: return if_pass_b(s, c, a, [](uint32_t x, uint32_t y) { return x > y; }, inv);
  }
}

template <Push kKind, bool kFloat>
Status exec_push(const Step& s, Core& c, Ctx& ctx) {
  if constexpr (kKind == Push::if_ && !kFloat)
    if (push_if_fast(s, c)) return {};
  // The lanes that compare: r0l 0 (if), below n (while), 1 (else); every
  // lane, active or not, as in applegpu's exec.
  alignas(64) uint32_t r0l[kLanes];
  for (unsigned l = 0; l < kLanes; ++l) r0l[l] = c.r[0][l] & 0xFFFF;
  if (s.undefined) [[unlikely]] {
    alignas(64) bool compares[kLanes];
    for (unsigned l = 0; l < kLanes; ++l) {
      uint32_t x = r0l[l];
      compares[l] = kKind == Push::if_ ? x == 0 : kKind == Push::while_ ? x < s.n : x == 1;
    }
    AGX_CHECK(check_undefined(s, ctx, kUndefinedCompare, lane_mask(compares)));
  }
  alignas(64) uint32_t cond[kLanes] = {};
  if (!s.undefined) {
    if constexpr (kFloat) fcompare(s.cc, s.a, s.b, c, cond);
    else icompare(s.cc, s.a, s.b, c, cond);
  }
  alignas(64) uint32_t v[kLanes];
  for (unsigned l = 0; l < kLanes; ++l) {  // branch-free arithmetic on the flags
    uint32_t x = r0l[l], fail = ~cond[l] & 1u;
    if constexpr (kKind == Push::if_) {
      v[l] = x != 0 ? x + s.n : fail;
    } else if constexpr (kKind == Push::while_) {
      v[l] = x < s.n ? fail * s.n : x;
    } else {
      v[l] = x == 0 ? s.n : x == 1 ? fail : x;
    }
  }
  set_r0l(c, v);
  return {};
}

template <bool kAny>
Status exec_jmp_exec(const Step& s, Core& c, Ctx& ctx) {
  if ((c.exec != 0) == kAny) ctx.next_pc = s.pc + s.offset;
  return {};
}

// The target of ret/call_reg: the register of the first active lane; lanes
// that disagree are reported, since the hardware has one pc per group.
Result<uint64_t> lane_target(const Step& s, const Core& c) {
  uint32_t e = c.exec;
  unsigned first = e ? std::countr_zero(e) : 0;
  uint32_t t = c.r[s.k[0]][first];
  for (unsigned l = 0; l < kLanes; ++l)
    if (lane_on(e, l) && c.r[s.k[0]][l] != t)
      return Error::unsupported("pc 0x{:x}: divergent branch target in r{} (lane {}: 0x{:x}, lane {}: 0x{:x})",
                                s.pc, s.k[0], first, t, l, c.r[s.k[0]][l]);
  return uint64_t{t};
}

void set_link(const Step& s, Core& c) {
  alignas(64) uint32_t v[kLanes];
  for (unsigned l = 0; l < kLanes; ++l) v[l] = static_cast<uint32_t>(s.pc + s.length_B);
  Operand r1;
  r1.kind = Kind::r32;
  r1.index = 1;
  write_u32(r1, c, v);
}

Status exec_call(const Step& s, Core& c, Ctx& ctx) {
  set_link(s, c);
  ctx.next_pc = s.pc + s.offset;
  return {};
}

Status exec_call_reg(const Step& s, Core& c, Ctx& ctx) {
  AGX_TRY(uint64_t t, lane_target(s, c));
  set_link(s, c);
  ctx.next_pc = t;
  return {};
}

Status exec_ret(const Step& s, Core& c, Ctx& ctx) {
  AGX_TRY(uint64_t t, lane_target(s, c));
  ctx.next_pc = t;
  return {};
}

Status exec_stop(const Step&, Core&, Ctx& ctx) {
  ctx.stop = true;
  return {};
}

Status exec_trap(const Step& s, Core&, Ctx&) {
  return Error::unsupported("pc 0x{:x}: trap", s.pc);
}

Status exec_wait(const Step&, Core&, Ctx& ctx) {
  ctx.clear_pending();
  return {};
}

Status exec_barrier(const Step&, Core&, Ctx& ctx) {
  ctx.clear_pending();
  ctx.barrier = true;
  return {};
}

Status exec_nop(const Step&, Core&, Ctx&) { return {}; }

}  // namespace

Result<bool> compile_control(const isa::Instr& in, Step& s) {
  auto cond = [&](bool fl) -> Status {
    AGX_TRY(int64_t n, operand_value(in, "n"));
    s.n = static_cast<uint32_t>(n);
    return compare_fields(in, s, fl);
  };
  switch (in.op) {
    case Opcode::pop_exec: {
      AGX_TRY(int64_t n, operand_value(in, "n"));
      s.n = static_cast<uint32_t>(n);
      s.run = exec_pop;
      return true;
    }
    case Opcode::if_icmp: AGX_CHECK(cond(false)); s.run = exec_push<Push::if_, false>; return true;
    case Opcode::if_fcmp: AGX_CHECK(cond(true)); s.run = exec_push<Push::if_, true>; return true;
    case Opcode::while_icmp: AGX_CHECK(cond(false)); s.run = exec_push<Push::while_, false>; return true;
    case Opcode::while_fcmp: AGX_CHECK(cond(true)); s.run = exec_push<Push::while_, true>; return true;
    case Opcode::else_icmp: AGX_CHECK(cond(false)); s.run = exec_push<Push::else_, false>; return true;
    case Opcode::else_fcmp: AGX_CHECK(cond(true)); s.run = exec_push<Push::else_, true>; return true;
    case Opcode::jmp_exec_any:
    case Opcode::jmp_exec_none:
    case Opcode::call:
    {
      AGX_TRY(s.offset, operand_value(in, "off"));  // kBranchOffset: signed bytes from pc
    }
      s.run = in.op == Opcode::jmp_exec_any ? exec_jmp_exec<true>
            : in.op == Opcode::jmp_exec_none ? exec_jmp_exec<false> : exec_call;
      return true;
    case Opcode::ret:
    case Opcode::call_reg:
    {
      AGX_TRY(Operand r, operand(in, "reg32"));  // range-checked r32
      s.k[0] = r.index;
    }
      s.run = in.op == Opcode::ret ? exec_ret : exec_call_reg;
      return true;
    case Opcode::stop: s.run = exec_stop; return true;
    case Opcode::trap: s.run = exec_trap; return true;
    case Opcode::wait: s.run = exec_wait; return true;
    case Opcode::threadgroup_barrier: s.run = exec_barrier; return true;
    case Opcode::memory_barrier: s.run = exec_nop; return true;
    default: return false;
  }
}

}  // namespace agx::usc::detail
