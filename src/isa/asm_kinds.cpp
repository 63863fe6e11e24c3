// The assembler's dispatch from an operand kind to its parser, and the
// "prints as nothing" forms the assembler may fill in for a missing operand.
#include "isa/asm_parse.h"

namespace agx::isa::detail {

namespace parse {

// The coefficient, tile, texture and atomic operand kinds (parse_kind's
// second half).
Err parse_sampling_kind(const P& p) {
  std::string_view s = p.s;
  switch (p.def.kind) {
    case OperandDesc::kCf: {
      auto n = single(s, nullptr);
      if (n && n->kind == K::kCoefficient) return p.set2(n->index, 0);
      if (n && n->kind == K::kReg16) return p.set2(n->index, 1);
      return p.fail("a coefficient register cfN or an r16 register");
    }
    case OperandDesc::kCfPerspective: return one_reg(p, K::kCoefficient, "a coefficient register cfN");
    case OperandDesc::kTileCoord: {
      if (auto v = parse_int(s)) return p.set2(*v, 0);
      auto r = consecutive(s);
      if (!r || r->regs.size() != 2 || r->regs[0].kind != K::kReg16 || r->flags)
        return p.fail("an 8-bit immediate or an r16 pair (x, y)");
      return p.set2(r->regs[0].index, 1);
    }
    case OperandDesc::kIterSampleId: {
      if (auto v = parse_int(s)) return p.set(p.f.main, *v);
      return one_reg(p, K::kReg16, "a sample index (r16 or immediate)");
    }
    case OperandDesc::kSampleUReg:
      if (s == "None") return p.set(p.f.main, 0);
      return uniform_pair(p, true);
    case OperandDesc::kTexture: {
      if (s == "0") return p.set2(0, 2);
      auto n = single(s, nullptr);
      if (n && n->kind == K::kTextureState) return p.set2(n->index, 0);
      if (n && n->kind == K::kReg16) return p.set2(n->index, 1);
      if (n && n->kind == K::kReg32) return p.set2(n->index * 2, 3);
      return p.fail("a texture state tsN, a register or 0");
    }
    case OperandDesc::kSampler: {
      auto n = single(s, nullptr);
      if (n && n->kind == K::kSamplerState) return p.set2(n->index, 0);
      if (n && n->kind == K::kReg16) return p.set2(n->index, 1);
      return p.fail("a sampler state ssN or an r16 register");
    }
    case OperandDesc::kCoords: return coords(p);
    case OperandDesc::kLod: {
      if (s == "0") return p.set(p.f.main, 0);
      auto r = consecutive(s);
      if (!r) return p.fail("a lod register or 0");
      unsigned i = r->regs[0].kind == K::kReg32 ? r->regs[0].index * 2 : r->regs[0].index;
      return p.set(p.f.main, i);
    }
    case OperandDesc::kSampleCompareOff: return sample_compare_off(p);
    case OperandDesc::kAtomicSource: {
      auto r = consecutive(s);
      if (!r || r->regs[0].kind != K::kReg32 || r->regs.size() > 2) return p.fail("an r32 register or pair");
      return p.set(p.f.main, r->regs[0].index * 2);
    }
    case OperandDesc::kAtomicDestination: {
      if (s == "None") return p.set2(0, 0);
      auto n = single(s, nullptr);
      if (!n || n->kind != K::kReg32) return p.fail("an r32 register or None");
      return p.set2(n->index * 2, 1);
    }
    default: break;
  }
  return p.fail("a known operand kind");
}

Err parse_kind(const P& p) {
  std::string_view s = p.s;
  switch (p.def.kind) {
    case OperandDesc::kImmediate:
    case OperandDesc::kBinary: {
      auto v = parse_int(s);
      if (!v) return p.fail("an integer");
      return p.set(p.f.main, *v);
    }
    case OperandDesc::kEnum: return enum_value(p, false);
    case OperandDesc::kICondition:
    case OperandDesc::kFCondition: return enum_value(p, true);
    case OperandDesc::kTruthTable: {
      if (s.size() != 4 || s.find_first_not_of("01") != std::string_view::npos)
        return p.fail("a 4-digit truth table");
      for (int k = 0; k < 4; ++k)
        if (auto e = p.set(p.d.row().tt[k], s[k] - '0')) return e;
      return std::nullopt;
    }
    case OperandDesc::kAluDst:
    case OperandDesc::kFloatDst: return alu_dst(p, true, false, false);
    case OperandDesc::kAluDst64: return alu_dst(p, true, true, false);
    case OperandDesc::kFloatDst16: return alu_dst(p, false, false, false);
    case OperandDesc::kPairedAluDst: return alu_dst(p, true, false, true);
    case OperandDesc::kImplicitR0L: {
      uint8_t fl = 0;
      auto n = single(s, &fl);
      if (!n || n->kind != K::kReg16 || n->index != 0 || (fl & ~kFlagCache)) return p.fail("r0l");
      return p.set(p.f.t, (fl & kFlagCache) ? 1 : 0);
    }
    case OperandDesc::kAluSrc:
    case OperandDesc::kAluSrc16: return alu_src(p, false, false, false, 4);
    case OperandDesc::kAluSrc64:
    case OperandDesc::kAddSrc: return alu_src(p, true, false, false, 4);
    case OperandDesc::kMulSrc: return alu_src(p, false, false, false, 4);
    case OperandDesc::kFloatSrc: return alu_src(p, false, false, true, 4);
    case OperandDesc::kFloatSrc16: return alu_src(p, false, false, true, 3);
    case OperandDesc::kPairedFloatSrc: return alu_src(p, false, true, true, 4);
    case OperandDesc::kCmpselSrc: return cmpsel_src(p);
    case OperandDesc::kShift:
    case OperandDesc::kMemoryShift: return shift(p);
    case OperandDesc::kMask: return bit_mask(p);
    case OperandDesc::kBranchOffset: {
      auto off = branch_offset(s, p.d.pc);
      unsigned w = fields_of(p.d.op)[p.f.main].width();
      int64_t lim = int64_t{1} << (w - 1);
      if (!off) return p.fail("a branch target (pc+N, pc-N or 0x...)");
      if (*off < -lim || *off >= lim) return p.fail(fmt::format("a target within {} bits", w).c_str());
      return p.set(p.f.main, *off & ((int64_t{1} << w) - 1));
    }
    case OperandDesc::kStackAdjustment: {
      auto v = parse_int(s);
      if (!v || *v < -0x8000 || *v > 0x7fff) return p.fail("a signed 16-bit integer");
      return p.set(p.f.main, *v & 0xffff);
    }
    case OperandDesc::kReg32:
    case OperandDesc::kExReg32: return one_reg(p, K::kReg32, "an r32 register");
    case OperandDesc::kStackReg32:
    case OperandDesc::kReg32Split: return one_reg(p, K::kReg32, "an r32 register", 1);
    case OperandDesc::kUReg64: return uniform_pair(p, false);
    case OperandDesc::kSReg32: {
      std::string_view n = s.substr(0, s.find(" ("));
      auto v = n.starts_with("sr") ? parse_int(n.substr(2)) : std::nullopt;
      if (!v || *v < 0 || *v > 255) return p.fail("a special register srN");
      return p.set(p.f.main, *v);
    }
    case OperandDesc::kTextureStateDest: return one_reg(p, K::kTextureState, "a texture state tsN");
    case OperandDesc::kSamplerStateDest: return one_reg(p, K::kSamplerState, "a sampler state ssN");
    case OperandDesc::kMemoryIndex: {
      if (auto v = parse_int(s)) return signed16(p, *v);
      auto n = single(s, nullptr);
      if (!n || n->kind != K::kReg32) return p.fail("an r32 register or a signed 16-bit offset");
      return p.set2(n->index * 2, 0);
    }
    case OperandDesc::kThreadgroupIndex: {
      if (auto v = parse_int(s)) return signed16(p, *v);
      auto n = single(s, nullptr);
      if (!n || n->kind != K::kReg16) return p.fail("an r16 register or a signed 16-bit offset");
      return p.set2(n->index, 0);
    }
    case OperandDesc::kMemoryBase:
    case OperandDesc::kAsyncMemoryReg: return pair64(p, true, 1);
    case OperandDesc::kAsyncMemoryBase: {
      auto r = consecutive(s);
      if (!r || (r->regs[0].kind != K::kReg32 && r->regs[0].kind != K::kUReg32))
        return p.fail("consecutive r32 registers or uniforms");
      return p.set2(r->regs[0].index, r->regs[0].kind == K::kUReg32 ? 1 : 0);
    }
    case OperandDesc::kMemoryReg:
    case OperandDesc::kSampleReg:
    case OperandDesc::kPbeSourceReg: return tuple(p, false);
    case OperandDesc::kThreadgroupMemoryReg: return tuple(p, p.f.a >= 0);
    case OperandDesc::kTileToMemoryReg: return one_reg(p, K::kReg16, "an r16 register");
    case OperandDesc::kThreadgroupMemoryBase: {
      if (s == "0") return p.set2(0, 2);
      auto n = single(s, nullptr);
      if (n && n->kind == K::kReg16) return p.set2(n->index, 0);
      if (n && n->kind == K::kUReg16) return p.set2(n->index & 0xff, 1 | (n->index >> 8) << 1);
      return p.fail("an r16 register, a u16 uniform or 0");
    }
    case OperandDesc::kSampleMask: {
      bool wide = fields_of(p.d.op)[p.f.t].width() == 2;
      return reg16_or_imm(p, wide ? 1 : 0, wide ? 0 : 1);
    }
    case OperandDesc::kDiscardMask:
    case OperandDesc::kUvsIndex:
    case OperandDesc::kPbeLod: return reg16_or_imm(p, 0, 1);
    case OperandDesc::kZs: return zs(p);
    case OperandDesc::kVarRegister: return var_registers(p, 1);
    case OperandDesc::kVarTripleRegister: return var_registers(p, 3);
    default: return parse_sampling_kind(p);
  }
  return p.fail("a known operand kind");
}

}  // namespace parse

std::optional<std::string> parse_operand(Draft& d, size_t row_index, std::string_view text) {
  parse::P p{d, kOperands[row_index], operand_fields(row_index), text};
  return parse::parse_kind(p);
}

bool set_empty_operand(Draft& d, size_t row_index) {
  const OperandRow& def = kOperands[row_index];
  const OperandFields& f = operand_fields(row_index);
  switch (def.kind) {
    case OperandDesc::kEnum:
      for (const auto& e : kEnums)
        if (e.table == def.enum_table && e.text.empty()) return d.set(f.main, e.value);
      return false;
    case OperandDesc::kShift:
    case OperandDesc::kMemoryShift:
    case OperandDesc::kMask:
    case OperandDesc::kIterSampleId: return d.set(f.main, 0);
    case OperandDesc::kMemoryReg:
    case OperandDesc::kSampleReg:
    case OperandDesc::kThreadgroupMemoryReg: return d.set(f.main, 0) && d.set(f.t, 0);
    case OperandDesc::kSampleCompareOff: return d.set(f.t, 0);
    default: return false;
  }
}

}  // namespace agx::isa::detail
