// Operands -> fields, for the operand kinds the backend emits: the reverse
// of the isa unit's decoder (src/isa/operands.cpp, after dougallj/applegpu
// applegpu.py's *Desc classes), choosing the encoding applegpu's
// assembler would (register sources carry the plain "01" cache hint; an
// r16 texture index type 1; lod_min with a register mode 0b110).
#include <fmt/format.h>

#include "compiler/lower_immediates.h"
#include "compiler/machine.h"

namespace agx::compiler {

using isa::Operand;
using isa::OperandDesc;
using K = isa::OperandKind;

namespace {

Operand reg(K kind, unsigned index, unsigned count) {
  Operand o;
  o.kind = kind;
  o.index = static_cast<uint16_t>(index);
  o.count = static_cast<uint8_t>(count);
  return o;
}

std::string operand_name(const Operand& o) {
  switch (o.kind) {
    case K::kReg16: return fmt::format("r{}{}", o.index / 2, o.index % 2 ? 'h' : 'l');
    case K::kReg32: return fmt::format("r{}", o.index);
    case K::kReg64: return fmt::format("r{}_r{}", o.index, o.index + 1);
    case K::kUReg16: return fmt::format("u{}{}", o.index / 2, o.index % 2 ? 'h' : 'l');
    case K::kUReg32: return fmt::format("u{}", o.index);
    case K::kUReg64: return fmt::format("u{}_u{}", o.index, o.index + 1);
    case K::kImm: return fmt::format("immediate {}", o.value);
    case K::kFloatImm: return fmt::format("float immediate code 0x{:02x}", o.value);
    case K::kSpecialReg: return fmt::format("sr{}", o.index);
    case K::kNone: return "no operand";
    default: return "an operand";
  }
}

// Register source hint bits (applegpu: 01 plain, 10 .cache, 11 .discard).
uint32_t hint(const Operand& o) { return o.flags & isa::kFlagDiscard ? 3 : o.flags & isa::kFlagCache ? 2 : 1; }

}  // namespace

Operand reg16(unsigned half, unsigned count) { return reg(K::kReg16, half, count); }
Operand reg32(unsigned r, unsigned count) { return reg(K::kReg32, r, count); }
Operand reg64(unsigned r) { return reg(K::kReg64, r, 1); }
Operand uniform16(unsigned half) { return reg(K::kUReg16, half, 1); }
Operand uniform32(unsigned r) { return reg(K::kUReg32, r, 1); }
Operand uniform64(unsigned r) { return reg(K::kUReg64, r, 1); }
Operand imm_operand(int64_t value) {
  Operand o;
  o.kind = K::kImm;
  o.value = value;
  return o;
}

Emit::Emit(isa::Opcode op) {
  m_.instr.op = op;
  m_.instr.field_count = static_cast<uint8_t>(isa::field_names(op).size());
}

void Emit::field(size_t index, uint32_t value) {
  if (index < isa::kMaxFields) m_.instr.fields[index] = value;
}

void Emit::add(Operand o, OperandDesc desc) {
  o.desc = desc;
  o.slot = m_.instr.operand_count;
  if (m_.instr.operand_count < isa::kMaxOperands) m_.instr.operands[m_.instr.operand_count++] = o;
}

Status Emit::fail(const Operand& o, std::string_view expected) const {
  return Error::unsupported("{} operand {}: {} where {} is needed", isa::op_info(m_.instr.op).mnemonic,
                            m_.instr.operand_count, operand_name(o), expected);
}

void Emit::imm(size_t f, uint32_t value, OperandDesc desc) {
  field(f, value);
  add(imm_operand(value), desc);
}

void Emit::binary(size_t f, uint32_t value) {
  field(f, value);
  Operand o = imm_operand(value);
  o.kind = K::kBinary;
  add(o, OperandDesc::kBinary);
}

void Emit::enumeration(size_t f, uint32_t value) {
  field(f, value);
  Operand o = imm_operand(value);
  o.kind = K::kEnum;
  add(o, OperandDesc::kEnum);
}

void Emit::shift(size_t f, uint32_t amount, OperandDesc desc) {
  field(f, amount);
  Operand o = imm_operand(amount);
  o.kind = K::kShift;
  add(o, desc);
}

void Emit::mask(size_t f, uint32_t width) {
  field(f, width);
  Operand o = imm_operand(width);
  o.kind = K::kBitMask;
  add(o, OperandDesc::kMask);
}

void Emit::truth_table(const size_t (&tt)[4], unsigned table) {
  for (int k = 0; k < 4; ++k) field(tt[k], table >> k & 1);
  Operand o = imm_operand(table);
  o.kind = K::kTruthTable;
  add(o, OperandDesc::kTruthTable);
}

Status Emit::condition(size_t cc, size_t ccn, unsigned code, bool is_float) {
  const OperandDesc desc = is_float ? OperandDesc::kFCondition : OperandDesc::kICondition;
  Operand o = imm_operand(code);
  o.kind = K::kCondition;
  if (ccn == kNoField && code > 7) return fail(o, "a condition without the n (inverted) bit");
  field(cc, code & 7);
  field(ccn, code >> 3);
  add(o, desc);
  return {};
}

void Emit::implicit_r0l(size_t dt) {
  field(dt, 0);
  add(reg16(0), OperandDesc::kImplicitR0L);
}

void Emit::special(size_t f, unsigned sr) {
  field(f, sr);
  add(reg(K::kSpecialReg, sr, 1), OperandDesc::kSReg32);
}

void Emit::branch(size_t f, int64_t offset) {
  field(f, static_cast<uint32_t>(offset));
  Operand o = imm_operand(offset);
  o.kind = K::kBranchOffset;
  add(o, OperandDesc::kBranchOffset);
}

Status Emit::dst(OperandFields f, const Operand& o, OperandDesc desc) {
  const bool wide_ok = desc != OperandDesc::kFloatDst16, pair_ok = desc == OperandDesc::kAluDst64;
  if (o.kind == K::kReg16) field(f.v, o.index), field(f.t, 0);
  else if (o.kind == K::kReg32 && wide_ok) field(f.v, o.index * 2u), field(f.t, 2);
  else if (o.kind == K::kReg64 && pair_ok) field(f.v, o.index * 2u + 1), field(f.t, 2);
  else return fail(o, pair_ok ? "an r16, r32 or r64 register" : wide_ok ? "an r16 or r32 register" : "an r16 register");
  add(o, desc);
  return {};
}

// ALU sources: a 4-bit type (3 bits in the f16 rows): 0 an 8-bit
// immediate, 01xx a uniform (bit 1: 32-bit), 1h.. a register (bit 2:
// 64-bit) with hint h. Float rows take modifiers in x (m), integer rows
// the sign extension (s).
Status Emit::src(OperandFields f, const Operand& o, OperandDesc desc) {
  const bool is_float = desc == OperandDesc::kFloatSrc || desc == OperandDesc::kFloatSrc16;
  const bool allow64 = desc == OperandDesc::kAddSrc || desc == OperandDesc::kAluSrc64;
  const unsigned type_bits = isa::field_width(m_.instr.op, f.t);
  uint32_t v = 0, t = 0;
  switch (o.kind) {
    case K::kNone: t = type_bits == 4 ? 0b1000 : 0; break;
    case K::kImm:
      if (is_float || o.value < 0 || o.value > 255) return fail(o, is_float ? "a float immediate" : "an 8-bit immediate (0-255)");
      v = static_cast<uint32_t>(o.value);
      break;
    case K::kFloatImm:
      if (!is_float) return fail(o, "an integer source");
      v = static_cast<uint32_t>(o.value);
      break;
    case K::kUReg16: v = o.index & 0xFFu, t = 0b0100u | o.index >> 8; break;
    case K::kUReg32: v = (o.index << 1) & 0xFFu, t = 0b0110u | o.index >> 7; break;
    case K::kReg16: v = o.index, t = hint(o); break;
    case K::kReg32: v = o.index * 2u, t = 0b1000 | hint(o); break;
    case K::kReg64:
      if (!allow64) return fail(o, "a 16- or 32-bit source");
      v = o.index * 2u, t = 0b1100 | hint(o);
      break;
    default: return fail(o, "a register, uniform or immediate");
  }
  if (t >> type_bits) return fail(o, "a 16-bit register, a uniform or an immediate");
  field(f.v, v), field(f.t, t);
  if (is_float) field(f.x, (o.flags & isa::kFlagAbs ? 1u : 0u) | (o.flags & isa::kFlagNeg ? 2u : 0u));
  else if (o.kind != K::kImm && o.kind != K::kNone) field(f.x, o.flags & isa::kFlagSx ? 1 : 0);
  add(o, desc);
  return {};
}

// Select sources: 3-bit type 100 immediate, 0hh register, 110 uniform.
Status Emit::cmpsel_src(OperandFields f, const Operand& o) {
  switch (o.kind) {
    case K::kImm:
      if (o.value < 0 || o.value > 255) return fail(o, "an 8-bit immediate (0-255)");
      field(f.v, static_cast<uint32_t>(o.value)), field(f.t, 0b100);
      break;
    case K::kReg16: field(f.v, o.index), field(f.t, hint(o)); break;
    case K::kReg32: field(f.v, o.index * 2u), field(f.t, hint(o)); break;
    case K::kUReg16: field(f.v, o.index), field(f.t, 0b110); break;
    case K::kUReg32: field(f.v, o.index * 2u), field(f.t, 0b110); break;
    default: return fail(o, "a register, uniform or 8-bit immediate");
  }
  add(o, OperandDesc::kCmpselSrc);
  return {};
}

}  // namespace agx::compiler

namespace agx::compiler {

unsigned half_of(const Function& f, const Src& s) {
  const Value& v = f.values[s.value];
  return static_cast<unsigned>(v.reg) + s.comp * (v.bits / 16u);
}

isa::Operand dest_of(const Function& f, ValueId d) {
  const Value& v = f.values[d];
  const unsigned half = static_cast<unsigned>(v.reg);
  if ((v.pair && v.comps == 2 && v.bits == 32) || v.bits == 64) return reg64(half / 2);
  return v.bits == 16 ? reg16(half) : reg32(half / 2);
}

Result<isa::Operand> operand_of(const Function& f, const Src& s, bool is_float) {
  isa::Operand o;
  switch (s.kind) {
    case Src::Kind::value: {
      const unsigned half = half_of(f, s);
      o = s.bits == 16 ? reg16(half) : s.bits == 64 ? reg64(half / 2) : reg32(half / 2);
      break;
    }
    case Src::Kind::uniform: {
      const auto u = static_cast<unsigned>(s.imm);
      o = s.bits == 64 ? uniform64(u) : s.bits == 16 ? uniform16(2 * u) : uniform32(u);
      break;
    }
    case Src::Kind::imm: {
      if (!is_float) return imm_operand(static_cast<int32_t>(static_cast<uint32_t>(s.imm)));
      uint32_t bits = static_cast<uint32_t>(s.imm);
      if (s.abs) bits &= 0x7FFFFFFFu;
      if (s.neg) bits ^= 0x80000000u;
      auto code = float_immediate_code(bits);
      if (!code) return Error::unsupported("float immediate 0x{:08x} has no 8-bit code", bits);
      o.kind = isa::OperandKind::kFloatImm;
      o.value = *code;
      return o;
    }
    case Src::Kind::sr: o.kind = isa::OperandKind::kSpecialReg, o.index = static_cast<uint16_t>(s.imm); return o;
    case Src::Kind::none: return o;
  }
  if (is_float) o.flags = static_cast<uint8_t>((s.abs ? isa::kFlagAbs : 0) | (s.neg ? isa::kFlagNeg : 0));
  return o;
}

}  // namespace agx::compiler

namespace agx::compiler {
// Only ever reached in constant evaluation (required_field), where it
// stops the compilation; row tables are constexpr.
void no_such_field() {}
}  // namespace agx::compiler
