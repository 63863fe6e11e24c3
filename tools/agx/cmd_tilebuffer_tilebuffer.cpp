// `agx tilebuffer --rt FORMAT... [--samples N] [--json]`: the tilebuffer
// layout of a render pass (docs/tilebuffer.md gives the formats).
#include <fmt/format.h>

#include "command.h"
#include "tilebuffer/report.h"

namespace AGX_UNITY_ID {

// The render targets named on the command line, slot by slot ("none"
// leaves a slot empty).
agx::Result<agx::tilebuffer::RenderTargets> parse_targets(const std::vector<std::string>& names) {
  agx::tilebuffer::RenderTargets t{};
  if (names.size() > agx::tilebuffer::kMaxRenderTargets)
    return agx::Error::invalid_argument("--rt: {} render targets (at most {})", names.size(),
                                        agx::tilebuffer::kMaxRenderTargets);
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == "none") continue;
    AGX_TRY(agx::format::Format f, agx::format::find_format(names[i]));
    t[i] = f;
  }
  return t;
}

void setup_tilebuffer(agx::cli::Args& sub) {
  auto names = std::make_shared<std::vector<std::string>>();
  auto samples = std::make_shared<uint32_t>(1);
  auto json = std::make_shared<bool>(false);
  sub.add_option("--rt", *names, "Render target formats in slot order (Gallium names; 'none' skips a slot)")
      ->required();
  sub.add_option("--samples", *samples, "Samples per pixel (1, 2 or 4)");
  sub.add_flag("--json", *json, "Print the layout as JSON");
  sub.callback([names, samples, json] {
    auto targets = parse_targets(*names);
    if (!targets.ok()) agx::cli::fail(targets.error());
    auto layout = agx::tilebuffer::build_layout(*targets, *samples);
    if (!layout.ok()) agx::cli::fail(layout.error());
    fmt::print("{}", *json ? agx::tilebuffer::report_json(*layout) : agx::tilebuffer::report_text(*layout));
  });
}

agx::cli::Command kTilebuffer{"tilebuffer",
                              "Print the tilebuffer layout of a render pass: render target offsets, "
                              "tile size, USC Shared word",
                              setup_tilebuffer};

}  // namespace AGX_UNITY_ID
