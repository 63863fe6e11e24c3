// The PPP words' fields the fragment half reads only to check them
// (docs/gpu.md, "PPP fields held to Mesa's values"): Fragment control's
// Sample mask after depth/stencil and Pass type, Fragment face 2's Object
// type; and Tag write disable, which it models.
#include <fmt/format.h>

#include "gpu/pdm/pdm_internal.h"

namespace agx::gpu::pdm {

namespace cs = cmdstream;

// Mesa (bminor/mesa-mesa src/asahi/vulkan/hk_cmd_draw.c,
// src/gallium/drivers/asahi/agx_state.c) sets Tag write disable in the
// second Fragment control word of a draw without a fragment shader, under
// rasterizer discard, and from the shader's info; the words are merged, so
// either word's bit disables.
bool tag_write_disabled(const PppWords& w) {
  return w.fragment_control.tag_write_disable || w.fragment_control_2.tag_write_disable;
}

// Values from bminor/mesa-mesa src/asahi/genxml/cmdbuf.xml (enums "Pass
// type", "Object Type"); Sample mask after depth/stencil is never set by
// Mesa's drivers (src/asahi, src/gallium/drivers/asahi).
Status check_ppp_fields(const PppWords& w, uint32_t state, GpuFault* where) {
  auto bad = [&](const char* word, const char* field, const std::string& why) {
    return fail(where, 0, GpuUnit::pdm, Error::unsupported("draw state {}: {} {}: {}", state, word, field, why));
  };
  const std::pair<const char*, const cs::FragmentControl*> controls[] = {
      {"Fragment control", &w.fragment_control}, {"Fragment control 2", &w.fragment_control_2}};
  for (const auto& [name, c] : controls) {
    if (c->sample_mask_after_depth_stencil)
      return bad(name, "Sample mask after depth/stencil",
                 "set; Mesa never sets it and what it changes is not modelled");
    if (unsigned(c->pass_type) > unsigned(cs::PassType::kTranslucentPunchThrough))
      return bad(name, "Pass type",
                 fmt::format("{} is not a pass type (Opaque, Translucent, Punch through, Translucent punch "
                             "through)",
                             unsigned(c->pass_type)));
  }
  const std::pair<const char*, const cs::FragmentFace2*> faces[] = {{"Fragment face 2 (front)", &w.front_2},
                                                                    {"Fragment face 2 (back)", &w.back_2}};
  for (const auto& [name, f] : faces) {
    const cs::ObjectType t = f->object_type;
    if (t != cs::ObjectType::kTriangle && t != cs::ObjectType::kLine && t != cs::ObjectType::kPointSpriteUv10 &&
        t != cs::ObjectType::kPointSpriteUv01)
      return bad(name, "Object type",
                 fmt::format("{} is not an object type (Triangle, Line, Point sprite UV=10 or UV=01)", unsigned(t)));
  }
  return {};
}

}  // namespace agx::gpu::pdm
