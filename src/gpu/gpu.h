// agx::gpu: the software AGX GPU behind the kmd's firmware interface.
//
// One folder per fixed-function unit, each with a public header
// (docs/gpu.md, "Layout"):
// - gpu/cdm/cdm.h: the CDM (Compute Data Master), the compute queue;
// - gpu/vdm/vdm.h, gpu/ppp/ppp.h: the vertex half of render commands (VDM
//   streams, vertex shaders, primitive assembly, clipping, culling,
//   viewport);
// - gpu/pdm/pdm.h, gpu/isp/isp.h, gpu/zls/zls.h: the fragment half (tiles,
//   background / end-of-tile programs, rasterization, depth / stencil,
//   fragment shaders);
// - gpu/texture/texture.h: the texture unit (texture_sample, texture_load)
//   and its USC hook; gpu/pbe/pbe.h: the PBE (image_write,
//   image_write_block);
// - gpu/shader/shader.h: the USC front end the data masters share;
// - gpu/render/scene.h, executor.h: the scene between the two halves and
//   the executor of all three firmware queues.
// This header ties them to the kmd: the executor kmd Devices get by default
// (agx_gpu_default) is a GpuExecutor with the texture unit attached.
#pragma once

#include <memory>

#include "gpu/cdm/cdm.h"
#include "gpu/pbe/pbe.h"
#include "gpu/pdm/pdm.h"
#include "gpu/render/executor.h"
#include "gpu/texture/texture.h"
#include "gpu/vdm/vdm.h"
#include "kmd/kmd.h"

namespace agx::gpu {

// The texture unit (TextureHook) for one worker of one launch, draw or tile.
FixedFunctionFactory texture_unit_factory();

// The executor kmd Devices get by default once agx_gpu_default is linked:
// a GpuExecutor (compute, vertex and fragment queues) with the texture unit
// attached to every shader.
std::shared_ptr<kmd::Executor> make_default_executor();

}  // namespace agx::gpu
