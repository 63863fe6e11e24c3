// A thin compute session over the Asahi UAPI of an in-process kmd Device,
// for the software GPU's tests and benchmarks (a test of a lower unit may
// link the runtime; the gpu library itself never does): one VM, one
// queue whose usc_exec_base is the start of a GPU arena (a bound GEM object
// mapped on the host), bump allocation in the arena, launches packed by the
// runtime's encoder (runtime/encoder.h), and submits waited for with the
// faults the device recorded counted rather than turned into errors, so a
// test can read each one.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "cmdstream/typed.h"
#include "runtime/encoder.h"
#include "runtime/runtime.h"
#include "util/gpu_memory.h"
#include "util/result.h"

namespace agx::runtime {

class ComputeSession {
 public:
  static constexpr uint64_t kArenaVa = 0x1'0000'0000;  // = the queue's usc_exec_base

  // Opens a File on `device`, makes a VM, binds an arena of `arena_B`
  // bytes (rounded to 16 KiB) and makes a queue.
  static Result<std::unique_ptr<ComputeSession>> open(kmd::Device& device, uint64_t arena_B);
  ~ComputeSession();

  // Bump allocation in the arena (zeroed by the GEM object); `va` to host.
  Result<uint64_t> alloc(uint64_t size_B, uint64_t align_B = 64);
  uint8_t* host(uint64_t va) { return host_ + (va - kArenaVa); }
  template <class T>
  T* host_as(uint64_t va) { return reinterpret_cast<T*>(host(va)); }
  Result<uint64_t> upload(std::span<const uint8_t> bytes, uint64_t align_B = 64);
  // Assembles AGX code (applegpu syntax, `;` or newlines between
  // instructions) at a fresh 128-byte aligned address.
  Result<uint64_t> assemble(std::string_view text);
  // An address as a USC offset (what Shader Code and Launch Pipeline hold).
  uint32_t usc_offset(uint64_t va) const { return static_cast<uint32_t>(va - kArenaVa); }

  // Submits one compute command whose stream runs from `stream` to
  // `stream_end`, waits for it, and returns the number of faults the
  // device recorded for it (0 or 1).
  Result<size_t> run(uint64_t stream, uint64_t stream_end, const drm_asahi_cmd_compute* extra = nullptr);
  // Submits one render command (both halves), waits for it, and returns
  // the number of faults the device recorded for it (0, 1 or 2).
  Result<size_t> run_render(const drm_asahi_cmd_render& command);
  // The last fault the device recorded (after run or run_render found one).
  GpuFault last_fault() const { return last_; }

  // The ioctls, mmaps and object ids, for tests that make objects of their own.
  Transport& transport() { return *transport_; }
  uint32_t queue_id() const { return queue_; }
  uint32_t vm_id() const { return vm_; }
  uint64_t arena_B() const { return arena_B_; }
  uint64_t used_B() const { return used_; }
  void reset_arena(uint64_t keep_B) { used_ = keep_B; }

 private:
  ComputeSession() = default;
  template <class Command>
  Result<size_t> submit_one(uint16_t type, const Command& command);
  kmd::Device* device_ = nullptr;
  std::unique_ptr<Transport> transport_;
  uint32_t vm_ = 0, queue_ = 0, gem_ = 0, syncobj_ = 0;
  uint8_t* host_ = nullptr;
  uint64_t arena_B_ = 0, used_ = 0;
  GpuFault last_;
};

// A kernel launch whose code is already in the session's arena. Packed as
// given (UscWordList, CdmLaunch): nothing is checked, so tests can hand the
// hardware malformed launches.
struct KernelLaunch {
  uint64_t code = 0;                 // from assemble()
  uint64_t preshader = 0;            // 0: No Preshader
  uint32_t register_halves = 256;    // USC Registers count (16-bit halves)
  uint32_t preshader_halves = 16;    // Launch Word 0, with a preshader
  uint32_t spill_bucket = 0;         // USC Registers spill size
  uint32_t shared_B = 0;             // 0: no threadgroup memory
  std::vector<uint32_t> uniforms;    // u0.. (copied by Uniform words from an upload)
  std::array<uint32_t, 3> grid{1, 1, 1};   // Direct: threads
  std::array<uint32_t, 3> local{32, 1, 1};
  cmdstream::CdmMode mode = cmdstream::CdmMode::kDirect;
  uint64_t indirect = 0;             // for the indirect modes
};

// Uploads the uniforms and the USC word list; returns the word list's
// address (64-byte aligned, as Launch Word 1 needs).
Result<uint64_t> upload_usc_words(ComputeSession& s, const KernelLaunch& k);
// Appends the launch (push_cdm_launch) for a word list at `usc_words`.
Status push_launch(std::vector<uint8_t>& stream, ComputeSession& s, const KernelLaunch& k, uint64_t usc_words);

}  // namespace agx::runtime
