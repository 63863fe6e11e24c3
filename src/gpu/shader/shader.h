// The USC front end every data master of the software GPU shares (the CDM
// for compute, the VDM for vertex shaders, the PDM for fragment shaders and
// the background / end-of-tile programs): USC programs loaded from an
// address and cached, USC word lists (cmdbuf.xml "USC state") read into a
// UscState, packet words checked against the cmdstream tables, the worker
// threads, and the fault plumbing (an Error whose message is a GpuFault's
// reason). The folders of src/gpu include it; outside src/gpu only its
// Bindings and FixedFunctionFactory are used (through gpu/cdm/cdm.h).
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "cmdstream/field_table.h"
#include "cmdstream/stream_walk.h"
#include "cmdstream/typed.h"
#include "gpu/texture/texture.h"
#include "usc/usc.h"
#include "util/gpu_memory.h"

namespace agx::gpu {

// Every failure of an executor is a GPU fault: an Error whose message is
// the fault's reason, plus the address, access and unit written to *where.
Error fail(GpuFault* where, GpuVa va, GpuUnit unit, Error error);

// How a control-stream walk (cmdstream/stream_walk.h) of `unit` ended, as
// the data master reports it: a terminate is success, a stop is the
// visitor's own `stopped` status, every other end a fault with the
// walker's text (an unreadable head keeps its address and unit).
Status walk_outcome(const cmdstream::WalkEnd& end, Status stopped, GpuUnit unit, GpuFault* where);

// Reads `size` bytes at `va` for `unit`; a fault fills *where.
Status read_gpu(GpuMemory& m, GpuVa va, void* dst, size_t size, GpuUnit unit, GpuFault* where);

// ---------------------------------------------------------------------------
// Programs: USC code found at an address, decoded once and cached.

struct LoadedProgram {
  usc::Program program;
  std::vector<uint8_t> bytes;    // the code the program was decoded from
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

// Faults when `p` names more 16-bit register halves than the USC word list
// allocated; `what` names the program ("the shader", "the preshader").
Status check_registers(const LoadedProgram& p, uint32_t allocated_halves, const char* what, GpuVa code,
                       GpuFault* where);

// ---------------------------------------------------------------------------
// Packet words through the cmdstream tables (cmdstream/typed.h). A word
// with bits no field covers, or an exact field (Block Type, Tag) holding
// anything else, is a bad word: the hardware would not know it. Errors name
// the struct and the field.

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
inline GpuVa address(uint64_t hi, uint64_t lo) { return hi << 32 | lo; }

// ---------------------------------------------------------------------------
// USC word lists.

// What a block bound for the texture unit: the texture and sampler state
// registers as the USC Texture / Sampler words loaded them (load_state_word,
// texture.h), and the command's sampler heap. The texture unit (a
// usc::FixedFunction) reads them.
struct Bindings {
  GpuMemory* memory = nullptr;
  TextureState state;
  GpuVa sampler_heap = 0;
  uint32_t sampler_count = 0;
};

// Makes the fixed-function unit one worker uses for one launch, draw or tile.
using FixedFunctionFactory = std::function<std::unique_ptr<usc::FixedFunction>(const Bindings&)>;

// The state-register counts a block declares for its shader: CDM Launch
// Word 0, VDM State Vertex Shader Word 0 and Fragment Shader Word 0 carry
// the same four fields.
struct UscCounts {
  uint32_t uniform_halves = 0;
  uint32_t texture_states = 0;
  uint32_t sampler_states = 0;
  bool extended_samplers = false;
  uint32_t preshader_halves = 0;
};

// The counts of such a word (`word` names it in errors); a Sampler state
// register count that names no count is a decode error.
Result<UscCounts> usc_counts(uint64_t uniform_halves, uint64_t texture_states, cmdstream::SamplerStates samplers,
                             uint64_t preshader_halves, std::string_view word);
template <class W>
Result<UscCounts> usc_counts(const W& w) {
  return usc_counts(w.uniform_register_count, w.texture_state_register_count, w.sampler_state_register_count,
                    w.preshader_register_count, W::kName);
}

// Where a word list is and what it may hold.
struct UscWordList {
  GpuVa at = 0;             // absolute address of the first word
  GpuVa usc_exec_base = 0;  // of the queue: Shader and Preshader code are relative to it
  UscCounts counts;
  GpuVa sampler_heap = 0;   // of the command
  uint32_t sampler_count = 0;
  GpuUnit unit = GpuUnit::cdm;  // the reader (faults name it)
  bool fragment = false;    // Fragment Properties is allowed (fragment shaders and bg/eot programs)
};

// The state a USC word list sets up.
struct UscState {
  std::array<uint32_t, usc::kUniforms> uniforms{};
  Bindings bindings;  // for the texture unit
  bool uses_shared = false;
  uint32_t shared_B = 0;            // threadgroup memory per threadgroup
  cmdstream::SharedLayout shared_layout{};  // the Shared word's Layout (tilebuffer formats)
  uint32_t shared_samples = 1;      // its Sample count
  uint32_t shared_sample_stride_B = 0;  // its Sample stride, in bytes
  bool has_shader = false;
  GpuVa code = 0;                   // absolute (usc_exec_base + Code)
  bool loads_varyings = false;      // the Shader word's Loads varyings
  bool has_registers = false;
  uint32_t register_halves = 0;     // GPRs allocated, in 16-bit halves
  uint32_t stack_per_thread_B = 0;  // scratch, from the Registers word's spill size
  uint32_t spill_bucket = 0;        // the Registers word's Spill size (the helper's argument)
  bool has_preshader = false;
  GpuVa preshader = 0;              // absolute
  bool has_fragment_properties = false;
  cmdstream::UscFragmentProperties fragment_properties{};
};

// The length of the USC word with control tag `tag` (its typed struct's
// size), or an error naming the tag; Fragment Properties only where
// `fragment` allows it.
Result<size_t> usc_word_length(uint8_t tag, bool fragment);

// Reads a word list: words in any order, ended by Preshader or No
// Preshader.
Result<UscState> read_usc_words(GpuMemory& m, const UscWordList& list, GpuFault* where);

// ---------------------------------------------------------------------------
// A VM view for one worker: remembers the last fault so a failed access
// reports its address, and caches translations by 16 KiB UAT page until
// reset() (call it whenever the VM may have changed: at each threadgroup,
// tile or vertex batch).

class RecordingMemory final : public GpuMemory {
 public:
  GpuMemory* inner = nullptr;
  bool faulted = false;
  GpuFault last;
  bool read(GpuVa va, void* dst, size_t size, GpuUnit unit, GpuFault* fault) override;
  bool write(GpuVa va, const void* src, size_t size, GpuUnit unit, GpuFault* fault) override;
  uint8_t* host_pointer(GpuVa va, size_t size, Access access) override;
  void reset();

 private:
  static constexpr GpuVa kWindow_B = 16 * 1024;
  static constexpr unsigned kCached = 8;
  struct Cached {
    GpuVa window = 0;
    uint8_t* host = nullptr;
    Access access = Access::read;
  };
  std::array<Cached, kCached> cached_{};
  unsigned next_ = 0;
  void note(const GpuFault* fault);
};

// Fills *where for a USC failure: a memory fault keeps its address, other
// failures point at the instruction; `ctx` says where in the command.
Error usc_fault(GpuFault* where, RecordingMemory& mem, const usc::Core& c, Error e, const std::string& ctx);

// ---------------------------------------------------------------------------
// The preshader of a word list: one thread (lane 0) on `core`, before any
// thread of the shader; its uniform_store results become usc.uniforms.
// `core` is set up afresh (registers up to the preshader's count zeroed,
// the word list's uniforms, `placement`, core index and VM slot 0).
struct PreshaderRun {
  GpuMemory* memory = nullptr;
  ProgramCache* programs = nullptr;
  const FixedFunctionFactory* fixed_function = nullptr;  // may be null or empty
  uint64_t step_limit = 0;
  uint32_t preshader_halves = 0;  // allocated by the block's counts
  usc::Placement placement;
  std::string context;            // prefixes errors ("launch at 0x...")
};
Status run_preshader(const PreshaderRun& run, usc::Core& core, RecordingMemory& memory, UscState& usc,
                     GpuFault* where);

// The G13G's USC cores: a threadgroup's (or a tile's) number mod 8 is the
// core it runs on (sr20 core_index, and the helper's per-core records).
inline constexpr uint32_t kUscCores = 8;

// The helper program's stack bookkeeping on the header at `header`
// (shader/helper.cpp): `groups` SIMD groups of spill size bucket `bucket`
// take, or give back, stack blocks of core `core`. A refused allocation
// (every subgroup's blocks in use) faults.
Status helper_stack_alloc(GpuMemory& m, GpuVa header, uint32_t core, uint32_t bucket, uint32_t groups,
                          GpuFault* where);
Status helper_stack_free(GpuMemory& m, GpuVa header, uint32_t core, uint32_t groups, GpuFault* where);

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

// AGX_GPU_THREADS if set (1..256), else the host's cores.
unsigned default_threads_from_env();
// A data master's instruction limit per SIMD group: `option` when not 0,
// else AGX_GPU_STEP_LIMIT when it is a number >= 1, else `fallback`.
uint64_t step_limit_from_env(uint64_t option, uint64_t fallback);
// A count option: `option` when not 0, else the environment variable
// `name` when it is a number >= 1, else `fallback`.
uint64_t count_from_env(const char* name, uint64_t option, uint64_t fallback);

}  // namespace agx::gpu
