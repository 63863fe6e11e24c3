// The Unified Shader Core (USC) emulator: executes AGX (G13) machine code one
// SIMD group of 32 threads at a time, bit for bit as the hardware does where
// its behaviour is known (dougallj/applegpu applegpu.py `exec` methods and
// fma.py; see docs/usc.md for what is derived rather than hardware-tested).
//
// Programs are decoded once (compile) into steps; each step then executes
// for all 32 lanes with loops over lane arrays.
#pragma once

#include <array>
#include <functional>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "isa/isa.h"
#include "util/gpu_memory.h"
#include "util/result.h"

namespace agx::usc {

inline constexpr unsigned kLanes = 32;          // threads in a SIMD group
inline constexpr unsigned kRegisters = 128;     // r0..r127, 32 bits per thread
inline constexpr unsigned kUniforms = 256;      // u0..u255, 32 bits, shared
inline constexpr unsigned kSpecialRegisters = 256;  // sr0..sr255

using LaneArray = std::array<uint32_t, kLanes>;

// The architectural state of one SIMD group.
struct alignas(64) Core {  // cache-line aligned: each register is two whole lines
  std::array<LaneArray, kRegisters> r{};  // r[n][lane]; rNl = low half, rNh = high
  std::array<uint32_t, kUniforms> u{};    // uniform registers
  uint32_t exec = 0xFFFFFFFFu;            // bit t = lane t active
  // Lanes that hold a thread: the execution-mask stack never activates the
  // others (the last SIMD group of a threadgroup whose size is not a
  // multiple of 32). A dispatch sets it with exec.
  uint32_t present = 0xFFFFFFFFu;
  uint64_t pc = 0;                        // byte address of the next instruction
  // Special registers (get_sr), per lane. Dynamic ones (active thread index,
  // is_active_thread) are computed from `exec` when read.
  std::array<LaneArray, kSpecialRegisters> sr{};
  std::array<bool, kSpecialRegisters> sr_known{};  // false: get_sr reports an error
  // Which registers an instruction wrote since the last clear (for JSON output).
  std::array<bool, kRegisters> written{};
  bool uniforms_written = false;
  // Stack (scratch) memory: Memories::stack_size_B bytes per lane, lane l
  // at [l * size, (l + 1) * size); allocated on first use.
  std::vector<uint8_t> stack;
  // Bytes of each thread's scratch that stack_adjust allocated (0: none ran,
  // and the whole scratch area is addressable).
  uint32_t stack_frame_B = 0;

  uint16_t r16(unsigned half, unsigned lane) const {
    uint32_t v = r[half >> 1][lane];
    return static_cast<uint16_t>((half & 1) ? v >> 16 : v);
  }
  // r0l: the hardware nesting counter of the execution-mask stack.
  uint16_t r0l(unsigned lane) const { return r16(0, lane); }
};

// Where a SIMD group sits in a compute dispatch; fills the special registers
// named by applegpu (SR_NAMES): threadgroup_position_in_grid (sr0-2),
// threads_per_threadgroup (sr4-6), dispatch_threads_per_threadgroup (sr8-10),
// thread_position_in_threadgroup (sr48-50), thread_index_in_threadgroup
// (sr51), thread_index_in_simdgroup (sr52), simdgroup_index_in_threadgroup
// (sr53), active_thread_index_in_quadgroup (sr56),
// active_thread_index_in_simdgroup (sr58), backfacing (sr62),
// is_active_thread (sr63), thread_position_in_grid (sr80-82).
struct Placement {
  std::array<uint32_t, 3> threadgroup_position{0, 0, 0};
  // This threadgroup's size: smaller than the dispatch's at the edge of a
  // grid whose size is not a multiple of it.
  std::array<uint32_t, 3> threads_per_threadgroup{32, 1, 1};
  uint32_t simdgroup_index = 0;
  // The dispatch's threadgroup size (sr8-10; grid positions sr80-82 step
  // by it). Zero: the same as threads_per_threadgroup.
  std::array<uint32_t, 3> dispatch_threads_per_threadgroup{0, 0, 0};
};
void place(Core& core, const Placement& p);
// A fresh core: all registers zero, all lanes active, placed as group 0 of
// threadgroup (0,0,0) with 32x1x1 threads.
Core make_core();

// Fixed-function units the shader core hands work to (texture unit,
// coefficient/varying iterators, tilebuffer, PBE, ISP). The `gpu` and
// `varyings` units implement it; the emulator passes the decoded instruction
// and the core, whose registers the hook reads and writes.
struct Memories;
class FixedFunction {
 public:
  virtual ~FixedFunction() = default;
  // What the emulator calls: execute() with the memories the SIMD group
  // sees, for the instructions that read them (image_write_block stores
  // the threadgroup's memory, where imageblocks live). By default they are
  // not needed.
  virtual Status execute_in(const isa::Instr& instr, Core& core, const Memories& memories) {
    (void)memories;
    return execute(instr, core);
  }
  // Executes a texture_sample, texture_load, image_write, image_write_block,
  // no_var, and, when Memories::graphics is not set, iter, iterproj, ldcf,
  // st_var, st_var_final, ld_tile, st_tile, sample_mask, zs_emit, or the
  // pixel-ordering wait_pix / signal_pix (the tilebuffer's owner keeps the
  // order of overlapping fragments); with it set those go to the
  // GraphicsHook (usc/graphics.h) instead.
  // An error it returns stops the group; the emulator prefixes the pc.
  virtual Status execute(const isa::Instr& instr, Core& core) = 0;
};

class GraphicsHook;  // usc/graphics.h

// The memory a SIMD group sees.
struct Memories {
  GpuMemory* device = nullptr;             // device loads/stores/atomics
  std::vector<uint8_t>* threadgroup = nullptr;  // threadgroup (local) memory
  FixedFunction* fixed_function = nullptr;
  uint32_t stack_size_B = 1024;            // scratch bytes per thread
  // The fragment/vertex fixed-function side (usc/graphics.h): when set, it
  // executes the graphics instructions instead of fixed_function. Last, so
  // positional initializers of the fields above keep their meaning.
  GraphicsHook* graphics = nullptr;
};

// A program decoded once. Steps are in address order.
struct Step;
namespace detail { struct Ctx; }
class Program {
 public:
  Program();
  ~Program();
  Program(Program&&) noexcept;
  Program& operator=(Program&&) noexcept;
  uint64_t base_pc() const { return base_pc_; }
  uint64_t end_pc() const { return end_pc_; }
  size_t size() const;                       // instructions
  // Decoded instruction i, decoded again from the program's bytes (the
  // program keeps only its compact steps); undecodable bytes give an
  // instruction with only pc and length_B set.
  isa::Instr instr(size_t i) const;
  // Bytes the decoded program occupies (steps, bytes, lookup tables).
  size_t footprint_B() const;
  // Why the instruction at `pc` cannot run (undecodable, unsupported or
  // malformed), or empty when it can.
  std::string_view error_at(uint64_t pc) const;
  // Registers r0..r(n-1) cover every register an instruction of the
  // program names (with a margin for the bit-packed memory formats, which
  // move more registers than their tuple shows): what a reused SIMD group
  // must clear to start like a fresh one.
  unsigned register_count() const { return register_count_; }
  // Index of the instruction at `pc`, or -1.
  long index_of(uint64_t pc) const;

 private:
  friend Result<Program> compile(std::span<const uint8_t>, uint64_t);
  friend class Executor;
  friend struct detail::Ctx;
  std::vector<Step> steps_;
  std::vector<uint8_t> code_;                // the program's bytes
  std::vector<std::string> errors_;          // why a step cannot run
  std::vector<isa::Instr> fixed_function_;   // decoded, for the hooks
  std::vector<int32_t> by_halfword_;  // (pc - base) / 2 -> step index or -1
  uint64_t base_pc_ = 0, end_pc_ = 0;
  unsigned register_count_ = 2;  // r0 (exec stack) and r1 (link) always
};

// Decodes `code` laid out at `base_pc`. Bytes that do not decode become a
// step that reports the decode error if it is ever executed.
Result<Program> compile(std::span<const uint8_t> code, uint64_t base_pc = 0);

// One line of a trace: the instruction and the registers it changed.
struct TraceEntry {
  uint64_t pc = 0;
  std::string text;                      // mnemonic (disassembly when available)
  std::vector<std::string> changes;      // "r5: [..]" or "exec: 0x.."
};

struct RunOptions {
  uint64_t step_limit = 1'000'000;       // instructions before a limit error
  bool debug = false;                    // flag reads of loads before `wait`
  std::vector<TraceEntry>* trace = nullptr;  // collects every entry
  // Called with each entry as it happens (nothing is kept): for long runs.
  std::function<void(const TraceEntry&)> on_trace;
  std::vector<std::string>* warnings = nullptr;  // debug findings
};

enum class StopReason { finished, barrier, step_done };

// Runs from core.pc until `stop`, the end of the program (finished), a
// threadgroup_barrier (barrier; pc is after it) or, with max_steps, after
// that many instructions (step_done). Errors (faults, unsupported
// instructions, the step limit) name the pc.
Result<StopReason> run(const Program& program, Core& core, const Memories& mem,
                       const RunOptions& options, uint64_t max_steps = UINT64_MAX);

// A compute dispatch: grid of threadgroups, each of several SIMD groups that
// share threadgroup memory and meet at barriers.
struct Dispatch {
  std::array<uint32_t, 3> threadgroups{1, 1, 1};
  std::array<uint32_t, 3> threads_per_threadgroup{32, 1, 1};
  uint32_t threadgroup_memory_B = 32 * 1024;
  std::array<uint32_t, kUniforms> uniforms{};
};
Status dispatch(const Program& program, const Dispatch& d, GpuMemory& device,
                const RunOptions& options, FixedFunction* ff = nullptr);

// GPU memory backed by host buffers at chosen addresses (for `agx emu`,
// tests and small programs); everything else is unmapped.
class RegionMemory : public GpuMemory {
 public:
  // Maps `bytes` at `va`. Overlapping an existing region is an error.
  Status map(GpuVa va, std::vector<uint8_t> bytes, bool writable = true);
  bool read(GpuVa va, void* dst, size_t size, GpuUnit unit, GpuFault* fault) override;
  bool write(GpuVa va, const void* src, size_t size, GpuUnit unit, GpuFault* fault) override;
  uint8_t* host_pointer(GpuVa va, size_t size, Access access) override;
  const std::map<GpuVa, std::vector<uint8_t>>& regions() const { return regions_; }

 private:
  struct Hit { std::vector<uint8_t>* bytes = nullptr; size_t offset = 0; };
  bool find(GpuVa va, size_t size, Hit& hit);
  std::map<GpuVa, std::vector<uint8_t>> regions_;
  std::map<GpuVa, bool> writable_;
};

// The JSON state of `agx emu` (docs/usc.md): "exec", "pc", "r" (register
// name -> 32 lane values), "u" (uniform name -> value), "mem" (address ->
// hex bytes), and "sr" (special register name -> 32 lane values).
struct State {
  Core core;
  RegionMemory memory;
  std::array<bool, kRegisters> listed{};  // registers present in the input
  bool has_uniforms = false, has_memory = false;
};
Result<State> parse_state(std::string_view json_text);
// Prints exec, pc, every register listed or written, uniforms and memory if
// the input had them. `one_line` gives the compact form used by --batch,
// which leaves out pc (the batch STATE is exec, r, u, mem).
std::string format_state(const State& state, bool one_line);

}  // namespace agx::usc
