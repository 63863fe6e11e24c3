// Remapping: the slots an Output Select word makes of the vertex outputs.
// Seed "Ordering of remapped slots": W, optional Z, then user varyings in
// vertex output order; slots below the header's 32-bit count are 32-bit,
// the rest hold packed 16-bit pairs (one pair per slot, as the seed's table
// numbers them).
#include <fmt/format.h>

#include "cmdstream/cmdstream.h"
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

Status check_against_layout(const cs::Values& v, const VertexOutputLayout& l) {
  unsigned clip = count_kind(l, OutputKind::clip_distance);
  for (unsigned p = 0; p < cs::kMaxClipDistances; ++p)
    if (bool(v[cs::kClipDistancePlane0 + p]) != (p < clip))
      return Error::invalid_argument(
          "Output Select: clip distance plane {} is {}, but the vertex shader writes {} clip "
          "distances", p, v[cs::kClipDistancePlane0 + p] ? "set" : "clear", clip);
  bool psiz = count_kind(l, OutputKind::point_size) > 0;
  if (bool(v[cs::kPointSize]) != psiz)
    return Error::invalid_argument("Output Select: point size is {}, but the vertex shader {}",
                                   v[cs::kPointSize] ? "set" : "clear",
                                   psiz ? "writes it" : "does not write it");
  bool lv = count_kind(l, OutputKind::layer_viewport) > 0;
  if (bool(v[cs::kViewportTarget]) != lv || bool(v[cs::kRenderTarget]) != lv)
    return Error::invalid_argument(
        "Output Select: viewport/render target bits must both be {} when the vertex shader {} "
        "layer/viewport", lv ? "set" : "clear", lv ? "writes" : "does not write");
  if (v[cs::kBarycentricCoordinates])
    return Error::unsupported(
        "Output Select: where the barycentric coordinate slots go is not known publicly");
  return {};
}

}  // namespace

Result<SlotMap> remap(uint32_t output_select, const VertexOutputLayout& layout) {
  AGX_TRY(cs::Values v, cs::unpack(cs::kOutputSelect, std::span<const uint32_t>(&output_select, 1)));
  AGX_CHECK(check_against_layout(v, layout));
  SlotMap m;
  m.slots.push_back({SlotSource::w});
  if (v[cs::kFragCoordZ]) {
    m.slots.push_back({SlotSource::z});
    m.has_z = true;
  }
  if (v[cs::kVaryings]) {
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
