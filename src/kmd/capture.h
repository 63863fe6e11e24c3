// The writer of trace files and crash dumps (format: kmd/trace_format.h).
// Never included outside src/kmd.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "kmd/internal.h"
#include "kmd/trace_format.h"

namespace agx::kmd {

class TraceWriter {
 public:
  // Opens `path` for appending (kind trace) or creates it (kind crash_dump);
  // a new or empty file gets the file header and the PARM chunk. A trace
  // file that already holds another format or version is an error.
  static Result<std::shared_ptr<TraceWriter>> open(const std::string& path, trace::FileKind kind,
                                                   const drm_asahi_params_global& params);
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  // Appends one submit: SUBM, CMDB, SYNC, the FALT chunk when `fault` is
  // given, and one MAP chunk per piece of `pages` that a mapping of `vm`
  // holds, with its bytes now (chunks compressed with zlib where that is
  // smaller). The record is written under an exclusive flock, so processes
  // sharing a file never interleave records.
  Status write_submit(const trace::SubmitInfo& info, std::span<const uint8_t> cmdbuf,
                      std::span<const drm_asahi_sync> syncs, Vm& vm,
                      std::span<const mem::AddressSpace::TouchedRange> pages, const trace::FaultInfo* fault = nullptr,
                      std::string_view reason = {});
  const std::string& path() const { return path_; }

 private:
  TraceWriter(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_;
  std::string path_;
  std::mutex mu_;
};

// The trace record of a job, written when it completes.
struct PendingCapture {
  std::shared_ptr<TraceWriter> writer;
  trace::SubmitInfo info{};
  std::vector<drm_asahi_sync> syncs;
};

// The pages a job's record holds: those of its VM touched since the job's
// mark (what its commands read or wrote, and anything else that ran on the
// VM meanwhile), and the pages of each command's control stream (compute:
// cdm_ctrl_stream_base up to cdm_ctrl_stream_end, at most 1 MiB; render:
// the page at vdm_ctrl_stream_base), so a stream the executor never read is
// still there to decode.
std::vector<mem::AddressSpace::TouchedRange> capture_pages(Vm& vm, const Job& job);

}  // namespace agx::kmd
