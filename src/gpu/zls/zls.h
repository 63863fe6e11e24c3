// ZLS: the depth and stencil of a tile, loaded (or cleared) when the tile
// starts and stored when it ends, as the render command's zls_ctrl ("ZLS
// Control", bminor/mesa-mesa src/asahi/genxml/cmdbuf.xml) says: Z Load / S
// Load read the depth / stencil buffer, otherwise the tile starts at
// isp_bgobjdepth (Z Format 32F: f32 bits; 16: unorm16 in the low 16 bits)
// and the low 8 bits of isp_bgobjvals (Mesa's agx_batch.c / hk_cmd_buffer.c
// pack the clear values so); Z Store / S Store write them back. Buffers are
// laid out by the layout unit (Z32_FLOAT or Z16_UNORM and S8_UINT, GPU or
// twiddled tiling per direction, the command's sample count), layers
// `stride` bytes apart (the layout's layer stride when 0). Compressed
// buffers (the Compress bits) and resolves are not supported: a clear
// fault. Only pixels inside width_px x height_px are loaded and stored.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "agx/asahi_drm.h"
#include "cmdstream/typed.h"
#include "gpu/isp/isp.h"
#include "layout/layout.h"
#include "util/gpu_memory.h"
#include "util/result.h"

namespace agx::gpu {

// A tile's depth and stencil, per sample: index ((y * width + x) * samples + s).
struct DepthStencilTile {
  uint32_t width_px = 0, height_px = 0, samples = 1;
  std::vector<float> depth;
  std::vector<uint8_t> stencil;
  void reset(uint32_t w, uint32_t h, uint32_t s) {
    width_px = w;
    height_px = h;
    samples = s;
    depth.assign(size_t(w) * h * s, 0.0f);
    stencil.assign(size_t(w) * h * s, 0);
  }
  size_t index(uint32_t x, uint32_t y, uint32_t s) const { return (size_t(y) * width_px + x) * samples + s; }
};

// What the command's ZLS fields say, checked once per command.
struct ZlsPlan {
  cmdstream::ZlsControl control{};
  DepthFormat depth_format = DepthFormat::f32;
  float clear_depth = 0;
  uint8_t clear_stencil = 0;
  uint32_t width_px = 0, height_px = 0;
  drm_asahi_zls_buffer depth{}, stencil{};
  std::optional<layout::Layout> depth_load, depth_store, stencil_load, stencil_store;
};

// Unpacks zls_ctrl and lays out the buffers it loads or stores. A
// compressed buffer, a resolve, or a load/store of a buffer at address 0 is
// an error naming the field.
Result<ZlsPlan> plan_zls(const drm_asahi_cmd_render& r);

// Loads (or clears) the tile at pixel (x0, y0) of `layer`; a fault fills *where.
Status zls_load(GpuMemory& m, const ZlsPlan& plan, int32_t x0, int32_t y0, uint32_t layer,
                DepthStencilTile& tile, GpuFault* where);
// Stores the tile as the plan says.
Status zls_store(GpuMemory& m, const ZlsPlan& plan, int32_t x0, int32_t y0, uint32_t layer,
                 const DepthStencilTile& tile, GpuFault* where);

}  // namespace agx::gpu
