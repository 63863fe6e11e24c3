// Disassembly pieces shared by the disassembler and the assembler.
#pragma once

#include <string>
#include <vector>

#include "isa/internal.h"

namespace agx::isa::detail {

// An instruction's text before joining: mnemonic and operand strings ("" =
// dropped), after applegpu's aliases.
struct Listing {
  std::string mnemonic;
  std::vector<std::string> operands;
};
Listing listing(const Instr& instr, std::optional<uint64_t> pc);
std::string join(const Listing& l);
void apply_alias(const Instr& instr, Listing& l);

std::string reg16_name(unsigned index);
std::string float_repr(double x);
std::string_view special_register_name(unsigned n);

}  // namespace agx::isa::detail
