// `agx structs [--json]`: every cmdbuf.xml struct with its size in bytes
// and fields, and every enum (docs/cmdstream.md gives the JSON format).
#include <fmt/format.h>

#include "cmdstream/cmdstream.h"
#include "command.h"

namespace AGX_UNITY_ID {

namespace cs = agx::cmdstream;

constexpr const char* kSource =
    "bminor/mesa-mesa src/asahi/genxml/cmdbuf.xml@691aa581c37b8a518776cf83358cbc4ac6f57e57";

std::string field_text(const cs::FieldDesc& f) {
  std::string out = fmt::format("    {:>3}:{:<2} {:<2} {} ({}", f.start / 32, f.start % 32,
                                unsigned(f.size), f.name, cs::type_string(f));
  if (f.modifier != cs::Modifier::none) out += ", " + cs::modifier_string(f);
  if (f.exact) out += ", exact " + cs::format_value(f, f.exact_value);
  return out + ")\n";
}

void setup_structs(agx::cli::Args& sub) {
  auto json = std::make_shared<bool>(false);
  sub.add_flag("--json", *json, "Print {\"source\", \"structs\", \"enums\"} as one JSON object");
  sub.callback([json] {
    if (*json) {
      nlohmann::ordered_json j = {{"source", kSource}};
      j["structs"] = nlohmann::ordered_json::array();
      for (const cs::StructDesc* s : cs::kAllStructs) j["structs"].push_back(cs::describe(*s));
      j["enums"] = nlohmann::ordered_json::array();
      for (const cs::EnumDesc* e : cs::kAllEnums) j["enums"].push_back(cs::describe(*e));
      fmt::print("{}\n", j.dump());
      return;
    }
    fmt::print("# {}\n# word:bit size name (type)\n", kSource);
    for (const cs::StructDesc* s : cs::kAllStructs) {
      fmt::print("{} ({} bytes)\n", s->name, unsigned(s->size_B));
      for (const cs::FieldDesc& f : s->fields) fmt::print("{}", field_text(f));
    }
  });
}

agx::cli::Command kStructs{"structs", "List every cmdbuf.xml struct with its size and fields",
                           setup_structs};

}  // namespace AGX_UNITY_ID
