// Fields -> Operand, one rule per applegpu operand kind (applegpu.py
// *Desc.decode at commit 4c5bae61, restated in our terms in isa.h).
#include <bit>
#include <cmath>

#include "isa/operands.h"
#include "util/bits.h"

namespace agx::isa::detail {

namespace {

using K = OperandKind;

struct Ctx {
  const Instr& in;
  const RowContext& row;
  const OperandRow& def;
  const OperandFields& f;
  uint32_t get(int8_t i) const { return i < 0 ? 0 : in.fields[static_cast<size_t>(i)]; }
  uint32_t v() const { return get(f.main); }
  uint32_t t() const { return get(f.t); }
  unsigned width() const { return f.main < 0 ? 0 : fields_of(in.op)[f.main].width(); }
};

Operand reg(K kind, unsigned index, unsigned count = 1) {
  Operand o;
  o.kind = kind;
  o.index = static_cast<uint16_t>(index);
  o.count = static_cast<uint8_t>(count);
  o.width_bits = kind == K::kReg16 || kind == K::kUReg16 ? 16
                 : kind == K::kReg64 || kind == K::kUReg64 ? 64 : 32;
  return o;
}

Operand imm(int64_t value, unsigned width = 0) {
  Operand o;
  o.kind = K::kImm;
  o.value = value;
  o.width_bits = static_cast<uint8_t>(width);
  return o;
}

Operand none() { return Operand{}; }

Error bad(const Ctx& c, std::string_view what) {
  return Error::decode("{} operand {}: {}", op_info(c.in.op).mnemonic, c.def.name, what);
}

// Hint bits of a register source: 01 plain, 10 .cache, 11 .discard.
uint8_t hint_flags(uint32_t bits) {
  return bits == 2 ? kFlagCache : bits == 3 ? kFlagDiscard : 0;
}

// ALU destinations: t bit 1 selects 32-bit (V>>1) or a 64-bit pair when V is
// odd and allowed; t bit 0 is the cache hint.
Operand alu_dst(const Ctx& c, bool allow32, bool allow64, bool paired) {
  uint32_t t = c.t(), v = c.v();
  Operand o;
  if ((t & 2) && allow32) {
    if ((v & 1) && allow64)
      o = reg(K::kReg64, v >> 1);
    else
      o = reg(K::kReg32, v >> 1, paired ? 2 : 1);
  } else {
    o = reg(K::kReg16, v, paired ? 2 : 1);
  }
  if (t & 1) o.flags |= kFlagCache;
  return o;
}

// ALU sources (4-bit type, or 3-bit for f16 sources).
Result<Operand> alu_src(const Ctx& c, bool allow32, bool allow64, bool paired, bool is_float) {
  uint32_t t = c.t(), v = c.v();
  if (t == 0) {
    if (!is_float) return imm(v, 8);
    Operand o;
    o.kind = K::kFloatImm;
    o.value = v;
    o.width_bits = 8;
    o.fvalue = float_immediate(static_cast<uint8_t>(v));
    return o;
  }
  if ((t & 0b1100) == 0b0100) {
    uint32_t u = v | (t & 1) << 8;
    return (t & 2) ? reg(K::kUReg32, u >> 1) : reg(K::kUReg16, u);
  }
  if ((t & 0b11) == 0) return none();  // undefined type: applegpu prints None
  Operand o;
  if (allow64 && (t & 0b1100) == 0b1100) {
    if (v & 1) return bad(c, "a 64-bit register needs an even index");
    o = reg(K::kReg64, v >> 1);
  } else if (allow32 && (t & 0b1000)) {
    o = reg(K::kReg32, v >> 1, paired ? 2 : 1);
  } else {
    o = reg(K::kReg16, v, paired ? 2 : 1);
  }
  o.flags |= hint_flags(t & 3);
  return o;
}

Result<Operand> float_src(const Ctx& c, bool allow32, bool paired) {
  AGX_TRY(Operand o, alu_src(c, allow32, false, paired, true));
  uint32_t m = c.get(c.f.m);
  if (o.kind == K::kNone && m != 0) return bad(c, "modifier on an undefined source type");
  if (m & 1) o.flags |= kFlagAbs;
  if (m & 2) o.flags |= kFlagNeg;
  return o;
}

Result<Operand> int_src(const Ctx& c, bool allow64) {
  AGX_TRY(Operand o, alu_src(c, true, allow64, false, false));
  bool is_reg = o.kind == K::kReg16 || o.kind == K::kReg32 || o.kind == K::kReg64 ||
                o.kind == K::kUReg16 || o.kind == K::kUReg32;
  if (is_reg && (c.get(c.f.s) & 1)) o.flags |= kFlagSx;
  return o;
}

Result<Operand> cmpsel_src(const Ctx& c) {
  uint32_t t = c.t(), v = c.v();
  bool is32 = (c.get(c.row.Dt) & 2) != 0;
  if (t == 0b100) return imm(v, 8);
  if (t == 0b001 || t == 0b010 || t == 0b011 || t == 0b110 || t == 0b111) {
    if (is32 && (v & 1)) return bad(c, "a 32-bit select source needs an even index");
    bool uniform = t >= 0b110;
    Operand o = is32 ? reg(uniform ? K::kUReg32 : K::kReg32, v >> 1)
                     : reg(uniform ? K::kUReg16 : K::kReg16, v);
    if (!uniform) o.flags |= hint_flags(t & 3);
    return o;
  }
  return none();
}

Operand enum_operand(const Ctx& c, uint32_t value) {
  Operand o;
  o.kind = K::kEnum;
  o.value = value;
  o.width_bits = static_cast<uint8_t>(c.width());
  return o;
}

// A tuple of `count` registers from a value field and a 16/32-bit type bit.
Operand tuple(bool is32, uint32_t v, unsigned count) {
  if (count == 0) return Operand{K::kEmpty};
  return is32 ? reg(K::kReg32, v >> 1, count) : reg(K::kReg16, v, count);
}

Result<Operand> coords(const Ctx& c) {
  auto size = tex_size(c.get(c.row.n));
  if (!size) return bad(c, fmt::format("unknown texture dimension {}", c.get(c.row.n)));
  uint32_t v = c.v();
  Operand o;
  if (c.get(c.f.s))
    o = reg(K::kReg16, v, size->count + size->extra);
  else if (size->extra)
    o = reg(K::kReg16, v, size->count * 2 + 1);
  else
    o = reg(K::kReg32, v >> 1, size->count);
  if (c.t()) o.flags |= kFlagDiscard;
  return o;
}

Result<Operand> lod(const Ctx& c) {
  uint32_t mode = c.get(c.row.lod), v = c.v();
  if (mode == 0) return imm(0);
  if (mode == 0b100 || mode == 0b1100) {
    auto size = tex_size(c.get(c.row.n));
    if (!size) return bad(c, fmt::format("unknown texture dimension {}", c.get(c.row.n)));
    return reg(K::kReg32, v >> 1, size->count * 2 + (mode == 0b1100 ? 1 : 0));
  }
  if (mode == 0b010 || mode == 0b001) return reg(K::kUReg16, v);
  if (mode == 0b110 || mode == 0b101) return reg(K::kReg16, v);
  return bad(c, fmt::format("unknown lod mode {}", mode));
}

// Compare value (r32) and/or offset (r16) follow each other from O.
Operand sample_compare_off(const Ctx& c) {
  uint32_t v = c.v();
  bool compare = c.get(c.row.compare) != 0, offset = c.t() != 0;
  if (compare && offset) {
    Operand o = reg(K::kReg32, v >> 1);
    o.kind = K::kText;
    o.value = v + 2;
    return o;
  }
  if (compare) return reg(K::kReg32, v >> 1);
  if (offset) return reg(K::kReg16, v);
  return Operand{K::kEmpty};
}

Result<Operand> special(const Ctx& c, OperandKind kind, unsigned index) {
  Operand o = reg(kind, index);
  o.width_bits = 32;
  return o;
}

Result<Operand> decode_one(const Ctx& c) {
  uint32_t v = c.v(), t = c.t();
  switch (c.def.kind) {
    case OperandDesc::kImmediate: return imm(v, c.width());
    case OperandDesc::kBinary: {
      Operand o = imm(v, c.width());
      o.kind = K::kBinary;
      return o;
    }
    case OperandDesc::kEnum: return enum_operand(c, v);
    case OperandDesc::kICondition:
    case OperandDesc::kFCondition: {
      Operand o = enum_operand(c, c.get(c.row.cc) | c.get(c.row.ccn) << 3);
      o.kind = K::kCondition;
      return o;
    }
    case OperandDesc::kTruthTable: {
      Operand o;
      o.kind = K::kTruthTable;
      for (int k = 0; k < 4; ++k) o.value |= int64_t{c.get(c.row.tt[k])} << k;
      o.width_bits = 4;
      return o;
    }
    case OperandDesc::kAluDst: return alu_dst(c, true, false, false);
    case OperandDesc::kAluDst64: return alu_dst(c, true, true, false);
    case OperandDesc::kFloatDst: return alu_dst(c, true, false, false);
    case OperandDesc::kFloatDst16: return alu_dst(c, false, false, false);
    case OperandDesc::kPairedAluDst: return alu_dst(c, true, false, true);
    case OperandDesc::kImplicitR0L: {
      Operand o = reg(K::kReg16, 0);
      if (t & 1) o.flags |= kFlagCache;
      return o;
    }
    case OperandDesc::kAluSrc: return alu_src(c, true, false, false, false);
    case OperandDesc::kAluSrc16: return alu_src(c, false, false, false, false);
    case OperandDesc::kAluSrc64: return alu_src(c, true, true, false, false);
    case OperandDesc::kMulSrc: return int_src(c, false);
    case OperandDesc::kAddSrc: return int_src(c, true);
    case OperandDesc::kFloatSrc: return float_src(c, true, false);
    case OperandDesc::kFloatSrc16: return float_src(c, true, false);
    case OperandDesc::kPairedFloatSrc: return float_src(c, true, true);
    case OperandDesc::kCmpselSrc: return cmpsel_src(c);
    case OperandDesc::kShift:
    case OperandDesc::kMemoryShift: {
      Operand o = imm(v, c.width());
      o.kind = K::kShift;
      return o;
    }
    case OperandDesc::kMask: {
      Operand o = imm(v, c.width());
      o.kind = K::kBitMask;
      return o;
    }
    case OperandDesc::kBranchOffset: {
      Operand o = imm(sign_extend(v, c.width()), c.width());
      o.kind = K::kBranchOffset;
      return o;
    }
    case OperandDesc::kStackAdjustment: return imm(sign_extend(v, 16), 16);
    case OperandDesc::kReg32:
    case OperandDesc::kExReg32: return reg(K::kReg32, v);
    case OperandDesc::kStackReg32:
    case OperandDesc::kReg32Split: return reg(K::kReg32, v >> 1);
    case OperandDesc::kUReg64: return reg(K::kUReg64, v);
    case OperandDesc::kSReg32: return special(c, K::kSpecialReg, v);
    case OperandDesc::kTextureStateDest: return special(c, K::kTextureState, v);
    case OperandDesc::kSamplerStateDest: return special(c, K::kSamplerState, v);
    case OperandDesc::kMemoryIndex:
      if (t) return imm(sign_extend(v, 16), 16);
      if ((v & 1) || v >= 0x100) return bad(c, "a register offset needs an even index below 0x100");
      return reg(K::kReg32, v >> 1);
    case OperandDesc::kThreadgroupIndex:
      if (t) return imm(sign_extend(v, 16), 16);
      if (v >= 0x100) return bad(c, "a register offset needs an index below 0x100");
      return reg(K::kReg16, v);
    case OperandDesc::kMemoryBase:
      if (v & 1) return bad(c, "a 64-bit base needs an even index");
      return reg(t ? K::kUReg64 : K::kReg64, v >> 1);
    case OperandDesc::kAsyncMemoryReg: return reg(t ? K::kUReg64 : K::kReg64, v >> 1);
    case OperandDesc::kAsyncMemoryBase:
      return reg(t ? K::kUReg32 : K::kReg32, v, c.get(c.row.F) ? 5 : 3);
    case OperandDesc::kMemoryReg:
    case OperandDesc::kSampleReg:
      return tuple(t != 0, v, std::popcount(c.get(c.row.mask)));
    case OperandDesc::kThreadgroupMemoryReg:
      if (c.f.a >= 0 && c.get(c.f.a) == 0) return none();
      return tuple(t != 0, v, c.f.a >= 0 ? 1 : std::popcount(c.get(c.row.mask)));
    case OperandDesc::kPbeSourceReg:
      if (t && (v & 1)) return bad(c, "32-bit source registers need an even index");
      return tuple(t != 0, v, 4);
    case OperandDesc::kTileToMemoryReg: return reg(K::kReg16, v);
    case OperandDesc::kThreadgroupMemoryBase:
      if (t == 0) return reg(K::kReg16, v);
      if (t == 2) return imm(0);
      return reg(K::kUReg16, v | (t >> 1) << 8);
    case OperandDesc::kSampleMask: {
      unsigned type_bits = fields_of(c.in.op)[c.f.t].width();
      if (t >= 2) return bad(c, "unknown sample mask type");
      return ((t == 0) == (type_bits == 2)) ? imm(v) : reg(K::kReg16, v);
    }
    case OperandDesc::kDiscardMask:
    case OperandDesc::kUvsIndex:
    case OperandDesc::kPbeLod: return t == 0 ? reg(K::kReg16, v) : imm(v);
    case OperandDesc::kZs: {
      unsigned count = (c.get(c.row.z) ? 2 : 0) + (c.get(c.row.s) ? 1 : 0);
      if (count == 0) return bad(c, "neither depth nor stencil is written");
      return reg(K::kReg16, v, count);
    }
    case OperandDesc::kVarRegister:
    case OperandDesc::kVarTripleRegister: {
      unsigned count = c.get(c.row.count) ? c.get(c.row.count) : 4;
      if (c.def.kind == OperandDesc::kVarTripleRegister) count *= 3;
      return tuple(t != 0, v, count);
    }
    case OperandDesc::kCf: return t == 0 ? special(c, K::kCoefficient, v) : reg(K::kReg16, v);
    case OperandDesc::kCfPerspective: return special(c, K::kCoefficient, v);
    case OperandDesc::kTileCoord: return t == 0 ? imm(v, c.width()) : reg(K::kReg16, v, 2);
    case OperandDesc::kIterSampleId: {
      uint32_t mode = c.get(c.row.interpolation);
      if (mode & 1) return (mode & 2) ? reg(K::kReg16, v) : imm(v);
      if (v != 0) return bad(c, "a sample index without sample interpolation");
      return Operand{K::kEmpty};
    }
    case OperandDesc::kSampleUReg:
      return (c.get(c.row.Tt) & 2) ? reg(K::kUReg64, v * 2) : none();
    case OperandDesc::kTexture:
      if (t == 0) return special(c, K::kTextureState, v);
      if (t == 1) return reg(K::kReg16, v);
      if (t == 2) return v == 0 ? imm(0) : reg(K::kReg16, v);
      return reg(K::kReg32, v >> 1);
    case OperandDesc::kSampler:
      return t == 0 ? special(c, K::kSamplerState, v) : reg(K::kReg16, v);
    case OperandDesc::kCoords: return coords(c);
    case OperandDesc::kLod: return lod(c);
    case OperandDesc::kSampleCompareOff: return sample_compare_off(c);
    case OperandDesc::kAtomicSource:
      if (v & 1) return bad(c, "the atomic source needs an even index");
      return reg(c.get(c.row.op) == 3 ? K::kReg64 : K::kReg32, v >> 1);
    case OperandDesc::kAtomicDestination:
      if (t != 1) return none();
      if (v & 1) return bad(c, "the atomic destination needs an even index");
      return reg(K::kReg32, v >> 1);
  }
  return bad(c, "unknown operand kind");
}

// applegpu names r0l..r127h, r0..r127, u0l..u255h, u0..u255 (and pairs
// from each of those); a register past them makes its printer fail.
bool names_exist(const Operand& o) {
  unsigned last = o.index + (o.count ? o.count - 1 : 0);
  switch (o.kind) {
    case K::kReg16: return last <= 255;
    case K::kReg32: return last <= 127;
    case K::kReg64: return o.index <= 127;
    case K::kUReg16: return last <= 511;
    case K::kUReg32:
    case K::kUReg64: return last <= 255;
    case K::kText: return o.index <= 127 && o.value <= 255;
    default: return true;
  }
}

}  // namespace

Status decode_operands(Instr& in) {
  auto rows = operands_of(in.op);
  size_t first = static_cast<size_t>(rows.data() - kOperands);
  const RowContext& row = row_context(in.op);
  const OperandFields* fields = &operand_fields(first);
  in.operand_count = static_cast<uint8_t>(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    Ctx c{in, row, rows[i], fields[i]};
    AGX_TRY(Operand o, decode_one(c));
    if (!names_exist(o))
      return bad(c, fmt::format("register {} (+{}) is past the register file", o.index, o.count));
    o.desc = rows[i].kind;
    o.slot = static_cast<uint8_t>(i);
    in.operands[i] = o;
  }
  return {};
}

}  // namespace agx::isa::detail

namespace agx::isa {

double float_immediate(uint8_t code) {
  unsigned e = (code >> 4) & 7, m = code & 15;
  double x = e == 0 ? m / 64.0 : (16 + m) * std::ldexp(1.0, static_cast<int>(e) - 7);
  return (code & 0x80) ? -x : x;
}

}  // namespace agx::isa
