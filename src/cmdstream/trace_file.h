// The model of a trace file (AGX_TRACE) or crash dump (AGX_CRASH_DIR): the
// submits it holds, each with its command buffer, syncs, the queue's VM
// mappings and their bytes, and for a crash dump the fault. The format is
// kmd/trace_format.h, specified in docs/cmdstream.md ("Trace format").
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "agx/asahi_drm.h"
#include "kmd/kmd.h"
#include "kmd/trace_format.h"
#include "util/gpu_memory.h"
#include "util/result.h"

namespace agx::cmdstream {

struct TraceMapping {
  uint64_t va = 0;
  uint64_t size_B = 0;
  uint32_t flags = 0;          // kmd::trace::kMap*
  std::vector<uint8_t> data;   // size_B bytes, or one page when kMapSinglePage
};

struct TraceFault {
  uint64_t va = 0;
  uint64_t time_ns = 0;
  uint32_t command_index = 0;
  kmd::FirmwareQueue queue = kmd::FirmwareQueue::compute;
  Access access = Access::read;
  GpuUnit unit = GpuUnit::usc;
  std::string reason;
};

struct TraceSubmit {
  kmd::trace::SubmitInfo info{};
  std::vector<uint8_t> cmdbuf;
  std::vector<drm_asahi_sync> syncs;
  std::vector<TraceMapping> mappings;  // sorted by va, never overlapping
  std::optional<TraceFault> fault;
};

struct Trace {
  kmd::trace::FileKind kind = kmd::trace::FileKind::trace;
  uint32_t version = 0;
  drm_asahi_params_global params{};
  std::vector<TraceSubmit> submits;
};

// Parses a whole file. Every chunk is checked (sizes inside the file, known
// tags, payload sizes, mappings that fit and do not overlap); an error
// names the byte offset and the chunk.
Result<Trace> read_trace(std::span<const uint8_t> bytes);
Result<Trace> read_trace_file(const std::string& path);

// One hardware command of a command buffer, with the attachments set before
// it (zero-extended payloads, as the kmd reads them).
struct TraceCommand {
  uint32_t index = 0;           // #N among hardware commands
  uint32_t offset_B = 0;        // of its header in the command buffer
  uint16_t type = 0;            // DRM_ASAHI_CMD_RENDER or DRM_ASAHI_CMD_COMPUTE
  uint16_t vdm_barrier = 0, cdm_barrier = 0;
  drm_asahi_cmd_render render{};
  drm_asahi_cmd_compute compute{};
  std::vector<drm_asahi_attachment> attachments;           // vertex or compute
  std::vector<drm_asahi_attachment> fragment_attachments;  // render only
};

// Splits a command buffer into its hardware commands; a truncated header
// or payload, an oversized payload with nonzero tail, or an unknown command
// type is an error naming the offset.
Result<std::vector<TraceCommand>> parse_cmdbuf(std::span<const uint8_t> cmdbuf);

// The captured memory of one submit as GpuMemory: reads of mapped bytes
// succeed (writes never do: a trace is read-only); anything else is a fault
// naming the address.
class TraceMemory final : public GpuMemory {
 public:
  explicit TraceMemory(const TraceSubmit& submit) : maps_(submit.mappings) {}
  bool read(GpuVa va, void* dst, size_t size, GpuUnit unit, GpuFault* fault) override;
  bool write(GpuVa va, const void* src, size_t size, GpuUnit unit, GpuFault* fault) override;
  // The mapping holding va, or nullptr.
  const TraceMapping* find(GpuVa va) const;

 private:
  const std::vector<TraceMapping>& maps_;
};

}  // namespace agx::cmdstream
