// `agx varyings IFACE.json [--json]`: vertex output indices, slots,
// coefficient-register bindings and packed words of a shader interface
// (docs/varyings.md gives the formats).
#include <fmt/format.h>

#include "command.h"
#include "varyings/varyings.h"

namespace AGX_UNITY_ID {

void setup_varyings(agx::cli::Args& sub) {
  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  sub.add_option("IFACE", *path, "Interface JSON file ('-' for standard input)")->required();
  sub.add_flag("--json", *json, "Print the report as JSON");
  sub.callback([path, json] {
    auto text = agx::cli::read_file(*path);
    if (!text.ok()) agx::cli::fail(text.error());
    auto iface = agx::varyings::parse_interface_json(*text);
    if (!iface.ok()) agx::cli::fail(std::move(iface).error().context(*path));
    auto report = agx::varyings::make_report(*iface);
    if (!report.ok()) agx::cli::fail(std::move(report).error().context(*path));
    fmt::print("{}", *json ? agx::varyings::report_json(*report)
                           : agx::varyings::report_text(*report));
  });
}

agx::cli::Command kVaryings{"varyings",
                            "Print vertex outputs, slots, CF bindings and packed words of a "
                            "shader interface",
                            setup_varyings};

}  // namespace AGX_UNITY_ID
