// Private to src/gpu/cdm/ (shared by its files); never included
// outside that folder.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cmdstream/stream_walk.h"
#include "cmdstream/typed.h"
#include "gpu/cdm/cdm.h"

namespace agx::gpu::detail {

// Every failure of the executor is a GPU fault: an Error whose message is
// the fault's reason, plus the address, access and unit written to *where.
Error fail(GpuFault* where, GpuVa va, GpuUnit unit, Error error);

// Reads `size` bytes at `va` for `unit`; a fault fills *where.
Status read_gpu(GpuMemory& m, GpuVa va, void* dst, size_t size, GpuUnit unit, GpuFault* where);

// ---------------------------------------------------------------------------
// Programs: USC code found at an address, decoded once and cached.

struct LoadedProgram {
  usc::Program program;
  std::vector<uint8_t> bytes;   // the code the program was decoded from
  uint32_t register_halves = 0;  // 16-bit GPR halves the code names (r0l = 1)
  bool writes_uniforms = false;  // has uniform_store: SIMD groups need a fresh uniform file
};
using ProgramPtr = std::shared_ptr<const LoadedProgram>;

// The code of a program ends at the first `stop` no branch seen so far
// jumps past (or at bytes that do not decode). Loads are cached by address
// and reused while the bytes there are unchanged.
class ProgramCache {
 public:
  Result<ProgramPtr> load(GpuMemory& m, GpuVa code, GpuFault* where);

 private:
  std::mutex mu_;
  std::map<GpuVa, ProgramPtr> cache_;
};

inline constexpr size_t kMaxProgram_B = 1 << 20;

// ---------------------------------------------------------------------------
// The state a USC word list sets up for one Launch.

struct UscState {
  std::array<uint32_t, usc::kUniforms> uniforms{};
  Bindings bindings;
  bool uses_shared = false;
  uint32_t shared_B = 0;          // threadgroup memory per threadgroup
  bool has_shader = false;
  GpuVa code = 0;                 // absolute (usc_exec_base + Code)
  bool has_registers = false;
  uint32_t register_halves = 0;   // GPRs allocated, in 16-bit halves
  uint32_t stack_per_thread_B = 0;  // scratch, from the Registers word's spill size
  uint32_t spill_bucket = 0;        // the Registers word's Spill size (the helper's argument)
  bool has_preshader = false;
  GpuVa preshader = 0;            // absolute
};

// What Launch Word 0 declares.
struct LaunchCounts {
  uint32_t uniform_halves = 0;
  uint32_t texture_states = 0;
  uint32_t sampler_states = 0;
  bool extended_samplers = false;
  uint32_t preshader_halves = 0;
};

// One Launch block of the stream, as read.
struct LaunchBlock {
  GpuVa at = 0;                   // address of Launch Word 0
  LaunchCounts counts;
  cmdstream::CdmMode mode = cmdstream::CdmMode::kDirect;
  GpuVa usc_words = 0;            // absolute
  std::array<uint32_t, 3> global{};  // direct: threads
  std::array<uint32_t, 3> local{};
  GpuVa indirect = 0;
};

// ---------------------------------------------------------------------------
// The words, unpacked through the cmdstream tables into their typed structs
// (cmdstream/typed.h; words.cpp). A word with bits no field covers, or an
// exact field (Block Type, Tag) holding anything else, is a bad word: the
// hardware would not know it. Errors name the struct and the field.

// The two checks of read_word (words.cpp): no bit outside every field set,
// every exact field at its value.
Status check_covered(const cmdstream::StructDesc& d, std::span<const uint8_t> covered,
                     std::span<const uint8_t> bytes);
Status check_exact(const cmdstream::StructDesc& d, std::span<const uint8_t> bytes);
template <class T>
Result<T> read_word(std::span<const uint8_t> bytes) {
  if (bytes.size() < T::kSize_B)
    return Error::decode("{}: {} bytes, {} needed", T::kName, bytes.size(), T::kSize_B);
  bytes = bytes.first(T::kSize_B);
  static const std::vector<uint8_t> covered = cmdstream::covered_bits(cmdstream::desc_of<T>());
  AGX_CHECK(check_covered(cmdstream::desc_of<T>(), covered, bytes));
  AGX_CHECK(check_exact(cmdstream::desc_of<T>(), bytes));
  return cmdstream::unpack<T>(bytes);
}

// The CDM block a stream word starts (every CDM struct has the Block Type
// at the same bits); a type that names no block is a decode error.
Result<cmdstream::CdmBlockType> block_type(std::span<const uint8_t> word);
// What Launch Word 0 declares (a Sampler state register count or a Mode
// that names none is a decode error).
Result<LaunchCounts> launch_counts(const cmdstream::CdmLaunchWord0& w);
inline GpuVa address(uint64_t hi, uint64_t lo) { return hi << 32 | lo; }

// The length of the USC word with control tag `tag` (its typed struct's
// size), or an error naming the tag; Fragment Properties is refused (it
// belongs to fragment shaders).
Result<size_t> usc_word_length(uint8_t tag);

// Reads the USC word list at block.usc_words.
Result<UscState> read_usc_words(GpuMemory& m, const kmd::FirmwareCommand& cmd, const LaunchBlock& block,
                                GpuFault* where);

// ---------------------------------------------------------------------------
// Worker threads: run(count, fn) calls fn(worker, item) for every item in
// 0..count-1 on up to `threads` workers (the caller is worker 0), items
// claimed in increasing order.

class WorkerPool {
 public:
  explicit WorkerPool(unsigned threads);
  ~WorkerPool();
  unsigned threads() const { return threads_; }
  void run(uint64_t count, const std::function<void(unsigned worker, uint64_t item)>& fn);

 private:
  void loop(unsigned worker);
  void work(unsigned worker);
  unsigned threads_;
  std::mutex mu_;
  std::condition_variable cv_, done_cv_;
  std::vector<std::thread> pool_;
  std::atomic<const std::function<void(unsigned, uint64_t)>*> fn_{nullptr};
  std::atomic<uint64_t> count_{0};
  uint64_t generation_ = 0;
  std::atomic<uint64_t> next_{0};
  unsigned busy_ = 0;
  bool closing_ = false;
};

// ---------------------------------------------------------------------------
// Running one Launch.

struct Counters {
  std::atomic<uint64_t> commands{0}, launches{0}, threadgroups{0}, simdgroups{0}, preshader_runs{0},
      barriers{0}, faults{0};
};

// The helper program's stack bookkeeping on the header at `header`
// (cdm_helper.cpp): `groups` SIMD groups of spill size bucket `bucket`
// take, or give back, stack blocks of core `core`. A refused allocation
// (every subgroup's blocks in use) faults.
Status helper_stack_alloc(GpuMemory& m, GpuVa header, uint32_t core, uint32_t bucket, uint32_t groups,
                          GpuFault* where);
Status helper_stack_free(GpuMemory& m, GpuVa header, uint32_t core, uint32_t groups, GpuFault* where);

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

unsigned default_threads_from_env();

// Walks the command's stream, running each Launch.
Status run_stream(Engine& engine, const kmd::FirmwareCommand& cmd, GpuFault* where);

}  // namespace agx::gpu::detail
