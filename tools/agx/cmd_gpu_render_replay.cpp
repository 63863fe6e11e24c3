// agx render-replay TRACE --png DIR [--submit N] [--json] [--threads N]
//
// Runs the render commands of an AGX_TRACE file again on the software GPU
// and writes the images they leave as PNG files (render_replay.h; docs/
// cmdstream.md, "Render replay").
#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "command.h"
#include "render_replay.h"

namespace AGX_UNITY_ID {

struct Options {
  std::string trace, png;
  int64_t submit = -1;
  unsigned threads = 0;
  bool json = false;
};

nlohmann::ordered_json image_json(const agx::cli::ReplayImage& i, const std::string& path) {
  return {{"submit", i.submit}, {"seqno", i.seqno}, {"command", i.command}, {"target", i.target},
          {"layer", i.layer}, {"width", i.image.width_px}, {"height", i.image.height_px},
          {"format", i.format}, {"address", fmt::format("0x{:x}", i.address)},
          {"png", agx::to_string(i.image.format)}, {"path", path}};
}

nlohmann::ordered_json outcome_json(const agx::cli::ReplayOutcome& c) {
  nlohmann::ordered_json j{{"submit", c.submit}, {"seqno", c.seqno}, {"command", c.command},
                           {"outcome", c.faulted ? "fault" : "ok"}, {"images", c.images}};
  if (c.faulted) j["reason"] = c.reason;
  return j;
}

void run(const Options& o) {
  auto trace = agx::cmdstream::read_trace_file(o.trace);
  if (!trace) agx::cli::fail(trace.error());
  agx::cli::ReplayOptions ro;
  ro.submit = o.submit;
  ro.threads = o.threads;
  auto replay = agx::cli::replay_renders(*trace, ro);
  if (!replay) agx::cli::fail(std::move(replay).error().context(o.trace));
  std::error_code ec;
  std::filesystem::create_directories(o.png, ec);
  if (ec || !std::filesystem::is_directory(o.png))
    agx::cli::fail(fmt::format("--png {}: cannot create the directory ({})", o.png,
                               ec ? ec.message() : "not a directory"));
  nlohmann::ordered_json images = nlohmann::ordered_json::array(), commands = nlohmann::ordered_json::array();
  for (const agx::cli::ReplayImage& i : replay->images) {
    const std::string path = (std::filesystem::path(o.png) / agx::cli::replay_file_name(i)).string();
    if (auto st = agx::write_png(path, i.image); !st) agx::cli::fail(st.error());
    if (o.json)
      images.push_back(image_json(i, path));
    else
      fmt::print("submit {} command #{} {} layer {}: {}x{} {} at 0x{:x} -> {}\n", i.submit, i.command, i.target,
                 i.layer, i.image.width_px, i.image.height_px, i.format, i.address, path);
  }
  for (const agx::cli::ReplayOutcome& c : replay->commands) {
    if (o.json) commands.push_back(outcome_json(c));
    if (c.faulted) fmt::print(stderr, "agx: {}: {}\n", o.trace, agx::cli::terminal_safe(c.reason));
  }
  if (o.json) fmt::print("{}\n", nlohmann::ordered_json{{"images", images}, {"commands", commands}}.dump());
  if (replay->any_faulted()) throw agx::cli::Exit{1};
}

void setup(agx::cli::Args& sub) {
  auto o = std::make_shared<Options>();
  sub.add_option("trace", o->trace, "Trace file (AGX_TRACE)")->required();
  sub.add_option("--png", o->png, "Directory for the PNG files (created when missing)")->required();
  sub.add_option("--submit", o->submit, "Replay only this submit (0-based)");
  sub.add_option("--threads", o->threads, "Worker threads per GPU unit (default: AGX_GPU_THREADS or the cores)");
  sub.add_flag("--json", o->json, "Print what was written as JSON (docs/cmdstream.md)");
  sub.callback([o] { run(*o); });
}

agx::cli::Command kRenderReplay{"render-replay",
                                "Run a trace's render commands again and write their render targets as PNG", setup};

}  // namespace AGX_UNITY_ID
