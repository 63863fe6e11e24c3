// Instruction selection, ALU family: moves, integer and float arithmetic,
// selects, ballots, shuffles and conversions. Field layouts come from the
// isa table at compile time (isa::field_id); the choices (shifts through
// bfi/bfeil, moves as bitop 0101, float negation as fadd -0.0) are Mesa's
// (bminor/mesa-mesa src/asahi/compiler/agx_lower_* and agx_pack.c).
#include "compiler/machine.h"
#include "compiler/select_rows.h"

namespace agx::compiler {

namespace {

using O = isa::Opcode;
using D = isa::OperandDesc;

// applegpu's convert `mode` enum values for Conv (u32_to_f, s32_to_f,
// f_to_u32, f_to_s32) and its `round` values (rtz 0, rte 1):
// dougallj/applegpu applegpu.py ConvertInstructionDesc.
constexpr uint32_t kConvertModes[] = {10, 11, 8, 9};
constexpr uint32_t kRoundRtz = 0, kRoundRte = 1;


Status bitop(Selection& s, unsigned table, const isa::Operand& d, const isa::Operand& a, const isa::Operand& b) {
  constexpr auto r = kBitop;
  Emit e(O::bitop);
  e.truth_table(r.tt, table);
  AGX_CHECK(e.dst(r.d, d, D::kAluDst));
  AGX_CHECK(e.src(r.a, a, D::kAluSrc));
  AGX_CHECK(e.src(r.b, b, D::kAluSrc));
  s.out.push_back(e.done());
  return {};
}

// One component of a mov/collect: an immediate too wide for 8 bits (or a
// float one with modifiers) through mov_imm, a float modifier through
// fadd32 x, -0.0, anything else through bitop's mov.
Status move(const Function& f, const Src& src, const isa::Operand& d, unsigned bits, Selection& s) {
  if (src.is_imm() && (src.imm > 255 || src.neg || src.abs)) {
    uint32_t v = static_cast<uint32_t>(src.imm);
    if (src.abs) v &= 0x7FFFFFFFu;
    if (src.neg) v ^= 0x80000000u;
    if (bits == 16) {
      Emit e(O::mov_imm16);
      AGX_CHECK(e.dst(kMovImm16.d, d, D::kAluDst));
      e.imm(kMovImm16.imm, v & 0xFFFF);
      s.out.push_back(e.done());
    } else {
      Emit e(O::mov_imm32);
      AGX_CHECK(e.dst(kMovImm32.d, d, D::kAluDst));
      e.imm(kMovImm32.imm, v);
      e.binary(kMovImm32.kill, 0);
      s.out.push_back(e.done());
    }
    return {};
  }
  if (src.neg || src.abs) {
    AGX_TRY(auto a, operand_of(f, src, true));
    AGX_TRY(auto minus_zero, operand_of(f, Src::float_immediate(-0.0f), true));
    Emit e(O::fadd32);
    AGX_CHECK(e.dst(kFadd32.d, d, D::kFloatDst));
    AGX_CHECK(e.src(kFadd32.srcs[0], a, D::kFloatSrc));
    AGX_CHECK(e.src(kFadd32.srcs[1], minus_zero, D::kFloatSrc));
    s.out.push_back(e.done());
    return {};
  }
  AGX_TRY(auto a, operand_of(f, src, false));
  return bitop(s, tt("0101"), d, a, imm_operand(0));
}

// A plain read of the register the move would write: no instruction (the
// allocator puts copies in their sources' registers where it can).
bool in_place(const Function& f, const Src& src, unsigned half, unsigned bits) {
  return src.is_value() && !src.neg && !src.abs && src.bits == bits && f.values[src.value].bits == bits &&
         f.values[src.value].reg >= 0 && half_of(f, src) == half;
}

Status moves(const Function& f, const Instr& in, Selection& s) {
  const Value& dv = f.values[in.dest];
  if (dv.bits == 64) return Error::unsupported("64-bit moves are not supported");
  for (size_t i = 0; i < in.srcs.size(); ++i) {
    const unsigned half = static_cast<unsigned>(dv.reg) + static_cast<unsigned>(i) * (dv.bits / 16u);
    if (in_place(f, in.srcs[i], half, dv.bits)) continue;
    AGX_CHECK(move(f, in.srcs[i], dv.bits == 16 ? reg16(half) : reg32(half / 2), dv.bits, s));
  }
  return {};
}

Status reg_write(const Function& f, const Instr& in, Selection& s) {
  const unsigned half = static_cast<unsigned>(in.imm);
  if (in_place(f, in.srcs[0], half, 32)) return {};
  return move(f, in.srcs[0], reg32(half / 2), 32, s);
}

// D = A op B (op C) over one row layout.
Status emit_row(const AluRow& r, const isa::Operand& d, std::span<const isa::Operand> srcs, Selection& s,
                bool negate = false) {
  Emit e(r.op);
  if (negate) e.field(r.n, 1);
  AGX_CHECK(e.dst(r.d, d, r.dst_desc));
  for (size_t i = 0; i < srcs.size(); ++i) AGX_CHECK(e.src(r.srcs[i], srcs[i], r.src_desc[i]));
  if (r.shift != kNoField) e.shift(r.shift, 0);
  if (r.mask != kNoField) e.mask(r.mask, 0);
  s.out.push_back(e.done());
  return {};
}

Result<std::vector<isa::Operand>> sources(const Function& f, const Instr& in, bool is_float) {
  std::vector<isa::Operand> v;
  for (const Src& src : in.srcs) {
    AGX_TRY(auto o, operand_of(f, src, is_float));
    v.push_back(o);
  }
  return v;
}

Status integer(const Function& f, const Instr& in, Selection& s) {
  AGX_TRY(auto a, sources(f, in, false));
  const isa::Operand d = dest_of(f, in.dest), zero = imm_operand(0);
  switch (in.op) {
    case Op::iadd: case Op::isub: return emit_row(kIadd, d, a, s, in.op == Op::isub);
    case Op::imul: return emit_row(kImadd, d, {{a[0], a[1], zero}}, s);
    // the 64-bit product into the destination's register pair
    case Op::umul_wide: return emit_row(kImadd, reg64(static_cast<unsigned>(f.values[in.dest].reg) / 2), {{a[0], a[1], zero}}, s);
    case Op::imad: return emit_row(kImadd, d, a, s);
    // Shifts through the bitfield instructions: bfi D, 0, x, s is x << s;
    // bfeil D, 0, x, s is x >> s (mask 0 = all 32 bits).
    case Op::ishl: return emit_row(kBfi, d, {{zero, a[0], a[1]}}, s);
    case Op::ushr: return emit_row(kBfeil, d, {{zero, a[0], a[1]}}, s);
    case Op::ishr: return emit_row(kAsr, d, a, s);
    case Op::iand: return bitop(s, tt("0001"), d, a[0], a[1]);
    case Op::ior: return bitop(s, tt("0111"), d, a[0], a[1]);
    case Op::ixor: return bitop(s, tt("0110"), d, a[0], a[1]);
    case Op::inot: return bitop(s, tt("1010"), d, a[0], zero);
    case Op::popcount: return emit_row(kPopcount, d, a, s);
    case Op::ffs: return emit_row(kFfs, d, a, s);
    case Op::bitrev: return emit_row(kBitrev, d, a, s);
    default: break;
  }
  return Error::invalid_argument("{} is not an integer op", op_info(in.op).name);
}

// A float op whose destination and register/uniform sources are all
// 16-bit: the native 16-bit form (fadd16, fmul16, fmadd16), one rounding
// to f16. Otherwise the 32-bit form (16-bit sources widen exactly; a
// 16-bit destination rounds to f32, then to f16).
bool all_16bit(const Function& f, const Instr& in) {
  bool all16 = in.dest != kNoValue && f.values[in.dest].bits == 16;
  for (const Src& s : in.srcs)
    all16 = all16 && (s.is_imm() || ((s.is_value() || s.kind == Src::Kind::uniform) && s.bits == 16));
  return all16;
}

Status floating(const Function& f, const Instr& in, Selection& s) {
  AGX_TRY(auto a, sources(f, in, true));
  const isa::Operand d = dest_of(f, in.dest);
  const bool h = all_16bit(f, in);
  switch (in.op) {
    case Op::fadd: return emit_row(h ? kFadd16 : kFadd32, d, a, s);
    case Op::fmul: return emit_row(h ? kFmul16 : kFmul32, d, a, s);
    case Op::fmadd: return emit_row(h ? kFmadd16 : kFmadd32, d, a, s);
    default: break;
  }
  const AluRow* row = float_unary_row(in.op);
  if (!row) return Error::invalid_argument("{} is not a float op", op_info(in.op).name);
  return emit_row(*row, d, a, s);
}

Status cmpsel(const Function& f, const Instr& in, Selection& s) {
  const bool is_float = in.op == Op::fcmpsel;
  AGX_TRY(auto a, operand_of(f, in.srcs[0], is_float));
  AGX_TRY(auto b, operand_of(f, in.srcs[1], is_float));
  AGX_TRY(auto x, operand_of(f, in.srcs[2], false));
  AGX_TRY(auto y, operand_of(f, in.srcs[3], false));
  const CmpselRow& r = is_float ? kFcmpsel : kIcmpsel;
  AGX_TRY(unsigned code, condition_code(in.cond, in.invert));
  Emit e(r.op);
  AGX_CHECK(e.condition(r.cc, kNoField, code, is_float));
  AGX_CHECK(e.dst(r.d, dest_of(f, in.dest), D::kAluDst));
  AGX_CHECK(e.src(r.a, a, is_float ? D::kFloatSrc : D::kAluSrc));
  AGX_CHECK(e.src(r.b, b, is_float ? D::kFloatSrc : D::kAluSrc));
  AGX_CHECK(e.cmpsel_src(r.x, x));
  AGX_CHECK(e.cmpsel_src(r.y, y));
  s.out.push_back(e.done());
  return {};
}

Status lanes(const Function& f, const Instr& in, Selection& s) {
  AGX_TRY(auto a, operand_of(f, in.srcs[0], false));
  if (in.op == Op::ballot) {
    // Integer comparisons only (the translator materializes float ones).
    if (cond_is_float(in.cond)) return Error::unsupported("a float ballot condition");
    AGX_TRY(auto b, operand_of(f, in.srcs[1], false));
    AGX_TRY(unsigned code, condition_code(in.cond, in.invert));
    constexpr auto r = kIcmpBallot;
    Emit e(O::icmp_ballot);
    AGX_CHECK(e.dst(r.d, dest_of(f, in.dest), D::kAluDst));
    AGX_CHECK(e.condition(r.cc, r.ccn, code, false));
    AGX_CHECK(e.src(r.a, a, D::kAluSrc));
    AGX_CHECK(e.src(r.b, b, D::kAluSrc));
    s.out.push_back(e.done());
    return {};
  }
  Src idx = in.srcs[1];
  if (idx.is_value()) idx.bits = 16;
  AGX_TRY(auto b, operand_of(f, idx, false));
  // Instr::imm: the variant (translate_subgroup.cpp).
  const AluRow* row = shuffle_row(in.imm);
  if (!row) return Error::unsupported("simd_shuffle variant {}", in.imm);
  return emit_row(*row, dest_of(f, in.dest), {{a, b}}, s);
}

Status convert(const Function& f, const Instr& in, Selection& s) {
  if (in.imm > 3) return Error::invalid_argument("bad convert mode");
  AGX_TRY(auto a, operand_of(f, in.srcs[0], false));
  constexpr auto r = kConvert;
  Emit e(O::convert);
  e.enumeration(r.mode, kConvertModes[in.imm]);
  AGX_CHECK(e.dst(r.d, dest_of(f, in.dest), D::kAluDst));
  AGX_CHECK(e.src(r.src, a, D::kAluSrc));
  // int -> float rounds to nearest even; float -> int truncates (GLSL).
  e.enumeration(r.round, in.imm < 2 ? kRoundRte : kRoundRtz);
  s.out.push_back(e.done());
  return {};
}

}  // namespace

Status select_alu(const Function& f, const Instr& in, Selection& s) {
  switch (in.op) {
    case Op::mov: case Op::collect: return moves(f, in, s);
    case Op::reg_write: return reg_write(f, in, s);
    case Op::reg_read: return bitop(s, tt("0101"), dest_of(f, in.dest), reg32(static_cast<unsigned>(in.imm) / 2), imm_operand(0));
    case Op::get_sr: {
      Emit e(O::get_sr);
      AGX_CHECK(e.dst(kGetSr.d, dest_of(f, in.dest), D::kAluDst));
      e.special(kGetSr.sr, static_cast<unsigned>(in.imm));
      s.out.push_back(e.done());
      return {};
    }
    case Op::fadd: case Op::fmul: case Op::fmadd: return floating(f, in, s);
    case Op::icmpsel: case Op::fcmpsel: return cmpsel(f, in, s);
    case Op::ballot: case Op::simd_shuffle: return lanes(f, in, s);
    case Op::convert: return convert(f, in, s);
    default: break;
  }
  if (op_info(in.op).flags & kOpFloat) return floating(f, in, s);
  return integer(f, in, s);
}

}  // namespace agx::compiler
