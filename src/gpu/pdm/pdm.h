// The PDM (Pixel Data Master): the fragment half of a render command. Over
// the scene its vertex half left (gpu/render/scene.h) it walks the render
// target tile by tile, each layer: ZLS load (gpu/zls) -> background program
// -> every primitive touching the tile in submission order (coverage and
// depth / stencil by the ISP, gpu/isp; fragment shaders in 2x2 quads on the
// USC) -> end-of-tile program -> ZLS store. Tiles run in parallel on the
// worker pool; results do not depend on the number of workers. See
// docs/gpu.md, "The fragment half".
#pragma once

#include <cstdint>
#include <memory>

#include "gpu/render/scene.h"
#include "gpu/shader/shader.h"
#include "kmd/kmd.h"

namespace agx::gpu {

struct FragmentOptions {
  unsigned threads = 0;      // workers; 0: AGX_GPU_THREADS, else the host's cores
  uint64_t step_limit = 0;   // instructions per SIMD group; 0: AGX_GPU_STEP_LIMIT, else 50 million
  FixedFunctionFactory fixed_function;  // the texture unit (texture_unit_factory())
  // Partial renders: the scene is split after every N primitives (in
  // submission order), as the hardware splits it when the tiler's memory
  // is full: every tile runs partial_eot, ZLS store, ZLS load, partial_bg
  // between the parts. 0: AGX_GPU_PARTIAL_RENDER=N, else never split.
  uint64_t partial_render_every = 0;
};

struct FragmentStats {
  uint64_t commands = 0;
  uint64_t tiles = 0;
  uint64_t primitives_binned = 0;  // (primitive, tile) pairs
  uint64_t quads_shaded = 0;
  uint64_t samples_passed = 0;     // samples that passed the depth / stencil tests
  uint64_t partial_renders = 0;    // tile splits (a tile stored and resumed once)
  uint64_t faults = 0;
};

class FragmentPipeline {
 public:
  explicit FragmentPipeline(FragmentOptions options = {});
  ~FragmentPipeline();
  FragmentPipeline(const FragmentPipeline&) = delete;
  FragmentPipeline& operator=(const FragmentPipeline&) = delete;

  // The fragment half of a render command (cmd.render, cmd.memory,
  // cmd.usc_exec_base) over the scene its vertex half left. A fault fills
  // *where and returns the error.
  Status run(const kmd::FirmwareCommand& cmd, const Scene& scene, GpuFault* where);
  FragmentStats stats() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace agx::gpu
