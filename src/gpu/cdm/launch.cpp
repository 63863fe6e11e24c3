// One CDM Launch: the grid, the preshader, and the threadgroups on the
// worker threads. A threadgroup runs whole on one worker: its SIMD groups
// take turns, each until it finishes or reaches threadgroup_barrier, so
// results do not depend on the number of workers (except where a program
// races with itself, e.g. the order of atomics between threadgroups).
#include <algorithm>

#include <fmt/format.h>

#include "gpu/cdm/cdm_internal.h"

namespace agx::gpu::detail {

struct Engine::Worker {
  std::vector<std::unique_ptr<usc::Core>> cores;
  std::vector<uint64_t> uniforms_of;  // per core: the launch whose uniforms it holds
  // Per core: the placement its special registers hold, so a core that
  // runs the same SIMD group of an equally sized threadgroup only gets new
  // threadgroup and grid positions.
  struct Placed {
    bool valid = false;
    std::array<uint32_t, 3> size{}, local{};
    uint32_t group = 0;
    std::array<uint32_t, 3> position{};  // the threadgroup position sr0-2 and sr80-82 hold
  };
  std::vector<Placed> placed;
  std::vector<uint8_t> shared;
  RecordingMemory memory;
  std::unique_ptr<usc::FixedFunction> ff;
};

Engine::Engine(CdmOptions o) : options(std::move(o)) {
  unsigned threads = options.threads ? options.threads : default_threads_from_env();
  step_limit = step_limit_from_env(options.step_limit, kDefaultStepLimit);
  pool = std::make_unique<WorkerPool>(threads);
  for (unsigned w = 0; w < threads; ++w) workers.push_back(std::make_unique<Worker>());
}

Engine::~Engine() = default;

namespace {

std::array<uint32_t, 3> ceil_div(const std::array<uint32_t, 3>& a, const std::array<uint32_t, 3>& b) {
  return {(a[0] + b[0] - 1) / b[0], (a[1] + b[1] - 1) / b[1], (a[2] + b[2] - 1) / b[2]};
}

// Element-wise: std::array's == becomes a memcmp call per SIMD group.
bool same(const std::array<uint32_t, 3>& a, const std::array<uint32_t, 3>& b) {
  return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

// Sets up the SIMD group: allocated registers zeroed, uniforms, placement.
void start_group(usc::Core& c, const UscState& usc, const usc::Program& program, const usc::Placement& p,
                 uint32_t threads_left, uint64_t threadgroup_index, bool fresh_uniforms = true,
                 Engine::Worker::Placed* placed = nullptr) {
  unsigned regs = std::min<unsigned>((usc.register_halves + 1) / 2, usc::kRegisters);
  for (unsigned r = 0; r < regs; ++r) c.r[r].fill(0);
  if (fresh_uniforms) c.u = usc.uniforms;
  c.exec = threads_left >= usc::kLanes ? 0xFFFFFFFFu : (1u << threads_left) - 1;
  c.present = c.exec;
  c.pc = program.base_pc();
  c.stack.clear();
  c.stack_frame_B = 0;
  if (placed && placed->valid && same(placed->size, p.threads_per_threadgroup) &&
      same(placed->local, p.dispatch_threads_per_threadgroup) && placed->group == p.simdgroup_index) {
    // Same SIMD group of a threadgroup of the same size: positions within
    // the threadgroup (sr48-53) stand; the threadgroup's position moves
    // (sr0-2) and the grid positions with it (sr80-82, as usc::place).
    for (unsigned i = 0; i < 3; ++i) {
      // An axis along which the threadgroup did not move (y and z of a 1D
      // grid) keeps its registers.
      if (placed->position[i] == p.threadgroup_position[i]) continue;
      placed->position[i] = p.threadgroup_position[i];
      c.sr[i].fill(p.threadgroup_position[i]);
      const uint32_t base = p.threadgroup_position[i] * p.dispatch_threads_per_threadgroup[i];
      for (unsigned l = 0; l < usc::kLanes; ++l) c.sr[80 + i][l] = base + c.sr[48 + i][l];
    }
  } else {
    usc::place(c, p);
    if (placed)
      *placed = {true, p.threads_per_threadgroup, p.dispatch_threads_per_threadgroup, p.simdgroup_index,
                 p.threadgroup_position};
  }
  const uint32_t core_index = static_cast<uint32_t>(threadgroup_index % kUscCores);
  if (!c.sr_known[20] || c.sr[20][0] != core_index) {  // every lane holds the same value
    c.sr_known[20] = true;
    c.sr[20].fill(core_index);
  }
  if (!c.sr_known[21]) {  // vm_slot: one VM context per command (always 0)
    c.sr_known[21] = true;
    c.sr[21].fill(0);
  }
}

// The position of threadgroup `index` (x fastest). A 1D grid, the common
// case, needs none of the 64-bit divisions.
std::array<uint32_t, 3> threadgroup_position(uint64_t index, const std::array<uint32_t, 3>& groups) {
  if (groups[1] == 1 && groups[2] == 1) return {static_cast<uint32_t>(index), 0, 0};
  return {static_cast<uint32_t>(index % groups[0]), static_cast<uint32_t>(index / groups[0] % groups[1]),
          static_cast<uint32_t>(index / (uint64_t{groups[0]} * groups[1]))};
}

std::string where_text(const LaunchBlock& b, std::array<uint32_t, 3> tg, unsigned group) {
  return fmt::format("launch at 0x{:x}, threadgroup ({},{},{}) simdgroup {}", b.at, tg[0], tg[1], tg[2], group);
}

// The grid of an indirect launch, read at execution time (global and local
// hold the Launch's own values on entry).
Status resolve_grid(GpuMemory& m, const LaunchBlock& block, GpuFault* where, std::array<uint32_t, 3>& global,
                    std::array<uint32_t, 3>& local) {
  if (block.mode == cmdstream::CdmMode::kDirect) return {};
  uint32_t words[6] = {};
  size_t n = block.mode == cmdstream::CdmMode::kIndirectLocal ? 6 : 3;
  AGX_CHECK(read_gpu(m, block.indirect, words, n * 4, GpuUnit::cdm, where));
  if (block.mode == cmdstream::CdmMode::kIndirectLocal) {
    global = {words[0], words[1], words[2]};
    local = {words[3], words[4], words[5]};
    return {};
  }
  for (unsigned i = 0; i < 3; ++i) {  // threadgroup counts, as Metal's indirect dispatch
    uint64_t threads = uint64_t{words[i]} * local[i];
    if (threads > UINT32_MAX)
      return fail(where, block.indirect, GpuUnit::cdm,
                  Error::limit("indirect grid of {} threadgroups of {} threads overflows", words[i], local[i])
                      .context(fmt::format("launch at 0x{:x}", block.at)));
    global[i] = static_cast<uint32_t>(threads);
  }
  return {};
}

// The preshader: once per Launch, one thread (lane 0), before any
// threadgroup; its uniform_store results are every SIMD group's uniforms.
Status run_preshader(Engine& engine, GpuMemory& m, const LaunchBlock& block, UscState& usc,
                     const std::array<uint32_t, 3>& local, const usc::RunOptions& options, GpuFault* where) {
  Engine::Worker& w = *engine.workers[0];
  if (w.cores.empty()) {
    w.cores.push_back(std::make_unique<usc::Core>());
    w.uniforms_of.push_back(0);
  }
  w.uniforms_of[0] = 0;  // the preshader's uniforms are not the launch's
  w.placed.resize(w.cores.size());
  w.placed[0].valid = false;  // nor its placement
  PreshaderRun run;
  run.memory = &m;
  run.programs = &engine.programs;
  run.fixed_function = &engine.options.fixed_function;
  run.step_limit = options.step_limit;
  run.preshader_halves = block.counts.preshader_halves;
  run.placement = usc::Placement{{0, 0, 0}, local, 0, {}};
  run.context = fmt::format("launch at 0x{:x}", block.at);
  AGX_CHECK(gpu::run_preshader(run, *w.cores[0], w.memory, usc, where));
  engine.counters.preshader_runs++;
  return {};
}

}  // namespace

Status run_launch(Engine& engine, const kmd::FirmwareCommand& cmd, const LaunchBlock& block, GpuFault* where) {
  GpuMemory& m = *cmd.memory;
  auto ctx = [&](Error e) { return std::move(e).context(fmt::format("launch at 0x{:x}", block.at)); };
  const UscWordList list{block.usc_words, cmd.usc_exec_base, block.counts, cmd.compute->sampler_heap,
                         cmd.compute->sampler_count, GpuUnit::cdm, false};
  auto usc_or = read_usc_words(m, list, where);
  if (!usc_or) return ctx(std::move(usc_or).error());
  UscState& usc = *usc_or;
  auto bad = [&](Error e) { return fail(where, block.usc_words, GpuUnit::cdm, ctx(std::move(e))); };
  if (!usc.has_shader) return bad(Error::decode("the USC word list at 0x{:x} has no Shader word", block.usc_words));
  if (!usc.has_registers)
    return bad(Error::decode("the USC word list at 0x{:x} has no Registers word", block.usc_words));
  if (usc.stack_per_thread_B && cmd.compute->helper.binary == 0)
    return bad(Error::fault("the shader needs {} bytes of scratch per thread but the command has no helper program",
                            usc.stack_per_thread_B));

  auto program_or = engine.programs.load(m, usc.code, where);
  if (!program_or) return ctx(std::move(program_or).error());
  ProgramPtr program = *program_or;
  AGX_CHECK(check_registers(*program, usc.register_halves, "the shader", usc.code, where));

  std::array<uint32_t, 3> global = block.global, local = block.local;
  AGX_CHECK(resolve_grid(m, block, where, global, local));
  uint64_t local_threads = uint64_t{local[0]} * local[1] * local[2];
  if (local_threads == 0 || local_threads > 1024)
    return fail(where, block.at, GpuUnit::cdm,
                ctx(Error::decode("threadgroup size {}x{}x{} is not 1..1024 threads", local[0], local[1], local[2])));
  engine.counters.launches++;
  if (global[0] == 0 || global[1] == 0 || global[2] == 0) return {};
  const std::array<uint32_t, 3> groups = ceil_div(global, local);
  const uint64_t total = uint64_t{groups[0]} * groups[1] * groups[2];
  if (total > engine.options.threadgroup_limit)
    return fail(where, block.at, GpuUnit::cdm,
                ctx(Error::limit("{} threadgroups exceed the limit of {} per launch", total,
                                 engine.options.threadgroup_limit)));

  std::lock_guard run_lock(engine.run_mu);
  const uint64_t serial = ++engine.launch_serial;
  usc::RunOptions options;
  options.step_limit = engine.step_limit;

  if (usc.has_preshader) AGX_CHECK(run_preshader(engine, m, block, usc, local, options, where));

  for (auto& w : engine.workers) {
    w->memory.inner = &m;
    w->ff = engine.options.fixed_function ? engine.options.fixed_function(usc.bindings) : nullptr;
  }
  std::mutex fault_mu;
  std::atomic<uint64_t> first_fault{UINT64_MAX};
  GpuFault fault;
  Error fault_error = Error::fault("no fault");
  std::atomic<uint64_t> simdgroups{0};

  // The helper program's header (helper.data), when the kernel needs scratch.
  const GpuVa helper_header = usc.stack_per_thread_B ? cmd.compute->helper.data : 0;
  auto run_threadgroup = [&](unsigned worker, uint64_t index) {
    if (index > first_fault.load(std::memory_order_relaxed)) return;
    Engine::Worker& w = *engine.workers[worker];
    const std::array<uint32_t, 3> tg = threadgroup_position(index, groups);
    std::array<uint32_t, 3> size;
    for (unsigned i = 0; i < 3; ++i) size[i] = std::min(local[i], global[i] - tg[i] * local[i]);
    const uint32_t threads = size[0] * size[1] * size[2];
    const unsigned count = (threads + usc::kLanes - 1) / usc::kLanes;
    while (w.cores.size() < count) {
      w.cores.push_back(std::make_unique<usc::Core>());
      w.uniforms_of.push_back(0);
    }
    w.placed.resize(w.cores.size());
    if (usc.uses_shared) w.shared.assign(usc.shared_B, 0);
    else w.shared.clear();
    w.memory.reset();
    for (unsigned g = 0; g < count; ++g) {
      // The uniform file is copied once per core and launch unless the
      // program writes it.
      bool fresh = program->writes_uniforms || w.uniforms_of[g] != serial;
      w.uniforms_of[g] = serial;
      start_group(*w.cores[g], usc, program->program, usc::Placement{tg, size, g, local},
                  threads - g * usc::kLanes, index, fresh, &w.placed[g]);
    }
    // SIMD groups with scratch ask the helper program for stack blocks
    // (shader/helper.cpp) before they start, and give them back at the end.
    const uint32_t core = static_cast<uint32_t>(index % kUscCores);
    auto record_fault = [&](Error e, const GpuFault& f) {
      std::lock_guard g2(fault_mu);
      if (index < first_fault.load()) {
        first_fault.store(index);
        fault = f;
        fault_error = std::move(e).context(where_text(block, tg, 0));
      }
    };
    if (helper_header) {
      std::lock_guard h(engine.helper_mu);
      GpuFault f;
      if (Status st = helper_stack_alloc(m, helper_header, core, usc.spill_bucket, count, &f); !st)
        return record_fault(std::move(st).error(), f);
    }
    auto release = [&]() -> bool {
      if (!helper_header) return true;
      std::lock_guard h(engine.helper_mu);
      GpuFault f;
      if (Status st = helper_stack_free(m, helper_header, core, count, &f); !st) {
        record_fault(std::move(st).error(), f);
        return false;
      }
      return true;
    };
    usc::Memories mem{&w.memory, &w.shared, w.ff.get(), usc.stack_per_thread_B};
    uint64_t done_mask = 0;  // up to 32 SIMD groups
    unsigned finished = 0;
    while (finished < count) {
      for (unsigned g = 0; g < count; ++g) {
        if (done_mask >> g & 1) continue;
        auto r = usc::run(program->program, *w.cores[g], mem, options);
        if (!r) {
          GpuFault f;
          Error e = usc_fault(&f, w.memory, *w.cores[g], std::move(r).error(), where_text(block, tg, g));
          {
            std::lock_guard g2(fault_mu);
            if (index < first_fault.load()) {
              first_fault.store(index);
              fault = f;
              fault_error = std::move(e);
            }
          }
          release();  // a failed free cannot replace the fault above (same index)
          return;
        }
        if (*r == usc::StopReason::finished) {
          done_mask |= uint64_t{1} << g;
          ++finished;
        }
      }
    }
    if (!release()) return;
    simdgroups.fetch_add(count, std::memory_order_relaxed);
  };
  engine.pool->run(total, run_threadgroup);
  engine.counters.threadgroups += total;
  engine.counters.simdgroups += simdgroups.load();
  for (auto& w : engine.workers) w->ff.reset();
  if (first_fault.load() != UINT64_MAX) {
    if (where) *where = fault;
    return fault_error;
  }
  return {};
}

}  // namespace agx::gpu::detail
