// applegpu's map_to_alias rules (bitop, if_fcmp/else_icmp, map),
// restated: they rewrite the mnemonic and drop operands after decoding.
// (applegpu's ld/st_tile alias of its TODO row is two table rows here.)
#include <array>
#include <utility>

#include "isa/disasm.h"

namespace agx::isa::detail {

namespace {

constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kBitopBinary{{
    {"0001", "and"}, {"0111", "or"}, {"0110", "xor"},
    {"1110", "nand"}, {"1000", "nor"}, {"1001", "xnor"},
}};
constexpr std::array<std::pair<std::string_view, std::string_view>, 2> kBitopUnary{{
    {"1010", "not"}, {"0101", "mov"},
}};

template <size_t N>
std::string_view lookup(const std::array<std::pair<std::string_view, std::string_view>, N>& t,
                        std::string_view key) {
  for (const auto& [k, v] : t)
    if (k == key) return v;
  return {};
}

void bitop_alias(Listing& l) {
  auto& o = l.operands;
  if (auto a = lookup(kBitopBinary, o[0]); !a.empty()) {
    l.mnemonic = a;
    o.erase(o.begin());
  } else if (auto u = lookup(kBitopUnary, o[0]); !u.empty() && o[3] == "0") {
    l.mnemonic = u;
    o = {o[1], o[2]};
  } else if (o[0] == "0011" || o[0] == "1100") {
    l.mnemonic = "bitop_mov_a";
  }
}

bool unconditional(const Listing& l) {
  return l.operands[1] == "eq" && l.operands[2] == "0.0" && l.operands[3] == "0.0";
}

}  // namespace

void apply_alias(const Instr& in, Listing& l) {
  auto& o = l.operands;
  switch (in.op) {
    case Opcode::bitop: bitop_alias(l); break;
    case Opcode::if_fcmp:
      if (unconditional(l)) {
        if (o[4] == "0") {
          l.mnemonic = "update_exec";
          o = {o[0]};
        } else {
          l.mnemonic = "push_exec";
          o = {o[0], o[4]};
        }
      }
      break;
    case Opcode::else_icmp:
      if (unconditional(l)) {
        l.mnemonic = "else_exec";
        o = {o[0], o[4]};
      }
      break;
    case Opcode::map:
      if (o[0] == "unmap" || o[0] == "map") {
        l.mnemonic = o[0];
        o.erase(o.begin());
      } else {
        l.mnemonic = "TODO.map";
      }
      break;
    default: break;
  }
}

}  // namespace agx::isa::detail
