// Private to src/gpu/cdm/ (shared by its files); never included
// outside that folder.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cmdstream/stream_walk.h"
#include "cmdstream/typed.h"
#include "gpu/cdm/cdm.h"
#include "gpu/shader/shader.h"

namespace agx::gpu::detail {

// One Launch block of the stream, as read.
struct LaunchBlock {
  GpuVa at = 0;                   // address of Launch Word 0
  UscCounts counts;                // what Launch Word 0 declares
  cmdstream::CdmMode mode = cmdstream::CdmMode::kDirect;
  GpuVa usc_words = 0;            // absolute
  std::array<uint32_t, 3> global{};  // direct: threads
  std::array<uint32_t, 3> local{};
  GpuVa indirect = 0;
};

// ---------------------------------------------------------------------------
// The CDM words (words.cpp), read through the cmdstream tables with
// read_word (gpu/shader/shader.h).

// The CDM block a stream word starts (every CDM struct has the Block Type
// at the same bits); a type that names no block is a decode error.
Result<cmdstream::CdmBlockType> block_type(std::span<const uint8_t> word);
// What Launch Word 0 declares (a Sampler state register count or a Mode
// that names none is a decode error).
Result<UscCounts> launch_counts(const cmdstream::CdmLaunchWord0& w);

// ---------------------------------------------------------------------------
// Running one Launch.

struct Counters {
  std::atomic<uint64_t> commands{0}, launches{0}, threadgroups{0}, simdgroups{0}, preshader_runs{0},
      barriers{0}, faults{0};
};


struct Engine;  // per-executor: pool, per-worker cores, options
Status run_launch(Engine& engine, const kmd::FirmwareCommand& cmd, const LaunchBlock& block, GpuFault* where);

struct Engine {
  explicit Engine(CdmOptions o);
  ~Engine();
  CdmOptions options;
  uint64_t step_limit = kDefaultStepLimit;
  ProgramCache programs;
  Counters counters;
  std::mutex run_mu;  // one launch at a time uses the workers
  std::mutex helper_mu;  // the helper program answers one request at a time
  std::unique_ptr<WorkerPool> pool;
  uint64_t launch_serial = 0;  // numbers launches, so cores know when their uniforms are stale
  struct Worker;
  std::vector<std::unique_ptr<Worker>> workers;
};

// Walks the command's stream, running each Launch.
Status run_stream(Engine& engine, const kmd::FirmwareCommand& cmd, GpuFault* where);

}  // namespace agx::gpu::detail
