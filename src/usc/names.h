// Names of the isa table's fields and operands (applegpu's names: "A",
// "Rt", "mask", ...) as the emulator reads them. A Name can only be made
// from a string literal that some row of src/isa/table.inc (the single
// source of truth) has as a field or operand: any other spelling is a
// compile error, so a misspelt name can no longer read as 0. Whether the
// decoded row has it is checked when read (field(), operand_value() and
// operand() return an error naming row and name).
#pragma once

#include <string_view>

namespace agx::usc::detail {

namespace names {
inline constexpr std::string_view kTableNames[] = {
#define AGX_ISA_FIELD(id, nm, s0, n0, s1, n1, s2, n2) nm,
#define AGX_ISA_OPERAND(id, kind, nm, table) nm,
#include "isa/table.inc"
#undef AGX_ISA_FIELD
#undef AGX_ISA_OPERAND
};
constexpr bool in_table(std::string_view s) {
  for (std::string_view n : kTableNames)
    if (n == s) return true;
  return false;
}
// Not constexpr: reached only when a Name is not in the table, which makes
// the consteval constructor fail to compile.
inline void not_a_field_or_operand_of_the_isa_table() {}
}  // namespace names

class Name {
 public:
  consteval Name(const char* text) : text_(text) {
    if (!names::in_table(text_)) names::not_a_field_or_operand_of_the_isa_table();
  }
  constexpr std::string_view text() const { return text_; }

 private:
  std::string_view text_;
};

}  // namespace agx::usc::detail
