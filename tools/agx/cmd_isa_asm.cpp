// `agx asm`: applegpu-format assembly text to AGX machine code (docs/isa.md).
//   agx asm 'TEXT ; TEXT' | --file PATH   [-o OUT] [--pc N]
// prints "%-20s %s" (hex, then the instruction's canonical text) per
// instruction; -o writes the bytes as a binary file.
#include <fmt/format.h>

#include "command.h"
#include "isa/isa.h"
#include "util/hex.h"

namespace AGX_UNITY_ID {

struct Options {
  std::string text, file, out;
  uint64_t pc = 0;
};

void run(const Options& o) {
  std::string text = o.text;
  if (!o.file.empty()) {
    auto t = agx::cli::read_file(o.file);
    if (!t) agx::cli::fail(t.error());
    text = *t;
  }
  auto bytes = agx::isa::assemble_program(text, o.pc);
  if (!bytes) agx::cli::fail(bytes.error());
  std::span<const uint8_t> code(*bytes);
  for (size_t p = 0; p < code.size();) {
    auto in = agx::isa::decode(code.subspan(p), o.pc + p);
    if (!in) agx::cli::fail(in.error());
    fmt::print("{:<20} {}\n", agx::to_hex(code.subspan(p, in->length_B)),
               agx::isa::disassemble(*in, o.pc + p));
    p += in->length_B;
  }
  if (!o.out.empty())
    if (auto st = agx::cli::write_binary(o.out, *bytes); !st) agx::cli::fail(st.error());
}

void setup(agx::cli::Args& sub) {
  auto o = std::make_shared<Options>();
  sub.add_option("text", o->text, "Instructions separated by ';' or newlines");
  sub.add_option("--file", o->file, "Read the instructions from this file ('-' = stdin)");
  sub.add_option("-o,--output", o->out, "Write the machine code to this file");
  sub.add_option("--pc", o->pc, "Address of the first instruction (for absolute branch targets)");
  sub.callback([o] {
    if (o->text.empty() == o->file.empty())
      agx::cli::fail(std::string("give the instructions as one argument or with --file"));
    run(*o);
  });
}

agx::cli::Command kAsm{"asm", "Assemble AGX instructions written as applegpu prints them", setup};

}  // namespace AGX_UNITY_ID
