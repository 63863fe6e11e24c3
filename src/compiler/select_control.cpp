// Instruction selection, control flow: the exec-mask instructions
// (bminor/mesa-mesa src/asahi/compiler/agx_compile.c uses the same
// sequences): if -> if_icmp/if_fcmp n=1, else -> else_icmp (always true)
// n=1, end_if -> pop_exec 1, loop -> push_exec L (L = 1 or 2 levels,
// lower_control_flow.cpp; applegpu's push_exec is if_fcmp eq 0.0, 0.0),
// end_loop -> [while_icmp (always true) n=2 when L = 2] + jmp_exec_any to
// the loop start + pop_exec L, break/continue -> mov_imm r0l, k +
// pop_exec 0, break_if/continue_if -> while n=1 (k = 1) or cmpsel r0l +
// pop_exec 0. Plus wait, threadgroup_barrier and stop.
#include <utility>

#include "compiler/machine.h"
#include "compiler/select_rows.h"

namespace agx::compiler {

namespace {

using O = isa::Opcode;
using D = isa::OperandDesc;

// cmpsel's X/Y immediates are 8-bit (applegpu CmpselSrcDesc).
constexpr uint64_t kMaxCmpselImmediate = 255;
// applegpu's ICondition ueq: with 0, 0 always true.
constexpr unsigned kUeq = 0;

Status exec(Selection& s, const ExecRow& r, unsigned code, const isa::Operand& a, const isa::Operand& b, uint32_t n) {
  const bool is_float = r.op == O::if_fcmp || r.op == O::while_fcmp;
  Emit e(r.op);
  e.implicit_r0l(r.dt);
  AGX_CHECK(e.condition(r.cc, r.ccn, code, is_float));
  AGX_CHECK(e.src(r.a, a, is_float ? D::kFloatSrc : D::kAluSrc));
  AGX_CHECK(e.src(r.b, b, is_float ? D::kFloatSrc : D::kAluSrc));
  e.imm(r.n, n);
  s.out.push_back(e.done());
  return {};
}

// if_/while_ on the IR instruction's comparison.
Status exec_compare(const Function& f, const Instr& in, Selection& s, bool is_while, bool invert, uint32_t n) {
  const bool is_float = cond_is_float(in.cond);
  AGX_TRY(auto a, operand_of(f, in.srcs[0], is_float));
  AGX_TRY(auto b, operand_of(f, in.srcs[1], is_float));
  AGX_TRY(unsigned code, condition_code(in.cond, invert));
  const ExecRow& r = is_while ? (is_float ? kWhileFcmp : kWhileIcmp) : (is_float ? kIfFcmp : kIfIcmp);
  return exec(s, r, code, a, b, n);
}

void pop_exec(Selection& s, uint32_t n) {
  constexpr size_t dt = isa::field_id(O::pop_exec, "Dt"), levels = isa::field_id(O::pop_exec, "n");
  Emit e(O::pop_exec);
  e.implicit_r0l(dt);
  e.imm(levels, n);
  s.out.push_back(e.done());
}

Status push_exec(Selection& s, uint32_t n) {
  isa::Operand zero{isa::OperandKind::kFloatImm};  // code 0: 0.0
  return exec(s, kIfFcmp, kUeq, zero, zero, n);
}

Status set_r0l(Selection& s, uint64_t value) {
  if (value > 0xFFFF) return Error::unsupported("a nesting value {} beyond 16 bits", value);
  constexpr OperandFields d = operand_fields(O::mov_imm16, "D", "Dt");
  Emit e(O::mov_imm16);
  AGX_CHECK(e.dst(d, reg16(0), D::kAluDst));
  e.imm(isa::field_id(O::mov_imm16, "imm16"), static_cast<uint32_t>(value));
  s.out.push_back(e.done());
  return {};
}

void jump(Selection& s, O op, int target, int target_ir) {
  constexpr size_t any = isa::field_id(O::jmp_exec_any, "off"), none = isa::field_id(O::jmp_exec_none, "off");
  Emit e(op);
  e.branch(op == O::jmp_exec_any ? any : none, 0);
  MachineInstr m = e.done();
  m.target = target;
  m.target_ir = target_ir;
  s.out.push_back(m);
}

void no_operands(Selection& s, O op) { s.out.push_back(Emit(op).done()); }

// break_if / continue_if: lanes where the condition holds leave with
// nesting value imm.
Status conditional_jump(const Function& f, const Instr& in, Selection& s) {
  if (in.imm == 1) {
    // One level: `while` turns off the lanes where the condition holds
    // by itself (it keeps the ones where it fails).
    return exec_compare(f, in, s, true, !in.invert, 1);
  }
  if (in.imm > kMaxCmpselImmediate) {
    // The nesting value does not fit cmpsel's 8-bit immediate: the
    // if/break/end_if it came from (one more level inside the if).
    AGX_CHECK(exec_compare(f, in, s, false, in.invert, 1));
    AGX_CHECK(set_r0l(s, in.imm + 1));
    pop_exec(s, 0);
    pop_exec(s, 1);
    return {};
  }
  // cmpsel has no inverted conditions: an inverted test selects the other
  // way round.
  const bool is_float = cond_is_float(in.cond);
  AGX_TRY(auto a, operand_of(f, in.srcs[0], is_float));
  AGX_TRY(auto b, operand_of(f, in.srcs[1], is_float));
  AGX_TRY(unsigned code, condition_code(in.cond, false));
  isa::Operand x = imm_operand(static_cast<int64_t>(in.imm)), y = reg16(0);
  if (in.invert) std::swap(x, y);
  const CmpselRow& r = is_float ? kFcmpsel : kIcmpsel;
  Emit e(r.op);
  AGX_CHECK(e.condition(r.cc, kNoField, code, is_float));
  AGX_CHECK(e.dst(r.d, reg16(0), D::kAluDst));
  AGX_CHECK(e.src(r.a, a, is_float ? D::kFloatSrc : D::kAluSrc));
  AGX_CHECK(e.src(r.b, b, is_float ? D::kFloatSrc : D::kAluSrc));
  AGX_CHECK(e.cmpsel_src(r.x, x));
  AGX_CHECK(e.cmpsel_src(r.y, y));
  s.out.push_back(e.done());
  pop_exec(s, 0);
  return {};
}

}  // namespace

Status select_control(const Function& f, const Instr& in, Selection& s) {
  const isa::Operand zero = imm_operand(0);
  switch (in.op) {
    case Op::wait: {
      Emit e(O::wait);
      e.imm(isa::field_id(O::wait, "i"), 0);
      s.out.push_back(e.done());
      return {};
    }
    case Op::barrier: no_operands(s, O::threadgroup_barrier); return {};
    case Op::memory_barrier: return {};  // see docs/compiler.md: the emulator orders memory; no encoding is emitted
    case Op::stop: no_operands(s, O::stop); return {};
    case Op::if_: return exec_compare(f, in, s, false, in.invert, 1);
    case Op::else_: return exec(s, kElseIcmp, kUeq, zero, zero, 1);
    case Op::end_if: pop_exec(s, 1); return {};
    // Loops push one or two levels (lower_control_flow.cpp); a two-level
    // loop's whiles turn continued lanes (r0l 1) back on.
    case Op::loop:
      if (in.imm != 1 && in.imm != 2) return Error::invalid_argument("loop of {} levels (lower_control_flow did not run)", in.imm);
      AGX_CHECK(push_exec(s, static_cast<uint32_t>(in.imm)));
      s.loops.push_back(s.out.size());
      return {};
    case Op::continue_join:
      if (in.imm == 2) return exec(s, kWhileIcmp, kUeq, zero, zero, 2);
      return {};
    case Op::end_loop:
      if (s.loops.empty()) return Error::invalid_argument("end_loop without loop");
      if (in.imm == 2) AGX_CHECK(exec(s, kWhileIcmp, kUeq, zero, zero, 2));
      jump(s, O::jmp_exec_any, static_cast<int>(s.loops.back()), -1);
      s.loops.pop_back();
      pop_exec(s, static_cast<uint32_t>(in.imm));
      return {};
    case Op::break_: case Op::continue_:
      AGX_CHECK(set_r0l(s, in.imm));
      pop_exec(s, 0);
      return {};
    case Op::break_if: case Op::continue_if: return conditional_jump(f, in, s);
    default: break;
  }
  return Error::invalid_argument("{} is not a control op", op_info(in.op).name);
}

// A jump over an if/else region to its else/end (which update r0l for
// every lane; the skipped instructions would change nothing).
void skip_region(Selection& s, int end_ir) { jump(s, O::jmp_exec_none, -1, end_ir); }

}  // namespace agx::compiler
