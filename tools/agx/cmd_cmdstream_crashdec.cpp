// agx crashdec DUMP [--json]: a crash dump written at a GPU fault
// (AGX_CRASH_DIR): the fault, the queue and command, then the submit's
// streams decoded against the memory at the time of the fault, with the
// ESTIMATED CRASH LOCATION marked (docs/kmd.md, docs/cmdstream.md).
#include <fmt/format.h>

#include "cmdstream/decode.h"
#include "cmdstream/decode_report.h"
#include "cmdstream/trace_file.h"
#include "command.h"

namespace AGX_UNITY_ID {

using namespace agx::cmdstream;

void setup(agx::cli::Args& sub) {
  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  sub.add_option("dump", *path, "Crash dump file (agx-crash-*.dump)")->required();
  sub.add_flag("--json", *json, "Print JSON {\"fault\", \"crash_location\", \"decode\"}");
  sub.callback([path, json] {
    auto dump = read_trace_file(*path);
    if (!dump) agx::cli::fail(dump.error());
    if (dump->kind != agx::kmd::trace::FileKind::crash_dump)
      agx::cli::fail(fmt::format("{}: a trace, not a crash dump (use agx decode)", *path));
    const TraceSubmit& s = dump->submits[0];
    DecodeNode n = decode_submit(s, dump->params);
    const DecodeNode* at = mark_crash(n, *s.fault);
    if (*json) {
      nlohmann::ordered_json j;
      j["fault"] = fault_to_json(*dump);
      j["crash_location"] = at ? fmt::format("0x{:x}", at->va) : "";
      j["crash_title"] = !at ? "" : at->kind == DecodeNode::Kind::error && !at->lines.empty() ? at->lines[0] : at->title;
      j["decode"] = decode_to_json(n);
      fmt::print("{}\n", j.dump());
      return;
    }
    fmt::print("{}", print_fault(*dump));
    if (!at)
      fmt::print("ESTIMATED CRASH LOCATION: command #{} is not in the command buffer\n", s.fault->command_index);
    else
      fmt::print("ESTIMATED CRASH LOCATION: {} at 0x{:x} (command #{})\n",
                 at->kind == DecodeNode::Kind::error && !at->lines.empty() ? at->lines[0] : at->title, at->va,
                 s.fault->command_index);
    fmt::print("\n{}", print_decode(n));
  });
}

agx::cli::Command kCrashdec{"crashdec", "Decode a GPU crash dump (AGX_CRASH_DIR) with its estimated crash location",
                            setup};

}  // namespace AGX_UNITY_ID
