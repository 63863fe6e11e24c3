// The VDM (Vertex Data Master) of the software GPU: the vertex half of a
// render command. gpu::VertexPipeline walks the VDM control stream of
// drm_asahi_cmd_render (the cmdstream unit's stream walker), keeps the VDM
// and PPP state words in force, and for each Index List fetches the
// indices, runs the vertex shader of each distinct vertex on the USC
// emulator (SIMD groups of 32 on worker threads) and hands the shaded
// vertices to the PPP's primitive stage (gpu/ppp/ppp.h), which fills the
// scene the fragment half reads (gpu/render/scene.h). docs/gpu.md ("The
// VDM") describes every block and the choices made where the hardware is
// not publicly known.
//
// The public header of src/gpu/vdm/; vdm_internal.h is private to it.
#pragma once

#include <cstdint>
#include <memory>

#include "gpu/render/scene.h"
#include "gpu/shader/shader.h"
#include "kmd/kmd.h"

namespace agx::gpu {

inline constexpr uint64_t kDefaultVertexStepLimit = 50'000'000;  // per SIMD group
inline constexpr uint32_t kDefaultVdmBlockLimit = 1u << 20;       // blocks per command
inline constexpr uint64_t kDefaultDrawElementLimit = 1ull << 24;  // elements x instances per draw
inline constexpr uint64_t kDefaultShadedWordLimit = 1ull << 26;   // output words of a draw's shaded vertices
inline constexpr unsigned kMaxVdmCallDepth = 8;                   // Stream Link with return

struct VertexOptions {
  unsigned threads = 0;      // worker threads; 0: AGX_GPU_THREADS, else the host's cores
  uint64_t step_limit = 0;   // instructions per SIMD group; 0: AGX_GPU_STEP_LIMIT or the default
  FixedFunctionFactory fixed_function;  // the texture unit for vertex shaders (null: texture ops fault)
  uint32_t stream_block_limit = kDefaultVdmBlockLimit;
  uint64_t draw_element_limit = kDefaultDrawElementLimit;
  uint64_t shaded_word_limit = kDefaultShadedWordLimit;  // distinct vertices x instances x output words
};

// Counters since the pipeline was made.
struct VertexStats {
  uint64_t commands = 0;
  uint64_t draws = 0;            // Index Lists run
  uint64_t vertices_shaded = 0;  // vertex shader invocations
  uint64_t primitives_in = 0;    // assembled
  uint64_t primitives_out = 0;   // added to scenes
  uint64_t faults = 0;
  uint64_t preshader_runs = 0;   // one per draw state whose shader has a preshader
  uint64_t barriers = 0;
};

class VertexPipeline {
 public:
  explicit VertexPipeline(VertexOptions options = {});
  ~VertexPipeline();
  VertexPipeline(const VertexPipeline&) = delete;
  VertexPipeline& operator=(const VertexPipeline&) = delete;

  // The vertex half of a render command (cmd.render, cmd.memory,
  // cmd.usc_exec_base): walks the VDM stream at
  // cmd.render->vdm_ctrl_stream_base and fills `scene`. A fault fills
  // *where (address, unit vdm/ppp/usc, a reason naming the block) and
  // returns the error; the scene then holds the draws before the fault.
  Status run(const kmd::FirmwareCommand& cmd, Scene& scene, GpuFault* where);

  VertexStats stats() const;
  unsigned threads() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace agx::gpu
