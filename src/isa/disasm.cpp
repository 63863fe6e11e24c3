// Disassembly text exactly as applegpu's disassemble.py prints it
// (AsmInstruction.__str__, the operand classes' __str__ and the
// descriptors' map_to_alias), written from those facts.
#include <fmt/format.h>

#include "isa/disasm.h"
#include "isa/operands.h"

namespace agx::isa {

using namespace detail;

namespace detail {

std::string reg16_name(unsigned i) { return fmt::format("r{}{}", i >> 1, (i & 1) ? 'h' : 'l'); }

std::string float_repr(double x) {
  // Python repr of the float: shortest round-trip digits, ".0" when integral.
  std::string s = fmt::format("{}", x);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

std::string_view special_register_name(unsigned n) {
  switch (n) {
#define AGX_ISA_SR(num, name) \
  case num: return name;
#include "isa/special_registers.inc"
#undef AGX_ISA_SR
  }
  return {};
}

}  // namespace detail

namespace {

std::string with_flags(std::string base, uint8_t flags) {
  if (flags & kFlagCache) base += ".cache";
  if (flags & kFlagDiscard) base += ".discard";
  if (flags & kFlagAbs) base += ".abs";
  if (flags & kFlagNeg) base += ".neg";
  if (flags & kFlagSx) base += ".sx";
  return base;
}

std::string register_text(const Operand& o) {
  std::string s;
  for (unsigned k = 0; k < o.count; ++k) {
    if (k) s += '_';
    unsigned i = o.index + k;
    switch (o.kind) {
      case OperandKind::kReg16: s += reg16_name(i); break;
      case OperandKind::kReg32: s += fmt::format("r{}", i); break;
      case OperandKind::kReg64: s += fmt::format("r{}_r{}", i, i + 1); break;
      case OperandKind::kUReg16: s += fmt::format("u{}{}", i >> 1, (i & 1) ? 'h' : 'l'); break;
      case OperandKind::kUReg32: s += fmt::format("u{}", i); break;
      default: s += fmt::format("u{}_u{}", i, i + 1); break;
    }
  }
  return with_flags(std::move(s), o.flags);
}

std::string enum_text_of(const Instr& in, const Operand& o) {
  const OperandRow& row = operands_of(in.op)[o.slot];
  bool found = false;
  std::string_view t = enum_text(row.enum_table, static_cast<int>(o.value), &found);
  return found ? std::string(t) : fmt::format("{}", o.value);
}

std::string branch_text(int64_t offset, std::optional<uint64_t> pc) {
  if (pc) {
    int64_t target = static_cast<int64_t>(*pc) + offset;
    return target < 0 ? fmt::format("0x-{:X}", -target) : fmt::format("0x{:X}", target);
  }
  return offset >= 0 ? fmt::format("pc+{}", offset) : fmt::format("pc-{}", -offset);
}

std::string text_at(const Instr& in, size_t i, std::optional<uint64_t> pc) {
  const Operand& o = in.operands[i];
  switch (o.kind) {
    case OperandKind::kNone: return "None";
    case OperandKind::kEmpty: return "";
    case OperandKind::kReg16:
    case OperandKind::kReg32:
    case OperandKind::kReg64:
    case OperandKind::kUReg16:
    case OperandKind::kUReg32:
    case OperandKind::kUReg64: return register_text(o);
    case OperandKind::kImm: return fmt::format("{}", o.value);
    case OperandKind::kFloatImm: return with_flags(float_repr(o.fvalue), o.flags);
    case OperandKind::kSpecialReg: {
      std::string_view name = special_register_name(o.index);
      return name.empty() ? fmt::format("sr{}", o.index) : fmt::format("sr{} ({})", o.index, name);
    }
    case OperandKind::kTextureState: return fmt::format("ts{}", o.index);
    case OperandKind::kSamplerState: return fmt::format("ss{}", o.index);
    case OperandKind::kCoefficient: return fmt::format("cf{}", o.index);
    case OperandKind::kTruthTable: {
      std::string s;
      for (int k = 0; k < 4; ++k) s += ((o.value >> k) & 1) ? '1' : '0';
      return s;
    }
    case OperandKind::kCondition:
    case OperandKind::kEnum: return enum_text_of(in, o);
    case OperandKind::kBinary: {
      std::string s = "0b";
      for (int k = o.width_bits - 1; k >= 0; --k) s += ((o.value >> k) & 1) ? '1' : '0';
      return s;
    }
    case OperandKind::kBranchOffset: return branch_text(o.value, pc);
    case OperandKind::kShift: return o.value ? fmt::format("lsl {}", o.value) : "";
    case OperandKind::kBitMask:
      return o.value ? fmt::format("mask 0x{:X}", (uint64_t{1} << o.value) - 1) : "";
    case OperandKind::kText:
      return fmt::format("r{}_{}", o.index, reg16_name(static_cast<unsigned>(o.value)));
  }
  return "";
}

}  // namespace

std::string mnemonic(const Instr& in) {
  const RowContext& row = row_context(in.op);
  std::string m(op_info(in.op).mnemonic);
  if (in.op == Opcode::iadd && in.fields[row.N]) m = "isub";
  if (in.op == Opcode::imadd && in.fields[row.N]) m = "imsub";
  if (row.saturatable && in.fields[row.S]) m += ".sat";
  return m;
}

std::string operand_text(const Instr& in, size_t i) {
  if (i >= in.operand_count) return "";
  return text_at(in, i, std::nullopt);
}

namespace detail {

Listing listing(const Instr& in, std::optional<uint64_t> pc) {
  Listing l;
  l.mnemonic = mnemonic(in);
  for (size_t i = 0; i < in.operand_count; ++i) l.operands.push_back(text_at(in, i, pc));
  apply_alias(in, l);
  return l;
}

std::string join(const Listing& l) {
  std::string s = l.mnemonic;
  if (s.size() < 16) s.resize(16, ' ');
  s += ' ';
  bool first = true;
  for (const auto& o : l.operands) {
    if (o.empty()) continue;
    if (!first) s += ", ";
    s += o;
    first = false;
  }
  return s;
}

}  // namespace detail

std::string disassemble(const Instr& in, std::optional<uint64_t> pc) {
  return join(listing(in, pc));
}

}  // namespace agx::isa
