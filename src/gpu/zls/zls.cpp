// ZLS load and store of one tile (zls.h; docs/gpu.md, "ZLS").
#include "gpu/zls/zls.h"

#include <bit>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "gpu/shader/shader.h"

namespace agx::gpu {

namespace cs = cmdstream;

namespace {

Result<layout::Layout> zls_layout(format::Format f, const drm_asahi_cmd_render& r, cs::ZlsTiling tiling,
                                  const char* what) {
  layout::Request q;
  q.format = f;
  q.width_px = r.width_px;
  q.height_px = r.height_px;
  q.depth_px = std::max<uint32_t>(1, r.layers);
  q.sample_count_sa = r.samples;
  q.tiling = tiling == cs::ZlsTiling::kTwiddled ? layout::Tiling::twiddled : layout::Tiling::gpu;
  q.renderable = true;
  auto l = layout::make_layout(q);
  if (!l) return std::move(l).error().context(fmt::format("the {} buffer", what));
  return l;
}

struct Plane {
  const drm_asahi_zls_buffer* buffer;
  const layout::Layout* layout;
  uint32_t element_B;  // bytes of one sample
};

// The byte address of sample s of pixel (x, y) of `layer`.
Result<GpuVa> sample_address(const Plane& p, uint32_t x, uint32_t y, uint32_t layer, uint32_t s) {
  AGX_TRY(uint64_t off, layout::element_address_B(*p.layout, x, y, 0, 0, s));
  const uint64_t stride = p.buffer->stride ? p.buffer->stride : p.layout->layer_stride_B;
  return p.buffer->base + uint64_t(layer) * stride + off;
}

// Calls fn(x, y, s, address) for every sample of the tile inside the
// framebuffer.
template <class F>
Status each_sample(const ZlsPlan& plan, const Plane& p, int32_t x0, int32_t y0, uint32_t layer, uint32_t w,
                   uint32_t h, uint32_t samples, F&& fn) {
  for (uint32_t y = 0; y < h; ++y) {
    const int64_t py = int64_t(y0) + y;
    if (py < 0 || py >= plan.height_px) continue;
    for (uint32_t x = 0; x < w; ++x) {
      const int64_t px = int64_t(x0) + x;
      if (px < 0 || px >= plan.width_px) continue;
      for (uint32_t s = 0; s < samples; ++s) {
        AGX_TRY(GpuVa va, sample_address(p, uint32_t(px), uint32_t(py), layer, s));
        AGX_CHECK(fn(x, y, s, va));
      }
    }
  }
  return {};
}

Status access(GpuMemory& m, GpuVa va, void* bytes, size_t n, bool write, GpuFault* where) {
  GpuFault f;
  const bool ok = write ? m.write(va, bytes, n, GpuUnit::isp, &f) : m.read(va, bytes, n, GpuUnit::isp, &f);
  if (ok) return {};
  if (where) *where = f;
  return Error::fault("ZLS {} of {} bytes at 0x{:x}: {}", write ? "store" : "load", n, va, describe(f));
}

uint32_t depth_bytes(DepthFormat f) { return f == DepthFormat::f32 ? 4 : 2; }

}  // namespace

Result<ZlsPlan> plan_zls(const drm_asahi_cmd_render& r) {
  ZlsPlan p;
  uint8_t raw[8];
  std::memcpy(raw, &r.zls_ctrl, sizeof raw);
  AGX_TRY(p.control, read_word<cs::ZlsControl>(raw));
  const cs::ZlsControl& c = p.control;
  if (c.z_load_compress || c.z_store_compress || c.s_load_compress || c.s_store_compress)
    return Error::unsupported("zls_ctrl asks for a compressed depth or stencil buffer, which the ZLS does not "
                              "support (compression metadata layout not modelled)");
  if (c.z_resolve || c.s_resolve)
    return Error::unsupported("zls_ctrl asks for a depth or stencil resolve, which the ZLS does not support");
  if (c.z_format != cs::ZlsFormat::k32F && c.z_format != cs::ZlsFormat::k16)
    return Error::decode("zls_ctrl Z Format {} is not 32F or 16", unsigned(c.z_format));
  p.depth_format = c.z_format == cs::ZlsFormat::k16 ? DepthFormat::unorm16 : DepthFormat::f32;
  p.clear_depth = p.depth_format == DepthFormat::f32 ? std::bit_cast<float>(r.isp_bgobjdepth)
                                                     : float((r.isp_bgobjdepth & 0xFFFF) / 65535.0);
  p.clear_stencil = uint8_t(r.isp_bgobjvals & 0xFF);
  p.width_px = r.width_px;
  p.height_px = r.height_px;
  p.depth = r.depth;
  p.stencil = r.stencil;
  const format::Format zf =
      p.depth_format == DepthFormat::f32 ? format::Format::Z32_FLOAT : format::Format::Z16_UNORM;
  if ((c.z_load || c.z_store) && r.depth.base == 0)
    return Error::invalid_argument("zls_ctrl loads or stores depth but depth.base is 0");
  if ((c.s_load || c.s_store) && r.stencil.base == 0)
    return Error::invalid_argument("zls_ctrl loads or stores stencil but stencil.base is 0");
  if (c.z_load) { AGX_TRY(p.depth_load, zls_layout(zf, r, c.z_load_tiling, "depth")); }
  if (c.z_store) { AGX_TRY(p.depth_store, zls_layout(zf, r, c.z_store_tiling, "depth")); }
  if (c.s_load) { AGX_TRY(p.stencil_load, zls_layout(format::Format::S8_UINT, r, c.s_load_tiling, "stencil")); }
  if (c.s_store) { AGX_TRY(p.stencil_store, zls_layout(format::Format::S8_UINT, r, c.s_store_tiling, "stencil")); }
  return p;
}

Status zls_load(GpuMemory& m, const ZlsPlan& plan, int32_t x0, int32_t y0, uint32_t layer, DepthStencilTile& t,
                GpuFault* where) {
  std::fill(t.depth.begin(), t.depth.end(), plan.clear_depth);
  std::fill(t.stencil.begin(), t.stencil.end(), plan.clear_stencil);
  if (plan.depth_load) {
    const Plane p{&plan.depth, &*plan.depth_load, depth_bytes(plan.depth_format)};
    AGX_CHECK(each_sample(plan, p, x0, y0, layer, t.width_px, t.height_px, t.samples,
                          [&](uint32_t x, uint32_t y, uint32_t s, GpuVa va) -> Status {
                            uint32_t bits = 0;
                            AGX_CHECK(access(m, va, &bits, p.element_B, false, where));
                            t.depth[t.index(x, y, s)] = plan.depth_format == DepthFormat::f32
                                                            ? std::bit_cast<float>(bits)
                                                            : float(bits / 65535.0);
                            return {};
                          }));
  }
  if (plan.stencil_load) {
    const Plane p{&plan.stencil, &*plan.stencil_load, 1};
    AGX_CHECK(each_sample(plan, p, x0, y0, layer, t.width_px, t.height_px, t.samples,
                          [&](uint32_t x, uint32_t y, uint32_t s, GpuVa va) -> Status {
                            return access(m, va, &t.stencil[t.index(x, y, s)], 1, false, where);
                          }));
  }
  return {};
}

Status zls_store(GpuMemory& m, const ZlsPlan& plan, int32_t x0, int32_t y0, uint32_t layer,
                 const DepthStencilTile& t, GpuFault* where) {
  if (plan.depth_store) {
    const Plane p{&plan.depth, &*plan.depth_store, depth_bytes(plan.depth_format)};
    AGX_CHECK(each_sample(plan, p, x0, y0, layer, t.width_px, t.height_px, t.samples,
                          [&](uint32_t x, uint32_t y, uint32_t s, GpuVa va) -> Status {
                            const float z = t.depth[t.index(x, y, s)];
                            uint32_t bits = plan.depth_format == DepthFormat::f32
                                                ? std::bit_cast<uint32_t>(z)
                                                : uint32_t(std::nearbyint(double(z) * 65535.0));
                            return access(m, va, &bits, p.element_B, true, where);
                          }));
  }
  if (plan.stencil_store) {
    const Plane p{&plan.stencil, &*plan.stencil_store, 1};
    AGX_CHECK(each_sample(plan, p, x0, y0, layer, t.width_px, t.height_px, t.samples,
                          [&](uint32_t x, uint32_t y, uint32_t s, GpuVa va) -> Status {
                            uint8_t v = t.stencil[t.index(x, y, s)];
                            return access(m, va, &v, 1, true, where);
                          }));
  }
  return {};
}

}  // namespace agx::gpu
