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

namespace {

struct Options {
  std::string trace, png;
  int64_t submit = -1;
  unsigned threads = 0;
  bool json = false;
};

void run(const Options& o) {
  auto trace = agx::cmdstream::read_trace_file(o.trace);
  if (!trace) agx::cli::fail(trace.error());
  agx::cli::ReplayOptions ro;
  ro.submit = o.submit;
  ro.threads = o.threads;
  auto images = agx::cli::replay_renders(*trace, ro);
  if (!images) agx::cli::fail(std::move(images).error().context(o.trace));
  std::error_code ec;
  std::filesystem::create_directories(o.png, ec);
  if (ec || !std::filesystem::is_directory(o.png))
    agx::cli::fail(fmt::format("--png {}: cannot create the directory ({})", o.png,
                               ec ? ec.message() : "not a directory"));
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const agx::cli::ReplayImage& i : *images) {
    const std::string path = (std::filesystem::path(o.png) / agx::cli::replay_file_name(i)).string();
    if (auto st = agx::write_png(path, i.image); !st) agx::cli::fail(st.error());
    if (o.json) {
      all.push_back({{"submit", i.submit}, {"seqno", i.seqno}, {"command", i.command}, {"target", i.target},
                     {"layer", i.layer}, {"width", i.image.width_px}, {"height", i.image.height_px},
                     {"format", i.format}, {"address", fmt::format("0x{:x}", i.address)},
                     {"png", agx::to_string(i.image.format)}, {"path", path}});
    } else {
      fmt::print("submit {} command #{} {} layer {}: {}x{} {} at 0x{:x} -> {}\n", i.submit, i.command, i.target,
                 i.layer, i.image.width_px, i.image.height_px, i.format, i.address, path);
    }
  }
  if (o.json) fmt::print("{}\n", nlohmann::ordered_json{{"images", all}}.dump());
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

}  // namespace
