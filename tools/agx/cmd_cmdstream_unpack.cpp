// `agx unpack "NAME" HEX [--json]` and `agx unpack --batch`: every field of
// a cmdbuf.xml struct read from its bytes, with the bits no field covers
// (docs/cmdstream.md gives the formats).
#include <fmt/format.h>

#include <iostream>
#include <string>

#include "cmdstream/cmdstream.h"
#include "command.h"
#include "util/hex.h"

namespace AGX_UNITY_ID {

namespace cs = agx::cmdstream;

void setup_unpack(agx::cli::Args& sub) {
  auto name = std::make_shared<std::string>();
  auto hex = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto batch = std::make_shared<bool>(false);
  sub.add_option("NAME", *name, "Struct name as in cmdbuf.xml (\"Texture\")");
  sub.add_option("HEX", *hex, "The struct's bytes in memory order, as hex");
  sub.add_flag("--json", *json, "Print one JSON object {\"fields\": {...}, \"unknown_bits\"?}");
  sub.add_flag("--batch", *batch,
               "Read {\"struct\", \"hex\"} JSON lines from standard input, print one "
               "{\"fields\", \"unknown_bits\"?} or {\"error\"} line each");
  sub.callback([name, hex, json, batch] {
    if (*batch) {
      if (!name->empty() || !hex->empty()) agx::cli::fail("unpack: --batch takes no NAME or HEX");
      std::string line;
      while (std::getline(std::cin, line)) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        fmt::print("{}\n", cs::batch_unpack_line(line));
        std::fflush(stdout);
      }
      return;
    }
    if (name->empty() || hex->empty()) agx::cli::fail("unpack: give NAME and HEX (or --batch)");
    auto s = cs::struct_named(*name);
    if (!s.ok()) agx::cli::fail(s.error());
    auto bytes = agx::parse_hex(*hex);
    if (!bytes.ok()) agx::cli::fail(bytes.error());
    if (*json) {
      auto j = cs::unpack_json(**s, *bytes);
      if (!j.ok()) agx::cli::fail(j.error());
      fmt::print("{}\n", j->dump());
      return;
    }
    if (bytes->size() != (*s)->size_B)
      agx::cli::fail(fmt::format("{}: {} bytes given, the struct has {}", (*s)->name, bytes->size(),
                                 unsigned((*s)->size_B)));
    auto u = cs::unpack(**s, *bytes);
    if (!u.ok()) agx::cli::fail(u.error());
    fmt::print("{} ({} bytes)\n{}", (*s)->name, unsigned((*s)->size_B), cs::print(**s, *u, 2));
  });
}

agx::cli::Command kUnpack{"unpack", "Print every field of a cmdbuf.xml struct given as hex",
                          setup_unpack};

}  // namespace AGX_UNITY_ID
