// The CDM (Compute Data Master) of the software GPU: gpu::CdmExecutor, a
// kmd::Executor that runs the compute commands a driver submits. It walks
// the CDM control stream of drm_asahi_cmd_compute in the queue's VM (the
// cmdstream unit's stream walker), reads each Launch's USC word list
// (uniforms, texture and sampler state, threadgroup memory, shader,
// registers, preshader) and runs the kernel's threadgroups on the USC
// emulator, spread over worker threads. docs/gpu.md describes every word
// and the choices made where the hardware is not publicly known (preshader
// frequency, scratch, limits).
//
// The public header of src/gpu/cdm/; the rest of the folder's declarations
// are in cdm_internal.h, which nothing outside the folder includes.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "gpu/shader/shader.h"
#include "gpu/texture/texture.h"
#include "kmd/kmd.h"
#include "usc/usc.h"
#include "util/gpu_memory.h"

namespace agx::gpu {

inline constexpr uint64_t kDefaultStepLimit = 50'000'000;       // per SIMD group
inline constexpr uint64_t kDefaultThreadgroupLimit = 1ull << 26;  // per launch
inline constexpr uint32_t kDefaultStreamBlockLimit = 1u << 20;    // per command
inline constexpr unsigned kMaxStreamCallDepth = 8;                // Stream Link with return

struct CdmOptions {
  unsigned threads = 0;          // worker threads; 0: AGX_GPU_THREADS, else the host's cores
  uint64_t step_limit = 0;       // instructions per SIMD group; 0: AGX_GPU_STEP_LIMIT or the default
  uint64_t threadgroup_limit = kDefaultThreadgroupLimit;
  uint32_t stream_block_limit = kDefaultStreamBlockLimit;
  FixedFunctionFactory fixed_function;  // null: texture/image instructions fault
};

// Counters since the executor was made (observable choices: one preshader
// run per Launch that has one).
struct CdmStats {
  uint64_t commands = 0;
  uint64_t launches = 0;
  uint64_t threadgroups = 0;
  uint64_t simdgroups = 0;
  uint64_t preshader_runs = 0;
  uint64_t barriers = 0;
  uint64_t faults = 0;
};

class CdmExecutor final : public kmd::Executor {
 public:
  explicit CdmExecutor(CdmOptions options = {});
  ~CdmExecutor() override;
  CdmExecutor(const CdmExecutor&) = delete;
  CdmExecutor& operator=(const CdmExecutor&) = delete;

  // Compute commands run; render halves fault (GpuExecutor runs them). On a fault
  // *fault names the address, the unit and (in reason) the pc and where in
  // the stream; the rest of the command is skipped.
  bool execute(const kmd::FirmwareCommand& command, GpuFault* fault) override;

  CdmStats stats() const;
  unsigned threads() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// The worker count a default executor uses: AGX_GPU_THREADS if set (1..256),
// else the host's cores.
unsigned default_threads();

}  // namespace agx::gpu
