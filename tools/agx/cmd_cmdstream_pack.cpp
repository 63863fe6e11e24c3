// `agx pack "NAME" --json FILE|-` and `agx pack --batch`: a cmdbuf.xml
// struct from a JSON object of field values, as lowercase hex of its bytes
// in memory order (docs/cmdstream.md gives the formats).
#include <fmt/format.h>

#include <iostream>
#include <string>

#include "cmdstream/cmdstream.h"
#include "command.h"
#include "util/hex.h"

namespace AGX_UNITY_ID {

namespace cs = agx::cmdstream;

void setup_pack(agx::cli::Args& sub) {
  auto name = std::make_shared<std::string>();
  auto path = std::make_shared<std::string>();
  auto batch = std::make_shared<bool>(false);
  sub.add_option("NAME", *name, "Struct name as in cmdbuf.xml (\"CDM Launch Word 0\")");
  sub.add_option("--json", *path, "JSON object of field values: a file, or '-' for standard input");
  sub.add_flag("--batch", *batch,
               "Read {\"struct\", \"fields\"} JSON lines from standard input, print one "
               "{\"hex\"} or {\"error\"} line each");
  sub.callback([name, path, batch] {
    if (*batch) {
      if (!name->empty() || !path->empty()) agx::cli::fail("pack: --batch takes no NAME or --json");
      std::string line;
      while (std::getline(std::cin, line)) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        fmt::print("{}\n", cs::batch_pack_line(line));
        std::fflush(stdout);
      }
      return;
    }
    if (name->empty() || path->empty()) agx::cli::fail("pack: give NAME and --json FILE (or --batch)");
    auto s = cs::struct_named(*name);
    if (!s.ok()) agx::cli::fail(s.error());
    auto text = agx::cli::read_file(*path);
    if (!text.ok()) agx::cli::fail(text.error());
    auto j = nlohmann::ordered_json::parse(*text, nullptr, false);
    if (j.is_discarded()) agx::cli::fail(fmt::format("{}: not valid JSON", *path));
    auto bytes = cs::pack_json(**s, j);
    if (!bytes.ok()) agx::cli::fail(bytes.error());
    fmt::print("{}\n", agx::to_hex(*bytes));
  });
}

agx::cli::Command kPack{"pack", "Pack a cmdbuf.xml struct from JSON field values into hex", setup_pack};

}  // namespace AGX_UNITY_ID
