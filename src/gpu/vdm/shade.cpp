// Vertex shaders on the USC: the shading items of a draw (each distinct
// vertex of each instance) in SIMD groups of 32 on the worker threads. A
// lane starts with the word list's uniforms, its vertex ID in r5 and its
// instance ID in r6 (bminor/mesa-mesa src/asahi/compiler/README.md: "r5 and
// r6 are preloaded in vertex shaders to the vertex ID and instance ID";
// src/asahi/lib/agx_abi.h AGX_ABI_VIN_VERTEX_ID / _INSTANCE_ID); every
// other allocated register is zero. st_var / st_var_final write the lane's
// vertex output words through a usc::GraphicsHook; the other graphics
// instructions belong to fragment shaders and fault here.
#include <algorithm>

#include <fmt/format.h>

#include "gpu/vdm/vdm_internal.h"
#include "usc/graphics.h"

namespace agx::gpu::detail {

namespace {

constexpr unsigned kVertexIdRegister = 5;    // r5
constexpr unsigned kInstanceIdRegister = 6;  // r6

}  // namespace

// The vertex fixed function the shader core sees: the UVS (vertex output
// words) of the SIMD group's lanes. Not file-local: VertexEngine::Worker
// holds one.
class VertexOutputs final : public usc::GraphicsHook {
 public:
  uint32_t* out = nullptr;  // the group's first item's words
  uint32_t count = 0;       // words per vertex

  Status store_varying(const usc::VaryingStore& s) override {
    for (unsigned l = 0; l < usc::kLanes; ++l) {
      if (!(s.active >> l & 1)) continue;
      const uint32_t slot = s.slot.at(l);
      if (slot >= count)
        return Error::decode("{} to vertex output {}, beyond the draw's {} output words (VDM State Vertex Outputs)",
                             name(s.op), slot, count);
      out[size_t{l} * count + slot] = s.value[l];
    }
    return {};
  }
  Status iterate(usc::IterRequest& r) override { return fragment_only(r.op); }
  Status access_tile(usc::TileAccess& t) override { return fragment_only(t.op); }
  Status emit_depth_stencil(const usc::DepthStencilEmit& e) override { return fragment_only(e.op); }
  Status update_sample_mask(const usc::SampleMaskUpdate& m) override { return fragment_only(m.op); }
  Status order_pixels(const usc::PixelOrder& p) override { return fragment_only(p.op); }

 private:
  static std::string_view name(isa::Opcode op) { return isa::op_info(op).mnemonic; }
  static Status fragment_only(isa::Opcode op) {
    return Error::unsupported("{} in a vertex shader (only st_var and st_var_final reach the vertex fixed function)",
                              name(op));
  }
};

struct VertexEngine::Worker {
  usc::Core core;
  RecordingMemory memory;
  std::vector<uint8_t> threadgroup;  // vertex shaders have none
  std::unique_ptr<usc::FixedFunction> ff;
  VertexOutputs hook;
};

VertexEngine::VertexEngine(VertexOptions o) : options(std::move(o)) {
  const unsigned threads = options.threads ? options.threads : default_threads_from_env();
  step_limit = step_limit_from_env(options.step_limit, kDefaultVertexStepLimit);
  pool = std::make_unique<WorkerPool>(threads);
  for (unsigned w = 0; w < threads; ++w) workers.push_back(std::make_unique<Worker>());
}

VertexEngine::~VertexEngine() = default;

Status shade_vertices(VertexEngine& engine, VdmRun& run, GpuVa draw_at, std::span<const uint32_t> vertex_ids,
                      uint32_t instances, std::vector<uint32_t>& outputs) {
  const uint32_t count = run.plan.count;
  const uint64_t items = uint64_t{vertex_ids.size()} * instances;
  outputs.assign(items * count, 0);
  if (items == 0) return {};
  const VertexShader& vs = run.shader;
  for (auto& w : engine.workers) {
    w->memory.inner = run.cmd.memory;
    w->ff = engine.options.fixed_function ? engine.options.fixed_function(vs.usc.bindings) : nullptr;
  }
  usc::RunOptions options;
  options.step_limit = engine.step_limit;
  std::mutex fault_mu;
  std::atomic<uint64_t> first_fault{UINT64_MAX};
  GpuFault fault;
  Error fault_error = Error::fault("no fault");
  const unsigned regs = std::min<unsigned>((vs.usc.register_halves + 1) / 2, usc::kRegisters);
  auto shade_group = [&](unsigned worker, uint64_t group) {
    if (group > first_fault.load(std::memory_order_relaxed)) return;
    VertexEngine::Worker& w = *engine.workers[worker];
    usc::Core& c = w.core;
    const uint64_t first = group * usc::kLanes;
    const unsigned lanes = static_cast<unsigned>(std::min<uint64_t>(usc::kLanes, items - first));
    for (unsigned r = 0; r < regs; ++r) c.r[r].fill(0);
    c.u = vs.usc.uniforms;
    c.exec = c.present = lanes == usc::kLanes ? 0xFFFFFFFFu : (1u << lanes) - 1;
    c.pc = vs.program->program.base_pc();
    c.stack.clear();
    c.stack_frame_B = 0;
    usc::place(c, usc::Placement{{static_cast<uint32_t>(group), 0, 0}, {lanes, 1, 1}, 0, {usc::kLanes, 1, 1}});
    for (unsigned sr : {20u, 21u}) {  // core_index, vm_slot
      c.sr_known[sr] = true;
      c.sr[sr].fill(0);
    }
    for (unsigned l = 0; l < lanes; ++l) {
      const uint64_t item = first + l;
      c.r[kVertexIdRegister][l] = vertex_ids[item % vertex_ids.size()];
      c.r[kInstanceIdRegister][l] = static_cast<uint32_t>(item / vertex_ids.size());
    }
    w.memory.reset();
    w.hook.out = outputs.data() + first * count;
    w.hook.count = count;
    usc::Memories mem{&w.memory, &w.threadgroup, w.ff.get(), vs.usc.stack_per_thread_B, &w.hook};
    auto r = usc::run(vs.program->program, c, mem, options);
    if (r && *r == usc::StopReason::finished) return;
    Error e = r ? Error::unsupported("threadgroup_barrier in a vertex shader") : std::move(r).error();
    GpuFault f;
    Error full = usc_fault(&f, w.memory, c, std::move(e),
                           fmt::format("Index List at 0x{:x}, vertex shader, SIMD group {}", draw_at, group));
    std::lock_guard g(fault_mu);
    if (group < first_fault.load()) {
      first_fault.store(group);
      fault = f;
      fault_error = std::move(full);
    }
  };
  engine.pool->run((items + usc::kLanes - 1) / usc::kLanes, shade_group);
  for (auto& w : engine.workers) w->ff.reset();
  if (first_fault.load() != UINT64_MAX) {
    if (run.where) *run.where = fault;
    return fault_error;
  }
  engine.counters.vertices_shaded += items;
  return {};
}

}  // namespace agx::gpu::detail
