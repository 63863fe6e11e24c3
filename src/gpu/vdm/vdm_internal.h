// Private to src/gpu/vdm/ (shared by its files); never included outside
// that folder.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "cmdstream/typed.h"
#include "gpu/ppp/ppp.h"
#include "gpu/shader/shader.h"
#include "gpu/vdm/vdm.h"

namespace agx::gpu::detail {

struct VertexCounters {
  std::atomic<uint64_t> commands{0}, draws{0}, vertices_shaded{0}, primitives_in{0}, primitives_out{0}, faults{0},
      preshader_runs{0}, barriers{0};
};

// Per executor: options, the worker pool and its cores, the program cache.
struct VertexEngine {
  explicit VertexEngine(VertexOptions o);
  ~VertexEngine();
  VertexOptions options;
  uint64_t step_limit = kDefaultVertexStepLimit;
  ProgramCache programs;
  VertexCounters counters;
  std::mutex run_mu;  // one command at a time uses the workers
  std::unique_ptr<WorkerPool> pool;
  struct Worker;
  std::vector<std::unique_ptr<Worker>> workers;
  std::unique_ptr<usc::Core> preshader_core = std::make_unique<usc::Core>();
  RecordingMemory preshader_memory;
};

// The VDM State words in force (each the last value a VDM State block gave).
struct VdmWords {
  std::optional<cmdstream::VdmStateRestartIndex> restart_index;
  std::optional<cmdstream::VdmStateVertexShaderWord0> shader_0;
  std::optional<cmdstream::VdmStateVertexShaderWord1> shader_1;
  cmdstream::VdmStateVertexOutputs outputs{};
  cmdstream::VdmStateVertexUnknown unknown{};
};

// The vertex shader of a draw state: its word list read and its preshader
// run at the state's first draw.
struct VertexShader {
  UscState usc;
  ProgramPtr program;
  UscCounts counts;
};

// What the stream walk carries from block to block.
struct VdmRun {
  VdmRun(const kmd::FirmwareCommand& c, Scene& s, GpuFault* w) : cmd(c), scene(s), where(w) {}
  const kmd::FirmwareCommand& cmd;
  Scene& scene;
  GpuFault* where;
  PppWords ppp;
  VdmWords vdm;
  bool state_dirty = true;  // a state block came after the last draw state was made
  uint32_t state = 0;       // Scene::states index of the draw state in force
  OutputPlan plan;
  VertexShader shader;
};

// One Index List block as read.
struct IndexListBlock {
  GpuVa at = 0;
  cmdstream::IndexList header{};
  GpuVa index_buffer = 0;
  std::optional<uint32_t> count, instances, start, buffer_size_B;
  std::optional<GpuVa> indirect;
};

// Runs one draw (draw.cpp): resolves its counts, fetches indices, shades
// the distinct vertices of every instance and runs the primitive stage.
Status run_draw(VertexEngine& engine, VdmRun& run, const IndexListBlock& block);

// The draw state in force for a draw (draw_state.cpp): made, its slots and
// plan built and its vertex shader read (with its preshader run) at the
// first draw after a state block.
Status prepare_draw_state(VertexEngine& engine, VdmRun& run, GpuVa draw_at);

// Shades `vertex_ids` for `instances` instances (shade.cpp): item
// i * vertex_ids.size() + k is vertex k of instance i; its output words
// are outputs[item * count ...).
Status shade_vertices(VertexEngine& engine, VdmRun& run, GpuVa draw_at, std::span<const uint32_t> vertex_ids,
                      uint32_t instances, std::vector<uint32_t>& outputs);

// Walks the command's VDM stream (stream.cpp).
Status walk_vdm_stream(VertexEngine& engine, VdmRun& run);

}  // namespace agx::gpu::detail
