// Decoding a program once into steps, and the run loop.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <memory>
#include <optional>

#include "usc/graphics.h"
#include "usc/internal.h"
#include "util/hex.h"

namespace agx::usc {

using detail::Ctx;

Program::Program() = default;
Program::~Program() = default;
Program::Program(Program&&) noexcept = default;
Program& Program::operator=(Program&&) noexcept = default;
size_t Program::size() const { return steps_.size(); }
isa::Instr Program::instr(size_t i) const {
  const Step& s = steps_.at(i);
  isa::Instr in;
  auto bytes = std::span(code_).subspan(static_cast<size_t>(s.pc - base_pc_));
  if (!isa::decode_into(bytes, s.pc, in).ok()) {
    in = isa::Instr{};
    in.pc = s.pc;
    in.length_B = s.length_B;
  }
  return in;
}
size_t Program::footprint_B() const {
  size_t n = sizeof(*this) + steps_.capacity() * sizeof(Step) + code_.capacity() +
             by_halfword_.capacity() * sizeof(int32_t) + fixed_function_.capacity() * sizeof(isa::Instr) +
             errors_.capacity() * sizeof(std::string);
  for (const auto& e : errors_) n += e.capacity();
  return n;
}
long Program::index_of(uint64_t pc) const {
  uint64_t off = pc - base_pc_;
  if (pc < base_pc_ || (off & 1) || off / 2 >= by_halfword_.size()) return -1;
  return by_halfword_[off / 2];
}

Status detail::unsupported(const Step& s, const Ctx& ctx) {
  return Error::unsupported("pc 0x{:x}: {}", s.pc, ctx.program->error_at(s.pc));
}

namespace {

// Instructions a fixed-function unit executes (item 6 of the issue).
bool is_fixed_function(isa::Opcode op) {
  using isa::Opcode;
  switch (op) {
    case Opcode::texture_sample: case Opcode::texture_load: case Opcode::image_write:
    case Opcode::image_write_block: case Opcode::iter: case Opcode::iterproj:
    case Opcode::ldcf: case Opcode::st_var: case Opcode::st_var_final:
    case Opcode::no_var: case Opcode::ld_tile: case Opcode::st_tile: case Opcode::sample_mask:
    case Opcode::zs_emit: case Opcode::wait_pix: case Opcode::signal_pix:
      return true;
    default:
      return false;
  }
}

Status exec_fixed_function(const Step& s, Core& c, Ctx& ctx) {
  bool graphics = is_graphics(s.op) && ctx.mem->graphics;
  if (!graphics && !ctx.mem->fixed_function)
    return Error::unsupported("pc 0x{:x}: not supported by the emulator: {} (no fixed-function unit attached{})",
                              s.pc, isa::op_info(s.op).mnemonic, is_graphics(s.op) ? ", no graphics hook" : "");
  Status st = graphics ? detail::exec_graphics(s, c, ctx)
                       : ctx.mem->fixed_function->execute_in(*ctx.fixed_function_instr(s), c, *ctx.mem);
  if (!st) return Error(st.error().kind(), fmt::format("pc 0x{:x}: {}", s.pc, st.error().message()));
  return {};
}

Status exec_error(const Step& s, Core&, Ctx& ctx) { return detail::unsupported(s, ctx); }

// Fills the step; returns why it cannot run, or an empty string.
std::string compile_one(const isa::Instr& in, Step& s) {
  s.op = in.op;
  s.pc = in.pc;
  s.length_B = in.length_B;
  s.run = exec_error;
  if (is_fixed_function(in.op)) {
    s.run = exec_fixed_function;
    return {};
  }
  for (auto* family : {detail::compile_alu, detail::compile_float, detail::compile_control,
                       detail::compile_memory, detail::compile_simd, detail::compile_atomic,
                       detail::compile_uniform_store, detail::compile_matrix}) {
    Result<bool> r = family(in, s);
    if (!r) {
      s.run = exec_error;
      return fmt::format("{}: {}", isa::op_info(in.op).mnemonic, r.error().message());
    }
    if (*r) return {};
  }
  return fmt::format("not supported by the emulator: {}", isa::op_info(in.op).mnemonic);
}

}  // namespace

// Each instruction is decoded once into a compact step; the decoded
// isa::Instr is not kept (Program::instr decodes again when a trace or an
// error message needs it), except for the few fixed-function instructions
// whose hooks take it. Why a step cannot run is kept beside the steps.
Result<Program> compile(std::span<const uint8_t> code, uint64_t base_pc) {
  Program p;
  p.base_pc_ = base_pc;
  p.code_.assign(code.begin(), code.end());
  size_t at = 0;
  p.by_halfword_.assign((code.size() + 1) / 2, -1);
  // Count the instructions first (lengths only) so the steps are allocated
  // once, at their final size.
  size_t count = 0;
  for (size_t at = 0; at < code.size(); ++count) {
    auto len = isa::instruction_length(code.subspan(at), base_pc + at);
    at += len ? std::min(*len, code.size() - at) : std::min<size_t>(2, code.size() - at);
  }
  p.steps_.reserve(count);
  isa::Instr in;
  while (at < code.size()) {
    uint64_t pc = base_pc + at;
    Step s;
    s.pc = pc;
    std::string error;
    if (auto st = isa::decode_into(code.subspan(at), pc, in); !st.ok()) {
      // Undecodable bytes (data after the code, or garbage): a step that
      // reports the error if reached; decoding resumes 2 bytes on.
      s.run = exec_error;
      s.length_B = static_cast<uint8_t>(std::min<size_t>(2, code.size() - at));
      error = st.error().message();
    } else {
      for (const isa::Operand& o : in.ops()) {
        unsigned n = o.count ? o.count : 1, last = 0;
        switch (o.kind) {
          case isa::OperandKind::kReg16: last = (o.index + n - 1) / 2; break;
          case isa::OperandKind::kReg32: last = o.index + n - 1; break;
          case isa::OperandKind::kReg64: last = o.index + 2 * n - 1; break;
          default: continue;
        }
        p.register_count_ = std::max(p.register_count_, std::min<unsigned>(last + 1 + 4, kRegisters));
      }
      error = compile_one(in, s);
      if (s.run == exec_fixed_function) {
        s.k[0] = static_cast<uint32_t>(p.fixed_function_.size());
        p.fixed_function_.push_back(in);
      }
    }
    if (!error.empty()) {
      s.run = exec_error;
      s.k[0] = static_cast<uint32_t>(p.errors_.size());
      p.errors_.push_back(std::move(error));
    }
    p.by_halfword_[at / 2] = static_cast<int32_t>(p.steps_.size());
    at += s.length_B;
    p.steps_.push_back(s);
  }
  p.end_pc_ = base_pc + at;
  p.fixed_function_.shrink_to_fit();  // grown by doubling: keep what is used
  return p;
}

std::string_view Program::error_at(uint64_t pc) const {
  long i = index_of(pc);
  if (i < 0) return {};
  const Step& s = steps_[static_cast<size_t>(i)];
  return s.run == exec_error ? std::string_view(errors_[s.k[0]]) : std::string_view();
}

const isa::Instr* detail::Ctx::fixed_function_instr(const Step& s) const {
  return &program->fixed_function_[s.k[0]];
}

class Executor {
 public:
  static Result<StopReason> run(const Program& p, Core& core, const Memories& mem,
                                const RunOptions& opt, uint64_t max_steps);
};

namespace {

std::string lane_list(const LaneArray& v) {
  return fmt::format("[{}]", fmt::join(v, ","));
}

// What a trace compares: the registers, uniforms and exec of a group.
struct Snapshot {
  std::array<LaneArray, kRegisters> r;
  std::array<uint32_t, kUniforms> u;
  uint32_t exec = 0;
  uint64_t pc = 0;
  void take(const Core& c) {
    r = c.r;
    u = c.u;
    exec = c.exec;
    pc = c.pc;
  }
};

// One entry, handed to the options' collector and/or callback as it
// happens, so a long trace is never held whole unless asked for.
void trace_step(const Program& p, size_t idx, const Snapshot& before, const Core& after, const RunOptions& opt) {
  TraceEntry e;
  e.pc = before.pc;
  const isa::Instr in = p.instr(idx);
  e.text = in.length_B ? isa::disassemble(in, in.pc) : std::string("<undecodable>");
  if (before.exec != after.exec) e.changes.push_back(fmt::format("exec: 0x{:08x}", after.exec));
  for (unsigned r = 0; r < kRegisters; ++r)
    if (before.r[r] != after.r[r]) e.changes.push_back(fmt::format("r{}: {}", r, lane_list(after.r[r])));
  for (unsigned u = 0; u < kUniforms; ++u)
    if (before.u[u] != after.u[u]) e.changes.push_back(fmt::format("u{}: {}", u, after.u[u]));
  if (opt.on_trace) opt.on_trace(e);
  if (opt.trace) opt.trace->push_back(std::move(e));
}

// Debug check: a register read while a load into it is outstanding.
void check_pending(const Step& s, const Ctx& ctx, const RunOptions& opt) {
  if (!opt.warnings) return;
  for (const detail::Operand* o : {&s.a, &s.b, &s.c, &s.x, &s.y}) {
    if (!o->is_reg()) continue;
    unsigned first = o->kind == detail::Kind::r16 ? o->index >> 1 : o->index;
    unsigned last = o->kind == detail::Kind::r64 ? first + 1 : first;
    for (unsigned r = first; r <= last && r < kRegisters; ++r)
      if (ctx.pending_load_pc && (*ctx.pending_load_pc)[r])
        opt.warnings->push_back(fmt::format("pc 0x{:x}: r{} read before `wait` for the load at pc 0x{:x}",
                                            s.pc, r, (*ctx.pending_load_pc)[r] - 1));
  }
}

}  // namespace

static Error not_an_instruction(const Program& p, uint64_t pc) {
  return Error::invalid_argument("pc 0x{:x} is not the start of an instruction of the program (0x{:x}..0x{:x})", pc,
                                 p.base_pc(), p.end_pc());
}

// The error of step `s` with its pc in front (once).
static Error with_pc(const Step& s, const Error& e) {
  bool has_pc = e.message().rfind("pc 0x", 0) == 0;
  return has_pc ? e : Error(e.kind(), fmt::format("pc 0x{:x}: {}", s.pc, e.message()));
}

// After a step that may have changed the flow (a branch, stop, barrier or
// the step budget): where the run goes on, or why it stops. `idx` moves to
// the step at core.pc.
static std::optional<Result<StopReason>> after_flow(const Program& p, Core& core, Ctx& ctx, long& idx) {
  if (ctx.stop) return StopReason::finished;
  core.pc = ctx.next_pc;
  if (ctx.barrier) return StopReason::barrier;
  if (core.pc == p.end_pc()) return StopReason::finished;
  idx = p.index_of(core.pc);
  if (idx < 0) return not_an_instruction(p, core.pc);
  return std::nullopt;
}

// The plain run loop. core.pc holds the pc of the step being run; a step
// that leaves ctx.next_pc at its fall-through (and neither stops nor waits
// at a barrier) is followed by the next step in the array without a lookup,
// since the steps cover the program's bytes back to back.
static Result<StopReason> run_plain(const Program& p, const std::vector<Step>& steps_of, long idx, Core& core,
                                    Ctx& ctx, const RunOptions& opt, uint64_t max_steps) {
  const Step* steps = steps_of.data();
  const long count = static_cast<long>(steps_of.size());
  const uint64_t bound = std::min(max_steps, opt.step_limit);
  for (uint64_t done = 0;; ++done) {
    if (done >= bound) [[unlikely]] {
      if (done == max_steps) return StopReason::step_done;
      return Error::limit("step limit of {} instructions reached at pc 0x{:x} (stuck loop?)", opt.step_limit, core.pc);
    }
    const Step& s = steps[idx];
    const uint64_t fallthrough = s.pc + s.length_B;
    ctx.next_pc = fallthrough;
    if (Status st = s.run(s, core, ctx); !st) [[unlikely]]
      return with_pc(s, st.error());
    if (ctx.stop | ctx.barrier | (ctx.next_pc != fallthrough)) [[unlikely]] {
      if (auto stop = after_flow(p, core, ctx, idx)) return std::move(*stop);
      continue;
    }
    core.pc = fallthrough;
    if (++idx == count) return StopReason::finished;  // core.pc is the program's end
  }
}

// The run loop with the debug checks and the trace.
static Result<StopReason> run_observed(const Program& p, const std::vector<Step>& steps_of, long idx, Core& core,
                                       Ctx& ctx, const RunOptions& opt, uint64_t max_steps) {
  uint64_t steps = 0;
  const uint64_t bound = std::min(max_steps, opt.step_limit);
  const bool tracing = opt.trace || opt.on_trace;
  std::unique_ptr<Snapshot> before;
  if (tracing) before = std::make_unique<Snapshot>();
  while (true) {
    if (steps >= bound) [[unlikely]] {
      if (steps == max_steps) return StopReason::step_done;
      return Error::limit("step limit of {} instructions reached at pc 0x{:x} (stuck loop?)", opt.step_limit, core.pc);
    }
    const Step& s = steps_of[static_cast<size_t>(idx)];
    uint64_t fallthrough = s.pc + s.length_B;
    ctx.next_pc = fallthrough;
    if (opt.debug) check_pending(s, ctx, opt);
    if (tracing) before->take(core);
    if (Status st = s.run(s, core, ctx); !st) [[unlikely]]
      return with_pc(s, st.error());
    ++steps;
    if (tracing) trace_step(p, static_cast<size_t>(idx), *before, core, opt);
    if (auto stop = after_flow(p, core, ctx, idx)) return std::move(*stop);
  }
}

Result<StopReason> Executor::run(const Program& p, Core& core, const Memories& mem,
                                 const RunOptions& opt, uint64_t max_steps) {
  Ctx ctx;
  ctx.program = &p;
  ctx.mem = &mem;
  ctx.options = &opt;
  if (core.pc == p.end_pc_) return StopReason::finished;
  long idx = p.index_of(core.pc);
  if (idx < 0) return not_an_instruction(p, core.pc);
  std::array<uint64_t, kRegisters> pending;  // cleared only when used
  if (opt.debug) {
    pending.fill(0);
    ctx.pending_load_pc = &pending;
  }
  if (opt.debug || opt.trace || opt.on_trace) return run_observed(p, p.steps_, idx, core, ctx, opt, max_steps);
  return run_plain(p, p.steps_, idx, core, ctx, opt, max_steps);
}

Result<StopReason> run(const Program& program, Core& core, const Memories& mem,
                       const RunOptions& options, uint64_t max_steps) {
  return Executor::run(program, core, mem, options, max_steps);
}

}  // namespace agx::usc
