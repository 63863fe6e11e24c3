// agx::gpu: the software AGX GPU behind the kmd's firmware interface.
//
// One folder per fixed-function unit, each with a public header:
// - gpu/cdm/cdm.h: the CDM (Compute Data Master), the executor of the
//   firmware's compute queue;
// - gpu/texture/texture.h: the texture unit (texture_sample, texture_load)
//   and its USC hook;
// - gpu/pbe/pbe.h: the PBE (pixel back end: image_write, image_write_block).
// This header ties them to the kmd's firmware queues: the executor kmd
// Devices get by default (agx_gpu_default) is the CDM with the texture unit
// attached; the vertex and fragment queues are not executed yet. The
// planned render units (vdm/, ppp/, isp/, pdm/, zls/, tilebuffer/) are in
// docs/gpu.md.
#pragma once

#include <memory>

#include "gpu/cdm/cdm.h"
#include "gpu/pbe/pbe.h"
#include "gpu/texture/texture.h"
#include "kmd/kmd.h"

namespace agx::gpu {

// The texture unit (TextureHook) for one worker of one launch.
FixedFunctionFactory texture_unit_factory();

// The executor kmd Devices get by default once agx_gpu_default is linked:
// the CDM with the texture unit attached.
std::shared_ptr<kmd::Executor> make_default_executor();

}  // namespace agx::gpu
