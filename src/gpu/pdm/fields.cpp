// The render command's register fields the fragment half does not model,
// held to the values Mesa gives them (docs/gpu.md, "Render command fields
// checked against Mesa"): ppp_ctrl, isp_merge_upper_x / _y and
// isp_zls_pixels. 0 in each reads as "not set" (the software GPU's own
// clients leave them so); any other value outside Mesa's faults naming the
// field.
#include <fmt/format.h>

#include <cstring>

#include "gpu/pdm/pdm_internal.h"

namespace agx::gpu::pdm {

namespace {

namespace cs = cmdstream;

// What Mesa sets (bminor/mesa-mesa src/gallium/drivers/asahi/agx_batch.c
// and src/asahi/vulkan/hk_queue.c fill the command; the words are
// src/asahi/genxml/cmdbuf.xml "CR PPP Control" and "CR ISP ZLS Pixels"):
// ppp_ctrl is always 0x202 (Enable W Clamp and Fixed point format 1);
// isp_merge_upper_x / _y are the float bits of tan(60 deg) as 1.732051f
// divided by the framebuffer's width / height (the UAPI header,
// torvalds/linux include/uapi/drm/asahi_drm.h, says "tan(60 deg) * width";
// Mesa's code divides, and Mesa is what the hardware runs).
constexpr uint32_t kMesaPppControl = 0x202;
constexpr float kMesaTan60 = 1.732051f;

uint32_t merge_upper(uint32_t size_px) {
  const float v = kMesaTan60 / float(size_px);
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  return bits;
}

Error invalid(GpuFault* where, Error e) {
  return fail(where, 0, GpuUnit::pdm, std::move(e).context("render command"));
}

}  // namespace

Status check_register_fields(const drm_asahi_cmd_render& r, GpuFault* where) {
  if (r.ppp_ctrl != 0 && r.ppp_ctrl != kMesaPppControl) {
    uint8_t raw[4];
    std::memcpy(raw, &r.ppp_ctrl, 4);
    auto w = cs::unpack<cs::CrPppControl>(raw);
    return invalid(where, Error::unsupported("ppp_ctrl 0x{:x} (OpenGL {}, Enable W Clamp {}, Default point size {}, "
                                             "Fixed point format {}): only Mesa's 0x{:x} (or 0) is modelled",
                                             r.ppp_ctrl, w ? int(w->opengl) : -1, w ? int(w->enable_w_clamp) : -1,
                                             w ? int(w->default_point_size) : -1,
                                             w ? int(w->fixed_point_format) : -1, kMesaPppControl));
  }
  const struct {
    const char* name;
    uint32_t value, size_px;
    const char* size;
  } merges[] = {{"isp_merge_upper_x", r.isp_merge_upper_x, r.width_px, "width"},
                {"isp_merge_upper_y", r.isp_merge_upper_y, r.height_px, "height"}};
  for (const auto& m : merges)
    if (m.value != 0 && m.size_px != 0 && m.value != merge_upper(m.size_px)) {
      float got;
      std::memcpy(&got, &m.value, 4);
      return invalid(where, Error::invalid_argument("{} 0x{:08x} ({}): Mesa sets 0x{:08x}, 1.732051f / {} {}",
                                                    m.name, m.value, got, merge_upper(m.size_px), m.size,
                                                    m.size_px));
    }
  if (r.isp_zls_pixels != 0) {
    uint8_t raw[4];
    std::memcpy(raw, &r.isp_zls_pixels, 4);
    auto z = read_word<cs::CrIspZlsPixels>(raw);
    if (!z) return invalid(where, std::move(z).error().context("isp_zls_pixels"));
    if (z->x != r.width_px || z->y != r.height_px)
      return invalid(where, Error::unsupported("isp_zls_pixels {}x{}: a depth / stencil buffer of another size "
                                               "than the render ({}x{}) is not modelled",
                                               z->x, z->y, r.width_px, r.height_px));
  }
  return {};
}

}  // namespace agx::gpu::pdm
