// Instruction selection, memory family: device, threadgroup, stack and
// uniform loads and stores, and atomics. Operand order and the constant
// operands (g, Ou signed, u1-u6) are applegpu's
// (dougallj/applegpu applegpu.py DeviceLoadInstructionDesc and
// neighbours); Mesa packs the same forms (bminor/mesa-mesa
// src/asahi/compiler/agx_pack.c).
#include <algorithm>

#include "compiler/machine.h"

namespace agx::compiler {

namespace {

using O = isa::Opcode;
using D = isa::OperandDesc;

// applegpu's memory format enum: i8 0, i16 1, i32 2.
uint32_t format_of(uint32_t elem_B) { return elem_B == 1 ? 0 : elem_B == 2 ? 1 : 2; }
// The component mask: n components from x.
uint32_t mask_of(unsigned n) { return (1u << n) - 1; }

struct DeviceRow {
  size_t g, F, mask;
  OperandFields R, A, O;
  size_t Ou, s, u6;
};
constexpr DeviceRow device_row(isa::Opcode op, bool store) {
  return {required_field(op, "g"), required_field(op, "F"), required_field(op, "mask"),
          operand_fields(op, "R", "Rt"), operand_fields(op, "A", "At"), operand_fields(op, "O", "Ot"),
          required_field(op, "Ou"), required_field(op, "s"), store ? required_field(op, "u6") : kNoField};
}
constexpr DeviceRow kDeviceLoad = device_row(O::device_load, false);
constexpr DeviceRow kDeviceStore = device_row(O::device_store, true);

struct LocalRow {
  size_t F, mask;
  OperandFields R, A, O;
};
constexpr LocalRow local_row(isa::Opcode op) {
  return {required_field(op, "F"), required_field(op, "mask"), operand_fields(op, "R", "Rt"),
          operand_fields(op, "A", "At"), operand_fields(op, "O", "Ot")};
}
constexpr LocalRow kLocalLoad = local_row(O::threadgroup_load);
constexpr LocalRow kLocalStore = local_row(O::threadgroup_store);

// Stored data: n 32-bit registers, or for i16 data in 16-bit registers
// (the Rt = 0 form) n halves.
isa::Operand data_tuple(const Function& f, const Src& data, unsigned n, uint32_t elem_B) {
  const unsigned half = half_of(f, data);
  return data.bits == 16 && elem_B == 2 ? reg16(half, n) : reg32(half / 2, n);
}
// A 16-bit pair read as one word stores 1 component.
unsigned store_count(const Function& f, const Src& data) {
  const Value& v = f.values[data.value];
  return data.comp == 0 && data.bits == v.bits ? v.comps : 1;
}

// The registers a load writes (its destination's 32-bit registers) or a
// store reads, and how many components.
struct Data {
  unsigned n;
  isa::Operand regs;
};
Data data_of(const Function& f, const Instr& in, bool store, uint32_t elem_B) {
  if (store) {
    const unsigned n = store_count(f, in.srcs[0]);
    return {n, data_tuple(f, in.srcs[0], n, elem_B)};
  }
  const Value& dv = f.values[in.dest];
  return {dv.comps, reg32(static_cast<unsigned>(dv.reg) / 2, dv.comps)};
}

Status device(const Function& f, const Instr& in, Selection& s) {
  const bool store = in.op == Op::device_store;
  const DeviceRow& r = store ? kDeviceStore : kDeviceLoad;
  const uint32_t elem_B = mem_elem_B(in.imm);
  const size_t first = store ? 1 : 0;
  AGX_TRY(auto base, operand_of(f, in.srcs[first], false));
  AGX_TRY(auto index, operand_of(f, in.srcs[first + 1], false));
  const Data data = data_of(f, in, store, elem_B);
  Emit e(store ? O::device_store : O::device_load);
  e.imm(r.g, 0);
  e.enumeration(r.F, format_of(elem_B));
  e.enumeration(r.mask, mask_of(data.n));
  AGX_CHECK(e.data(r.R, data.regs, D::kMemoryReg));
  AGX_CHECK(e.memory_base(r.A, base));
  AGX_CHECK(e.memory_index(r.O, index, D::kMemoryIndex));
  e.enumeration(r.Ou, 0);  // signed
  e.shift(r.s, mem_shift(in.imm), D::kMemoryShift);
  if (store) e.imm(r.u6, 0);
  s.out.push_back(e.done());
  return {};
}

// Threadgroup addressing: base (16-bit register or 0) + index elements of
// 4 bytes: a register byte address is base rNl, index 0; a constant one
// base 0, index N/4. Elements are 4 bytes (i32) or, for the 8/16-bit
// types, 1 or 2 (i8, i16; ir.h mem_imm).
struct LocalAddress {
  isa::Operand base, index;
};
Result<LocalAddress> local_address(const Function& f, const Src& a, uint32_t elem_B = 4) {
  if (a.is_imm()) {
    if (a.imm % elem_B || a.imm / elem_B > 32767)
      return Error::unsupported("threadgroup address {} not a multiple of {} below {} KiB", a.imm, elem_B, 32 * elem_B);
    return LocalAddress{imm_operand(0), imm_operand(static_cast<int64_t>(a.imm / elem_B))};
  }
  Src r = a;
  if (r.is_value()) r.bits = 16;
  AGX_TRY(auto base, operand_of(f, r, false));
  return LocalAddress{base, imm_operand(0)};
}

Status local(const Function& f, const Instr& in, Selection& s) {
  const bool store = in.op == Op::local_store;
  const LocalRow& r = store ? kLocalStore : kLocalLoad;
  const uint32_t elem_B = mem_elem_B(in.imm);
  AGX_TRY(auto addr, local_address(f, in.srcs[store ? 1 : 0], elem_B));
  const Data data = data_of(f, in, store, elem_B);
  Emit e(store ? O::threadgroup_store : O::threadgroup_load);
  e.enumeration(r.F, format_of(elem_B));
  e.enumeration(r.mask, mask_of(data.n));
  AGX_CHECK(e.data(r.R, data.regs, D::kThreadgroupMemoryReg));
  AGX_CHECK(e.local_base(r.A, addr.base));
  AGX_CHECK(e.memory_index(r.O, addr.index, D::kThreadgroupIndex));
  s.out.push_back(e.done());
  return {};
}

// The atomic's value: a register pair for cmpxchg (value, compare), else
// one register.
isa::Operand atomic_value(const Function& f, const Instr& in, const Src& data) {
  const unsigned half = half_of(f, data);
  return static_cast<AtomicOp>(in.imm) == AtomicOp::cmpxchg ? reg64(half / 2) : reg32(half / 2);
}
isa::Operand atomic_result(const Function& f, const Instr& in) {
  return in.dest != kNoValue ? dest_of(f, in.dest) : isa::Operand{};
}

Status device_atomic(const Function& f, const Instr& in, Selection& s) {
  static constexpr struct {
    size_t op, g;
    OperandFields R, A, O;
    size_t Ou, S, u[5];
  } r = {isa::field_id(O::atomic, "op"), isa::field_id(O::atomic, "g"), operand_fields(O::atomic, "R", "Rt"),
         operand_fields(O::atomic, "A", "At"), operand_fields(O::atomic, "O", "Ot"), isa::field_id(O::atomic, "Ou"),
         isa::field_id(O::atomic, "S"),
         {isa::field_id(O::atomic, "u1"), isa::field_id(O::atomic, "u2"), isa::field_id(O::atomic, "u3"),
          isa::field_id(O::atomic, "u4"), isa::field_id(O::atomic, "u5")}};
  AGX_TRY(auto base, operand_of(f, in.srcs[0], false));
  AGX_TRY(auto index, operand_of(f, in.srcs[1], false));
  Emit e(O::atomic);
  e.enumeration(r.op, static_cast<uint32_t>(in.imm));  // AtomicOp is applegpu's op enum order
  e.imm(r.g, 0);
  AGX_CHECK(e.atomic_dest(r.R, atomic_result(f, in)));
  AGX_CHECK(e.memory_base(r.A, base));
  AGX_CHECK(e.memory_index(r.O, index, D::kMemoryIndex));
  e.enumeration(r.Ou, 0);
  AGX_CHECK(e.atomic_source(r.S, atomic_value(f, in, in.srcs[2])));
  for (size_t u : r.u) e.imm(u, 0);
  s.out.push_back(e.done());
  return {};
}

Status local_atomic(const Function& f, const Instr& in, Selection& s) {
  static constexpr struct {
    size_t op;
    OperandFields R, A, O;
    size_t S, u[4];
  } r = {isa::field_id(O::threadgroup_atomic, "op"), operand_fields(O::threadgroup_atomic, "R", "Rt", "Ra"),
         operand_fields(O::threadgroup_atomic, "A", "At"), operand_fields(O::threadgroup_atomic, "O", "Ot"),
         isa::field_id(O::threadgroup_atomic, "S"),
         {isa::field_id(O::threadgroup_atomic, "u1"), isa::field_id(O::threadgroup_atomic, "u3"),
          isa::field_id(O::threadgroup_atomic, "u4"), isa::field_id(O::threadgroup_atomic, "u5")}};
  AGX_TRY(auto addr, local_address(f, in.srcs[0]));
  Emit e(O::threadgroup_atomic);
  e.enumeration(r.op, static_cast<uint32_t>(in.imm));
  AGX_CHECK(e.data(r.R, atomic_result(f, in), D::kThreadgroupMemoryReg));
  AGX_CHECK(e.local_base(r.A, addr.base));
  AGX_CHECK(e.memory_index(r.O, addr.index, D::kThreadgroupIndex));
  AGX_CHECK(e.atomic_source(r.S, atomic_value(f, in, in.srcs[1])));
  for (size_t u : r.u) e.imm(u, 0);
  s.out.push_back(e.done());
  return {};
}

}  // namespace

Status select_memory(const Function& f, const Instr& in, Selection& s) {
  switch (in.op) {
    case Op::device_load: case Op::device_store: return device(f, in, s);
    case Op::local_load: case Op::local_store: return local(f, in, s);
    case Op::atomic: return device_atomic(f, in, s);
    case Op::local_atomic: return local_atomic(f, in, s);
    case Op::stack_load: case Op::stack_store: return select_stack(f, in, s);
    case Op::uniform_store: return select_uniform_store(f, in, s);
    default: break;
  }
  return Error::invalid_argument("{} is not a memory op", op_info(in.op).name);
}

}  // namespace agx::compiler
