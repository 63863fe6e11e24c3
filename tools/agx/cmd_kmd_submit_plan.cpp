// `agx submit-plan [FILE] [--json] [--trace OUT]`: the firmware queue view
// of a submission written in the Asahi driver notes' notation.
#include <fmt/format.h>

#include <cstdio>

#include "command.h"
#include "kmd/plan.h"

namespace AGX_UNITY_ID {

struct Options {
  std::string path = "-";
  bool json = false;
  bool live = false;
  std::string trace;
};

void run(const Options& o) {
  auto text = agx::cli::read_file(o.path);
  if (!text) agx::cli::fail(text.error());
  auto plan = agx::kmd::parse_plan(*text);
  if (!plan) agx::cli::fail(std::move(plan).error().context(o.path == "-" ? "<stdin>" : o.path));
  agx::kmd::FirmwareView view = agx::kmd::firmware_view(*plan);
  std::vector<agx::kmd::FirmwareEvent> events;
  if (o.live) {  // through SUBMIT on the device, as it recorded it
    auto live = agx::kmd::run_plan_live(agx::kmd::default_device(), *plan);
    if (!live) agx::cli::fail(live.error());
    events = std::move(*live);
    view = agx::kmd::view_of(events);
  } else {
    events = agx::kmd::logical_timeline(*plan);
  }
  fmt::print("{}", o.json ? agx::kmd::format_json(view) : agx::kmd::format_table(view));
  if (!o.trace.empty()) {
    std::string json = agx::kmd::chrome_trace_json(events);
    if (o.trace == "-") {  // after the view, on standard output
      fmt::print("{}", json);
      return;
    }
    std::vector<uint8_t> bytes(json.begin(), json.end());
    auto st = agx::cli::write_binary(o.trace, bytes);
    if (!st) agx::cli::fail(st.error());
  }
}

void setup(agx::cli::Args& sub) {
  auto o = std::make_shared<Options>();
  sub.add_option("file", o->path, "submission in the seed's notation (default: standard input)");
  sub.add_flag("--json", o->json, "print {\"compute\": [...], \"vertex\": [...], \"fragment\": [...]}");
  sub.add_flag("--live", o->live, "run the submission through SUBMIT on the device and print what it recorded");
  sub.add_option("--trace", o->trace, "also write a Perfetto/Chrome trace JSON timeline to this file (- = standard output)");
  sub.callback([o] { run(*o); });
}

agx::cli::Command kSubmitPlan{"submit-plan", "Print the firmware queue view (compute/vertex/fragment) of a submission",
                              setup};

}  // namespace AGX_UNITY_ID
