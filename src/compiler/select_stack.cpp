// Instruction selection: the thread's stack (stack_store / stack_load) and
// the preamble's uniform_store.
#include <algorithm>

#include "compiler/machine.h"

namespace agx::compiler {

namespace {

using O = isa::Opcode;
using D = isa::OperandDesc;

struct StackRow {
  size_t F, i1, i2, mask, i5;
  OperandFields R, O;
  size_t i6;
};
constexpr StackRow stack_row(isa::Opcode op) {
  return {required_field(op, "F"),    required_field(op, "i1"), required_field(op, "i2"),
          required_field(op, "mask"), required_field(op, "i5"), operand_fields(op, "R", "Rt"),
          operand_fields(op, "O", "Ot"), required_field(op, "i6")};
}
constexpr StackRow kStackStore = stack_row(O::stack_store);
constexpr StackRow kStackLoad = stack_row(O::stack_load);

}  // namespace

// applegpu operands: [R,] F, i1, i2, mask, i5, [R,] O, i6; O is the byte
// offset in the thread's stack, an immediate or a 32-bit register (Mesa's
// load/store_scratch and spills use it so). 32-bit data moves as i32
// words (format 2), 16-bit data as i16 halves (format 1).
Status select_stack(const Function& f, const Instr& in, Selection& s) {
  const bool store = in.op == Op::stack_store;
  const Src& data = store ? in.srcs[0] : Src::val(in.dest);
  if (!data.is_value() || data.comp != 0) return Error::invalid_argument("stack data must be a whole register value");
  const Value& v = f.values[data.value];
  const bool halves = v.bits == 16;
  const unsigned n = halves ? v.comps : v.halves() / 2;
  if (n < 1 || n > 4) return Error::unsupported("a stack access of {} elements (1-4)", n);
  const auto first = static_cast<unsigned>(v.reg);
  const isa::Operand regs = halves ? reg16(first, n) : reg32(first / 2, n);
  AGX_TRY(auto offset, operand_of(f, in.srcs[store ? 1 : 0], false));
  const StackRow& r = store ? kStackStore : kStackLoad;
  Emit e(store ? O::stack_store : O::stack_load);
  if (!store) AGX_CHECK(e.data(r.R, regs, D::kMemoryReg));
  e.enumeration(r.F, halves ? 1 : 2);
  e.imm(r.i1, 0);
  e.imm(r.i2, 0);
  e.enumeration(r.mask, (1u << n) - 1);
  e.imm(r.i5, 0);
  if (store) AGX_CHECK(e.data(r.R, regs, D::kMemoryReg));
  AGX_CHECK(e.memory_index(r.O, offset, D::kMemoryIndex));
  e.imm(r.i6, 0);
  s.out.push_back(e.done());
  return {};
}

// Mesa's form (bminor/mesa-mesa src/asahi/compiler/agx_pack.c): i16 from
// 16-bit registers, a 32-bit value as its two halves, at the offset in
// 16-bit units (u<N>l = 2N); two 32-bit components at most per
// instruction (mask xyzw). A 16-bit scalar fills u<N>l.
Status select_uniform_store(const Function& f, const Instr& in, Selection& s) {
  static constexpr struct {
    size_t unk, F, mask, b;
    OperandFields R, O;
    size_t s;
  } r = {isa::field_id(O::uniform_store, "unk"), isa::field_id(O::uniform_store, "F"),
         isa::field_id(O::uniform_store, "mask"), isa::field_id(O::uniform_store, "b"),
         operand_fields(O::uniform_store, "R", "Rt"), operand_fields(O::uniform_store, "O", "Ot"),
         isa::field_id(O::uniform_store, "s")};
  const Src& data = in.srcs[0];
  if (!data.is_value()) return Error::invalid_argument("uniform_store data must be a register value");
  const Value& v = f.values[data.value];
  if (v.bits == 16 && v.comps != 1) return Error::unsupported("uniform_store of a 16-bit vector");
  if (v.bits != 16 && v.bits != 32) return Error::unsupported("uniform_store of a {}-bit value", v.bits);
  const unsigned step = v.bits == 16 ? 1 : 2;
  for (unsigned c = 0; c < v.comps; c += step) {
    // halves: 1 for the 16-bit scalar, else 2 per 32-bit component
    const unsigned count = v.bits == 16 ? 1 : 2 * std::min(2u, v.comps - c);
    const unsigned half = v.bits == 16 ? half_of(f, data) : static_cast<unsigned>(v.reg) + 2 * c;
    Emit e(O::uniform_store);
    e.imm(r.unk, 2);
    e.enumeration(r.F, 1);  // i16
    e.enumeration(r.mask, (1u << count) - 1);
    e.imm(r.b, 0);
    AGX_CHECK(e.data(r.R, reg16(half, count), D::kMemoryReg));
    AGX_CHECK(e.memory_index(r.O, imm_operand(2 * static_cast<int64_t>(in.imm + c)), D::kMemoryIndex));
    e.shift(r.s, 0, D::kMemoryShift);
    s.out.push_back(e.done());
  }
  return {};
}

}  // namespace agx::compiler
