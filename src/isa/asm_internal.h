// The assembler's pieces: operand-text lexing and per-kind operand parsing.
// Private to the isa unit.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "isa/operands.h"

namespace agx::isa::detail {

// A register name as text: r5l (kReg16, index 10), r5 (kReg32, 5),
// u3h (kUReg16, 7), u3 (kUReg32, 3), ts2/ss2/cf2; flags after dots.
struct RegName {
  OperandKind kind;
  unsigned index;
};
std::optional<RegName> parse_reg_name(std::string_view s);

// An operand's text split into names joined by '_' and trailing flags.
struct RegText {
  std::vector<RegName> regs;
  uint8_t flags = 0;
};
std::optional<RegText> parse_regs(std::string_view s);

std::optional<int64_t> parse_int(std::string_view s);
// 8-bit float immediate code for applegpu's text of the value.
std::optional<unsigned> float_code(std::string_view s);
// Branch target text (pc+N, pc-N, 0xABS, 0x-ABS) as an offset from pc.
std::optional<int64_t> branch_offset(std::string_view s, uint64_t pc);

// The fields an assembly candidate is building.
struct Draft {
  Opcode op;
  std::array<uint32_t, kMaxFields> fields{};
  uint64_t pc = 0;
  const RowContext& row() const { return row_context(op); }
  // Sets field i (skipped when absent); false when the value does not fit.
  bool set(int8_t i, int64_t value);
  uint32_t get(int8_t i) const { return i < 0 ? 0 : fields[static_cast<size_t>(i)]; }
};

// Parses one operand's text into the draft's fields for operand row
// `row_index`; returns an error text naming what was expected.
std::optional<std::string> parse_operand(Draft& d, size_t row_index, std::string_view text);
// Whether the operand kind can print as nothing, and if so sets its fields
// to that form.
bool set_empty_operand(Draft& d, size_t row_index);

}  // namespace agx::isa::detail
