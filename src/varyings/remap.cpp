// Remapping: the slots an Output Select word makes of the vertex outputs.
// Seed "Ordering of remapped slots": W, optional Z, then user varyings in
// vertex output order; slots below the header's 32-bit count are 32-bit,
// the rest hold packed 16-bit pairs (one pair per slot, as the seed's table
// numbers them).
#include <fmt/format.h>

#include "cmdstream/cmdstream.h"
#include "varyings/internal.h"
#include "varyings/varyings.h"

namespace agx::varyings {

namespace cs = agx::cmdstream;

namespace {

unsigned count_kind(const VertexOutputLayout& l, OutputKind k) {
  unsigned n = 0;
  for (const OutputRange& r : l.outputs)
    if (r.kind == k) n += r.words;
  return n;
}

Status check_against_layout(const cs::OutputSelect& v, const VertexOutputLayout& l) {
  unsigned clip = count_kind(l, OutputKind::clip_distance);
  for (unsigned p = 0; p < kMaxClipDistances; ++p)
    if (clip_distance_plane(v, p) != (p < clip))
      return Error::invalid_argument(
          "Output Select: clip distance plane {} is {}, but the vertex shader writes {} clip "
          "distances", p, clip_distance_plane(v, p) ? "set" : "clear", clip);
  bool psiz = count_kind(l, OutputKind::point_size) > 0;
  if (v.point_size != psiz)
    return Error::invalid_argument("Output Select: point size is {}, but the vertex shader {}",
                                   v.point_size ? "set" : "clear",
                                   psiz ? "writes it" : "does not write it");
  bool lv = count_kind(l, OutputKind::layer_viewport) > 0;
  if (v.viewport_target != lv || v.render_target != lv)
    return Error::invalid_argument(
        "Output Select: viewport/render target bits must both be {} when the vertex shader {} "
        "layer/viewport", lv ? "set" : "clear", lv ? "writes" : "does not write");
  if (v.barycentric_coordinates)
    return Error::unsupported(
        "Output Select: where the barycentric coordinate slots go is not known publicly");
  return {};
}

}  // namespace

Result<SlotMap> remap(uint32_t output_select, const VertexOutputLayout& layout) {
  auto word = word_bytes(output_select);
  AGX_CHECK(cs::check_strict(cs::kOutputSelect, word));
  AGX_TRY(cs::OutputSelect v, cs::unpack<cs::OutputSelect>(word));
  AGX_CHECK(check_against_layout(v, layout));
  SlotMap m;
  m.slots.push_back({SlotSource::w});
  if (v.frag_coord_z) {
    m.slots.push_back({SlotSource::z});
    m.has_z = true;
  }
  if (v.varyings) {
    for (const OutputRange& r : layout.outputs) {
      if (r.kind != OutputKind::varying) continue;
      bool pair = r.index >= layout.first_16bit_index;
      for (unsigned w = 0; w < r.words; ++w)
        m.slots.push_back({pair ? SlotSource::pair16 : SlotSource::varying32, r.index + w,
                           r.varying, pair ? 2 * w : w});
    }
  }
  for (const Slot& s : m.slots) (s.source == SlotSource::pair16 ? m.num_16bit_pairs : m.num_32bit_slots)++;
  if (m.slots.size() > kMaxSlots || m.num_32bit_slots > kMax32BitSlots)
    return Error::limit("too many slots: {} ({} 32-bit); the hardware addresses {}",
                        m.slots.size(), m.num_32bit_slots, kMaxSlots);
  return m;
}

}  // namespace agx::varyings
