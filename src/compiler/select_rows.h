// The isa rows instruction selection emits, as field indices resolved at
// compile time from the isa table (isa::field_id: a field a row lacks does
// not compile), with the operand kinds of each row (applegpu's operand
// descriptors, src/isa/table.inc). Private to the compiler's backend.
#pragma once

#include <array>

#include "compiler/machine.h"

namespace agx::compiler {

// D = op(A[, B[, C]]): the arithmetic rows. `n` is iadd/imadd's negate
// bit, `shift` their shift, `mask` bfi/bfeil's width.
struct AluRow {
  isa::Opcode op;
  OperandFields d;
  isa::OperandDesc dst_desc;
  std::array<OperandFields, 3> srcs{};
  std::array<isa::OperandDesc, 3> src_desc{};
  size_t n = kNoField, shift = kNoField, mask = kNoField;
};

// Float rows: sources with modifiers (m); the f16 rows take r16 operands.
constexpr AluRow float_row(isa::Opcode op, int sources, bool half) {
  using D = isa::OperandDesc;
  AluRow r{op, operand_fields(op, "D", "Dt"), half ? D::kFloatDst16 : D::kFloatDst};
  const D s = half ? D::kFloatSrc16 : D::kFloatSrc;
  r.srcs[0] = operand_fields(op, "A", "At", "Am"), r.src_desc[0] = s;
  if (sources > 1) r.srcs[1] = operand_fields(op, "B", "Bt", "Bm"), r.src_desc[1] = s;
  if (sources > 2) r.srcs[2] = operand_fields(op, "C", "Ct", "Cm"), r.src_desc[2] = s;
  return r;
}

// Integer rows with plain ALU sources (no sign-extension fields).
constexpr AluRow int_row(isa::Opcode op, int sources, isa::OperandDesc second = isa::OperandDesc::kAluSrc) {
  using D = isa::OperandDesc;
  AluRow r{op, operand_fields(op, "D", "Dt"), D::kAluDst};
  r.srcs[0] = operand_fields(op, "A", "At"), r.src_desc[0] = D::kAluSrc;
  if (sources > 1) r.srcs[1] = operand_fields(op, "B", "Bt"), r.src_desc[1] = second;
  if (sources > 2) r.srcs[2] = operand_fields(op, "C", "Ct"), r.src_desc[2] = D::kAluSrc;
  return r;
}

constexpr AluRow bitfield_row(isa::Opcode op) {
  AluRow r = int_row(op, 3);
  r.mask = required_field(op, "m");
  return r;
}

// iadd (D = A + B) and imadd (D = A * B + C): 64-bit capable, sources
// with sign extension (s), the negate bit N, a shift.
constexpr AluRow add_row(isa::Opcode op, bool multiply) {
  using D = isa::OperandDesc;
  AluRow r{op, operand_fields(op, "D", "Dt"), D::kAluDst64};
  r.srcs[0] = operand_fields(op, "A", "At", "As"), r.src_desc[0] = multiply ? D::kMulSrc : D::kAddSrc;
  r.srcs[1] = operand_fields(op, "B", "Bt", "Bs"), r.src_desc[1] = multiply ? D::kMulSrc : D::kAddSrc;
  if (multiply) r.srcs[2] = operand_fields(op, "C", "Ct", "Cs"), r.src_desc[2] = D::kAddSrc;
  r.n = required_field(op, "N");
  r.shift = required_field(op, "s");
  return r;
}

inline constexpr AluRow kIadd = add_row(isa::Opcode::iadd, false);
inline constexpr AluRow kImadd = add_row(isa::Opcode::imadd, true);
inline constexpr AluRow kBfi = bitfield_row(isa::Opcode::bfi);
inline constexpr AluRow kBfeil = bitfield_row(isa::Opcode::bfeil);
inline constexpr AluRow kAsr = int_row(isa::Opcode::asr, 2);
inline constexpr AluRow kPopcount = int_row(isa::Opcode::popcount, 1);
inline constexpr AluRow kFfs = int_row(isa::Opcode::ffs, 1);
inline constexpr AluRow kBitrev = int_row(isa::Opcode::bitrev, 1);
inline constexpr AluRow kFadd32 = float_row(isa::Opcode::fadd32, 2, false);
inline constexpr AluRow kFadd16 = float_row(isa::Opcode::fadd16, 2, true);
inline constexpr AluRow kFmul32 = float_row(isa::Opcode::fmul32, 2, false);
inline constexpr AluRow kFmul16 = float_row(isa::Opcode::fmul16, 2, true);
inline constexpr AluRow kFmadd32 = float_row(isa::Opcode::fmadd32, 3, false);
inline constexpr AluRow kFmadd16 = float_row(isa::Opcode::fmadd16, 3, true);

// The one-source float rows, by IR op (floor ... sin_pt_2); nullptr for
// any other op.
const AluRow* float_unary_row(Op op);
// simd_shuffle's variants (Instr::imm 0 index, 1 down, 2 up, 3 xor); the
// index is a 16-bit source. nullptr past them.
const AluRow* shuffle_row(uint64_t variant);

struct BitopRow {
  size_t tt[4];
  OperandFields d, a, b;
};
inline constexpr BitopRow kBitop = {
    {isa::field_id(isa::Opcode::bitop, "tt0"), isa::field_id(isa::Opcode::bitop, "tt1"),
     isa::field_id(isa::Opcode::bitop, "tt2"), isa::field_id(isa::Opcode::bitop, "tt3")},
    operand_fields(isa::Opcode::bitop, "D", "Dt"),
    operand_fields(isa::Opcode::bitop, "A", "At"),
    operand_fields(isa::Opcode::bitop, "B", "Bt")};

// bitop truth tables (applegpu's aliases: and 0001, or 0111, xor 0110,
// not 1010, mov 0101; digit k is tt_k).
constexpr unsigned tt(const char (&digits)[5]) {
  unsigned t = 0;
  for (int k = 0; k < 4; ++k) t |= unsigned(digits[k] - '0') << k;
  return t;
}

struct MovImmRow {
  OperandFields d;
  size_t imm, kill = kNoField;
};
inline constexpr MovImmRow kMovImm16 = {operand_fields(isa::Opcode::mov_imm16, "D", "Dt"),
                                        isa::field_id(isa::Opcode::mov_imm16, "imm16")};
inline constexpr MovImmRow kMovImm32 = {operand_fields(isa::Opcode::mov_imm32, "D", "Dt"),
                                        isa::field_id(isa::Opcode::mov_imm32, "imm32"),
                                        isa::field_id(isa::Opcode::mov_imm32, "kill")};

struct GetSrRow {
  OperandFields d;
  size_t sr;
};
inline constexpr GetSrRow kGetSr = {operand_fields(isa::Opcode::get_sr, "D", "Dt"),
                                    isa::field_id(isa::Opcode::get_sr, "SR")};

// texture_load / texture_sample (dougallj/applegpu applegpu.py
// TextureLoadSampleBaseInstructionDesc).
struct TextureRow {
  size_t compare, mode, q3, slot, q6, mask, kill;
  OperandFields R;
  size_t U;
  OperandFields T, S;
  size_t n;
  OperandFields C;
  size_t lod, D;
  OperandFields O;
};
constexpr TextureRow texture_row(isa::Opcode op) {
  return {required_field(op, "compare"), required_field(op, "mode"), required_field(op, "q3"),
          required_field(op, "slot"), required_field(op, "q6"), required_field(op, "mask"),
          required_field(op, "kill"), operand_fields(op, "R", "Rt"), required_field(op, "U"),
          operand_fields(op, "T", "Tt"), operand_fields(op, "S", "St"), required_field(op, "n"),
          operand_fields(op, "C", "Ct", "Cs"), required_field(op, "lod"), required_field(op, "D"),
          operand_fields(op, "O", "Ot")};
}
inline constexpr TextureRow kTextureLoad = texture_row(isa::Opcode::texture_load);
inline constexpr TextureRow kTextureSample = texture_row(isa::Opcode::texture_sample);

// icmpsel / fcmpsel: cond(A, B) ? X : Y (no inverted conditions).
struct CmpselRow {
  isa::Opcode op;
  size_t cc;
  OperandFields d, a, b, x, y;
};
constexpr CmpselRow cmpsel_row(isa::Opcode op, bool is_float) {
  return {op, required_field(op, "cc"), operand_fields(op, "D", "Dt"),
          operand_fields(op, "A", "At", is_float ? "Am" : ""), operand_fields(op, "B", "Bt", is_float ? "Bm" : ""),
          operand_fields(op, "X", "Xt"), operand_fields(op, "Y", "Yt")};
}
inline constexpr CmpselRow kIcmpsel = cmpsel_row(isa::Opcode::icmpsel, false);
inline constexpr CmpselRow kFcmpsel = cmpsel_row(isa::Opcode::fcmpsel, true);

struct BallotRow {
  OperandFields d;
  size_t cc, ccn;
  OperandFields a, b;
};
inline constexpr BallotRow kIcmpBallot = {
    operand_fields(isa::Opcode::icmp_ballot, "D", "Dt"), isa::field_id(isa::Opcode::icmp_ballot, "cc"),
    isa::field_id(isa::Opcode::icmp_ballot, "ccn"), operand_fields(isa::Opcode::icmp_ballot, "A", "At"),
    operand_fields(isa::Opcode::icmp_ballot, "B", "Bt")};

struct ConvertRow {
  size_t mode;
  OperandFields d, src;
  size_t round;
};
inline constexpr ConvertRow kConvert = {
    isa::field_id(isa::Opcode::convert, "mode"), operand_fields(isa::Opcode::convert, "D", "Dt"),
    operand_fields(isa::Opcode::convert, "src", "srct"), isa::field_id(isa::Opcode::convert, "round")};

// Exec-mask rows (if/else/while _icmp/_fcmp): r0l, cond(A, B), n levels.
struct ExecRow {
  isa::Opcode op;
  size_t dt, cc, ccn;
  OperandFields a, b;
  size_t n;
};
constexpr ExecRow exec_row(isa::Opcode op, bool is_float) {
  return {op, required_field(op, "Dt"), required_field(op, "cc"), required_field(op, "ccn"),
          operand_fields(op, "A", "At", is_float ? "Am" : ""), operand_fields(op, "B", "Bt", is_float ? "Bm" : ""),
          required_field(op, "n")};
}
inline constexpr ExecRow kIfIcmp = exec_row(isa::Opcode::if_icmp, false);
inline constexpr ExecRow kIfFcmp = exec_row(isa::Opcode::if_fcmp, true);
inline constexpr ExecRow kWhileIcmp = exec_row(isa::Opcode::while_icmp, false);
inline constexpr ExecRow kWhileFcmp = exec_row(isa::Opcode::while_fcmp, true);
inline constexpr ExecRow kElseIcmp = exec_row(isa::Opcode::else_icmp, false);

// applegpu's condition code (ICondition / FCondition: cc | n << 3) of a
// Cond, inverted or not.
Result<unsigned> condition_code(Cond c, bool invert);

}  // namespace agx::compiler
