// The firmware queue view of a submission, in the notation of the Asahi
// driver notes (seed 001, "SW:AGX driver notes"): a submission is a list of
// commands such as
//
//   #3 R2 barrier=[R1, C2]
//
// (render or compute, numbered from 1 per subqueue, with a render barrier and
// a compute barrier: "__" = NONE, R0/C0 = all earlier work of the subqueue,
// Rn/Cn = the n-th command boundary of this submit), and its view is the
// RUN/WAIT entries of the three firmware queues: for a render command, its
// explicit barrier waits then "RUN Rnv" go to the vertex queue and
// "WAIT Rnv" then "RUN Rnf" to the fragment queue; a compute command's waits
// and "RUN Cn" go to the compute queue.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kmd/kmd.h"
#include "util/result.h"

namespace agx::kmd {

inline constexpr uint16_t kBarrierNone = DRM_ASAHI_BARRIER_NONE;
inline constexpr uint32_t kMaxCommandsPerSubmission = 64;
// Largest SUBMIT command buffer accepted (-EINVAL above): 64 commands with
// their attachment lists fit many times over. Our choice (docs/kmd.md).
inline constexpr uint64_t kMaxCmdbufSize_B = 1u << 20;

enum class CommandKind : uint8_t { render, compute };

// One hardware command of a submission, as the scheduler sees it.
struct PlanCommand {
  CommandKind kind = CommandKind::compute;
  uint16_t vdm_barrier = kBarrierNone;  // render boundary index, or NONE
  uint16_t cdm_barrier = kBarrierNone;  // compute boundary index, or NONE
};

// One RUN or WAIT entry of a firmware queue.
struct ViewEntry {
  FirmwareQueue queue = FirmwareQueue::compute;
  bool run = false;
  char letter = 'C';  // 'C' or 'R'
  uint32_t number = 0;
  char half = 0;      // 'v', 'f' or 0 (compute)
  std::string text() const;  // "RUN C1", "WAIT R1f"
};

struct FirmwareView {
  std::vector<std::string> compute, vertex, fragment;
};

// Parses the seed's notation: one command per line, optional "#N" index
// prefix (checked), "# ..." comments, blank lines. Errors name the line.
Result<std::vector<PlanCommand>> parse_plan(std::string_view text);

// Checks barriers like SUBMIT (-EINVAL cases): 1..64 commands, no barrier on
// a future boundary. Errors name the command.
Status validate_plan(std::span<const PlanCommand> commands);

// The entries of one command (its waits, then its run), in queue order.
// `ordinal` is the command's 1-based number within its subqueue.
std::vector<ViewEntry> command_view(const PlanCommand& command, uint32_t ordinal);

// The whole submission's view (commands must be valid).
FirmwareView firmware_view(std::span<const PlanCommand> commands);

// "Compute  Vertex  Fragment" table with left-aligned columns (the seed's
// table; collapsing runs of spaces gives the seed's lines exactly).
std::string format_table(const FirmwareView& view);
// {"compute": [...], "vertex": [...], "fragment": [...]}
std::string format_json(const FirmwareView& view);

// A logical timeline of the submission: every RUN takes one time unit
// (1000 ns) and starts as soon as its queue and its waits allow. Events carry
// queue_id 0 and submit_seqno 1.
std::vector<FirmwareEvent> logical_timeline(std::span<const PlanCommand> commands);

// Runs the submission on `device` (a fresh file, VM and queue; compute and
// minimal render payloads with the plan's barriers) with recording on, and
// returns the firmware queue events the device recorded, with real times.
Result<std::vector<FirmwareEvent>> run_plan_live(Device& device, std::span<const PlanCommand> commands);

// The view of recorded events (in their order).
FirmwareView view_of(std::span<const FirmwareEvent> events);

// Perfetto / Chrome trace JSON ({"traceEvents": [...]}): one process per user
// queue, one thread per firmware queue, RUN entries as complete events and
// WAIT entries as instant events.
std::string chrome_trace_json(std::span<const FirmwareEvent> events);

}  // namespace agx::kmd
