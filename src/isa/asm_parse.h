// The assembler's per-kind operand parsers, shared by asm_operands.cpp
// (the parsers) and asm_kinds.cpp (the dispatch on operand kind). Private.
#pragma once

#include <fmt/format.h>

#include <optional>
#include <string>

#include "isa/asm_internal.h"
#include "util/printable.h"

namespace agx::isa::detail::parse {

using K = OperandKind;
using Err = std::optional<std::string>;

// "register 'r128' does not exist (r0-r127 ...)" when `s` names a register
// past its file, else nothing.
Err missing_register(std::string_view s);

// One operand being parsed: the draft, the operand row, its fields, the text.
struct P {
  Draft& d;
  const OperandRow& def;
  const OperandFields& f;
  std::string_view s;
  Err fail(std::string_view expected) const {
    if (auto e = missing_register(s)) return e;
    return fmt::format("expected {} for operand {}, got '{}'", expected, def.name, printable(s));
  }
  Err set(int8_t i, int64_t v) const {
    if (d.set(i, v)) return std::nullopt;
    if (auto e = missing_register(s)) return e;
    return fmt::format("operand {}: value {} out of range", def.name, v);
  }
  Err set2(int64_t v, int64_t t) const {
    if (auto e = set(f.main, v)) return e;
    return set(f.t, t);
  }
};

std::optional<RegName> single(std::string_view s, uint8_t* flags);
std::optional<RegText> consecutive(std::string_view s);
Err alu_dst(const P& p, bool allow32, bool allow64, bool paired);
Err alu_src(const P& p, bool allow64, bool paired, bool is_float, unsigned type_bits);
Err cmpsel_src(const P& p);
Err enum_value(const P& p, bool condition);
Err tuple(const P& p, bool allow_none);
Err one_reg(const P& p, OperandKind kind, const char* expected, unsigned shift = 0);
Err reg16_or_imm(const P& p, unsigned reg_t, unsigned imm_t);
Err signed16(const P& p, int64_t v);
Err shift(const P& p);
Err bit_mask(const P& p);
Err coords(const P& p);
Err sample_compare_off(const P& p);
Err zs(const P& p);
Err var_registers(const P& p, unsigned group);
Err uniform_pair(const P& p, bool halve);
Err pair64(const P& p, bool allow_uniform, unsigned shift);
Err parse_kind(const P& p);

}  // namespace agx::isa::detail::parse
