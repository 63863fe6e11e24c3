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
  // given, and one MAP chunk per bound range of `vm` with its bytes now.
  // The record is written under an exclusive flock, so processes sharing a
  // file never interleave records.
  Status write_submit(const trace::SubmitInfo& info, std::span<const uint8_t> cmdbuf,
                      std::span<const drm_asahi_sync> syncs, Vm& vm, const trace::FaultInfo* fault = nullptr,
                      std::string_view reason = {});
  const std::string& path() const { return path_; }

 private:
  TraceWriter(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_;
  std::string path_;
  std::mutex mu_;
};

}  // namespace agx::kmd
