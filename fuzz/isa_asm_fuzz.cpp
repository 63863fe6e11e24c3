// Fuzzes the assembler with random text: every input gives bytes or an
// Error naming a column, never a crash; what assembles decodes and its text
// assembles again to an encoding with the same text.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "isa/isa.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto bytes = agx::isa::assemble_program(text, 0x40);
  if (!bytes) {
    if (bytes.error().message().empty()) __builtin_trap();
    return 0;
  }
  std::span<const uint8_t> rest(*bytes);
  uint64_t pc = 0x40;
  while (!rest.empty()) {
    auto in = agx::isa::decode(rest, pc);
    if (!in) __builtin_trap();
    std::string t = agx::isa::disassemble(*in, pc);
    auto re = agx::isa::assemble(t, pc);
    if (!re) __builtin_trap();
    auto back = agx::isa::decode(re->span(), pc);
    if (!back || agx::isa::disassemble(*back, pc) != t) __builtin_trap();
    rest = rest.subspan(in->length_B);
    pc += in->length_B;
  }
  return 0;
}
