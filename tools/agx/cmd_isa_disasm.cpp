// `agx disasm`: AGX machine code to applegpu's text (docs/isa.md).
//   agx disasm FILE [--offset N] [--count N] [--all]
//       "%4x: %-20s %s" per instruction, like applegpu's disassemble.py:
//       offsets count from --offset, runs of zero halfwords are skipped
//       (a blank line marks the first), and a `stop` ends the listing
//       unless --all is given.
//   agx disasm --lines
//       standard input: one instruction's hex bytes per line; prints its
//       text (branch targets as pc+N), or "error: REASON", and goes on.
#include <fmt/format.h>

#include <iostream>

#include "command.h"
#include "isa/isa.h"
#include "util/hex.h"

namespace AGX_UNITY_ID {

using agx::isa::decode;

struct Options {
  std::string file;
  uint64_t offset = 0;
  int64_t count = -1;
  bool all = false;
  bool lines = false;
};

std::string line_text(std::string_view hex_line) {
  auto bytes = agx::parse_hex(hex_line);
  if (!bytes) return "error: " + bytes.error().message();
  if (bytes->empty()) return "error: empty line";
  auto in = decode(*bytes);
  if (!in) return "error: " + in.error().message();
  if (in->length_B != bytes->size())
    return fmt::format("error: line has {} bytes but the instruction is {} bytes", bytes->size(),
                       in->length_B);
  return agx::isa::disassemble(*in, std::nullopt);
}

void run_lines() {
  if (auto ok = agx::cli::check_stdin(); !ok) agx::cli::fail(ok.error());
  std::string line;
  bool too_long = false;
  while (agx::cli::read_line(std::cin, line, &too_long)) {
    if (too_long) {
      fmt::print("error: line longer than {} bytes\n", agx::cli::kMaxLine_B);
      continue;
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    fmt::print("{}\n", line_text(line));
  }
}

void run_file(const Options& o) {
  auto data = agx::cli::read_binary(o.file);
  if (!data) agx::cli::fail(data.error());
  if (o.offset > data->size())
    agx::cli::fail(fmt::format("--offset {} is past the end of {} ({} bytes)", o.offset, o.file,
                               data->size()));
  std::span<const uint8_t> code(data->data() + o.offset, data->size() - o.offset);
  size_t p = 0;
  int64_t printed = 0;
  bool skipping = false;
  while (p < code.size() && (o.count < 0 || printed < o.count)) {
    auto word = [&](size_t n) {
      uint32_t v = 0;
      for (size_t i = 0; i < n && p + i < code.size(); ++i) v |= uint32_t{code[p + i]} << (8 * i);
      return v;
    };
    if (!skipping && word(4) == 0) {
      fmt::print("\n");
      skipping = true;
    }
    if (skipping) {
      if (word(2) == 0) {
        p += 2;
        continue;
      }
      skipping = false;
    }
    auto in = decode(code.subspan(p), p);
    ++printed;
    if (!in) {
      size_t n = std::min<size_t>(2, code.size() - p);
      fmt::print("{:4x}: {:<20} <disassembly failed>\n", p, agx::to_hex(code.subspan(p, n)));
      fmt::print(stderr, "agx disasm: {}\n", in.error().message());
      p += 2;
      continue;
    }
    fmt::print("{:4x}: {:<20} {}\n", p, agx::to_hex(code.subspan(p, in->length_B)),
               agx::isa::disassemble(*in, p));
    p += in->length_B;
    if (in->op == agx::isa::Opcode::stop && !o.all) break;
  }
}

void setup(agx::cli::Args& sub) {
  auto o = std::make_shared<Options>();
  sub.add_option("file", o->file, "Binary file of AGX machine code");
  sub.add_option("--offset", o->offset, "Start at this byte offset of the file");
  sub.add_option("--count", o->count, "Print at most this many instructions");
  sub.add_flag("--all", o->all, "Keep going after stop");
  sub.add_flag("--lines", o->lines, "Read hex lines from standard input, one instruction each");
  sub.callback([o] {
    if (o->lines) {
      if (!o->file.empty()) agx::cli::fail(std::string("--lines reads standard input; give no FILE"));
      run_lines();
    } else {
      if (o->file.empty()) agx::cli::fail(std::string("give a FILE or --lines"));
      run_file(*o);
    }
  });
}

agx::cli::Command kDisasm{"disasm", "Disassemble AGX machine code (applegpu's text format)", setup};

}  // namespace AGX_UNITY_ID
