// Timelines of firmware queue activity and their Perfetto / Chrome trace JSON.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "kmd/plan.h"

namespace agx::kmd {

namespace {
constexpr uint64_t kUnit_ns = 1000;  // one logical command = 1 us
}

std::vector<FirmwareEvent> logical_timeline(std::span<const PlanCommand> commands) {
  std::vector<FirmwareEvent> out;
  // End time of each command boundary; index 0 = earlier submissions (done).
  std::vector<uint64_t> compute_end{0}, vertex_end{0}, fragment_end{0};
  uint64_t queue_free[3] = {0, 0, 0};
  uint32_t renders = 0, computes = 0;
  for (const PlanCommand& c : commands) {
    uint32_t ordinal = c.kind == CommandKind::render ? ++renders : ++computes;
    for (const ViewEntry& e : command_view(c, ordinal)) {
      uint64_t& now = queue_free[int(e.queue)];
      FirmwareEvent ev{0, 1, e.queue, e.text(), 0, 0};
      if (!e.run) {
        const auto& ends = e.letter == 'C' ? compute_end : e.half == 'v' ? vertex_end : fragment_end;
        uint64_t target = e.number < ends.size() ? ends[e.number] : 0;
        now = std::max(now, target);
        ev.start_ns = ev.end_ns = now;
      } else {
        ev.start_ns = now;
        ev.end_ns = now += kUnit_ns;
        auto& ends = e.letter == 'C' ? compute_end : e.half == 'v' ? vertex_end : fragment_end;
        ends.push_back(ev.end_ns);
      }
      out.push_back(std::move(ev));
    }
  }
  return out;
}

std::string chrome_trace_json(std::span<const FirmwareEvent> events) {
  std::string out = "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
  bool first = true;
  auto add = [&](const std::string& e) {
    out += first ? "  " : ",\n  ";
    out += e;
    first = false;
  };
  std::set<uint32_t> queues;
  for (const auto& e : events) queues.insert(e.queue_id);
  for (uint32_t q : queues) {
    add(fmt::format(R"({{"ph": "M", "name": "process_name", "pid": {}, "args": {{"name": "user queue {}"}}}})", q, q));
    for (int t = 0; t < 3; t++)
      add(fmt::format(R"({{"ph": "M", "name": "thread_name", "pid": {}, "tid": {}, "args": {{"name": "{}"}}}})", q,
                      t + 1, to_string(FirmwareQueue(t))));
  }
  for (const auto& e : events) {
    int tid = int(e.queue) + 1;
    double ts_us = double(e.start_ns) / 1000.0;
    bool run = e.text.starts_with("RUN");
    if (run)
      add(fmt::format(R"({{"ph": "X", "name": "{}", "pid": {}, "tid": {}, "ts": {:.3f}, "dur": {:.3f}, "args": {{"submit": {}}}}})",
                      e.text.substr(4), e.queue_id, tid, ts_us, double(e.end_ns - e.start_ns) / 1000.0,
                      e.submit_seqno));
    else
      add(fmt::format(R"({{"ph": "i", "s": "t", "name": "{}", "pid": {}, "tid": {}, "ts": {:.3f}, "args": {{"submit": {}}}}})",
                      e.text, e.queue_id, tid, ts_us, e.submit_seqno));
  }
  out += "\n]}\n";
  return out;
}

}  // namespace agx::kmd
