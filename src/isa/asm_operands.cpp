// Text -> fields for one operand, the reverse of operands.cpp for each
// applegpu operand kind. Whether the result prints back the same is checked
// by the assembler afterwards (it re-disassembles every candidate).
#include <bit>

#include "isa/asm_parse.h"

namespace agx::isa::detail::parse {

// The register files (applegpu's register names): 128 32-bit GPRs r0-r127
// (256 halves r0l-r127h), 256 32-bit uniforms u0-u255 (u0l-u255h).
Err missing_register(std::string_view s) {
  auto r = parse_regs(s);
  if (!r) return std::nullopt;
  for (size_t i = 0; i < r->regs.size(); ++i) {
    const RegName& n = r->regs[i];
    // The last name of a tuple may be one past the file (r127_r128 prints).
    const unsigned limit = (n.kind == K::kUReg32 ? 255 : 127) + (i > 0 && i + 1 == r->regs.size() ? 1 : 0);
    const bool past = (n.kind == K::kReg32 || n.kind == K::kUReg32) && n.index > limit;
    if (!past) continue;
    const bool uniform = n.kind == K::kUReg32;
    return fmt::format("register '{}{}' does not exist: the {} file is {}", uniform ? 'u' : 'r', n.index,
                       uniform ? "uniform" : "register", uniform ? "u0-u255 (u0l-u255h)" : "r0-r127 (r0l-r127h)");
  }
  return std::nullopt;
}

std::optional<RegName> single(std::string_view s, uint8_t* flags) {
  auto r = parse_regs(s);
  if (!r || r->regs.size() != 1) return std::nullopt;
  if (flags) *flags = r->flags;
  return r->regs[0];
}

// A tuple of consecutive registers of one kind; Reg64 names (rN_rN+1) read
// as two r32 entries.
std::optional<RegText> consecutive(std::string_view s) {
  auto r = parse_regs(s);
  if (!r) return std::nullopt;
  for (size_t i = 1; i < r->regs.size(); ++i)
    if (r->regs[i].kind != r->regs[0].kind || r->regs[i].index != r->regs[i - 1].index + 1)
      return std::nullopt;
  return r;
}

static unsigned hint(uint8_t flags) { return (flags & kFlagDiscard) ? 3 : (flags & kFlagCache) ? 2 : 1; }

Err alu_dst(const P& p, bool allow32, bool allow64, bool paired) {
  auto r = consecutive(p.s);
  if (!r) return p.fail(paired ? "a register pair" : "a register");
  size_t n = r->regs.size();
  const RegName& first = r->regs[0];
  unsigned cache = (r->flags & kFlagCache) ? 1 : 0;
  bool ok_count = paired ? n == 2 : n == 1 || (n == 2 && allow64 && first.kind == K::kReg32);
  if (!ok_count) return p.fail(paired ? "a register pair" : "a register");
  if (first.kind == K::kReg16) return p.set2(first.index, cache);
  if (first.kind == K::kReg32 && allow32)
    return p.set2(first.index * 2 + (n == 2 && !paired ? 1 : 0), 2 | cache);
  return p.fail(allow32 ? "an r16 or r32 register" : "an r16 register");
}

Err alu_src(const P& p, bool allow64, bool paired, bool is_float, unsigned type_bits) {
  std::string_view s = p.s;
  if (s == "None") return p.set2(0, type_bits == 4 ? 0b1000 : 0);
  const char* expected = is_float ? "a register, uniform or float immediate"
                                  : "a register, uniform or 8-bit immediate";
  if (is_float && !s.starts_with("r") && !s.starts_with("u")) {
    uint8_t mods = 0;
    for (;;) {
      if (s.ends_with(".abs")) {
        mods |= 1, s.remove_suffix(4);
      } else if (s.ends_with(".neg")) {
        mods |= 2, s.remove_suffix(4);
      } else {
        break;
      }
    }
    auto code = float_code(s);
    if (!code) return p.fail(expected);
    if (auto e = p.set2(*code, 0)) return e;
    return p.set(p.f.m, mods);
  }
  if (!is_float) {
    if (auto v = parse_int(s)) {
      if (*v < 0 || *v > 255) return p.fail("an 8-bit immediate (0-255)");
      return p.set2(*v, 0);
    }
  }
  auto r = consecutive(s);
  if (!r || r->regs.size() > 2) return p.fail(expected);
  const RegName& n = r->regs[0];
  bool pair = r->regs.size() == 2;
  bool uniform = n.kind == K::kUReg16 || n.kind == K::kUReg32;
  if (uniform ? pair : (paired != pair && !(pair && allow64 && n.kind == K::kReg32)))
    return p.fail(expected);
  uint8_t fl = r->flags;
  if (is_float) {
    if (auto e = p.set(p.f.m, ((fl & kFlagAbs) ? 1 : 0) | ((fl & kFlagNeg) ? 2 : 0))) return e;
  } else if (auto e = p.set(p.f.s, (fl & kFlagSx) ? 1 : 0)) {
    return e;
  }
  if (n.kind == K::kUReg16) return p.set2(n.index & 0xff, 0b0100 | (n.index >> 8));
  if (n.kind == K::kUReg32) return p.set2((n.index << 1) & 0xff, 0b0110 | (n.index >> 7));
  if (n.kind == K::kReg16) return p.set2(n.index, hint(fl));
  if (n.kind != K::kReg32) return p.fail(expected);
  if (pair && !paired) return p.set2(n.index * 2, 0b1100 | hint(fl));
  return p.set2(n.index * 2, 0b1000 | hint(fl));
}

Err cmpsel_src(const P& p) {
  if (p.s == "None") return p.set2(0, 0);
  if (auto v = parse_int(p.s)) {
    if (*v < 0 || *v > 255) return p.fail("an 8-bit immediate (0-255)");
    return p.set2(*v, 0b100);
  }
  uint8_t fl = 0;
  auto n = single(p.s, &fl);
  if (!n) return p.fail("a register, uniform or 8-bit immediate");
  switch (n->kind) {
    case K::kReg16: return p.set2(n->index, hint(fl));
    case K::kReg32: return p.set2(n->index * 2, hint(fl));
    case K::kUReg16: return p.set2(n->index, 0b110);
    case K::kUReg32: return p.set2(n->index * 2, 0b110);
    default: return p.fail("a register, uniform or 8-bit immediate");
  }
}

Err enum_value(const P& p, bool condition) {
  int found = -1;
  for (const auto& e : kEnums)
    if (e.table == p.def.enum_table && e.text == p.s) {
      found = e.value;
      break;
    }
  if (found < 0) {
    auto v = parse_int(p.s);
    if (!v) return p.fail("a name from the operand's list or an integer");
    found = static_cast<int>(*v);
  }
  if (!condition) return p.set(p.f.main, found);
  const RowContext& row = p.d.row();
  if (row.ccn < 0 && found > 7) return p.fail("a condition without the n bit");
  if (auto e = p.set(row.cc, found & 7)) return e;
  return p.set(row.ccn, found >> 3);
}

// Register tuple operands with a 16/32-bit type bit.
Err tuple(const P& p, bool allow_none) {
  if (allow_none && p.s == "None") return p.set(p.f.a, 0);
  auto r = consecutive(p.s);
  if (!r || (r->regs[0].kind != K::kReg16 && r->regs[0].kind != K::kReg32))
    return p.fail("consecutive r16 or r32 registers");
  if (auto e = p.set(p.f.a, 1)) return e;
  bool is32 = r->regs[0].kind == K::kReg32;
  return p.set2(is32 ? r->regs[0].index * 2 : r->regs[0].index, is32 ? 1 : 0);
}

Err one_reg(const P& p, OperandKind kind, const char* expected, unsigned shift) {
  auto n = single(p.s, nullptr);
  if (!n || n->kind != kind) return p.fail(expected);
  return p.set(p.f.main, int64_t{n->index} << shift);
}

Err reg16_or_imm(const P& p, unsigned reg_t, unsigned imm_t) {
  if (auto v = parse_int(p.s)) return p.set2(*v, imm_t);
  auto n = single(p.s, nullptr);
  if (!n || n->kind != K::kReg16) return p.fail("an r16 register or an immediate");
  return p.set2(n->index, reg_t);
}

Err signed16(const P& p, int64_t v) {
  if (v < -0x8000 || v > 0x7fff) return p.fail("a signed 16-bit offset");
  return p.set2(v & 0xffff, 1);
}

Err shift(const P& p) {
  if (!p.s.starts_with("lsl ")) return p.fail("'lsl N'");
  auto v = parse_int(p.s.substr(4));
  if (!v || *v <= 0) return p.fail("'lsl N'");
  return p.set(p.f.main, *v);
}

Err bit_mask(const P& p) {
  auto v = p.s.starts_with("mask ") ? parse_int(p.s.substr(5)) : std::nullopt;
  if (!v || *v <= 0 || *v > 0xffffffffll || ((*v + 1) & *v) != 0) return p.fail("'mask 0x...' of low bits");
  int m = std::bit_width(static_cast<uint64_t>(*v));
  return p.set(p.f.main, m == 32 ? 0 : m);
}

Err coords(const P& p) {
  auto r = consecutive(p.s);
  if (!r || (r->regs[0].kind != K::kReg16 && r->regs[0].kind != K::kReg32))
    return p.fail("consecutive r16 or r32 coordinate registers");
  if (auto e = p.set(p.f.t, (r->flags & kFlagDiscard) ? 1 : 0)) return e;
  if (r->regs[0].kind == K::kReg32) {
    if (auto e = p.set(p.f.s, 0)) return e;
    return p.set(p.f.main, r->regs[0].index * 2);
  }
  auto size = tex_size(p.d.get(p.d.row().n));
  bool wide = size && size->extra && r->regs.size() == size->count * 2u + 1;
  if (auto e = p.set(p.f.s, wide ? 0 : 1)) return e;
  return p.set(p.f.main, r->regs[0].index);
}

Err sample_compare_off(const P& p) {
  auto r = parse_regs(p.s);
  if (!r || r->regs.size() > 2) return p.fail("a compare r32 and/or an offset r16");
  const auto& a = r->regs[0];
  if (r->regs.size() == 2) {
    // The offset register is O + 2 (in r16 units) and the compare one O >> 1.
    const auto& b = r->regs[1];
    if (a.kind != K::kReg32 || b.kind != K::kReg16 || b.index < 2 || ((b.index - 2) >> 1) != a.index)
      return p.fail("a compare r32 followed by the offset r16 after it");
    return p.set2(b.index - 2, 1);
  }
  if (a.kind == K::kReg32) return p.set2(a.index * 2, 0);
  if (a.kind == K::kReg16) return p.set2(a.index, 1);
  return p.fail("a compare r32 and/or an offset r16");
}

Err zs(const P& p) {
  auto r = consecutive(p.s);
  size_t n = r ? r->regs.size() : 0;
  if (!r || r->regs[0].kind != K::kReg16 || n > 3) return p.fail("1-3 consecutive r16 registers");
  const RowContext& row = p.d.row();
  if (auto e = p.set(row.z, n >= 2 ? 1 : 0)) return e;
  if (auto e = p.set(row.s, n != 2 ? 1 : 0)) return e;
  return p.set(p.f.main, r->regs[0].index);
}

Err var_registers(const P& p, unsigned group) {
  auto r = consecutive(p.s);
  if (!r || (r->regs[0].kind != K::kReg16 && r->regs[0].kind != K::kReg32) ||
      r->regs.size() % group || r->regs.size() / group > 4)
    return p.fail("a tuple of consecutive registers");
  bool is32 = r->regs[0].kind == K::kReg32;
  if (auto e = p.set(p.d.row().count, (r->regs.size() / group) & 3)) return e;
  return p.set2(is32 ? r->regs[0].index * 2 : r->regs[0].index, is32 ? 1 : 0);
}

Err uniform_pair(const P& p, bool halve) {
  auto r = consecutive(p.s);
  if (!r || r->regs.size() != 2 || r->regs[0].kind != K::kUReg32 || (halve && (r->regs[0].index & 1)))
    return p.fail(halve ? "a uniform pair uN_uN+1 with N even" : "a uniform pair uN_uN+1");
  return p.set(p.f.main, halve ? r->regs[0].index / 2 : r->regs[0].index);
}

Err pair64(const P& p, bool allow_uniform, unsigned shift) {
  auto r = consecutive(p.s);
  if (!r || r->regs.size() != 2 || (r->regs[0].kind != K::kReg32 && !(allow_uniform && r->regs[0].kind == K::kUReg32)))
    return p.fail(allow_uniform ? "a register or uniform pair" : "a register pair");
  return p.set2(int64_t{r->regs[0].index} << shift, r->regs[0].kind == K::kUReg32 ? 1 : 0);
}

}  // namespace agx::isa::detail::parse
