// The software GPU's firmware executor: the three queues of the kmd's
// firmware interface tied to their units. The compute queue runs on the
// CDM (gpu/cdm); the vertex half of a render command on the VDM and the
// PPP (gpu/vdm, gpu/ppp), which leave a Scene (gpu/render/scene.h); the
// fragment half on the ISP, PDM and ZLS (gpu/isp, gpu/pdm, gpu/zls),
// which draw that scene. The kmd runs a render command's fragment half
// after its vertex half (an implicit barrier: kmd/plan.cpp), so the scene
// is handed over by the command's identity (queue, submit, command).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "gpu/cdm/cdm.h"
#include "gpu/pdm/pdm.h"
#include "gpu/render/scene.h"
#include "gpu/vdm/vdm.h"
#include "kmd/kmd.h"

namespace agx::gpu {

struct GpuOptions {
  unsigned threads = 0;     // per unit's worker pool; 0: AGX_GPU_THREADS, else the host's cores
  uint64_t step_limit = 0;  // per SIMD group; 0: AGX_GPU_STEP_LIMIT or the default
  FixedFunctionFactory fixed_function;  // the texture unit, for every kind of shader
};

struct GpuStats {
  CdmStats compute;
  VertexStats vertex;
  FragmentStats fragment;
  uint64_t scenes_pending = 0;  // vertex halves whose fragment half has not run
};

class GpuExecutor final : public kmd::Executor {
 public:
  explicit GpuExecutor(GpuOptions options = {});
  bool execute(const kmd::FirmwareCommand& command, GpuFault* fault) override;
  GpuStats stats() const;

 private:
  using Key = std::tuple<uint32_t, uint64_t, uint32_t>;  // queue, submit, command
  CdmExecutor cdm_;
  VertexPipeline vertex_;
  FragmentPipeline fragment_;
  mutable std::mutex mu_;
  std::map<Key, std::shared_ptr<const Scene>> scenes_;
};

}  // namespace agx::gpu
